"""Why a stat rose, as its ``stat`` event says (``StatReason``): a pillage token's reward is
the pillage's, the Frost Giant's second reward (cards.md) is the card's, and the step a card's
text lets the clan choose is the card's, not a quest's (found by mutation testing)."""

from __future__ import annotations

from typing import Any

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply
from engine.blood_rage.ids import Area, Stat, Step
from engine.blood_rage.state import PromptKind

K = ActionKind
E = Area.ELVAGAR


def _stats(state: Any) -> list[tuple[int, int, int, str, int, int]]:
    """(seat, stat, step, reason, card, area) of each stat event, in order."""
    return [
        (p["seat"], p["stat"], p["step"], p["reason"], p["card"], p["area"])
        for _, p in state.events
        if p["type"] == "stat"
    ]


def test_the_frost_giants_second_reward_is_the_cards(h) -> None:
    state = h.scenario(
        3, [{"upgrades": ["frost_giant"], "figures": {"Elvagar": ["frost_giant"]}}], age=3
    )
    state.events = []
    giant = state.clans[0].slots[3]
    assert h.key(giant) == "frost_giant"
    apply(state, 0, Action(K.PILLAGE, E))  # Elvagar's token: Horns, twice
    assert _stats(state) == [
        (0, Stat.HORNS, 1, "pillage", -1, E),
        (0, Stat.HORNS, 2, "card", giant, E),
    ]


def test_a_step_a_card_lets_the_clan_choose_is_the_cards(h) -> None:
    """Lord of Axes (cards.md): after a successful pillage, the clan raises one stat of its
    choice by 1."""
    state = h.scenario(
        3, [{"upgrades": ["lord_of_axes"], "figures": {"Elvagar": ["leader"]}}], age=2
    )
    state.events = []
    apply(state, 0, Action(K.PILLAGE, E))
    while state.step == Step.CALL_TO_BATTLE and not state.prompts:
        apply(state, h.awaiting(state)[0], Action(K.DECLINE))
    assert state.prompts[0].kind == PromptKind.RAISE_STAT
    apply(state, 0, Action(K.RAISE_STAT, Stat.AXES))
    assert _stats(state)[-1] == (0, Stat.AXES, 1, "card", -1, -1)
