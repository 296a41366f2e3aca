"""Scenarios: a human-written position is built as written, and impossible ones are refused
with a message that says what and where."""

from __future__ import annotations

import json

import pytest

from engine.core.errors import ScenarioError
from engine.fire_and_axe.ids import FISH, TUSK, WEST, WINTERING
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.state import Step
from tests.fire_and_axe.fae_support import loc, saga, scenario, seats


def refused(message: str, **fields: object) -> None:
    with pytest.raises(ScenarioError, match=message):
        scenario(**fields)


def test_a_position_as_written() -> None:
    s = scenario(
        players=4,
        seed=3,
        first_player=2,
        turn=3,
        dial="West",
        demand="tusk",
        days={"preparation": 1, "sailing": 2},
        goods={"Horn": "fish"},
        settlements={"Man": 1},
        towns={"Bayeux": 5},
        sagas={"spaces": ["ii-paris", None, "i-bayeux"], "deck": ["iii-rus"]},
        final_markers={},
        seats=seats(
            {"location": "wintering", "crew": 1},
            {"location": "Dublin", "crew": 2, "hand": ["Storm (demo)", "ambush"], "vp": 9},
            {"location": "norway", "crew": 1, "towns": [{"port": "Rome", "treasure": 7}]},
            {"location": "w_north_sea", "crew": 1, "goods": {"fur": 2}},
            players=4,
        ),
    )
    assert (s.players, s.first_player, s.turn, s.dial, s.demand) == (4, 2, 3, WEST, TUSK)
    assert (s.prep, s.sail, s.age, s.step) == (1, 2, 2, Step.MAIN)
    assert s.goods[loc(s, "horn")] == FISH and s.settler[loc(s, "man")] == 1
    assert s.treasure[loc(s, "bayeux")] == 5 and s.treasure[loc(s, "rome")] == 7
    assert s.town[loc(s, "rome")] == 0 and s.seats[2].towns == [loc(s, "rome")]
    assert s.saga_deck == [saga(s, "iii-rus")] and s.saga_spaces[1] == -1
    assert s.seats[1].vp == 9 and len(s.seats[1].hand) == 2 and s.seats[0].loc == WINTERING
    assert s.supply == [10, 10, 9] and s.seats[1].crew_supply == 12
    assert len(s.rune_deck) == 31


def test_defaults_are_those_of_a_set_up() -> None:
    s = scenario(players=2)
    assert s.age == 1 and all(s.board.sagas[c].age == 1 for c in s.saga_spaces)
    assert sum(1 for t in s.town if t) == 15 and s.supply == [11, 10, 11]
    assert len(s.saga_deck) == 24 and len(s.rune_deck) == 33
    assert RULES.from_scenario(json.dumps({"players": 2})).state_hash() == s.state_hash()


@pytest.mark.parametrize(
    ("message", "fields"),
    [
        ("not valid JSON", None),
        ("players must be an integer in 2..5", {"players": 6}),
        (r"unknown key\(s\) \['colour'\]", {"colour": "red"}),
        ("options: settle_region_block", {"options": {"settle_region_block": "some"}}),
        ("options: no data pack", {"data_pack": "f00"}),
        ("dial: unknown zone 'up'", {"dial": "up"}),
        ("demand: unknown goods type 'gold'", {"demand": "gold"}),
        ("days: 5 \\+ 3 is more than 7", {"days": {"preparation": 5, "sailing": 3}}),
        ("skulls_covered: no skull at position 2", {"skulls_covered": [2]}),
        ("tasks_done: 'w-north-sea' is not a port", {"tasks_done": ["w-north-sea"]}),
        ("seat 0.location: unknown place 'atlantis'", {"seats": [{"location": "atlantis"}]}),
        (
            "seat 0: a ship on the map has at least 1 crewmember",
            {"seats": [{"location": "Paris", "crew": 0}]},
        ),
        ("already holds seat 0's ship", {"seats": [{"location": "Paris"}, {"location": "Paris"}]}),
        ("seat 0: 6 items aboard, more than the 5 slots of Age 1", {"seats": [{"crew": 6}]}),
        ("seat 0: 4 Runes in hand, at most 3", {"seats": [{"hand": ["storm"] * 4}]}),
        ("seat 0.hand: unknown Rune 'joker'", {"seats": [{"hand": ["joker"]}]}),
        ("no copy of 'Sabotage \\(demo\\)' left", {"seats": [{"hand": ["sabotage", "sabotage"]}]}),
        (
            "none with no_conflict",
            {"options": {"no_conflict": True}, "seats": [{"hand": ["ambush"]}]},
        ),
        (
            "goods: Lyubech and Kiev are in one region",
            {"goods": {"Kiev": "fish", "Lyubech": "fish"}},
        ),
        (
            "12 fish tokens are placed",
            {
                "goods": {
                    p: "fish"
                    for p in [
                        "paris",
                        "rome",
                        "constantinople",
                        "lindisfarne",
                        "arles",
                        "hedeby",
                        "visby",
                        "brattahlid",
                        "halogaland",
                        "bjarmaland",
                        "kiev",
                    ]
                }
            },
        ),
        ("Bayeux has a town; a Settlement needs it raided first", {"settlements": {"Bayeux": 0}}),
        ("towns: Nantes has no star", {"towns": {"Nantes": 3}}),
        ("no small treasure of 9 left for Bayeux", {"towns": {"Bayeux": 9}}),
        ("never had a town", {"seats": [{"towns": ["Nantes"]}]}),
        ("Saga 'ii-paris' is used twice", {"sagas": {"spaces": ["ii-paris", "ii-paris", None]}}),
        ("sagas.spaces: give 3 entries", {"sagas": {"spaces": ["ii-paris"]}}),
        ("unknown Saga 'saga of nobody'", {"sagas": {"deck": ["saga of nobody"]}}),
        ("the markers lie under the Saga deck", {"final_markers": {"holder": 0}}),
        (
            "seat 0: 1 crew aboard and 15 Settlements",
            {
                "seats": [{"crew": 1, "location": "Norway"}],
                "settlements": {
                    p: 0
                    for p in [
                        "brattahlid",
                        "reykjanes",
                        "eyjafjordur",
                        "halogaland",
                        "faroe",
                        "shetland",
                        "orkney",
                        "iona",
                        "lewis",
                        "man",
                        "cork",
                        "lisbon",
                        "algeciras",
                        "balearics",
                        "cagliari",
                    ]
                },
            },
        ),
        (
            "seat 0 has no crew left to man its ship",
            {
                "seats": [{}],
                "settlements": {
                    p: 0
                    for p in [
                        "brattahlid",
                        "reykjanes",
                        "eyjafjordur",
                        "halogaland",
                        "faroe",
                        "shetland",
                        "orkney",
                        "iona",
                        "lewis",
                        "man",
                        "cork",
                        "lisbon",
                        "algeciras",
                        "balearics",
                        "cagliari",
                    ]
                },
            },
        ),
    ],
)
def test_impossible_positions_are_refused(message: str, fields: dict[str, object] | None) -> None:
    if fields is None:
        with pytest.raises(ScenarioError, match=message):
            RULES.from_scenario("{players: 2")
        return
    refused(message, **fields)
