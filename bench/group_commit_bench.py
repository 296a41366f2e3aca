"""What the PostgreSQL store's group commit gives, each figure against a baseline of the same
run (``make bench-cluster`` prints them with the cluster's other figures):

1. Appends per second through each store's own API, many games appending at once, fsync on
   both: PostgreSQL (group commit, and each decision on its own, as before it) against SQLite
   (whose writer thread commits whatever is queued in one transaction). Issue 28's target:
   PostgreSQL >= 0.5x SQLite.
2. SubmitAction on a server whose store is PostgreSQL (a one-node cluster) against the same
   server on SQLite, both fsync on, the same closed-loop load (``in_flight`` calls), phases
   alternated. Targets: throughput >= 0.8x, p99 <= 2x.
3. The latency a decision pays for batching at low load: one game, one call at a time, on
   PostgreSQL with group commit against PostgreSQL with each decision committed on its own
   (``--store-batch-max 1``), and with a batch delay (``--store-batch-delay-ms``), to show
   what that setting trades.

Every process shares this machine's cores with the load generator (and, here, with other
jobs): the figures are ratios, not capacities.
"""

from __future__ import annotations

import asyncio
import sqlite3
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc.aio
import psycopg

from bench import server_bench
from bench.server_bench import Latencies, ServerProcess, _Tally
from localcluster.postgres import ThrowawayPostgres
from server.stores.contract import StoredAction
from server.stores.postgres import PostgresStore
from server.stores.postgres_batch import BATCH_APPEND, AppendRow, BatchSettings, batch_params
from server.stores.sqlite import SqliteStore
from yggdrasil.v1 import game_service_pb2_grpc

__all__ = ["AppendRates", "GroupCommitBench", "run_async"]

# The delay shown against the default of none, at low load.
DELAY_MS = 2.0


@dataclass
class AppendRates:
    """Appends/s of ``games`` games appending ``per_game`` decisions each, one at a time."""

    games: int
    per_game: int
    sqlite: float = 0.0
    postgres: float = 0.0  # group commit (the default settings)
    postgres_single: float = 0.0  # each decision in its own transaction (batch of 1)
    postgres_mean_batch: float = 0.0  # rows per transaction with group commit
    postgres_batch_ms: float = 0.0  # mean time of one batch's statement and commit

    @property
    def ratio(self) -> float:
        return self.postgres / self.sqlite if self.sqlite else 0.0


