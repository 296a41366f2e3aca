"""Where one SubmitAction's work goes, in-process (no gRPC, no sockets).

The server bench compares SubmitAction with a no-op RPC through the whole stack; this one says
what the difference is made of. The same planned games are played three ways in one run:

- through ``GameService.SubmitAction`` on a memory store (the whole decision as the server
  does it: token check, legality, engine, events, bookkeeping, response),
- with the engine alone (``legal_actions`` + ``GameState.copy`` + ``apply_unchecked``),
- the state hash alone (what a durable store adds per decision).

The shares are ratios of figures measured in the same process one after the other.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from bench.server_bench import GamePlan, plan_games
from engine import registry
from server.api.auth import identity_scope
from server.api.identity import anonymous_identity
from server.api.quotas import ANONYMOUS_DEFAULTS, parse_policy_spec
from server.api.service import GameService
from server.games.registry import GameRegistry
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry
from server.stores.memory import MemoryStore
from yggdrasil.v1 import blood_rage_pb2, game_pb2
from yggdrasil.v1 import game_service_pb2 as gs


@dataclass
class DecisionBench:
    decisions: int
    service_us: float  # one SubmitAction through the servicer, in-process
    engine_us: float  # legal_actions + copy + apply_unchecked
    hash_us: float  # GameState.state_hash

    def rows(self) -> list[tuple[str, str, str]]:
        rest = self.service_us - self.engine_us
        return [
            (
                "SubmitAction in-process / decision",
                f"{self.service_us:.1f} us",
                f"over {self.decisions} decisions, memory store, no gRPC",
            ),
            (
                "  of which the engine",
                f"{self.engine_us:.1f} us",
                f"{self.engine_us / self.service_us:.0%} (legal list, copy, apply)",
            ),
            (
                "  of which the server",
                f"{rest:.1f} us",
                f"{rest / self.service_us:.0%} (checks, events, log, metrics, response)",
            ),
            (
                "state hash (durable stores)",
                f"{self.hash_us:.1f} us",
                f"{self.hash_us / self.service_us:.0%} of a decision, on top",
            ),
        ]


async def _through_service(plans: list[GamePlan]) -> float:
    registry = GameRegistry(MemoryStore(), Metrics(new_registry(process_collectors=False)))
    service = GameService(registry, anyone_seeds=True)  # plays its games from their seeds
    # One caller drives the bench: the per-caller quotas would only refuse it.
    identity_scope(anonymous_identity("bench", parse_policy_spec("unlimited", ANONYMOUS_DEFAULTS)))
    spent = 0.0
    for g, plan in enumerate(plans):
        options = game_pb2.GameOptions(
            player_count=4, seed=plan.seed, blood_rage=blood_rage_pb2.BloodRageOptions()
        )
        created = await service.CreateGame(gs.CreateGameRequest(options=options), None)  # type: ignore[arg-type]
        tokens = []
        for seat in range(4):
            joined = await service.JoinGame(
                gs.JoinGameRequest(game_id=created.game_id, seat=seat),
                None,  # type: ignore[arg-type]
            )
            tokens.append(joined.seat_token)
        for n, (seat, index, version) in enumerate(plan.steps):
            request = gs.SubmitActionRequest(
                game_id=created.game_id,
                seat_token=tokens[seat],
                legal_index=index,
                state_version=version,
                idempotency_key=f"{g}.{n}",
            )
            started = time.perf_counter()
            await service.SubmitAction(request, None)  # type: ignore[arg-type]
            spent += time.perf_counter() - started
    return spent


def _engine_only(plans: list[GamePlan]) -> tuple[float, float]:
    engine = hashing = 0.0
    rules = registry.rules()
    for plan in plans:
        state = rules.new_game(rules.options(4, plan.seed, {}))
        for seat, index, _ in plan.steps:
            started = time.perf_counter()
            actions = rules.legal_actions(state, seat)
            new = state.copy()
            rules.apply_unchecked(new, seat, actions[index])
            state = new
            engine += time.perf_counter() - started
            started = time.perf_counter()
            state.state_hash()
            hashing += time.perf_counter() - started
    return engine, hashing


def run(games: int = 30) -> DecisionBench:
    configure_logging("WARNING", cache_loggers=True)  # as the bench's server runs
    plans = plan_games(games)
    decisions = sum(len(p.steps) for p in plans)
    _engine_only(plans[:3])  # warm up
    engine, hashing = _engine_only(plans)
    service = asyncio.run(_through_service(plans))
    per = 1e6 / decisions
    return DecisionBench(decisions, service * per, engine * per, hashing * per)


if __name__ == "__main__":
    for name, value, note in run().rows():
        print(f"  {name:<40} {value:>12}   {note}")
