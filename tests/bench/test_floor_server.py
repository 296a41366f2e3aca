"""The floor servers of ``bench.floor`` do the work they claim (or none), so the floors the
performance notes quote measure what they say."""

from __future__ import annotations

import asyncio

import pytest

from bench import floor_server
from bench.server_bench import plan_games
from engine.blood_rage import new_game
from engine.blood_rage.flow import apply_unchecked, legal_actions
from engine.blood_rage.state import GameState
from server.api.service import GameService
from server.games.registry import GameRegistry
from server.ops.metrics import Metrics, new_registry
from server.stores.memory import MemoryStore
from yggdrasil.v1 import blood_rage_pb2, game_pb2
from yggdrasil.v1 import game_service_pb2 as gs


async def _play(submit: object, seed: int) -> tuple[GameService, str, list[int]]:
    registry = GameRegistry(MemoryStore(), Metrics(new_registry(process_collectors=False)))
    service = GameService(registry, anyone_seeds=True)  # plays its games from their seeds
    options = game_pb2.GameOptions(
        player_count=4, seed=seed, blood_rage=blood_rage_pb2.BloodRageOptions()
    )
    created = await service.CreateGame(gs.CreateGameRequest(options=options), None)  # type: ignore[arg-type]
    tokens = [
        (
            await service.JoinGame(gs.JoinGameRequest(game_id=created.game_id, seat=s), None)  # type: ignore[arg-type]
        ).seat_token
        for s in range(4)
    ]
    (plan,) = plan_games(1, first_seed=seed)
    versions = []
    for seat, index, version in plan.steps[:60]:
        request = gs.SubmitActionRequest(
            game_id=created.game_id,
            seat_token=tokens[seat],
            legal_index=index,
            state_version=version,
        )
        answer = await submit(service, request, None)  # type: ignore[operator]
        versions.append(answer.state_version)
    return service, created.game_id, versions


def _planned_state(seed: int, decisions: int) -> GameState:
    """The engine's state after the first ``decisions`` of the seed's bench plan."""
    (plan,) = plan_games(1, first_seed=seed)
    state = new_game(4, seed)
    for seat, index, _ in plan.steps[:decisions]:
        apply_unchecked(state, seat, legal_actions(state, seat)[index])
    return state


def test_engine_floor_applies_the_planned_decisions() -> None:
    service, game_id, versions = asyncio.run(_play(floor_server._engine_submit, 7))
    (plan,) = plan_games(1, first_seed=7)
    game = service.games.get(game_id)
    assert versions == [v + 1 for _, _, v in plan.steps[:60]]
    assert game.state.state_hash() == _planned_state(7, 60).state_hash()


def test_engine_floor_refuses_a_wrong_token() -> None:
    async def wrong(service: GameService, request: gs.SubmitActionRequest, ctx: None) -> object:
        request.seat_token = "x" * 43
        return await floor_server._engine_submit(service, request, ctx)  # type: ignore[arg-type]

    with pytest.raises(RuntimeError, match="wrong seat token"):
        asyncio.run(_play(wrong, 7))


def test_empty_floor_does_no_game_work() -> None:
    service, game_id, versions = asyncio.run(_play(floor_server._empty_submit, 7))
    (plan,) = plan_games(1, first_seed=7)
    assert versions == [v + 1 for _, _, v in plan.steps[:60]]
    assert service.games.get(game_id).state.version == new_game(4, 7).version


def test_lean_floor_applies_the_planned_decisions_and_keeps_their_events() -> None:
    service, game_id, versions = asyncio.run(_play(floor_server._lean_submit, 7))
    (plan,) = plan_games(1, first_seed=7)
    game = service.games.get(game_id)
    assert versions == [v + 1 for _, _, v in plan.steps[:60]]
    assert game.state.state_hash() == _planned_state(7, 60).state_hash()
    kept = game.events_from(game.last_sequence - 59)
    assert [e.version for e in kept] == versions
    assert all(e.full.blood_rage.WhichOneof("kind") == "action_applied" for e in kept)
