"""Sailing, the weather, Tasks and turns at the boundary (sailing, weather, tasks, turns,
wintering, scoring): the cases the mutation run found untested."""

from __future__ import annotations

from engine.fire_and_axe import flow
from engine.fire_and_axe.ids import FISH
from engine.fire_and_axe.state import EndReason, Step
from engine.fire_and_axe.view import view
from tests.fire_and_axe.fae_support import (
    K,
    act,
    legal,
    loc,
    of_type,
    record,
    rig,
    rune,
    scenario,
    seat,
    seats,
)


def test_an_occupied_port_is_skipped_but_the_ports_after_it_are_offered() -> None:
    """F2.6: a port holds one ship; the others next to the water space stay open."""
    s = scenario(
        seats=seats({"location": "w-irish-sea", "crew": 1}, {"location": "Iona", "crew": 1})
    )
    near = s.board.adjacent[loc(s, "w-irish-sea")]
    assert near.index(loc(s, "iona")) < near.index(loc(s, "cork"))
    sails = {a.a for a in legal(s) if a.kind == K.SAIL}
    assert sails == set(near) - {loc(s, "iona")}


# -- an attack's bonus lasts that attack (F7.4c) and a turn's Runes that turn (F10.3) -------


def test_a_raid_that_fails_three_times_ends_and_takes_its_bonus_with_it() -> None:
    """Berserkers help one attack: after three failed rolls the Raid is over, and a second
    Raid there (Second Wind) rolls without the bonus."""
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats({"location": "Dublin", "crew": 5, "hand": ["berserkers", "second-wind"]}),
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "berserkers"), 0, 0)
    rig(s, 1, 1, 1, 3)
    act(s, K.RAID)
    act(s, K.RAID_AGAIN)
    act(s, K.RAID_AGAIN)  # the third roll: 1 + 1 is not above 3
    assert s.step == Step.MAIN and s.seats[0].crew == 2
    assert view(s)["attack"] is None and view(s)["attack_bonus"] == 0
    act(s, K.PLAY_RUNE, rune(s, "second-wind"), 0, 0)
    act(s, K.RAID)
    rolls = of_type(events, "raid_roll")
    assert [(r["roll"], r["bonus"], r["attempt"]) for r in rolls] == [
        (1, 1, 1),
        (1, 1, 2),
        (1, 1, 3),
        (3, 0, 1),
    ]
    assert not rolls[-1]["success"] and s.town[loc(s, "dublin")] == 1


def test_a_settle_uses_up_the_bonus() -> None:
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats({"location": "Man", "crew": 3, "hand": ["berserkers"]}),
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "berserkers"), 0, 0)
    rig(s, 6, 3)
    act(s, K.SETTLE, 1)
    assert s.settler[loc(s, "man")] == 0
    assert view(s)["attack_bonus"] == 0
    act(s, K.SAIL, loc(s, "w-irish-sea"))
    act(s, K.SAIL, loc(s, "dublin"))
    assert s.step == Step.MAIN
    act(s, K.RAID)  # 3 + 0 is not above 3
    (settle,) = of_type(events, "settle_roll")
    (roll,) = of_type(events, "raid_roll")
    assert (settle["bonus"], roll["roll"], roll["bonus"], roll["success"]) == (1, 3, 0, False)


def test_a_bonus_not_used_ends_with_the_turn() -> None:
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats(
            {"location": "Paris", "crew": 2, "hand": ["berserkers"]},
            {"location": "Dublin", "crew": 2},
        ),
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "berserkers"), 0, 0)
    assert s.attack_bonus == 1
    act(s, K.END_TURN)
    assert seat(s) == 1 and view(s)["attack_bonus"] == 0
    rig(s, 3)
    act(s, K.RAID)
    (roll,) = of_type(events, "raid_roll")
    assert (roll["seat"], roll["bonus"], roll["success"]) == (1, 0, False)


def test_calm_weather_not_used_ends_with_the_turn() -> None:
    s = scenario(
        seats=seats(
            {"location": "w-north-sea", "crew": 2, "hand": ["calm-seas"]},
            {"location": "w-irish-sea", "crew": 2},
        ),
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "calm-seas"), 0, 0)
    act(s, K.END_TURN)
    assert seat(s) == 1 and view(s)["calm"] is False
    act(s, K.SAIL, loc(s, "w-channel"))
    assert of_type(events, "weather_skipped") == []


# -- a game that ends inside a Rune window (A8, F12.4) --------------------------------------


def test_a_rune_that_ends_the_game_in_a_window_closes_the_window() -> None:
    """Seat 1 answers seat 0's Sail with Change of Demand and takes the last free fish: the
    last Saga (Shetland still needs a token, and only fish could go there) becomes impossible,
    the deck is empty, so the game ends (F12.4) and nobody is asked any more."""
    fish = ["lindisfarne", "paris", "rome", "arles", "hedeby", "visby", "brattahlid"]
    fish += ["halogaland", "kiev", "dublin"]
    s = scenario(
        options={"rune_timing": "any_time"},
        demand="tusk",
        goods={"faroe": "tusk", "orkney": "fur", **{p: "fish" for p in fish}},
        sagas={"spaces": ["i-island-trade", None, None], "deck": []},
        seats=[
            {"location": "w-north-sea", "crew": 2},
            {"location": "e-rivers", "crew": 1, "hand": ["change-of-demand"]},
            {},
        ],
    )
    assert s.supply[FISH] == 1
    act(s, K.SAIL, loc(s, "w-channel"))
    assert s.step == Step.WINDOW and s.window == [1]
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "change-of-demand"), 0, FISH)
    assert [e["why"] for e in of_type(events, "saga_discarded")] == ["impossible"]
    assert s.step == Step.GAME_OVER and s.end_reason == EndReason.SAGAS_DONE
    assert s.window == [] and view(s)["window"] == [] and flow.awaiting(s) == []


# -- how a turn ended (F10.1) ----------------------------------------------------------------


def test_each_way_a_turn_ends_is_named_in_its_event() -> None:
    """F10.2c declared, F10.2a the last crewmember lost, F10.2b / F8.4 the voluntary return."""
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 2}, {"location": "Paris"}))
    events = record(s)
    act(s, K.END_TURN)
    assert [(e["seat"], e["how"]) for e in of_type(events, "turn_end")] == [(0, "declared")]
    act(s, K.WINTER)
    assert [(e["seat"], e["how"]) for e in of_type(events, "turn_end")][1:] == [(1, "voluntary")]
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats({"location": "Dublin", "crew": 1}),
    )
    events = record(s)
    rig(s, 1)
    act(s, K.RAID)
    (end,) = of_type(events, "turn_end")
    assert (end["seat"], end["how"]) == (0, "last_crew") and s.seats[0].loc == -1
