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
from engine.fire_and_axe.data_pack import parse, register
from engine.fire_and_axe.ids import CREW_PER_PLAYER, PORT, WINTERING
from engine.fire_and_axe.rules import RULES
from tests.fire_and_axe.fae_support import loc, saga, scenario, seats
from tests.fire_and_axe.test_fae_data_pack import DEMO_TEXT, block


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


# -- seats, towns, Sagas and decks ----------------------------------------------------------------


def test_a_seat_with_an_unknown_key_or_too_many_seats_is_refused() -> None:
    assert refused(seats=[{"colour": "red"}]).startswith("seat 0: unknown key(s) ['colour']")
    assert refused(seats=[{}, {}, {}, {}]) == "seats: 4 seats for 3 players"


def test_a_town_taken_twice_or_standing_and_taken_is_refused() -> None:
    assert refused(seats=seats({"towns": ["Lyubech"]}, {"towns": ["Lyubech"]})) == (
        "seat 1.towns: Lyubech's town is taken twice"
    )
    assert refused(towns={"Lyubech": 1}, seats=seats({"towns": ["Lyubech"]})) == (
        "towns: Lyubech's town was taken by a seat"
    )


def test_what_a_scenario_does_not_give_is_shuffled_from_its_seed() -> None:
    """Treasures, the Saga deck (within each Age) and the Rune deck are dealt by the seed:
    not the same order in every game."""
    seeded = [scenario(seed=seed) for seed in range(10)]
    assert len({tuple(s.treasure) for s in seeded}) > 1
    assert len({tuple(s.saga_deck) for s in seeded}) > 1
    assert len({tuple(s.rune_deck) for s in seeded}) > 1
    for s in seeded:
        ages = [s.board.sagas[c].age for c in s.saga_deck]
        assert ages == sorted(ages, reverse=True)  # top (the end) first: Age I on top


def test_every_saga_in_the_deck_leaves_the_spaces_empty() -> None:
    s = scenario()
    every = [c.id for c in s.board.sagas]
    s = scenario(sagas={"deck": every})
    assert s.saga_spaces == [-1, -1, -1] and len(s.saga_deck) == len(every)
    assert s.age == 1


def test_the_age_follows_from_the_discarded_sagas_and_the_seats_sagas() -> None:
    empty = {"spaces": [None, None, None]}
    assert scenario(sagas=empty).age == 1
    assert scenario(sagas={**empty, "discard": ["iii-rus"]}).age == 3
    assert scenario(sagas=empty, seats=seats({"sagas": ["ii-paris"]})).age == 2


def test_the_spaces_show_the_first_age_whatever_the_packs_order() -> None:
    """A pack may list its Sagas in any order: the Sagas shown are still Age I ones."""
    last = block("saga", "iii-sea-kings")
    first = '[[saga]]\nid = "i-lindisfarne"'
    text = DEMO_TEXT.replace(last, "").replace(first, last.rstrip("\n") + "\n\n" + first)
    pack = register(parse(text, "sagas-out-of-order.toml"))
    assert pack.sagas[0].id == "iii-sea-kings"
    s = scenario(data_pack=pack.digest)
    assert [s.board.sagas[c].age for c in s.saga_spaces] == [1, 1, 1]
    assert s.age == 1


def test_without_conflict_cards_the_deck_holds_the_others() -> None:
    s = scenario(options={"no_conflict": True})
    board = s.board
    others = [r for r in board.rune_deck if not board.runes[r].conflict]
    assert len(s.rune_deck) == len(others) == 24
    assert sorted(s.rune_deck) == sorted(others)
