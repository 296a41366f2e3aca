"""Durability benchmarks: start-up restore time, SubmitAction throughput with durable appends
against the memory store, and what fsync and snapshots cost.

Entry point: :func:`run` (``python -m bench`` calls it); :func:`populate` builds a store of
unfinished games through the server's own code path (also used by the durability tests).
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import server_bench
from bench.server_bench import ServerProcess
from engine import registry
from server.games.record import GameSettings, settings_record
from server.games.recovery import restore_games
from server.games.registry import GameRegistry
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry
from server.stores import chain
from server.stores.contract import StoredAction
from server.stores.sqlite import SqliteStore
from server.stores.token_hashes import TokenHasher

__all__ = [
    "DurabilityBench",
    "SubmitFigures",
    "populate",
    "populate_direct",
    "run",
    "run_async",
]


async def populate(
    path: Path,
    games: int,
    actions: int,
    *,
    players: int = 3,
    seed: int = 0,
    snapshot_every: int = 50,
    fsync: bool = False,
    batch: int = 250,
) -> list[tuple[str, str, list[str]]]:
    """Create ``games`` unfinished games in the SQLite store at ``path``, each with its seats
    claimed and ``actions`` random decisions, through the server's own Game code (so logs,
    sequence numbers, idempotency keys and snapshots are exactly what a server writes).

    Returns (game id, final state hash, seat tokens) per game."""
    store = SqliteStore(path, fsync=fsync)
    store.open()
    registry = GameRegistry(
        store,
        Metrics(new_registry(process_collectors=False)),
        max_games=games + 1,
        snapshot_every=snapshot_every,
    )
    rng = random.Random(seed)
    out: list[tuple[str, str, list[str]]] = []

    async def one(i: int) -> tuple[str, str, list[str]]:
        game = await registry.create(GameSettings(players=players, seed=seed * 100_003 + i))
        tokens = [(await game.join(seat, f"p{seat}"))[1] for seat in range(players)]
        for n in range(actions):
            seat = game.awaiting()[0]
            legal = game.rules.legal_actions(game.state, seat)
            await game.submit(
                seat, legal[rng.randrange(len(legal))], None, game.version, f"k{n}", b"%d" % n
            )
        return game.id, game.state.state_hash(), tokens

    try:
        for start in range(0, games, batch):
            out.extend(
                await asyncio.gather(*(one(i) for i in range(start, min(games, start + batch))))
            )
        await registry.idle()
    finally:
        registry.close()
        await asyncio.to_thread(store.close)
    return out


async def populate_direct(
    path: Path, games: int, actions: int, *, players: int = 3, seed: int = 0
) -> list[tuple[str, str]]:
    """Like :func:`populate`, but written straight through the store API with the engine
    (no Game objects, so ~10x faster): what a restore reads is the same except that the
    event sequence numbers count one event per decision (restore never re-derives them).

    Returns (game id, final state hash) per game."""
    store = SqliteStore(path, fsync=False)
    store.open()
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []

    async def one(i: int) -> tuple[str, str]:
        settings = GameSettings(players=players, seed=seed * 100_003 + i)
        game_id = f"bench{i:06d}"
        record = settings_record(settings)
        await store.create(game_id, i, record, "")
        hasher = TokenHasher(store.token_key, game_id)
        head = chain.genesis(game_id, i, record, "")  # the chain runs through the claims
        for seat in range(players):
            last = seat == players - 1
            digest, claimed_at = hasher(f"t{i}/{seat}"), seat + 1 + last
            head = chain.seat_link(head, seat, f"p{seat}", digest, claimed_at)
            await store.claim(game_id, seat, f"p{seat}", digest, claimed_at, chain=head)
        sequence = players + 1
        rules = settings.rules
        state = rules.new_game(rules.options(players, settings.seed, {}))
        for n in range(actions):
            seat = rules.awaiting(state)[0]
            legal = rules.legal_actions(state, seat)
            version = state.version
            action = legal[rng.randrange(len(legal))]
            rules.apply_unchecked(state, seat, action)
            sequence += 1
            state_hash = state.state_hash()
            head = chain.link(
                head, version, seat, action.code(), False, state_hash, sequence, f"k{n}", ""
            )
            await store.append(
                game_id,
                StoredAction(
                    version,
                    seat,
                    action.code(),
                    False,
                    state_hash,
                    sequence,
                    f"k{n}",
                    "",
                    chain=head,
                ),
            )
        return game_id, state.state_hash()

    try:
        for start in range(0, games, 500):
            out.extend(
                await asyncio.gather(*(one(i) for i in range(start, min(games, start + 500))))
            )
    finally:
        await asyncio.to_thread(store.close)
    return out


@dataclass
class SubmitFigures:
    per_s: float
    p50_ms: float
    p99_ms: float


@dataclass
class DurabilityBench:
    """Every figure of one run (``dataclasses.asdict`` gives the JSON shape)."""

    restore_games: int = 0
    restore_actions_per_game: int = 0
    restore_seconds: float = 0.0  # restore_games() over the whole store, snapshots + tails
    restore_load_seconds: float = 0.0  # of which: reading the SQLite file
    restore_actions_replayed: int = 0
    populate_seconds: float = 0.0  # building the store (not a restore figure)
    # SubmitAction through a separate server process, same load (in_flight calls) each:
    # "memory", "sqlite-nofsync", "sqlite" (the default: fsync per group commit),
    # "sqlite-snapshot-every-1" (a snapshot after every decision: the worst case).
    submit: dict[str, SubmitFigures] = field(default_factory=dict)
    in_flight: int = 0
    commit_fsync_ms: float = 0.0  # one lone append, committed with fsync (p50)
    commit_nofsync_ms: float = 0.0  # the same without fsync
    snapshot_bytes: int = 0  # a mid-game 4-player snapshot
    snapshot_serialize_us: float = 0.0  # to_snapshot + JSON, on the event loop
    snapshot_write_ms_p50: float = 0.0  # store.snapshot() awaited: serialise + commit + fsync
    snapshot_write_ms_max: float = 0.0

    def rows(self) -> list[tuple[str, str, str]]:
        out = [
            (
                f"restore {self.restore_games:,} unfinished games",
                f"{self.restore_seconds:.2f} s",
                f"{self.restore_actions_per_game} decisions each; reading the file "
                f"{self.restore_load_seconds:.2f} s; target <= 5 s",
            )
        ]
        base = self.submit.get("memory")
        for kind, f in self.submit.items():
            ratio = f" ({f.per_s / base.per_s:.2f}x memory)" if base and kind != "memory" else ""
            out.append(
                (
                    f"SubmitAction / s [{kind}]",
                    f"{f.per_s:,.0f}",
                    f"p50 {f.p50_ms:.2f} ms, p99 {f.p99_ms:.2f} ms{ratio}",
                )
            )
        out.append(
            (
                "one commit with / without fsync",
                f"{self.commit_fsync_ms:.2f} ms",
                f"{self.commit_nofsync_ms:.3f} ms without (p50, nothing else in flight)",
            )
        )
        out.append(
            (
                "snapshot write (p50)",
                f"{self.snapshot_write_ms_p50:.2f} ms",
                f"max {self.snapshot_write_ms_max:.2f} ms; {self.snapshot_bytes:,} bytes; "
                f"{self.snapshot_serialize_us:.0f} us of it on the event loop",
            )
        )
        return out


def run(**kwargs: Any) -> DurabilityBench:
    """Run every durability measurement (about a minute with the defaults). Keyword
    arguments: those of :func:`run_async`."""
    configure_logging("WARNING")  # an INFO line per decision would be measured too
    return asyncio.run(run_async(**kwargs))


async def run_async(
    restore_games: int = 10_000,
    restore_actions: int = 5,
    submit_seconds: float = 5.0,
    in_flight: int = 16,
) -> DurabilityBench:
    result = DurabilityBench(
        restore_games=restore_games, restore_actions_per_game=restore_actions, in_flight=in_flight
    )
    with tempfile.TemporaryDirectory(prefix="ygg-durability-") as tmp:
        await _restore(Path(tmp), result)
        await _commits(Path(tmp), result)
        await _snapshots(Path(tmp), result)
    for kind, args in (
        ("memory", ["--store", "memory"]),
        ("sqlite-nofsync", ["--store", "sqlite", "--fsync", "off"]),
        ("sqlite", ["--store", "sqlite"]),
        ("sqlite-snapshot-every-1", ["--store", "sqlite", "--snapshot-every", "1"]),
    ):
        result.submit[kind] = await asyncio.to_thread(_submit, args, in_flight, submit_seconds)
    return result


async def _restore(tmp: Path, result: DurabilityBench) -> None:
    path = tmp / "restore.sqlite3"
    started = time.perf_counter()
    await populate_direct(path, result.restore_games, result.restore_actions_per_game, seed=1)
    result.populate_seconds = time.perf_counter() - started
    store = SqliteStore(path)
    store.open()
    registry = GameRegistry(
        store,
        Metrics(new_registry(process_collectors=False)),
        max_games=result.restore_games + 1,
        snapshot_every=50,
    )
    try:
        report = await restore_games(store, registry)
    finally:
        registry.close()
        store.close()
    assert report.restored == result.restore_games, report.problems[:3]
    result.restore_seconds = report.seconds
    result.restore_load_seconds = report.load_seconds
    result.restore_actions_replayed = report.actions_replayed


async def _commits(tmp: Path, result: DurabilityBench) -> None:
    for fsync in (True, False):
        store = SqliteStore(tmp / f"commits-{fsync}.sqlite3", fsync=fsync)
        store.open()
        await store.create("g", 0, {}, "")
        times = []
        for v in range(200):
            entry = StoredAction(v, 0, v % 200, False, "h", v + 1)  # the store reads no code
            started = time.perf_counter()
            await store.append("g", entry)
            times.append(time.perf_counter() - started)
        store.close()
        ms = statistics.median(times) * 1e3
        if fsync:
            result.commit_fsync_ms = ms
        else:
            result.commit_nofsync_ms = ms


async def _snapshots(tmp: Path, result: DurabilityBench) -> None:
    rng = random.Random(5)
    rules = registry.rules()
    state = rules.new_game(rules.options(4, 5, {}))
    for _ in range(150):
        seat = rules.awaiting(state)[0]
        actions = rules.legal_actions(state, seat)
        rules.apply_unchecked(state, seat, actions[rng.randrange(len(actions))])
    started = time.perf_counter()
    for _ in range(100):
        text = json.dumps(rules.to_snapshot(state), separators=(",", ":"))
    result.snapshot_serialize_us = (time.perf_counter() - started) / 100 * 1e6
    result.snapshot_bytes = len(text)
    store = SqliteStore(tmp / "snapshots.sqlite3")
    store.open()
    await store.create("g", 0, {}, "")
    times = []
    for _ in range(50):
        started = time.perf_counter()
        await store.snapshot("g", state.version, rules.to_snapshot(state))
        times.append(time.perf_counter() - started)
    store.close()
    result.snapshot_write_ms_p50 = statistics.median(times) * 1e3
    result.snapshot_write_ms_max = max(times) * 1e3


def _submit(args: list[str], in_flight: int, seconds: float) -> SubmitFigures:
    server = ServerProcess([*args, *server_bench.max_games_args(in_flight, seconds)])
    try:
        submit = asyncio.run(
            server_bench._measure(server, in_flight, seconds, session_counts=())
        ).submit
    finally:
        server.stop()
    return SubmitFigures(submit.per_s, submit.p50_ms, submit.p99_ms)


def main() -> None:
    import sys

    games = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    result = run(restore_games=games)
    for name, value, note in result.rows():
        print(f"  {name:<40} {value:>12}   {note}")
    print(json.dumps(asdict(result), indent=1))


if __name__ == "__main__":
    main()
