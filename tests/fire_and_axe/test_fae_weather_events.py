"""F6: what the weather's events say (the Wind Dial's new holes, a check only past the Fair
Weather Days, losses and a ship lost to the weather named as such)."""

from __future__ import annotations

from engine.fire_and_axe.ids import CREW, EAST, SOUTH, WEST, ZONE_NAMES
from engine.fire_and_axe.state import Step
from engine.fire_and_axe.weather import turn_dial
from tests.fire_and_axe.fae_support import K, act, loc, of_type, record, scenario, seats


def test_a_whole_turn_of_the_dial_is_no_turn_and_says_nothing() -> None:
    s = scenario()
    events = record(s)
    for quarters in (4, -4, 8, 0):
        turn_dial(s, 0, quarters, "rune_effect")
    assert s.dial == SOUTH and events == []


def test_a_dial_turn_names_both_holes_and_the_fair_weather_days() -> None:
    s = scenario()
    events = record(s)
    turn_dial(s, 1, 1, "rune_played")  # clockwise: blue South -> West, red North -> East
    turn_dial(s, 1, -2, "rune_effect")  # two back: blue East, red West
    first, second = of_type(events, "dial_turned")
    assert (first["blue"], first["red"], first["quarters"]) == ("west", "east", 1)
    assert first["fwd"] == list(s.board.fwd[WEST])
    assert (second["blue"], second["red"], second["quarters"]) == ("east", "west", -2)
    assert second["fwd"] == list(s.board.fwd[EAST]) and s.dial == EAST
    for event in (first, second):
        blue = ZONE_NAMES.index(event["blue"])
        assert event["red"] == ZONE_NAMES[(blue + 2) % 4]


def test_a_sail_that_reaches_the_fair_weather_days_exactly_checks_nothing() -> None:
    # F6.3: losses only when Sailing is *greater than* the zone's Fair Weather Days.
    s = scenario(days={"sailing": 1}, seats=seats({"location": "Norway", "crew": 3}))
    events = record(s)
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # Sailing 2 = North's 2
    assert of_type(events, "weather") == [] and s.step == Step.MAIN
    act(s, K.SAIL, loc(s, "norway"))  # Sailing 3 > 2 (Norway is in the North): the skull at 1
    (checked,) = of_type(events, "weather")
    assert (checked["excess"], checked["skulls"], checked["zone"]) == (1, [1], "north")
    assert s.seats[0].crew == 2  # only crew aboard: the loss was taken at once


def test_items_and_a_ship_lost_to_the_weather_say_so() -> None:
    s = scenario(days={"sailing": 2}, seats=seats({"location": "Norway", "crew": 1}))
    events = record(s)
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # only crew aboard: taken at once
    (lost,) = of_type(events, "item_lost")
    assert (lost["item"], lost["cause"]) == ("crew", "weather")
    (ship,) = of_type(events, "ship_lost")
    assert ship["cause"] == "weather" and ship["location"] == loc(s, "n-norwegian-sea")
    s = scenario(
        days={"sailing": 2}, seats=seats({"location": "Norway", "crew": 2, "goods": {"fish": 1}})
    )
    events = record(s)
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    act(s, K.LOSE, CREW)
    assert [e["cause"] for e in of_type(events, "item_lost")] == ["weather"]
    assert of_type(events, "ship_lost") == []
