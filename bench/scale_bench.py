"""``make bench-scale`` (``python -m bench --only scale``): what one node holds.

1. **Idle games.** ``games`` games created and all their seats claimed through the API on one
   server (SQLite store), nobody deciding: resident memory per game, against the same server
   before them (the baseline is the server's own memory).
2. **Restart from SQLite.** ``games`` unfinished games (3 seats, 5 decisions each, written
   through the store API as a server writes them: ``durability_bench.populate_direct``) in a
   data directory; a server started on it hosts them all again before it serves: lazily (the
   default: from the store's index, each rebuilt on first use) and, with ``--eager``, eagerly
   (each rebuilt first) for comparison. Measured: from the process's start to its saying it
   serves, and from then to the first decision on a restored game answered (its rebuild
   included); resident memory per game against a server started on an empty store. Where the
   time goes: the same restore in this process, reading the file (or its index) against
   rebuilding (or hosting dormant) the games.
3. **Restart from PostgreSQL.** The same rows copied into PostgreSQL (fsync on), as a node
   leaves them when it stops gracefully (released, ``owner`` NULL); a node started on it
   serves at once and takes them back in bulk (``server.cluster.ownership``), lazily (owned and
   hosted from their index) or with ``--eager`` each rebuilt as it is taken: from the
   process's start to serving, to the first decision on a restored game answered, and to every
   game hosted (owned) again.
4. **Many games active at once.** PlaySession with ``sessions`` sessions open (a game per four
   seats) against 16 on the same server, phases alternated: decisions/s and p99 side by side.
   The sessions are spread over connections of ``SESSIONS_PER_CHANNEL`` (a server takes 256
   streams on one connection), and the server is sized for the games the load prepares.

Targets (issue 28): a restart restores 100,000 games in <= 10 s on either store, with the
first decision answered <= 1 s after the server says it serves. The machine's cores are shared
by the servers, PostgreSQL and this load generator: the times are this machine's, and other
load on it lengthens them.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import shutil
import sqlite3
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import grpc.aio
import psycopg

from bench import server_bench
from bench.durability_bench import populate_direct
from bench.server_bench import PLAYERS, Latencies, ServerProcess, _Tally
from bench.session_load import GameSource, SpreadSessions
from localcluster.postgres import ThrowawayPostgres, free_port
from server.games.recovery import restore_games, restore_lazily
from server.games.registry import GameRegistry
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry
from server.stores.postgres import PostgresStore
from server.stores.sqlite import SqliteStore
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

__all__ = ["Restart", "ScaleBench", "run"]

RESTORED_PLAYERS = 3
RESTORED_DECISIONS = 5
SESSIONS_PER_CHANNEL = 200
TARGET_RESTORE_S = 10.0
TARGET_FIRST_DECISION_S = 1.0


@dataclass
class Restart:
    """One server restart on ``games`` unfinished games (seconds from the process's start)."""

    store: str
    games: int
    mode: str = "lazy"  # --restore lazy or eager
    serving_s: float = 0.0  # the process says it serves
    first_decision_s: float = 0.0  # from serving to a restored game's first decision answered
    all_hosted_s: float = 0.0  # every game hosted again
    rss_mib: float = 0.0  # the server's resident memory once they all are
    kib_per_game: float = 0.0  # that, less an empty server's, per game
    # Where the time goes (seconds), for the store whose restore is measured in this process.
    phases: dict[str, float] = field(default_factory=dict)


@dataclass
class ScaleBench:
    games: int
    idle_kib_per_game: float = 0.0
    idle_create_s: float = 0.0
    restarts: list[Restart] = field(default_factory=list)
    sessions: dict[int, Latencies] = field(default_factory=dict)
    populate_s: float = 0.0

    def rows(self) -> list[tuple[str, str, str]]:
        out = []
        if self.idle_create_s:  # (the idle part ran)
            out.append(
                (
                    f"resident memory per idle game ({self.games:,})",
                    f"{self.idle_kib_per_game:.1f} KiB",
                    f"created and joined through the API in {self.idle_create_s:.0f} s (SQLite)",
                )
            )
        for r in self.restarts:
            out.append(
                (
                    f"restart on {r.games:,} games [{r.store}, {r.mode}]",
                    f"{r.all_hosted_s:.2f} s",
                    f"to every game hosted (target <= {TARGET_RESTORE_S:g} s); serving at "
                    f"{r.serving_s:.2f} s; first decision {r.first_decision_s * 1e3:.0f} ms "
                    f"after (target <= {TARGET_FIRST_DECISION_S:g} s); {r.rss_mib:,.0f} MiB, "
                    f"{r.kib_per_game:.1f} KiB a game over an empty server's",
                )
            )
            if r.phases:
                out.append(
                    (
                        f"  where the time goes [{r.store}, {r.mode}]",
                        f"{sum(r.phases.values()):.2f} s",
                        ", ".join(f"{k} {v:.2f} s" for k, v in r.phases.items()),
                    )
                )
        few = min(self.sessions, default=0)
        for n, figures in sorted(self.sessions.items()):
            base = self.sessions.get(few)
            note = (
                f"{figures.per_s / base.per_s:.2f}x the decisions/s of {few}, p99 "
                f"{figures.p99_ms / base.p99_ms:.2f}x"
                if base is not None and n != few
                else "baseline"
            )
            out.append(
                (
                    f"PlaySession, {n:,} sessions ({n // PLAYERS:,} games)",
                    f"{figures.per_s:,.0f}/s",
                    f"p50 {figures.p50_ms:.1f} ms, p99 {figures.p99_ms:.1f} ms; {note}",
                )
            )
        return out


# -- 1. idle games ----------------------------------------------------------------------------


async def _create_idle(port: int, count: int, at_once: int = 100) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        next_seed = iter(range(10**6, 10**6 + count))

        async def worker() -> None:
            for seed in next_seed:
                await server_bench._create(stub, seed)

        await asyncio.gather(*(worker() for _ in range(at_once)))


def idle_games(games: int, result: ScaleBench) -> None:
    server = ServerProcess(["--max-games", str(games + 1000)])
    try:
        asyncio.run(_create_idle(server.port, 200))  # warm up allocator and caches
        time.sleep(0.5)
        before = server.rss_kib()
        started = time.perf_counter()
        asyncio.run(_create_idle(server.port, games))
        result.idle_create_s = time.perf_counter() - started
        time.sleep(0.5)
        result.idle_kib_per_game = (server.rss_kib() - before) / games
    finally:
        server.stop()


# -- 2. and 3. restarts -----------------------------------------------------------------------


async def _first_decision(port: int, game_index: int) -> float:
    """Decide once in a game written by populate_direct (its seat tokens are known);
    returns the seconds from now to the answer."""
    started = time.perf_counter()
    game_id = f"bench{game_index:06d}"
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        request = gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
        view = (await stub.GetView(request, timeout=60)).view
        seat = next(s for s in view.awaiting_seats if s not in view.committed_seats)
        await stub.SubmitAction(
            gs.SubmitActionRequest(
                game_id=game_id,
                seat_token=f"t{game_index}/{seat}",
                legal_index=0,
                state_version=view.state_version,
                idempotency_key="first-after-restart",
            ),
            timeout=60,
        )
    return time.perf_counter() - started


def _sized(games: int) -> list[str]:
    return ["--max-games", str(games + 1000)]


def empty_server_kib(games: int) -> float:
    """The resident memory of a server started on an empty SQLite store (sized alike)."""
    with tempfile.TemporaryDirectory(prefix="ygg-scale-") as data:
        server = ServerProcess(["--data-dir", data, *_sized(games)])
        try:
            time.sleep(0.5)
            return server.rss_kib()
        finally:
            server.stop()


def sqlite_restart(source: Path, games: int, mode: str, empty_kib: float) -> Restart:
    out = Restart("SQLite", games, mode)
    with tempfile.TemporaryDirectory(prefix="ygg-scale-") as data:
        shutil.copy(source, Path(data) / "games.sqlite3")
        server = ServerProcess(
            ["--data-dir", data, "--restore", mode, *_sized(games)],
            start_timeout_s=max(120.0, games / 100),
        )
        try:
            out.serving_s = out.all_hosted_s = server.serving - server.started
            rss = server.rss_kib()  # (before the first decision rebuilds a game)
            out.rss_mib = rss / 1024
            out.kib_per_game = (rss - empty_kib) / games
            out.first_decision_s = asyncio.run(_first_decision(server.port, games // 2))
        finally:
            server.stop()
    return out


async def _restore_in_process(source: Path, games: int, mode: str) -> dict[str, float]:
    """The SQLite restore in this process: reading the file (lazily: its index), then
    rebuilding and hosting the games (lazily: hosting them dormant)."""
    with tempfile.TemporaryDirectory(prefix="ygg-scale-") as tmp:
        path = Path(tmp) / "games.sqlite3"
        shutil.copy(source, path)
        store = SqliteStore(path)
        store.open()
        registry = GameRegistry(
            store, Metrics(new_registry(process_collectors=False)), max_games=games + 1
        )
        try:
            restore = restore_games if mode == "eager" else restore_lazily
            report = await restore(store, registry)
        finally:
            registry.close()
            store.close()
    assert report.restored == games, report.problems[:3]
    if mode == "eager":
        return {
            "reading the file": report.load_seconds,
            "rebuilding and hosting": report.seconds - report.load_seconds,
        }
    return {
        "reading the index": report.load_seconds,
        "hosting them dormant": report.seconds - report.load_seconds,
    }


def copy_to_postgres(source: Path, url: str) -> None:
    """The SQLite store's rows into a PostgreSQL store, as a node leaves its games on a
    graceful stop (owner NULL, epoch 1), with the same token key (the seat tokens stay
    good)."""

    async def schema() -> None:
        store = PostgresStore(url)
        await store.open()
        await store.close()

    asyncio.run(schema())
    lite = sqlite3.connect(source)
    try:
        (key,) = lite.execute("SELECT value FROM meta WHERE key = 'token_key'").fetchone()
        with psycopg.connect(url) as conn:
            conn.execute("UPDATE meta SET value = %s WHERE key = 'token_key'", (key,))
            copies = (
                (
                    "games (game_id, created_unix_ms, settings_json, scenario_json, "
                    "log_length, last_hash, epoch, creator, activity_unix_ms, genesis)",
                    "SELECT game_id, created_unix_ms, settings_json, scenario_json, log_length, "
                    "last_hash, 1, creator, coalesce(activity_unix_ms, created_unix_ms), genesis "
                    "FROM games WHERE finished_unix_ms IS NULL ORDER BY rowid",
                ),
                (  # the claims carry their links in the hash chain
                    "seats (game_id, seat, name, token_hash, sequence, chain)",
                    "SELECT game_id, seat, name, token_hash, sequence, chain FROM seats",
                ),
                (
                    "actions (game_id, version, seat, code, by_timeout, state_hash, sequence, "
                    "idem_key, idem_hash, epoch, chain)",
                    "SELECT game_id, version, seat, code, by_timeout != 0, state_hash, sequence, "
                    "idem_key, idem_hash, 1, chain FROM actions",
                ),
                (
                    "snapshots (game_id, version, data_json)",
                    "SELECT game_id, version, data_json FROM snapshots",
                ),
            )
            for target, select in copies:
                with conn.cursor().copy(f"COPY {target} FROM STDIN") as copy:
                    for row in lite.execute(select):
                        copy.write_row(row)
            conn.execute("ANALYZE")
    finally:
        lite.close()


def _owned(metrics_port: int) -> int:
    text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=30).read()
    m = re.search(rb"^yggdrasil_games_owned (\S+)$", text, re.MULTILINE)
    return int(float(m.group(1))) if m else 0


def postgres_restart(url: str, games: int, mode: str, empty_kib: float) -> Restart:
    with tempfile.TemporaryDirectory(prefix="ygg-scale-") as tmp:
        secret = Path(tmp) / "cluster-secret"
        secret.write_text(secrets.token_hex(32) + "\n")  # a node needs one (docs/cluster.md)
        secret.chmod(0o600)
        return _postgres_restart(url, games, mode, empty_kib, secret)


def _postgres_restart(url: str, games: int, mode: str, empty_kib: float, secret: Path) -> Restart:
    out = Restart("PostgreSQL", games, mode)
    metrics_port = free_port()
    server = ServerProcess(
        [
            "--store", "postgres", "--database-url", url, "--metrics-port", str(metrics_port),
            "--node-id", "scale", "--restore", mode, "--cluster-secret-file", str(secret),
            *_sized(games),
        ],
        start_timeout_s=120.0,
    )  # fmt: skip
    try:
        out.serving_s = server.serving - server.started
        out.first_decision_s = asyncio.run(_first_decision(server.port, games // 2))
        deadline = time.perf_counter() + max(600.0, games / 50)
        while _owned(metrics_port) < games:
            if time.perf_counter() > deadline:
                raise RuntimeError("the node did not take every game back")
            time.sleep(0.1)
        out.all_hosted_s = time.perf_counter() - server.started
        rss = server.rss_kib()
        out.rss_mib = rss / 1024
        out.kib_per_game = (rss - empty_kib) / games
    finally:
        server.stop()
    return out


# -- 4. many sessions -------------------------------------------------------------------------


async def _sessions(port: int, counts: list[int], seconds: float) -> dict[int, Latencies]:
    """PlaySession phases of each count alternated (``server_bench.ROUNDS`` rounds), every
    ``SESSIONS_PER_CHANNEL`` sessions on a connection of their own."""
    plans = server_bench.plan_games(32)

    async def prepared(stub: game_service_pb2_grpc.GameServiceAsyncStub, n: int) -> GameSource:
        return await server_bench._seat_games(stub, plans, server_bench.session_games(n, seconds))

    loads: dict[int, SpreadSessions] = {}
    try:
        for n in counts:
            loads[n] = await SpreadSessions.open(
                f"127.0.0.1:{port}", n, prepared, SESSIONS_PER_CHANNEL
            )
            loads[n].start()
        for load in loads.values():  # warm up: every session open and deciding
            await load.phase(time.perf_counter() + 1.0)
            load.clear_latencies()
        before = {n: load.decisions for n, load in loads.items()}
        tallies = {n: _Tally() for n in counts}
        phase = seconds / server_bench.ROUNDS
        for r in range(server_bench.ROUNDS):
            for n in counts if r % 2 == 0 else list(reversed(counts)):
                started = time.perf_counter()
                await loads[n].phase(started + phase)
                tallies[n].seconds += time.perf_counter() - started
        out = {}
        for n, load in loads.items():
            figures = tallies[n].summary(load.latencies)
            figures.calls = load.decisions - before[n]
            if load.refused:
                raise RuntimeError(f"{load.refused} PlaySession decisions were refused")
            out[n] = figures
        return out
    finally:
        for load in loads.values():
            await load.close()


def many_sessions(sessions: int, seconds: float) -> dict[int, Latencies]:
    counts = [16, sessions]
    planned = sum(server_bench.session_games(n, seconds) for n in counts)
    server = ServerProcess(["--max-games", str(max(10_000, 2 * planned))])
    try:
        return asyncio.run(_sessions(server.port, counts, seconds))
    finally:
        server.stop()


def _progress(result: ScaleBench, what: str) -> None:
    """The figures so far, on stderr as each part ends (a long run that fails later keeps
    them)."""
    print(f"-- scale run: {what} done", file=sys.stderr)
    for name, value, note in result.rows():
        print(f"  {name:<44} {value:>12}   {note}", file=sys.stderr, flush=True)


def run(
    games: int = 100_000,
    sessions: int = 1000,
    seconds: float = 5.0,
    parts: tuple[str, ...] = ("sessions", "idle", "sqlite", "postgres"),
    modes: tuple[str, ...] = ("lazy",),
) -> ScaleBench:
    configure_logging("WARNING")
    result = ScaleBench(games)
    if "sessions" in parts:
        result.sessions = many_sessions(sessions, seconds)
        _progress(result, "sessions")
    if "idle" in parts:
        idle_games(games, result)
        _progress(result, "idle games")
    if not {"sqlite", "postgres"} & set(parts):
        return result
    with tempfile.TemporaryDirectory(prefix="ygg-scale-") as tmp:
        source = Path(tmp) / "games.sqlite3"
        started = time.perf_counter()
        asyncio.run(populate_direct(source, games, RESTORED_DECISIONS, players=RESTORED_PLAYERS))
        result.populate_s = time.perf_counter() - started
        empty_kib = empty_server_kib(games)
        if "sqlite" in parts:
            for mode in modes:
                restart = sqlite_restart(source, games, mode, empty_kib)
                restart.phases = asyncio.run(_restore_in_process(source, games, mode))
                result.restarts.append(restart)
                _progress(result, f"SQLite restart ({mode})")
        if "postgres" in parts:
            with ThrowawayPostgres(fsync=True) as pg:
                for mode in modes:
                    url = pg.create_database(f"scale_{mode}")
                    copy_to_postgres(source, url)
                    result.restarts.append(postgres_restart(url, games, mode, empty_kib))
                    _progress(result, f"PostgreSQL restart ({mode})")
    return result
