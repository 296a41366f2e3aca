"""Scenarios: places and Sagas named by their names as well as their ids, every wrong type
refused with a ``ScenarioError`` (never a Python error from deep inside), several covered
skulls kept, final markers without a holder refused, and a ship in the Wintering Zone with
crew aboard but none in the supply is a valid position.

A scenario is hand-written: a number where a name belongs must read as a clear refusal, the
same way the server refuses a bad ``from_scenario`` request (INVALID_ARGUMENT)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.core.errors import ScenarioError
from engine.fire_and_axe.ids import CREW_PER_PLAYER, PORT, WINTERING
from engine.fire_and_axe.rules import RULES
from tests.fire_and_axe.fae_support import loc, saga, scenario, seats


def refused(**fields: Any) -> str:
    with pytest.raises(ScenarioError) as info:
        RULES.from_scenario(json.dumps({"players": 3, **fields}))
    return str(info.value)


def test_places_and_sagas_are_found_by_their_names() -> None:
    s = scenario(
        seats=seats({"location": "Norwegian Sea", "crew": 1, "sagas": ["The Holy Island (demo)"]})
    )
    assert s.seats[0].loc == loc(s, "n-norwegian-sea")
    assert s.seats[0].sagas == [saga(s, "i-lindisfarne")]
    assert RULES.view(s)["seats"][0]["location"] == "n-norwegian-sea"


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"seats": [{"location": 5}]}, "seat 0.location: unknown place 5"),
        ({"tasks_done": [7]}, "tasks_done: unknown place 7"),
        ({"seats": [{"hand": [3]}]}, "seat 0.hand: unknown Rune 3"),
        ({"seats": [{"sagas": [2]}]}, "seat 0.sagas: unknown Saga 2"),
        ({"demand": 1}, "demand: unknown goods type 1"),
        ({"dial": 0}, "dial: unknown zone 0"),
        ({"seed": "7"}, "seed must be an integer in 0..18446744073709551615, not '7'"),
        ({"seats": [{"crew": True}]}, "seat 0.crew must be an integer in 0..7, not True"),
        ({"turn": 1.0}, "turn must be an integer in 0..2, not 1.0"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_in_words(fields: dict[str, Any], words: str) -> None:
    assert refused(**fields).startswith(words)


def test_a_scenario_that_is_not_an_object_is_refused() -> None:
    for text in ("[1, 2]", "3", '"players"'):
        with pytest.raises(ScenarioError, match="a scenario must be an object"):
            RULES.from_scenario(text)


def test_the_wintering_zone_is_not_a_port() -> None:
    assert refused(tasks_done=["wintering"]) == "tasks_done: 'wintering' is not a port"
    assert refused(goods={"Wintering": "fish"}) == "goods: 'Wintering' is not a port"


def test_every_covered_skull_stays_covered() -> None:
    s = scenario(skulls_covered=[1, 3])
    assert RULES.view(s)["losses"]["covered"] == [1, 3]
    assert scenario(skulls_covered=[3, 5]).skulls_covered == (1 << 3) | (1 << 5)


def test_final_markers_without_a_holder_are_refused() -> None:
    assert refused(final_markers={"placed": 1}) == "final_markers: give the holder"


def test_a_full_crew_with_an_empty_supply_may_start_in_the_wintering_zone() -> None:
    """Seat 0's 15 crewmembers are 5 aboard and 10 Settlements: it has none in its supply,
    but its ship is crewed, so its turn can start (F5.1b); only a ship with no crew at all
    and none to load is refused (F9.4)."""
    board = scenario().board
    ports = [i for i in range(len(board.ids)) if board.kind[i] == PORT and board.stars[i] == 0]
    places = {board.ids[p]: 0 for p in ports[:10]}
    s = scenario(settlements=places, seats=seats({"crew": 5}))
    p = s.seats[0]
    assert (p.loc, p.crew, p.settlements, p.crew_supply) == (WINTERING, 5, 10, 0)
    assert p.crew + p.settlements == CREW_PER_PLAYER
    assert RULES.awaiting(s) == [0] and RULES.legal_actions(s, 0)
    places = {board.ids[p]: 0 for p in ports[:15]}
    assert refused(settlements=places, seats=seats({})) == (
        "seat 0 has no crew left to man its ship (F9.4)"
    )
