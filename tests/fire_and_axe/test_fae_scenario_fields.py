"""Scenarios field by field: every field refused with a message that names it and its range,
the values at the ends of each range accepted, and what an omitted field becomes (the
defaults the module's docstring promises)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from engine.core.errors import ScenarioError
from engine.fire_and_axe.scenario import from_scenario
from engine.fire_and_axe.state import GameState


def build(**fields: Any) -> GameState:
    return from_scenario(json.dumps({"players": 3, **fields}))


def refused(**fields: Any) -> str:
    with pytest.raises(ScenarioError) as info:
        build(**fields)
    return str(info.value)


CASES: list[tuple[dict[str, Any], str]] = [
    ({"colour": "red"}, "scenario: unknown key(s) ['colour'] (known: "),
    ({"seed": -1}, "seed must be an integer in 0..18446744073709551615, not -1"),
    (
        {"seed": 2**64},
        "seed must be an integer in 0..18446744073709551615, not 18446744073709551616",
    ),
    ({"options": 5}, "options must be an object, not 5"),
    (
        {"options": {"pace": 1}},
        "options: unknown key(s) ['pace'] (known: ['no_conflict', 'rune_timing', "
        "'settle_region_block'])",
    ),
    ({"first_player": 3}, "first_player must be an integer in 0..2, not 3"),
    ({"turn": 3}, "turn must be an integer in 0..2, not 3"),
    ({"days": 1}, "days must be an object, not 1"),
    ({"days": {"rest": 1}}, "days: unknown key(s) ['rest'] (known: ['preparation', 'sailing'])"),
    ({"days": {"preparation": 8}}, "days.preparation must be an integer in 0..7, not 8"),
    ({"days": {"sailing": 8}}, "days.sailing must be an integer in 0..7, not 8"),
    ({"tasks_done": "Kiev"}, "tasks_done must be a list, not 'Kiev'"),
    ({"tasks_done": ["Denmark"]}, "tasks_done: 'Denmark' is not a port"),
    ({"skulls_covered": 1}, "skulls_covered must be a list, not 1"),
    ({"seats": {}}, "seats must be a list, not {}"),
    ({"final_markers": 1}, "final_markers must be an object, not 1"),
    (
        {"final_markers": {"owner": 1}},
        "final_markers: unknown key(s) ['owner'] (known: ['holder', 'placed'])",
    ),
    (
        {"final_markers": {"holder": 3}, "sagas": {"deck": []}},
        "final_markers.holder must be an integer in 0..2, not 3",
    ),
    (
        {"final_markers": {"holder": 0, "placed": 3}, "sagas": {"deck": []}},
        "final_markers.placed must be an integer in 0..2, not 3",
    ),
    ({"seats": [{"location": "Kiev", "crew": 8}]}, "seat 0.crew must be an integer in 0..7, not 8"),
    (
        {"seats": [{"location": "Kiev", "goods": {"fish": 8}}]},
        "seat 0.goods.fish must be an integer in 0..7, not 8",
    ),
    ({"seats": [{"vp": 10**6 + 1}]}, "seat 0.vp must be an integer in 0..1000000, not 1000001"),
    (
        {"seats": [{"towns": [{"port": "Bayeux", "treasure": 100}]}]},
        "seat 0.towns.treasure must be an integer in 0..99, not 100",
    ),
    (
        {"seats": [{"towns": [{"port": "Bayeux", "treasure": 0}]}]},
        "towns: no small treasure of 0 left for Bayeux (the pack has",
    ),
    ({"goods": 1}, "goods must be an object, not 1"),
    ({"goods": {"Denmark": "fish"}}, "goods: 'Denmark' is not a port"),
    ({"settlements": 1}, "settlements must be an object, not 1"),
    ({"settlements": {"Denmark": 0}}, "settlements: 'Denmark' is not a port"),
    ({"settlements": {"Kiev": 3}}, "settlements.Kiev must be an integer in 0..2, not 3"),
    ({"towns": 1}, "towns must be an object, not 1"),
    ({"towns": {"Denmark": 5}}, "towns: 'Denmark' is not a port"),
    ({"towns": {"Bayeux": 100}}, "towns.Bayeux must be an integer in 0..99, not 100"),
    ({"towns": {"Bayeux": 0}}, "towns: no small treasure of 0 left for Bayeux"),
    ({"towns": {"Bayeux": 6, "Rouen": 6}}, "towns: no small treasure of 6 left for Rouen"),
    ({"sagas": 1}, "sagas must be an object, not 1"),
    (
        {"sagas": {"order": []}},
        "sagas: unknown key(s) ['order'] (known: ['deck', 'discard', 'removed', 'spaces'])",
    ),
    ({"sagas": {"spaces": 1}}, "sagas.spaces must be a list, not 1"),
    ({"sagas": {"spaces": ["i-nowhere", None, None]}}, "sagas.spaces: unknown Saga 'i-nowhere'"),
    (
        {"sagas": {"spaces": ["i-bayeux", "i-bayeux", None]}},
        "sagas.spaces: Saga 'i-bayeux' is used twice",
    ),
    (
        {"seats": [{"sagas": ["i-bayeux", "i-bayeux"]}]},
        "seats.sagas: Saga 'i-bayeux' is used twice",
    ),
    ({"sagas": {"discard": 1}}, "sagas.discard must be a list, not 1"),
    ({"sagas": {"discard": ["i-nowhere"]}}, "sagas.discard: unknown Saga 'i-nowhere'"),
    (
        {"sagas": {"discard": ["i-bayeux"], "removed": ["i-bayeux"]}},
        "sagas.removed: Saga 'i-bayeux' is used twice",
    ),
    ({"sagas": {"removed": 1}}, "sagas.removed must be a list, not 1"),
    ({"sagas": {"removed": ["i-nowhere"]}}, "sagas.removed: unknown Saga 'i-nowhere'"),
    ({"sagas": {"deck": 1}}, "sagas.deck must be a list, not 1"),
    ({"sagas": {"deck": ["i-nowhere"]}}, "sagas.deck: unknown Saga 'i-nowhere'"),
    ({"sagas": {"deck": ["iii-rus", "iii-rus"]}}, "sagas.deck: Saga 'iii-rus' is used twice"),
    ({"age": 4}, "age must be an integer in 1..3, not 4"),
    ({"rune_discard": 1}, "rune_discard must be a list, not 1"),
    ({"rune_discard": ["nothing"]}, "rune_discard: unknown Rune 'nothing'"),
    ({"rune_deck": 1}, "rune_deck must be a list, not 1"),
    ({"rune_deck": ["nothing"]}, "rune_deck: unknown Rune 'nothing'"),
    (
        {"sagas": {"spaces": ["i-bayeux", None, None], "discard": ["i-bayeux"]}},
        "sagas.discard: Saga 'i-bayeux' is used twice",
    ),
    (
        {"rune_discard": ["rune-lore", "rune-lore"]},
        "rune_discard: no copy of 'Rune Lore (demo)' left",
    ),
    ({"rune_deck": ["rune-lore", "rune-lore"]}, "rune_deck: no copy of 'Rune Lore (demo)' left"),
]


@pytest.mark.parametrize(("fields", "message"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_each_field_is_refused_by_name(fields: dict[str, Any], message: str) -> None:
    assert message in refused(**fields)


def test_the_ends_of_each_range_are_accepted() -> None:
    s = build(seed=2**64 - 1, first_player=2, turn=2, days={"preparation": 0, "sailing": 7})
    assert (s.seed, s.first_player, s.turn, s.sail) == (2**64 - 1, 2, 2, 7)
    s = build(
        age=3,
        seats=[
            {"location": "Kiev", "crew": 7, "vp": 10**6},
            {"location": "Rome", "goods": {"fish": 0}},
        ],
        settlements={"Visby": 2},
        towns={"Bayeux": 6},
        sagas={"deck": []},
        final_markers={"holder": 2, "placed": 2},
    )
    assert (s.seats[0].crew, s.seats[0].vp, s.seats[1].cargo) == (7, 10**6, [0, 0, 0])
    assert s.settler[s.board.index("visby")] == 2 and s.markers_placed == 2
    assert s.treasure[s.board.index("bayeux")] == 6


def test_what_an_omitted_field_becomes() -> None:
    s = build()
    assert (s.seed, s.first_player, s.turn, s.turns, s.age) == (0, 0, 0, 1, 1)
    assert (s.prep, s.sail, s.tasks_done, s.skulls_covered) == (0, 0, [], 0)
    board = s.board
    age_one = [c.index for c in board.sagas if c.age == 1]
    assert s.saga_spaces == age_one[:3]  # the first Age I cards of the pack, in order
    from_top = [board.sagas[c].age for c in reversed(s.saga_deck)]
    assert from_top == sorted(from_top) and set(from_top) == {1, 2, 3}  # III at the bottom
    s = build(seats=[{"location": "Kiev"}], sagas={"deck": []}, final_markers={"holder": 1})
    assert s.seats[0].crew == 1 and s.markers_holder == 1 and s.markers_placed == 0
    s = build(sagas={"spaces": [None, None, None], "deck": []})
    assert s.age == 1


def test_given_sagas_runes_and_treasures_are_where_they_were_put() -> None:
    s = build(
        age=2,
        sagas={
            "discard": ["i-bayeux"],
            "removed": ["i-lyubech"],
            "spaces": ["i-caithness", None, None],
        },
        rune_deck=["storm", "ambush"],
        rune_discard=["plunder"],
        seats=[{"towns": [{"port": "Rouen", "treasure": 6}, "Bayeux"]}],
    )
    board = s.board
    assert s.age == 2
    assert s.saga_discard == [board.saga_index("i-bayeux")]
    assert s.saga_removed == [board.saga_index("i-lyubech")]
    assert s.rune_deck[-2:] == [board.rune_index("ambush"), board.rune_index("storm")]
    assert s.rune_discard == [board.rune_index("plunder")]
    rouen, bayeux = board.index("rouen"), board.index("bayeux")
    assert s.treasure[rouen] == 6 and s.town[rouen] == 0 and s.town[bayeux] == 0
    # Every treasure of the pack lies somewhere, the fixed one among them once.
    small = Counter(s.treasure[p] for p in board.small_ports)
    assert small == Counter(board.pack.small_treasures)
