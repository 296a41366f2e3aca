"""F6 weather and losses, one test per rule id."""

from __future__ import annotations

from engine.fire_and_axe.ids import CREW, EAST, FISH, NORTH, SOUTH, WEST, WINTERING
from engine.fire_and_axe.state import Step
from engine.fire_and_axe.weather import turn_dial
from tests.fire_and_axe.fae_support import (
    K,
    act,
    legal,
    loc,
    of_type,
    record,
    rune,
    scenario,
    seat,
    seats,
)


def test_f6_1_quarter_turns_both_ways() -> None:
    s = scenario()
    turn_dial(s, 0, 1, "test")
    assert s.dial == WEST
    turn_dial(s, 0, 1, "test")
    assert s.dial == NORTH
    turn_dial(s, 0, -1, "test")
    turn_dial(s, 0, -1, "test")
    turn_dial(s, 0, -1, "test")
    assert s.dial == EAST
    turn_dial(s, 0, 4, "test")
    assert s.dial == EAST


def test_f6_2_fair_weather_days_of_a_zone() -> None:
    s = scenario(dial="north")
    fwd = s.board.fwd[s.dial]
    assert (fwd[NORTH], fwd[SOUTH], fwd[EAST], fwd[WEST]) == (4, 4, 4, 5)


def test_f6_3_the_zone_moved_into_counts() -> None:
    # Sailing 3: the West (5) is safe, the North (2) is not, wherever the ship came from.
    s = scenario(days={"sailing": 2}, seats=seats({"location": "w-north-sea", "crew": 2}))
    act(s, K.SAIL, loc(s, "w-north-atlantic"))
    assert s.step == Step.MAIN
    s = scenario(days={"sailing": 2}, seats=seats({"location": "w-north-sea", "crew": 2}))
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    assert s.chart == [0, 0, 0, 1] and s.seats[0].crew == 1  # only crew: taken at once


def test_f6_3_only_the_sailing_marker_counts() -> None:
    s = scenario(days={"preparation": 5, "sailing": 1}, seats=seats({"location": "Norway"}))
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # Sailing 2 = North's FWD
    assert s.step == Step.MAIN


def test_f6_3_a_later_turn_of_the_dial_costs_nothing() -> None:
    s = scenario(
        dial="north",
        days={"sailing": 3},
        seats=seats({"location": "Norway", "crew": 2, "hand": ["storm"]}),
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # Sailing 4 = North's best
    act(s, K.PLAY_RUNE, rune(s, "storm"), 0, 1)  # North now shows its worst, 2
    assert s.board.fwd[s.dial][NORTH] == 2 and s.step == Step.MAIN and s.chart == [0, 0, 0, 0]


def test_f6_4_each_skull_once_per_turn_and_those_on_its_left() -> None:
    s = scenario(
        days={"sailing": 6},
        seats=seats({"location": "Norway", "crew": 4, "goods": {"fish": 1}}),
    )
    events = record(s)
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # excess 7 - 2 = 5: skulls 1, 3 and 5
    assert of_type(events, "weather")[0]["skulls"] == [1, 3, 5]
    assert s.pending_losses == 3
    act(s, K.LOSE, FISH)
    # Only crew left: the two other losses leave no choice and are taken at once.
    assert s.step == Step.MAIN and s.seats[0].crew == 2 and s.chart == [0, 1, 0, 2]


def test_f6_4_covered_skulls_are_ignored() -> None:
    s = scenario(
        days={"sailing": 3},
        skulls_covered=[1],
        seats=seats({"location": "Norway", "crew": 3}),
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # excess 2: the skull at 1 is covered already
    assert s.step == Step.MAIN and s.seats[0].crew == 3


def test_f6_5_the_player_chooses_and_may_lose_the_last_crewmember() -> None:
    s = scenario(
        days={"sailing": 2},
        seats=seats({"location": "Norway", "crew": 1, "goods": {"fish": 2}}),
    )
    supply = list(s.supply)
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    assert {a.a for a in legal(s)} == {FISH, CREW}
    act(s, K.LOSE, CREW)
    p = s.seats[0]
    assert (p.loc, p.crew, p.cargo) == (WINTERING, 0, [0, 0, 0])
    assert s.supply[FISH] == supply[FISH] + 2 and seat(s) == 1


def test_f6_6_the_losses_chart_is_emptied_at_the_end_of_the_turn() -> None:
    s = scenario(
        days={"sailing": 2},
        seats=seats({"location": "Norway", "crew": 3, "goods": {"fish": 1, "fur": 1}}),
    )
    supply = s.supply[FISH]
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    act(s, K.LOSE, FISH)
    assert s.chart == [0, 1, 0, 0] and s.supply[FISH] == supply
    act(s, K.SAIL, loc(s, "norway"))  # excess 2: nothing new
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # excess 3: the skull at 3
    act(s, K.LOSE, CREW)
    crew_supply = s.seats[0].crew_supply
    events = record(s)
    act(s, K.END_TURN)
    assert of_type(events, "turn_end")[0]["chart"] == [0, 1, 0, 1]
    assert s.supply[FISH] == supply + 1 and s.seats[0].crew_supply == crew_supply + 1
    assert s.chart == [0, 0, 0, 0] and s.skulls_covered == 0
