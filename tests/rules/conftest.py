"""Shared helpers for the rules-scenario tests (blood-rage.md §3–§10).

There are no ``__init__.py`` files under ``tests/``, so the helpers are handed to the tests as a
fixture (``h``) instead of being imported. Every helper goes through the engine's public API:
``engine.blood_rage.scenario.from_scenario``,
``engine.blood_rage.flow.awaiting/legal_actions/apply`` and plain reads of state fields."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.cards import card_of
from engine.blood_rage.flow import apply, awaiting, legal_actions
from engine.blood_rage.ids import FIG_UNIT, RESERVE, VALHALLA, Area, Step, Unit
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.view import view
from engine.core.errors import IllegalActionError, NotYourDecisionError
from tests.scenario_tokens import TOKENS

# Ragnarök of Ages 1, 2, 3 unless a test says otherwise.
RAGNAROK = ["Muspelheim", "Gimle", "Myrkulor"]

K = ActionKind


class Helpers:
    """Small, explicit helpers; each returns plain values so assertions stay in the tests."""

    K = ActionKind
    A = Action
    TOKENS = TOKENS
    RAGNAROK = RAGNAROK

    # -- building positions ---------------------------------------------------------------

    @staticmethod
    def scenario(players: int = 3, clans: list[dict[str, Any]] | None = None, **fields: Any):
        """A scenario with fixed tokens and Ragnarök slots; missing clans are empty."""
        clans = list(clans or [])
        while len(clans) < players:
            clans.append({})
        data: dict[str, Any] = {
            "players": players,
            "seed": fields.pop("seed", 1),
            "ragnarok": fields.pop("ragnarok", RAGNAROK),
            "pillage_tokens": fields.pop("pillage_tokens", TOKENS),
            "clans": clans,
        }
        data.update(fields)
        # Round-trip through JSON: scenarios are a JSON format.
        return from_scenario(json.loads(json.dumps(data)))

    # -- acting ---------------------------------------------------------------------------

    @staticmethod
    def act(state, seat: int, kind: int, a: int = 0, b: int = 0, c: int = 0) -> None:
        apply(state, seat, Action(kind, a, b, c))

    @staticmethod
    def legal(state, seat: int) -> list[Action]:
        return legal_actions(state, seat)

    @staticmethod
    def kinds(state, seat: int) -> set[int]:
        return {a.kind for a in legal_actions(state, seat)}

    @staticmethod
    def awaiting(state) -> list[int]:
        return awaiting(state)

    @staticmethod
    def assert_illegal(state, seat: int, action: Action | tuple) -> str:
        """The action is refused with IllegalActionError and the state is untouched."""
        before = state.state_hash()
        with pytest.raises(IllegalActionError) as info:
            apply(state, seat, Action(*action))
        assert state.state_hash() == before
        return str(info.value)

    @staticmethod
    def assert_not_yours(state, seat: int, action: Action | tuple) -> None:
        before = state.state_hash()
        with pytest.raises(NotYourDecisionError):
            apply(state, seat, Action(*action))
        assert state.state_hash() == before

    # -- cards ----------------------------------------------------------------------------

    @staticmethod
    def card(state, seat: int, key: str) -> int:
        """The instance of a card (by key, e.g. 'tyrs_smash') in a seat's hand."""
        for inst in state.clans[seat].hand:
            d = card_of(inst)
            if d.key == key or d.id == key:
                return inst
        raise AssertionError(f"{key} is not in seat {seat}'s hand")

    @staticmethod
    def keys(cards: list[int]) -> list[str]:
        return sorted(card_of(c).key for c in cards)

    @staticmethod
    def key(inst: int) -> str:
        return card_of(inst).key

    # -- figures --------------------------------------------------------------------------

    @staticmethod
    def units_at(state, seat: int, where: int) -> list[str]:
        """Sorted unit names of a clan's figures in an area, RESERVE, VALHALLA or BOX."""
        loc = state.clans[seat].loc
        return sorted(Unit(FIG_UNIT[f]).name.lower() for f in range(len(loc)) if loc[f] == where)

    @staticmethod
    def count_at(state, seat: int, where: int, unit: int | None = None) -> int:
        loc = state.clans[seat].loc
        return sum(
            1 for f in range(len(loc)) if loc[f] == where and (unit is None or FIG_UNIT[f] == unit)
        )

    @staticmethod
    def valhalla(state, seat: int) -> int:
        return sum(1 for x in state.clans[seat].loc if x == VALHALLA)

    @staticmethod
    def reserve(state, seat: int) -> int:
        return sum(1 for x in state.clans[seat].loc if x == RESERVE)

    @staticmethod
    def axes(state, seat: int) -> int:
        return state.clans[seat].axes

    # -- flows ----------------------------------------------------------------------------

    @staticmethod
    def decline_calls(state) -> None:
        """Everybody declines the Call to Battle until the call is over."""
        while state.step == Step.CALL_TO_BATTLE and not state.prompts:
            seat = awaiting(state)[0]
            apply(state, seat, Action(ActionKind.DECLINE))

    @staticmethod
    def play_cards(state, choices: dict[int, str]) -> None:
        """Each listed seat commits the named battle card (by key)."""
        for seat, key in choices.items():
            apply(state, seat, Action(ActionKind.BATTLE_CARD, Helpers.card(state, seat, key)))

    @staticmethod
    def view(state, seat: int = -1) -> dict[str, Any]:
        return view(state, seat)

    @staticmethod
    def view_text(state, seat: int = -1) -> str:
        return json.dumps(view(state, seat), sort_keys=True)

    @staticmethod
    def draft_all(state, choose=lambda legal: legal[0]) -> None:
        """Finish the current draft: every awaited seat picks until the draft is over."""
        while state.step == Step.DRAFT_PICK:
            for seat in awaiting(state):
                apply(state, seat, choose(legal_actions(state, seat)))


@pytest.fixture
def h() -> type[Helpers]:
    return Helpers


# Re-exported names the tests use through ``h`` (kept here so a reader sees them in one place).
__all__ = ["Area", "Helpers", "K"]
