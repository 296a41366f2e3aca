"""``python -m server`` end to end, and what the server logs."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import grpc
import grpc.aio
import pytest
from api_support import Stub, create_game, join_all, seat_view
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.connection import open_channel, stub_for
from server.api.identity import hash_key
from server.main import RunningServer
from server.ops.logs import configure_logging
from yggdrasil.v1 import diagnostics_service_pb2 as ds
from yggdrasil.v1 import diagnostics_service_pb2_grpc, game_service_pb2_grpc
from yggdrasil.v1 import game_service_pb2 as gs

ROOT = Path(__file__).resolve().parents[2]
_READY = re.compile(r"gRPC on [\d.]+:(\d+); metrics on http://[\d.]+:(\d+)/metrics")


async def test_python_m_server_serves_and_stops_gracefully(tmp_path: Path) -> None:
    env = dict(os.environ, YGGDRASIL_LOG_LEVEL="WARNING")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--port", "0", "--metrics-port", "0",
        "--data-dir", str(tmp_path),
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        line = (await asyncio.wait_for(process.stderr.readline(), timeout=30)).decode()
        match = _READY.search(line)
        assert match, line
        port, metrics_port = int(match[1]), int(match[2])
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            diag = diagnostics_service_pb2_grpc.DiagnosticsServiceStub(channel)
            assert (await diag.Ping(ds.PingRequest(payload=b"p"))).payload == b"p"
            health = health_pb2_grpc.HealthStub(channel)
            reply = await health.Check(
                health_pb2.HealthCheckRequest(service="yggdrasil.v1.GameService")
            )
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game_id = await create_game(stub, 2)
            watch = stub.WatchGame(gs.WatchGameRequest(game_id=game_id))
            await watch.read()
            body = await asyncio.to_thread(
                lambda: urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics").read()
            )
            assert b"yggdrasil_games_created_total 1.0" in body
            assert b'method="CreateGame"' in body
            # No `*_created` series (creation timestamps of counters and histograms).
            assert not re.search(rb"^\w+_created[{ ]", body, re.MULTILINE), body

            process.send_signal(signal.SIGTERM)
            # The open stream is closed by the server, not left to the grace period, and
            # says where to resume (the game is not over).
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await asyncio.wait_for(watch.read(), timeout=60)
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            assert caught.value.details() == (
                "the server is shutting down; resume with from_sequence 1"
            )
        assert await asyncio.wait_for(process.wait(), timeout=60) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_logs_hold_no_tokens_or_cards(running: RunningServer, stub: Stub) -> None:
    buffer = io.StringIO()
    configure_logging("DEBUG", stream=buffer)
    try:
        game_id = await create_game(stub, 2, seed=41)
        tokens = await join_all(stub, game_id, 2)
        for seat in (0, 1):
            view = await seat_view(stub, game_id, tokens[seat])
            await stub.SubmitAction(
                gs.SubmitActionRequest(
                    game_id=game_id,
                    seat_token=tokens[seat],
                    legal_index=0,
                    state_version=view.state_version,
                )
            )
    finally:
        configure_logging("WARNING")
    lines = [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]
    assert any(line.get("event") == "action_applied" for line in lines)
    assert any(
        line.get("event") == "rpc" and line.get("method") == "SubmitAction" for line in lines
    )
    text = buffer.getvalue()
    for token in tokens:
        assert token not in text
    assert "[#" not in text  # no card labels
    for line in lines:
        if line.get("event") == "action_applied":
            assert set(line) <= {
                "event",
                "level",
                "timestamp",
                "game_id",
                "seat",
                "kind",
                "outcome",
                "latency_ms",
                "version",
                "request_id",
                "method",
                "client",  # the API key's name (or "anonymous"), never the key
            }


async def test_a_server_fault_answers_internal_and_the_server_goes_on(
    running: RunningServer, stub: Stub, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = await create_game(stub, 2)

    def broken_page(*args: object) -> object:
        raise RuntimeError("a bug in the listing")

    monkeypatch.setattr(running.games, "hosted_newest_first", broken_page)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.ListGames(gs.ListGamesRequest())
    assert caught.value.code() == grpc.StatusCode.INTERNAL
    details = caught.value.details() or ""
    assert details.startswith("internal error in ListGames (request ")
    assert "a bug" not in details
    monkeypatch.undo()
    listed = await stub.ListGames(gs.ListGamesRequest())
    assert [g.game_id for g in listed.games] == [game_id]


async def test_sighup_reads_the_keys_file_again(tmp_path: Path) -> None:
    old_key, new_key = "ygg_sighup-old-key-0123456789", "ygg_sighup-new-key-0123456789"

    def entry(key: str) -> str:
        return f'[[keys]]\nname = "rotated"\nsha256 = "{hash_key(key)}"\n'

    keys = tmp_path / "keys.toml"
    keys.write_text(entry(old_key), encoding="utf-8")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--port", "0", "--metrics-port", "-1",
        "--store", "memory", "--api-keys", str(keys), "--require-api-key", "on",
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        line = (await asyncio.wait_for(process.stderr.readline(), timeout=60)).decode()
        match = re.search(r"gRPC on [\d.]+:(\d+)", line)
        assert match, line
        address = f"127.0.0.1:{match[1]}"

        async def answered(key: str) -> grpc.StatusCode:
            async with open_channel(address, api_key=key) as channel:
                try:
                    await stub_for(channel).ListGames(gs.ListGamesRequest())
                except grpc.aio.AioRpcError as error:
                    return error.code()
            return grpc.StatusCode.OK

        assert await answered(old_key) == grpc.StatusCode.OK
        assert await answered(new_key) == grpc.StatusCode.UNAUTHENTICATED
        # The key is rotated in place: same size, same inode, and the old modification time
        # put back, so the file watcher (which compares those) sees no change; SIGHUP reads it.
        before = keys.stat()
        with keys.open("r+", encoding="utf-8") as handle:
            handle.write(entry(new_key))
        os.utime(keys, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert keys.stat().st_size == before.st_size
        process.send_signal(signal.SIGHUP)
        for _ in range(600):  # a hang guard, not a timing
            if await answered(new_key) == grpc.StatusCode.OK:
                break
            await asyncio.sleep(0.1)
        assert await answered(new_key) == grpc.StatusCode.OK
        assert await answered(old_key) == grpc.StatusCode.UNAUTHENTICATED
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
