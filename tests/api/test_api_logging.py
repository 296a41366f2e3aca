"""What a server logs at INFO: one line per decision and per game lifecycle event, no per-call
access lines unless ``access_log`` is on (then one ``rpc`` line per call at INFO)."""

from __future__ import annotations

import io
import json
import random
from collections import Counter
from typing import Any

import grpc.aio
import pytest
from api_support import Stub, create_game, join_all, random_step

from server.main import RunningServer
from server.ops.logs import configure_logging
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

LIFECYCLE = {"game_created", "seat_claimed", "game_started", "game_finished", "game_left_memory"}


def _lines(buffer: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]


async def _play(stub: Stub, players: int, seed: int) -> tuple[str, list[str], int]:
    """A whole game of random decisions through the API (plus one refused decision);
    returns (game id, tokens, decisions submitted)."""
    game_id = await create_game(stub, players, seed=seed)
    tokens = await join_all(stub, game_id, players)
    rng = random.Random(seed)
    with pytest.raises(grpc.aio.AioRpcError):  # a stale version: refused, still one line
        await stub.SubmitAction(
            gs.SubmitActionRequest(
                game_id=game_id, seat_token=tokens[0], legal_index=0, state_version=99
            )
        )
    submitted = 1
    while await random_step(stub, game_id, tokens, rng):
        submitted += 1
    return game_id, tokens, submitted


async def test_info_logs_one_line_per_decision_and_lifecycle_event(
    running: RunningServer, stub: Stub
) -> None:
    buffer = io.StringIO()
    configure_logging("INFO", stream=buffer)
    try:
        game_id, tokens, submitted = await _play(stub, 2, seed=5)
        result = (await stub.GetResult(gs.GetResultRequest(game_id=game_id))).result
        left = running.games.sweep(now=float("inf"))
    finally:
        configure_logging("WARNING")
    assert left == 1
    lines = [line for line in _lines(buffer) if line.get("game_id") == game_id]
    events = Counter(line["event"] for line in lines)
    assert "rpc" not in events, "access lines are DEBUG by default"
    assert set(events) == LIFECYCLE | {"action_applied"}
    assert events["action_applied"] == submitted
    assert {k: events[k] for k in LIFECYCLE} == {
        "game_created": 1,
        "seat_claimed": 2,
        "game_started": 1,
        "game_finished": 1,
        "game_left_memory": 1,
    }
    order = [line["event"] for line in lines if line["event"] in LIFECYCLE]
    assert order == [
        "game_created",
        "seat_claimed",
        "seat_claimed",
        "game_started",
        "game_finished",
        "game_left_memory",
    ]
    by_event = {line["event"]: line for line in lines}
    assert by_event["game_created"]["players"] == 2
    assert "seed" not in by_event["game_created"]  # it would tell the cards to come
    claims = [line for line in lines if line["event"] == "seat_claimed"]
    assert [(c["seat"], c["name"], c["seats_claimed"]) for c in claims] == [
        (0, "player 0", 1),
        (1, "player 1", 2),
    ]
    finished = by_event["game_finished"]
    assert finished["winners"] == list(result.winners)
    assert finished["scores"] == [s.score for s in sorted(result.seats, key=lambda s: s.seat)]
    outcomes = Counter(line["outcome"] for line in lines if line["event"] == "action_applied")
    assert outcomes == {"applied": submitted - 1, "stale": 1}
    assert by_event["game_left_memory"]["status"] == "finished"
    assert by_event["game_left_memory"]["still_served_from_store"] is False  # memory store
    text = buffer.getvalue()
    assert all(token not in text for token in tokens)


async def test_access_log_on_puts_one_rpc_line_per_call_at_info(server_factory: Any) -> None:
    buffer = io.StringIO()
    configure_logging("INFO", stream=buffer)
    server: RunningServer = await server_factory(access_log=True)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game_id = await create_game(stub, 2)
            await stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
    finally:
        await server.shutdown(0)
        configure_logging("WARNING")
    rpc = [line for line in _lines(buffer) if line["event"] == "rpc"]
    assert [(line["method"], line["level"]) for line in rpc] == [
        ("CreateGame", "info"),
        ("GetView", "info"),
    ]
