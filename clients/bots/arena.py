"""Play whole games between bots, in process (the rules only, no server), for any game.

Every decision goes through the rules' ``view(state, seat, include_state=True)``: a bot gets
exactly what the gRPC API would give its seat, never the state itself."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from clients.bots.base import Bot
from engine import registry

__all__ = ["GameRecord", "play_game"]


@dataclass
class GameRecord:
    scores: list[int]
    winners: list[int]
    decisions: list[int]  # per seat
    think_s: list[float]  # per seat, total time spent in choose()
    max_think_s: list[float] = field(default_factory=list)


def play_game(
    bots: Sequence[Bot],
    seed: int,
    max_decisions: int = 20_000,
    isolate: bool = True,
    game: str = registry.DEFAULT,
    game_options: Mapping[str, Any] | None = None,
) -> GameRecord:
    """Play one game of ``game``, seat i played by bots[i]; returns the final scores and
    winners.

    ``isolate`` hands each bot a JSON copy of its view, as a network client would get it: a
    view may share some lists with the live state, so this keeps a bot from ever reaching (or
    changing) the real game through it."""
    rules = registry.rules(game)
    players = len(bots)
    state = rules.new_game(rules.options(players, seed, game_options or {}))
    rng = random.Random(seed * 7919 + 17)
    decisions = [0] * players
    think = [0.0] * players
    worst = [0.0] * players
    count = 0
    while rules.result(state) is None:
        seat = rules.awaiting(state)[0]
        v = rules.view(state, seat, include_state=True)
        if isolate:
            v = json.loads(json.dumps(v))
        t0 = time.perf_counter()
        index = bots[seat].choose(v, rng)
        dt = time.perf_counter() - t0
        think[seat] += dt
        worst[seat] = max(worst[seat], dt)
        decisions[seat] += 1
        actions = rules.legal_actions(state, seat)
        if not 0 <= index < len(actions):
            raise ValueError(f"{bots[seat].name} chose index {index} of {len(actions)}")
        rules.apply_unchecked(state, seat, actions[index])
        count += 1
        if count > max_decisions:
            raise RuntimeError("game did not end")
    r = rules.result(state)
    assert r is not None
    return GameRecord(list(r.scores), list(r.winners), decisions, think, worst)
