"""A mutant inside a function is applied in place by swapping code objects: the card texts
registered by decorators (which mutmut skips) see it, and it goes away afterwards."""

from __future__ import annotations

from pathlib import Path

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply, awaiting
from engine.blood_rage.ids import Area, Step
from engine.blood_rage.scenario import from_scenario
from mutation import worker
from mutation.operators import Mutant, mutants

ROOT = Path(__file__).resolve().parents[2]


def _mutant(module: str, scope: str, after: str) -> Mutant:
    path = module.replace(".", "/") + ".py"
    found = [
        m
        for m in mutants((ROOT / path).read_text(encoding="utf-8"), module, path)
        if m.scope == scope and m.after == after
    ]
    assert len(found) == 1, found
    return found[0]


def _hammer_win_glory() -> int:
    """Seat 0 wins a battle with Thor's Hammer: Axes (3), the card's 3 Glory and the
    reward of Elvagar's token (5 Glory with this seed)."""
    state = from_scenario(
        {
            "players": 3,
            "clans": [
                {"hand": ["thors_hammer"], "figures": {"Elvagar": ["leader"]}},
                {"figures": {"Elvagar": ["warrior"]}},
                {},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    while state.step == Step.CALL_TO_BATTLE:
        apply(state, awaiting(state)[0], Action(ActionKind.DECLINE))
    apply(state, 0, Action(ActionKind.BATTLE_CARD, state.clans[0].hand[0]))
    assert state.battle is None and state.clans[1].glory == 0
    return state.clans[0].glory


def test_a_decorated_card_text_is_changed_and_restored():
    assert _hammer_win_glory() == 11
    m = _mutant("engine.blood_rage.card_effects", "_thors_hammer", "4")
    functions = worker._Functions()
    swapped = worker._apply_in_place(functions, m.module, m.index, [list(d) for d in m.defs])
    try:
        assert swapped, "the registered function was found"
        assert _hammer_win_glory() == 12
    finally:
        worker._restore(swapped)
    assert _hammer_win_glory() == 11