@dataclass
class GroupCommitBench:
    appends: list[AppendRates] = field(default_factory=list)
    in_flight: int = 16
    submit_sqlite: Latencies | None = None
    submit_postgres: Latencies | None = None
    # One game, one call at a time: p50/p99 by store setting.
    low_load: dict[str, Latencies] = field(default_factory=dict)
    # Where a batch's time goes (medians, ms), PostgreSQL and SQLite, BATCH_ROWS rows each.
    anatomy: dict[str, float] = field(default_factory=dict)

    def rows(self) -> list[tuple[str, str, str]]:
        out = []
        for a in self.appends:
            shape = f"{a.games} games x {a.per_game}"
            out += [
                (f"appends/s SQLite, fsync ({shape})", f"{a.sqlite:,.0f}", "baseline"),
                (
                    f"appends/s PostgreSQL, fsync ({shape})",
                    f"{a.postgres:,.0f}",
                    f"{a.ratio:.2f}x of SQLite (target >= 0.5); {a.postgres_mean_batch:.0f} "
                    f"rows per commit, {a.postgres_batch_ms:.1f} ms each",
                ),
                (
                    f"  ... each decision on its own ({shape})",
                    f"{a.postgres_single:,.0f}",
                    f"{a.postgres_single / a.sqlite if a.sqlite else 0:.2f}x of SQLite "
                    "(no group commit, as before)",
                ),
            ]
        s, p = self.submit_sqlite, self.submit_postgres
        if s is not None and p is not None:
            out += [
                (
                    f"SubmitAction/s SQLite node ({self.in_flight} in flight)",
                    f"{s.per_s:,.0f}",
                    f"p50 {s.p50_ms:.2f} ms, p99 {s.p99_ms:.2f} ms (baseline)",
                ),
                (
                    f"SubmitAction/s PostgreSQL node ({self.in_flight} in flight)",
                    f"{p.per_s:,.0f}",
                    f"{p.per_s / s.per_s:.2f}x of SQLite (target >= 0.8); p50 {p.p50_ms:.2f} ms, "
                    f"p99 {p.p99_ms:.2f} ms = {p.p99_ms / s.p99_ms:.2f}x (target <= 2)",
                ),
            ]
        if self.anatomy:
            an = self.anatomy
            out.append(
                (
                    f"one batch of {BATCH_ROWS} appends [PostgreSQL]",
                    f"{an['pg_statement_ms'] + an['pg_commit_ms']:.2f} ms",
                    f"statement {an['pg_statement_ms']:.2f} ms (of which executing in the "
                    f"server {an['pg_execution_ms']:.2f} ms), commit {an['pg_commit_ms']:.2f} ms, "
                    f"parameters {an['pg_params_ms']:.3f} ms (p50s)",
                )
            )
            out.append(
                (
                    f"one batch of {BATCH_ROWS} appends [SQLite]",
                    f"{an['sqlite_statement_ms'] + an['sqlite_commit_ms']:.2f} ms",
                    f"statements {an['sqlite_statement_ms']:.2f} ms, commit "
                    f"{an['sqlite_commit_ms']:.2f} ms (p50s)",
                )
            )
        base = self.low_load.get("postgres, each on its own")
        for name, figures in self.low_load.items():
            added = (
                f"; {figures.p50_ms - base.p50_ms:+.2f} ms p50, "
                f"{figures.p99_ms - base.p99_ms:+.2f} ms p99 against each on its own"
                if base is not None and figures is not base
                else (" (baseline)" if figures is base else "")
            )
            out.append(
                (
                    f"one game, one call at a time [{name}]",
                    f"{figures.p50_ms:.2f} ms",
                    f"p50; p99 {figures.p99_ms:.2f} ms{added}",
                )
            )
        return out


# -- 1. appends through the stores' own API -------------------------------------------------


async def _appends(store: Any, games: int, per_game: int, prefix: str) -> float:
    for g in range(games):
        await store.create(f"{prefix}{g}", g, {"players": 2, "seed": g}, "")
    started = time.perf_counter()

    async def one(g: int) -> None:
        for v in range(per_game):
            entry = StoredAction(v, 0, 1, False, f"h{v}", v + 1, f"k{v}")  # code: not read
            await store.append(f"{prefix}{g}", entry)

    await asyncio.gather(*(one(g) for g in range(games)))
    return games * per_game / (time.perf_counter() - started)


async def _postgres_appends(
    url: str, member: str, batch: BatchSettings, games: int, per_game: int
) -> tuple[float, PostgresStore]:
    store = PostgresStore(url, member=member, max_connections=8, batch=batch)
    await store.open()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO nodes (member, node_id, address, lease_until) "
            "VALUES (%s, 'bench', '-', now() + interval '1 hour')",
            (member,),
        )
    try:
        rate = await _appends(store, games, per_game, f"{member}/g")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE games")  # the next measurement starts alike
            conn.execute("VACUUM ANALYZE actions")
    finally:
        await store.close()
    return rate, store


async def append_rates(pg: ThrowawayPostgres, shapes: list[tuple[int, int]]) -> list[AppendRates]:
    """Each shape on SQLite, PostgreSQL with group commit and PostgreSQL without; the three
    are measured in turn twice and the better of each kept (a burst of other load on the
    machine then spoils one measurement, not the ratio)."""
    out = []
    for n, (games, per_game) in enumerate(shapes):
        rates = AppendRates(games, per_game)
        for attempt in range(2):
            with tempfile.TemporaryDirectory() as tmp:
                sqlite = SqliteStore(Path(tmp) / "games.sqlite3", fsync=True)
                sqlite.open()
                try:
                    rate = await _appends(sqlite, games, per_game, "g")
                finally:
                    sqlite.close()
            rates.sqlite = max(rates.sqlite, rate)
            rate, store = await _postgres_appends(
                pg.url(), f"bench/{n}/{attempt}", BatchSettings(), games, per_game
            )
            if rate > rates.postgres:
                rates.postgres = rate
                batcher = store.batcher
                rates.postgres_mean_batch = batcher.rows / max(1, batcher.batches)
                recent = list(batcher.recent)
                rates.postgres_batch_ms = sum(s for _, s in recent) / max(1, len(recent)) * 1e3
            rate, _ = await _postgres_appends(
                pg.url(), f"bench/{n}/{attempt}/1", BatchSettings(max_batch=1), games, per_game
            )
            rates.postgres_single = max(rates.postgres_single, rate)
        out.append(rates)
    return out


