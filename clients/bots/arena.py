"""Play whole games between bots, in process (engine only, no server).

Every decision goes through ``engine.blood_rage.view.view(state, seat, include_state=True)``: a
bot gets exactly what the gRPC API would give its seat, never the state itself."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from clients.bots.base import Bot
from engine.blood_rage.flow import apply_unchecked, awaiting, legal_actions
from engine.blood_rage.ids import Step
from engine.blood_rage.results import result
from engine.blood_rage.setup import new_game
from engine.blood_rage.view import view


@dataclass
class GameRecord:
    glory: list[int]
    winners: list[int]
    decisions: list[int]  # per seat
    think_s: list[float]  # per seat, total time spent in choose()
    max_think_s: list[float] = field(default_factory=list)


def play_game(
    bots: Sequence[Bot], seed: int, max_decisions: int = 20_000, isolate: bool = True
) -> GameRecord:
    """Play one game, seat i played by bots[i]; returns the final Glory and winners.

    ``isolate`` hands each bot a JSON copy of its view, as a network client would get it: the
    engine's view shares some lists with the live state, so this keeps a bot from ever
    reaching (or changing) the real game through it."""
    players = len(bots)
    state = new_game(players, seed)
    rng = random.Random(seed * 7919 + 17)
    decisions = [0] * players
    think = [0.0] * players
    worst = [0.0] * players
    count = 0
    while state.step != Step.GAME_OVER:
        seat = awaiting(state)[0]
        v = view(state, seat, include_state=True)
        if isolate:
            v = json.loads(json.dumps(v))
        t0 = time.perf_counter()
        index = bots[seat].choose(v, rng)
        dt = time.perf_counter() - t0
        think[seat] += dt
        worst[seat] = max(worst[seat], dt)
        decisions[seat] += 1
        actions = legal_actions(state, seat)
        if not 0 <= index < len(actions):
            raise ValueError(f"{bots[seat].name} chose index {index} of {len(actions)}")
        apply_unchecked(state, seat, actions[index])
        count += 1
        if count > max_decisions:
            raise RuntimeError("game did not end")
    r = result(state)
    assert r is not None
    return GameRecord(list(r.scores), list(r.winners), decisions, think, worst)
