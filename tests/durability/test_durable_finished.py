"""Finished games leave memory after their retention and stay queryable from the store."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from durable_support import Stub, create_game, join_all, next_request, play, start, stub_for

from protocol.replay_json import dumps, loads, replay_from_response, verify_replay
from server.config import ServerConfig
from server.main import open_store, start_server
from server.ops.metrics import Metrics, new_registry
from server.replay import replay_from_game
from tests.waiting import until
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

ROOT = Path(__file__).resolve().parents[2]


async def _finished_game(stub, seed: int, players: int = 2) -> str:
    game_id = await create_game(stub, players, seed=seed)
    tokens = await join_all(stub, game_id, players)
    await play(stub, game_id, tokens, random.Random(seed))
    return game_id


async def _finished_answers(
    stub: Stub, game_id: str, tokens: list[str], last: gs.SubmitActionRequest
) -> dict[str, Any]:
    """What a finished game answers to every call a client may make on it."""
    views = [
        (await stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))).view
    ]
    for token in tokens:
        views.append(
            (await stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=token))).view
        )
    watched = [
        m
        async for m in stub.WatchGame(
            gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator(), from_sequence=0)
        )
    ]
    tail_from = views[0].last_sequence - 2
    tail = [
        m
        async for m in stub.WatchGame(
            gs.WatchGameRequest(game_id=game_id, seat_token=tokens[0], from_sequence=tail_from)
        )
    ]
    retried = await stub.SubmitAction(last)
    refused = []
    fresh = gs.SubmitActionRequest()
    fresh.CopyFrom(last)
    fresh.idempotency_key = "a-new-key"
    join = gs.JoinGameRequest(game_id=game_id, seat_token="n" * 40)
    for call in (stub.SubmitAction(fresh), stub.JoinGame(join)):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call
        refused.append(caught.value.code())
    return {
        "views": views,
        "watched": watched,
        "tail": tail,
        "retried": (retried.state_version, retried.duplicate),
        "refused": refused,
        "result": await stub.GetResult(gs.GetResultRequest(game_id=game_id)),
        "replay": await stub.GetReplay(gs.GetReplayRequest(game_id=game_id)),
    }


async def test_finished_games_answer_the_same_from_memory_and_from_the_store(
    tmp_path: Path,
) -> None:
    """After its retention a finished game leaves memory, and a restarted server does not host
    it again; either way every call answers as it did while the game was hosted."""
    running = await start(tmp_path, finished_game_retention_s=0.5)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            game_id = await create_game(stub, 2, seed=31)
            tokens = await join_all(stub, game_id, 2)
            rng = random.Random(31)
            last = None
            while (request := await next_request(stub, game_id, tokens, rng, key="k")) is not None:
                request.idempotency_key = f"k{request.state_version}"
                await stub.SubmitAction(request)
                last = request
            assert last is not None
            hosted = await _finished_answers(stub, game_id, tokens, last)
            in_memory = replay_from_game(running.games.get(game_id))
            await until(lambda: game_id not in running.games.games, "the game stays in memory")
            assert await _finished_answers(stub, game_id, tokens, last) == hosted
            archived = await running.games.find(game_id)
            assert replay_from_game(archived) == in_memory
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetResult(gs.GetResultRequest(game_id="nope"))
            assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        await running.shutdown(0)
    views = hosted["views"]
    assert views[0].status == gp.GAME_STATUS_FINISHED and views[0].result.winners
    assert [v.viewer_seat for v in views[1:]] == [0, 1]
    assert [m.view for m in hosted["watched"]] == [views[0]]  # the final view, then the end
    # Resumed inside the last decision's events: the view before that decision, then all of
    # its events (the resume contract of WatchGameRequest).
    head, *tail = hosted["tail"]
    assert not head.HasField("event") and head.sequence == head.view.last_sequence
    assert head.sequence <= views[0].last_sequence - 3
    assert head.view.status == gp.GAME_STATUS_IN_PROGRESS
    assert [m.sequence for m in tail] == list(range(head.sequence + 1, views[0].last_sequence + 1))
    assert tail[-1].event.WhichOneof("payload") == "game_ended"
    assert hosted["retried"] == (last.state_version + 1, True)
    assert hosted["refused"] == [
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.FAILED_PRECONDITION,
    ]
    # ... and after a restart (finished games are not restored into memory).
    running = await start(tmp_path)
    try:
        assert running.restore is not None and running.restore.restored == 0
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            assert await _finished_answers(stub, game_id, tokens, last) == hosted
    finally:
        await running.shutdown(0)


async def test_the_memory_store_forgets_evicted_games() -> None:
    config = ServerConfig(port=0, metrics_port=-1, store="memory", finished_game_retention_s=0.2)
    store = open_store(config)
    running = await start_server(
        config, metrics=Metrics(new_registry(process_collectors=False)), store=store
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            game_id = await _finished_game(stub, 32)
            await until(lambda: game_id not in running.games.games, "the game stays in memory")
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetResult(gs.GetResultRequest(game_id=game_id))
            assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        await running.shutdown(0)


async def test_json_replays_verify_offline(tmp_path: Path) -> None:
    running = await start(tmp_path)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            game_id = await _finished_game(stub, 33, players=3)
            response = await stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
            from_server = replay_from_game(running.games.get(game_id))
    finally:
        await running.shutdown(0)
    document = replay_from_response(response, game_id)
    assert document == from_server
    assert loads(dumps(document)) == document
    assert document["actions"][0].keys() == {"seat", "code", "label", "by_timeout"}
    assert all(a["label"] for a in document["actions"])
    check = verify_replay(document)
    assert check.ok, check.problems
    assert check.actions == len(response.steps)
    assert check.final_state_hash == response.final_state_hash
    assert check.scores == [s.score for s in response.result.seats]

    good = tmp_path / "good.json"
    good.write_text(dumps(document))
    run = subprocess.run(
        [sys.executable, "-m", "server.replay", str(good)],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "OK" in run.stdout and response.final_state_hash in run.stdout

    tampered = json.loads(json.dumps(document))
    tampered["final_scores"]["scores"][0] += 1
    tampered["final_state_hash"] = "0" * 32
    bad = tmp_path / "bad.json"
    bad.write_text(dumps(tampered))
    swapped = json.loads(json.dumps(document))
    swapped["actions"][3]["code"] = swapped["actions"][4]["code"]
    illegal = tmp_path / "illegal.json"
    illegal.write_text(dumps(swapped))
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    run = subprocess.run(
        [sys.executable, "-m", "server.replay", "--json", str(bad), str(illegal)],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 1
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [line["ok"] for line in lines] == [False, False]
    assert any("hash" in p for p in lines[0]["problems"])
    assert any("final scores" in p for p in lines[0]["problems"])
    assert lines[1]["actions"] < len(document["actions"])
    run = subprocess.run(
        [sys.executable, "-m", "server.replay", str(junk)],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 2 and "cannot read" in run.stderr


def test_store_options() -> None:
    config = ServerConfig.from_env_and_args(["--store", "memory", "--fsync", "off"], {})
    assert config.store == "memory" and config.fsync is False
    env = ServerConfig.from_env_and_args([], {"YGGDRASIL_STORE": "SQLite", "YGGDRASIL_FSYNC": "1"})
    assert env.store == "sqlite" and env.fsync is True
    assert ServerConfig().store == "sqlite"
    assert ServerConfig(data_dir=Path("x")).store_path == Path("x/games.sqlite3")
    with pytest.raises(ValueError, match="YGGDRASIL_STORE"):
        ServerConfig.from_env_and_args([], {"YGGDRASIL_STORE": "mongodb"})