# -- where a batch's time goes ------------------------------------------------------------------

BATCH_ROWS = 32


def _rows(version: int) -> list[AppendRow]:
    return [
        AppendRow(f"a{g}", 1, version, version, 0, 1, False, "h" * 64, version + 1,
                  f"k{version}", "r" * 64, "{}", "c" * 64, 0)
        for g in range(BATCH_ROWS)
    ]  # fmt: skip


def batch_anatomy(url: str, batches: int = 40) -> dict[str, float]:
    """One batch of ``BATCH_ROWS`` appends, its statement and its commit timed apart (the
    statement run in a transaction, then COMMIT: the WAL flush), PostgreSQL's own execution
    time of it (EXPLAIN ANALYZE on a copy that is rolled back), and the same batch on SQLite
    (``executemany`` of the two statements, then COMMIT). Medians, in ms."""
    times: dict[str, list[float]] = {k: [] for k in ("params", "statement", "commit", "exec")}
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO nodes (member, node_id, address, lease_until) "
            "VALUES ('anatomy', 'anatomy', '-', now() + interval '1 hour')"
        )
        for g in range(BATCH_ROWS):
            conn.execute(
                "INSERT INTO games (game_id, created_unix_ms, settings_json, scenario_json, "
                "owner, epoch) VALUES (%s, 0, '{}', '', 'anatomy', 1)",
                (f"a{g}",),
            )
        sql = BATCH_APPEND.encode()
        for version in range(batches):
            started = time.perf_counter()
            params = batch_params("anatomy", _rows(version))
            built = time.perf_counter()
            with conn.transaction():
                conn.execute(sql, params).fetchall()
                executed = time.perf_counter()
            committed = time.perf_counter()
            times["params"].append(built - started)
            times["statement"].append(executed - built)
            times["commit"].append(committed - executed)
            try:
                with conn.transaction():
                    plan = conn.execute(
                        b"EXPLAIN (ANALYZE, FORMAT JSON) " + sql,
                        batch_params("anatomy", _rows(version + 1)),
                    ).fetchone()
                    raise _Rollback
            except _Rollback:
                pass
            assert plan is not None
            times["exec"].append(float(plan[0][0]["Execution Time"]) / 1e3)
    lite = _sqlite_anatomy(batches)
    return {
        "pg_params_ms": statistics.median(times["params"]) * 1e3,
        "pg_statement_ms": statistics.median(times["statement"]) * 1e3,
        "pg_commit_ms": statistics.median(times["commit"]) * 1e3,
        "pg_execution_ms": statistics.median(times["exec"]) * 1e3,
        **lite,
    }


class _Rollback(Exception):
    """Leaves a transaction by rolling it back."""


