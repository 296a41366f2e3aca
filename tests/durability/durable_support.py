"""Helpers of the durability tests (imported as a plain module: tests/ has no packages)."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

import grpc
import grpc.aio

from server.config import ServerConfig
from server.games.decision_clock import LOOP_CLOCK, DecisionClock
from server.main import RunningServer, start_server
from server.ops.metrics import Metrics, new_registry
from server.stores.sqlite import SqliteStore
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

Stub = Any
ROOT = Path(__file__).resolve().parents[2]
_READY = re.compile(r"gRPC on [\d.]+:(\d+)")


async def start(data_dir: Path, clock: DecisionClock = LOOP_CLOCK, **config: Any) -> RunningServer:
    """A server on 127.0.0.1:0 with a SQLite store in ``data_dir`` (closed on shutdown);
    ``clock`` runs its decision time limits (a ManualClock: only when the test moves it). Its
    games are dealt from the seeds the tests give (``--seed-choice anyone``): they play and
    list known deals.

    Restarts are eager here (``--restore eager``): these tests look into the rebuilt games and
    the start's report right after the start. The lazy restart (the server's default) is
    tested in test_lazy_restore.py, on the same damage and the same checks."""
    base = {
        "port": 0,
        "metrics_port": -1,
        "data_dir": data_dir,
        "seed_choice": "anyone",
        "restore": "eager",
    }
    settings = ServerConfig(**{**base, **config})  # type: ignore[arg-type]
    store = SqliteStore(settings.store_path)
    store.open()
    try:
        return await start_server(
            settings,
            metrics=Metrics(new_registry(process_collectors=False)),
            store=store,
            owns_store=True,
            clock=clock,
        )
    except BaseException:
        store.close()
        raise


def stub_for(channel: grpc.aio.Channel) -> Stub:
    return game_service_pb2_grpc.GameServiceStub(channel)


async def create_game(stub: Stub, players: int, seed: int, **options: Any) -> str:
    opts = gp.GameOptions(player_count=players, seed=seed, **options)
    reply = await stub.CreateGame(gs.CreateGameRequest(options=opts))
    return str(reply.game_id)


async def join_all(stub: Stub, game_id: str, players: int) -> list[str]:
    tokens = []
    for seat in range(players):
        reply = await stub.JoinGame(
            gs.JoinGameRequest(game_id=game_id, seat=seat, player_name=f"p{seat}")
        )
        tokens.append(str(reply.seat_token))
    return tokens


async def spectator(stub: Stub, game_id: str) -> gp.View:
    reply = await stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
    return reply.view


async def next_request(
    stub: Stub, game_id: str, tokens: list[str], rng: random.Random, key: str = ""
) -> gs.SubmitActionRequest | None:
    """A random legal decision of the first awaited seat (None once nobody is awaited)."""
    view = await spectator(stub, game_id)
    waiting = [s for s in view.awaiting_seats if s not in view.committed_seats]
    if not waiting:
        return None
    seat = waiting[0]
    mine = await stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=tokens[seat]))
    legal = mine.view.legal_actions
    choice = legal[rng.randrange(len(legal))]
    return gs.SubmitActionRequest(
        game_id=game_id,
        seat_token=tokens[seat],
        action=choice.action,
        state_version=mine.view.state_version,
        idempotency_key=key,
    )


async def play(
    stub: Stub, game_id: str, tokens: list[str], rng: random.Random, n: int | None = None
) -> list[gs.SubmitActionResponse]:
    """Play ``n`` random decisions (all of them to the end if None)."""
    replies = []
    while n is None or len(replies) < n:
        request = await next_request(stub, game_id, tokens, rng, key=f"k{rng.random()}")
        if request is None:
            break
        replies.append(await stub.SubmitAction(request))
    return replies


class Server:
    """``python -m server`` on port 0 with a data directory; killed and restarted at will."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.process: asyncio.subprocess.Process | None = None
        self.channel: grpc.aio.Channel | None = None
        self.stub: Any = None
        self.up = asyncio.Event()
        self.address = ""  # host:port of the running process
        self.starts = 0
        self.start_seconds: list[float] = []
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> None:
        started = time.perf_counter()
        env = dict(os.environ, YGGDRASIL_LOG_LEVEL="ERROR")
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server", "--port", "0", "--metrics-port", "-1",
            "--data-dir", str(self.data_dir), "--snapshot-every", "7",
            cwd=ROOT, env=env, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert self.process.stderr is not None
        while True:
            line = (await asyncio.wait_for(self.process.stderr.readline(), 60)).decode()
            assert line, "the server exited before it was ready"
            match = _READY.search(line)
            if match:
                break
        self._drain = asyncio.create_task(self._drain_stderr(self.process))
        old = self.channel
        self.address = f"127.0.0.1:{match[1]}"
        self.channel = grpc.aio.insecure_channel(self.address)
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)
        if old is not None:
            await old.close()
        self.starts += 1
        self.start_seconds.append(time.perf_counter() - started)
        self.up.set()

    @staticmethod
    async def _drain_stderr(process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        while await process.stderr.readline():
            pass

    async def kill(self) -> None:
        assert self.process is not None
        self.up.clear()
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()
        if self._drain is not None:
            await self._drain

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(self.process.wait(), 30)
        if self._drain is not None:
            await self._drain
        if self.channel is not None:
            await self.channel.close()


def rechain(path: Path, game_id: str) -> None:
    """Recompute a game's hash chain (``server.stores.chain``) over its record, claims and action
    rows as they are now:
    what a writer that rewrites the log consistently would do (a test that changes rows to
    simulate something other than tampering, or that checks what the other checks catch)."""
    import json
    import sqlite3

    from server.stores import chain

    conn = sqlite3.connect(path)
    try:
        created, settings, scenario = conn.execute(
            "SELECT created_unix_ms, settings_json, scenario_json FROM games WHERE game_id = ?",
            (game_id,),
        ).fetchone()
        head = chain.genesis(game_id, created, json.loads(settings), scenario)
        conn.execute("UPDATE games SET genesis = ? WHERE game_id = ?", (head, game_id))
        claims = conn.execute(
            "SELECT seat, name, token_hash, sequence FROM seats WHERE game_id = ? "
            "ORDER BY sequence, seat",
            (game_id,),
        ).fetchall()
        for seat, name, token_hash, sequence in claims:  # the claims, then the actions
            head = chain.seat_link(head, seat, name, token_hash, sequence)
            conn.execute(
                "UPDATE seats SET chain = ? WHERE game_id = ? AND seat = ?", (head, game_id, seat)
            )
        rows = conn.execute(
            "SELECT version, seat, code, by_timeout, state_hash, sequence, idem_key, idem_hash "
            "FROM actions WHERE game_id = ? ORDER BY version",
            (game_id,),
        ).fetchall()
        for version, seat, code, by_timeout, state_hash, sequence, key, key_hash in rows:
            head = chain.link(
                head, version, seat, code, bool(by_timeout), state_hash, sequence,
                key or "", key_hash or "",
            )  # fmt: skip
            conn.execute(
                "UPDATE actions SET chain = ? WHERE game_id = ? AND version = ?",
                (head, game_id, version),
            )
        conn.commit()
    finally:
        conn.close()
