"""Finished games leave memory after their retention and stay queryable from the store."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path

import grpc
import grpc.aio
import pytest
from durable_support import create_game, join_all, play, start, stub_for

from server.config import ServerConfig
from server.main import open_store, start_server
from server.metrics import Metrics, new_registry
from server.replay_json import dumps, loads, replay_from_game, replay_from_response, verify_replay
from yggdrasil.v1 import game_service_pb2 as gs

ROOT = Path(__file__).resolve().parents[2]


async def _finished_game(stub, seed: int, players: int = 2) -> str:
    game_id = await create_game(stub, players, seed=seed)
    tokens = await join_all(stub, game_id, players)
    await play(stub, game_id, tokens, random.Random(seed))
    return game_id


async def test_evicted_games_answer_result_and_replay_from_the_store(tmp_path: Path) -> None:
    running = await start(tmp_path, finished_game_retention_s=0.2)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            game_id = await _finished_game(stub, 31)
            result = await stub.GetResult(gs.GetResultRequest(game_id=game_id))
            replay = await stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
            in_memory = replay_from_game(running.games.get(game_id))
            for _ in range(50):
                if game_id not in running.games.games:
                    break
                await asyncio.sleep(0.05)
            assert game_id not in running.games.games  # swept out of memory
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
            assert caught.value.code() == grpc.StatusCode.NOT_FOUND
            assert await stub.GetResult(gs.GetResultRequest(game_id=game_id)) == result
            assert await stub.GetReplay(gs.GetReplayRequest(game_id=game_id)) == replay
            archived = await running.games.get_finished(game_id)
            assert replay_from_game(archived) == in_memory
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetResult(gs.GetResultRequest(game_id="nope"))
            assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        await running.shutdown(0)
    # ... and after a restart (finished games are not restored into memory).
    running = await start(tmp_path)
    try:
        assert running.restore is not None and running.restore.restored == 0
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            assert await stub.GetResult(gs.GetResultRequest(game_id=game_id)) == result
            assert await stub.GetReplay(gs.GetReplayRequest(game_id=game_id)) == replay
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
            for _ in range(50):
                if game_id not in running.games.games:
                    break
                await asyncio.sleep(0.05)
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
    assert check.glory == [s.score for s in response.result.seats]

    good = tmp_path / "good.json"
    good.write_text(dumps(document))
    run = subprocess.run(
        [sys.executable, "-m", "server.replay", str(good)],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "OK" in run.stdout and response.final_state_hash in run.stdout

    tampered = json.loads(json.dumps(document))
    tampered["final_scores"]["glory"][0] += 1
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
    assert any("glory" in p for p in lines[0]["problems"])
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
        ServerConfig.from_env_and_args([], {"YGGDRASIL_STORE": "postgres"})
