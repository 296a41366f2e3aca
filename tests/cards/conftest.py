"""Helpers for the card-text scenario tests (shared/rules/cards.md).

No ``__init__.py`` lives under ``tests/``, so the helpers reach the tests as a fixture (``g``).
Every move goes through the public, checked API (``engine.blood_rage.flow.apply``), so an illegal
sequence fails loudly; positions are built with ``engine.blood_rage.scenario.from_scenario``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.cards import card_of
from engine.blood_rage.flow import apply, awaiting, legal_actions
from engine.blood_rage.ids import FIG_UNIT, RESERVE, VALHALLA, Area, Step, Unit
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.state import PromptKind
from engine.blood_rage.view import view
from tests.scenario_tokens import TOKENS

# The card whose text asks each question (cards.md); the others come from the rules.
PROMPT_CARDS = {
    PromptKind.PROTECT: "friggas_protection",
    PromptKind.WITCH_RETREAT: "volur_witch",
    PromptKind.TIDE_KEEP: "odins_tide",
    PromptKind.PROWESS: "tyrs_prowess",
    PromptKind.MOVE_LEADER: "lord_of_hammers",
    PromptKind.THORS_DOMAIN: "thors_domain",
    PromptKind.SUCCOR: "friggas_succor",
    PromptKind.BLESSING: "lokis_blessing",
    PromptKind.SACRIFICE: "friggas_sacrifice",
}
# Provinces destroyed by the Ragnarök of Ages 1, 2, 3 unless a test says otherwise.
RAGNAROK = ["Muspelheim", "Gimle", "Myrkulor"]

RAGE, AXES, HORNS = 0, 1, 2


class G:
    """Small helpers; they return plain values so the assertions stay in the tests."""

    K = ActionKind
    A = Action
    Area = Area
    Unit = Unit
    RAGE, AXES, HORNS = RAGE, AXES, HORNS

    # -- positions --------------------------------------------------------------------

    @staticmethod
    def state(players: int = 3, clans: list[dict[str, Any]] | None = None, **fields: Any):
        """A scenario with fixed tokens and Ragnarök slots; missing clans are empty.
        Events are recorded so battle totals can be read back exactly."""
        clans = list(clans or [])
        while len(clans) < players:
            clans.append({})
        data: dict[str, Any] = {
            "players": players,
            "seed": fields.pop("seed", 3),
            "ragnarok": fields.pop("ragnarok", RAGNAROK),
            "pillage_tokens": fields.pop("pillage_tokens", TOKENS),
            "clans": clans,
        }
        data.update(fields)
        state = from_scenario(json.loads(json.dumps(data)))
        state.events = []
        return state

    # -- acting -----------------------------------------------------------------------

    @staticmethod
    def act(state, seat: int, kind: int, a: int = 0, b: int = 0, c: int = 0) -> None:
        apply(state, seat, Action(kind, a, b, c))

    @staticmethod
    def answer(state, kind: int, a: int = 0, b: int = 0, c: int = 0) -> int:
        """The (single) awaited seat takes the action; returns that seat."""
        seats = awaiting(state)
        assert len(seats) == 1, f"several seats awaited: {seats}"
        apply(state, seats[0], Action(kind, a, b, c))
        return seats[0]

    @staticmethod
    def legal(state, seat: int | None = None) -> list[Action]:
        if seat is None:
            seat = awaiting(state)[0]
        return legal_actions(state, seat)

    @staticmethod
    def awaiting(state) -> list[int]:
        return awaiting(state)

    @staticmethod
    def prompt(state):
        """(kind, seat) of the pending prompt, or None; the view names the same question and
        the card whose text asks it (``PROMPT_CARDS``)."""
        if not state.prompts:
            assert view(state)["prompt"] is None
            return None
        kind, seat = state.prompts[0].kind, state.prompts[0].seat
        shown = view(state)["prompt"]
        assert (shown["kind"], shown["seat"]) == (kind.name.lower(), seat)
        assert shown["source"] == PROMPT_CARDS.get(kind, ""), shown
        return (kind, seat)

    @staticmethod
    def decline_calls(state) -> list[int]:
        """Everyone declines the Call to Battle; returns the seats that were asked."""
        asked = []
        while state.step == Step.CALL_TO_BATTLE and not state.prompts:
            seat = awaiting(state)[0]
            asked.append(seat)
            apply(state, seat, Action(ActionKind.DECLINE))
        return asked

    @staticmethod
    def pillage(state, seat: int, province: int) -> None:
        apply(state, seat, Action(ActionKind.PILLAGE, province))
        G.decline_calls(state)

    @staticmethod
    def play(state, choices: dict[int, str]) -> None:
        """Each listed seat commits the named card (key or id) as its secret battle card."""
        assert state.step == Step.BATTLE_CARDS, f"not choosing battle cards (step {state.step})"
        for seat, key in choices.items():
            apply(state, seat, Action(ActionKind.BATTLE_CARD, G.card(state, seat, key)))

    # -- cards ------------------------------------------------------------------------

    @staticmethod
    def card(state, seat: int, key: str) -> int:
        """The instance of a card (key like 'tyrs_smash' or id like 'tyrs_smash_2') in hand."""
        for inst in state.clans[seat].hand:
            d = card_of(inst)
            if key in (d.key, d.id):
                return inst
        raise AssertionError(f"{key} is not in seat {seat}'s hand")

    @staticmethod
    def keys(cards: list[int]) -> list[str]:
        return sorted(card_of(c).key for c in cards)

    @staticmethod
    def hand(state, seat: int) -> list[str]:
        return G.keys(state.clans[seat].hand)

    @staticmethod
    def discard(state) -> list[str]:
        return G.keys(state.discard)

    # -- figures and stats ------------------------------------------------------------

    @staticmethod
    def at(state, seat: int, where: int) -> list[str]:
        """Sorted unit names of a clan's figures in an area, RESERVE, VALHALLA or BOX."""
        loc = state.clans[seat].loc
        return sorted(Unit(FIG_UNIT[f]).name.lower() for f in range(len(loc)) if loc[f] == where)

    @staticmethod
    def valhalla(state, seat: int) -> list[str]:
        return G.at(state, seat, VALHALLA)

    @staticmethod
    def reserve(state, seat: int) -> list[str]:
        return G.at(state, seat, RESERVE)

    @staticmethod
    def steps(state, seat: int) -> list[int]:
        """1-based steps of Rage, Axes, Horns."""
        return [s + 1 for s in state.clans[seat].steps]

    @staticmethod
    def glory(state) -> list[int]:
        return [c.glory for c in state.clans]

    @staticmethod
    def rage(state) -> list[int]:
        return [c.rage for c in state.clans]

    # -- what a seat sees -------------------------------------------------------------

    @staticmethod
    def view(state, seat: int = -1) -> dict[str, Any]:
        """The view a seat (or, by default, a spectator) receives."""
        return view(state, seat)

    # -- events -----------------------------------------------------------------------

    @staticmethod
    def events(state, kind: str) -> list[dict[str, Any]]:
        return [p for _, p in state.events if p.get("type") == kind]

    @staticmethod
    def result(state) -> tuple[int, dict[int, int]]:
        """(winner, totals) of the last battle resolved (winner -1: everyone lost); while a
        reaction to the losers' destruction is pending, of the battle under way (its event
        comes once they are gone)."""
        b = state.battle
        if b is not None and state.doomed:
            return b.winner, {s: b.totals[s] for s in b.participants}
        ev = G.events(state, "battle_resolved")
        assert ev, "no battle was resolved"
        return ev[-1]["winner"], dict(ev[-1]["totals"])


@pytest.fixture
def g() -> type[G]:
    return G
