"""Helpers of the Fire & Axe tests: positions from scenarios, checked decisions, rigged dice.

Every helper goes through the engine's public entry points (``scenario.from_scenario``,
``flow.legal_actions``/``apply``) or reads state fields; rigged dice pick the generator's
position whose next d6 rolls are the ones a test needs (found by search, never hard-coded).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from engine.core.rng import SplitMix64
from engine.fire_and_axe import flow
from engine.fire_and_axe.actions import Action, ActionKind
from engine.fire_and_axe.board import Board
from engine.fire_and_axe.scenario import from_scenario
from engine.fire_and_axe.state import GameState

K = ActionKind


def scenario(players: int = 3, **fields: Any) -> GameState:
    """A position from scenario fields (``players`` 3 unless given)."""
    return from_scenario(json.dumps({"players": players, **fields}))


def seats(*specs: dict[str, Any], players: int = 3) -> list[dict[str, Any]]:
    """``specs`` for the first seats, empty seats (in the Wintering Zone) for the rest."""
    return [*specs, *({} for _ in range(players - len(specs)))]


def loc(state: GameState | Board, name: str) -> int:
    board = state.board if isinstance(state, GameState) else state
    return board.index(name)


def rune(state: GameState, ident: str) -> int:
    return state.board.rune_index(ident)


def saga(state: GameState, ident: str) -> int:
    return state.board.saga_index(ident)


def seat(state: GameState) -> int:
    return flow.awaiting(state)[0]


def legal(state: GameState) -> list[Action]:
    return flow.legal_actions(state, seat(state))


def kinds(state: GameState) -> set[int]:
    return {a[0] for a in legal(state)}


def act(state: GameState, kind: int, a: int = 0, b: int = 0, c: int = 0) -> None:
    """The awaited seat takes this decision, checked (``IllegalActionError`` if illegal)."""
    flow.apply(state, seat(state), Action(kind, a, b, c))


def record(state: GameState) -> list[tuple[int, dict[str, Any]]]:
    events: list[tuple[int, dict[str, Any]]] = []
    state.events = events
    return events


def of_type(events: list[tuple[int, dict[str, Any]]], kind: str) -> list[dict[str, Any]]:
    return [e for _, e in events if e["type"] == kind]


@cache
def position_for(rolls: tuple[int, ...]) -> int:
    """The first generator position whose next d6 rolls are ``rolls``."""
    for p in range(1, 10**7):
        g = SplitMix64(p)
        if all(g.below(6) + 1 == r for r in rolls):
            return p
    raise AssertionError(f"no position rolls {rolls}")


def rig(state: GameState, *rolls: int) -> None:
    """Make the next dice of the game roll ``rolls`` in order."""
    state.rng = SplitMix64(position_for(tuple(rolls)))
