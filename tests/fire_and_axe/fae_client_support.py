"""Views of Fire & Axe positions as a client receives them (the engine's view through the
wire, in the API's envelope), and the catalog a client gets, for the client tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from clients.fire_and_axe.names import Catalog
from engine.core.contract import SPECTATOR
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.state import GameState
from protocol import envelopes
from protocol.fire_and_axe import catalog as fae_catalog
from protocol.fire_and_axe.wire import WIRE
from protocol.wire import ViewEnvelope
from yggdrasil.v1 import game_pb2 as gp


def catalog() -> Catalog:
    return Catalog.from_pb(fae_catalog.catalog())


def view_of(
    state: GameState,
    viewer: int = SPECTATOR,
    *,
    names: tuple[str, ...] = (),
    status: int = gp.GAME_STATUS_IN_PROGRESS,
) -> gp.View:
    """The View a seat (or a spectator) gets of ``state``."""
    seats = envelopes.seat_infos(
        list(names) or [f"p{i}" for i in range(state.players)], [True] * state.players
    )
    envelope = ViewEnvelope("g-test", status, seats, 0, {})  # type: ignore[arg-type]
    return envelopes.view_to_pb(WIRE, RULES.view(state, viewer), envelope)


def play_until(
    players: int,
    seed: int,
    wanted: Callable[[GameState], bool],
    *,
    limit: int = 20_000,
    options: dict[str, Any] | None = None,
) -> GameState:
    """A random game of ``players`` played until ``wanted`` holds (AssertionError if it never
    does within ``limit`` decisions)."""
    state = RULES.new_game(RULES.options(players, seed, options or {}))
    rng = random.Random(seed)
    for _ in range(limit):
        if wanted(state):
            return state
        seat = RULES.awaiting(state)[0]
        actions = RULES.legal_actions(state, seat)
        RULES.apply_unchecked(state, seat, rng.choice(actions))
    raise AssertionError("the position wanted never came")