def _sqlite_anatomy(batches: int) -> dict[str, float]:
    from server.stores import sqlite as lite

    statements: list[float] = []
    commits: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "games.sqlite3", fsync=True)
        store.open()
        store.close()  # the schema; timed below on a connection of our own
        conn = sqlite3.connect(Path(tmp) / "games.sqlite3", isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            for g in range(BATCH_ROWS):
                conn.execute(lite._INSERT_GAME, (None, f"a{g}", 0, "{}", "", "", 0))
            for version in range(batches):
                started = time.perf_counter()
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany(
                    lite._INSERT_ACTION,
                    [(f"a{g}", version, 0, 1, 0, "h" * 64, version + 1, f"k{version}",
                      "r" * 64, "c" * 64) for g in range(BATCH_ROWS)],
                )  # fmt: skip
                conn.executemany(
                    lite._COUNT_ACTION, [("h" * 64, 0, f"a{g}") for g in range(BATCH_ROWS)]
                )
                executed = time.perf_counter()
                conn.execute("COMMIT")
                statements.append(executed - started)
                commits.append(time.perf_counter() - executed)
        finally:
            conn.close()
    return {
        "sqlite_statement_ms": statistics.median(statements) * 1e3,
        "sqlite_commit_ms": statistics.median(commits) * 1e3,
    }


# -- 2. and 3. SubmitAction on a server of each store ---------------------------------------


def _postgres_node(url: str, *extra: str) -> ServerProcess:
    return ServerProcess(["--store", "postgres", "--database-url", url, *extra])


def _sqlite_node() -> ServerProcess:
    return ServerProcess(["--store", "sqlite"])


async def _alternated(
    servers: dict[str, ServerProcess], in_flight: int, seconds: float, rounds: int
) -> dict[str, Latencies]:
    """The same closed-loop SubmitAction load on each server in turn, ``rounds`` times."""
    channels = {n: grpc.aio.insecure_channel(f"127.0.0.1:{s.port}") for n, s in servers.items()}
    try:
        stubs = {n: game_service_pb2_grpc.GameServiceStub(c) for n, c in channels.items()}
        plans = server_bench.plan_games(32)
        count = server_bench.submit_games(in_flight, seconds)
        games = {n: await server_bench._seat_games(stub, plans, count) for n, stub in stubs.items()}
        for stub in stubs.values():  # warm up
            warm = await server_bench._seat_games(stub, plans, 4)
            await server_bench._play_games(stub, time.perf_counter() + 0.3, [], warm, [None])
        latencies: dict[str, list[float]] = {n: [] for n in servers}
        tallies = {n: _Tally() for n in servers}
        workers = {n: [[None] for _ in range(in_flight)] for n in servers}
        phase = seconds / rounds
        for r in range(rounds):
            order = list(servers) if r % 2 == 0 else list(reversed(servers))
            for n in order:
                stop_at = time.perf_counter() + phase
                load = (
                    server_bench._play_games(stubs[n], stop_at, latencies[n], games[n], w)  # type: ignore[arg-type]
                    for w in workers[n]
                )
                await tallies[n].timed(servers[n], asyncio.gather(*load))
        return {n: tallies[n].summary(latencies[n]) for n in servers}
    finally:
        for channel in channels.values():
            await channel.close()


def submit_figures(
    pg: ThrowawayPostgres, in_flight: int, seconds: float, result: GroupCommitBench
) -> None:
    """SubmitAction on a SQLite node against a PostgreSQL node (``in_flight`` calls), then
    one call at a time on PostgreSQL with and without group commit and with a delay."""
    urls = [pg.create_database(f"bench_node_{i}") for i in range(4)]
    servers = {"sqlite": _sqlite_node()}
    try:
        servers["postgres"] = _postgres_node(urls[0])
        measured = asyncio.run(_alternated(servers, in_flight, seconds, server_bench.ROUNDS))
        result.in_flight = in_flight
        result.submit_sqlite = measured["sqlite"]
        result.submit_postgres = measured["postgres"]
    finally:
        for server in servers.values():
            server.stop()
    low = {
        "postgres, each on its own": _postgres_node(urls[1], "--store-batch-max", "1"),
        "postgres, group commit": _postgres_node(urls[2]),
        f"postgres, group commit, {DELAY_MS:g} ms delay": _postgres_node(
            urls[3], "--store-batch-delay-ms", str(DELAY_MS)
        ),
    }
    try:
        low["sqlite"] = _sqlite_node()
        result.low_load = asyncio.run(_alternated(low, 1, seconds, server_bench.ROUNDS))
    finally:
        for server in low.values():
            server.stop()


async def _schema(url: str) -> None:
    store = PostgresStore(url)
    await store.open()
    await store.close()


async def run_async(
    shapes: list[tuple[int, int]], in_flight: int, seconds: float
) -> GroupCommitBench:
    result = GroupCommitBench()
    with ThrowawayPostgres(fsync=True) as pg:
        result.appends = await append_rates(pg, shapes)
        anatomy_url = pg.create_database("bench_anatomy")
        await _schema(anatomy_url)
        result.anatomy = await asyncio.to_thread(batch_anatomy, anatomy_url)
        await asyncio.to_thread(submit_figures, pg, in_flight, seconds, result)
    return result
