"""The durable game store: SQLite in WAL mode, one file under the data directory.

The action log is the truth (design notes): every accepted decision is appended and committed
with ``synchronous=FULL`` before ``SubmitAction`` answers, and so are game creation and seat
claims (only a hash of each seat token is kept). Snapshots only shorten recovery.

All SQLite work happens on one writer thread. Writes queued while a commit is under way are
committed together in the next transaction (group commit): one fsync then acknowledges many
decisions from many games, so durability costs little once games run concurrently. Callers
await a future that resolves only after the commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.actions import Action

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    created_unix_ms INTEGER NOT NULL,
    settings_json TEXT NOT NULL,
    scenario_json TEXT NOT NULL,
    finished_unix_ms INTEGER,
    result_json TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    code INTEGER NOT NULL,
    by_timeout INTEGER NOT NULL,
    state_hash TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
);
CREATE TABLE IF NOT EXISTS snapshots (
    game_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    data_json TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
);
"""


class StoreError(Exception):
    """The store file cannot be used at all (not a database, newer schema, …)."""


@dataclass(frozen=True, slots=True)
class StoredAction:
    version: int  # the state version the action was applied on
    seat: int
    action: Action
    by_timeout: bool
    state_hash: str  # the state's hash right after it


@dataclass
class StoredGame:
    """Everything the store holds about one game, as read at start-up."""

    game_id: str
    created_unix_ms: int
    settings: dict[str, Any]
    scenario_json: str
    seats: dict[int, tuple[str, str]] = field(default_factory=dict)  # seat -> (name, hash)
    actions: list[StoredAction] = field(default_factory=list)
    snapshot: dict[str, Any] | None = None  # the latest one
    snapshot_version: int = -1
    finished_unix_ms: int | None = None
    result: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class LoadProblem:
    """A game that could not be read; the others load regardless."""

    game_id: str
    problem: str


_Write = Callable[[sqlite3.Connection], object]


class SqliteStore:
    """A durable store. Start it with :meth:`open` (it creates the file if needed)."""

    def __init__(self, path: Path, *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._queue: queue.SimpleQueue[tuple[_Write, asyncio.Future[None]] | None] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._conn: sqlite3.Connection | None = None
        self.commits = 0  # transactions committed (for tests and metrics)
        self.writes = 0
        self.commit_seconds = 0.0

    # -- life cycle ------------------------------------------------------------------------

    def open(self) -> None:
        """Open (or create) the database and start the writer thread."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={'FULL' if self.fsync else 'OFF'}")
            conn.executescript(_SCHEMA)
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
            elif int(row[0]) != SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: store schema version {row[0]} is not the {SCHEMA_VERSION} "
                    "this server reads"
                )
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot open the game store: {e}") from None
        self._conn = conn
        self._thread = threading.Thread(target=self._writer, name="store-writer", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Finish queued writes, stop the writer thread and close the file."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _writer(self) -> None:
        conn = self._conn
        assert conn is not None
        stop = False
        while not stop:
            item = self._queue.get()
            batch: list[tuple[_Write, asyncio.Future[None]]] = []
            if item is None:
                break
            batch.append(item)
            while True:  # group commit: take whatever else is already waiting
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            started = time.perf_counter()
            error: BaseException | None = None
            try:
                conn.execute("BEGIN IMMEDIATE")
                for write, _ in batch:
                    write(conn)
                conn.execute("COMMIT")
            except BaseException as e:
                error = e
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            self.commit_seconds += time.perf_counter() - started
            self.commits += 1
            self.writes += len(batch)
            for _, fut in batch:
                fut.get_loop().call_soon_threadsafe(_settle, fut, error)

    async def _write(self, write: _Write) -> None:
        if self._thread is None:
            raise StoreError("the store is not open")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put((write, fut))
        await fut

    # -- writes (each returns once committed) ------------------------------------------------

    async def create(
        self, game_id: str, created_unix_ms: int, settings: dict[str, Any], scenario_json: str
    ) -> None:
        text = json.dumps(settings, sort_keys=True)
        await self._write(
            lambda c: c.execute(
                "INSERT INTO games(game_id, created_unix_ms, settings_json, scenario_json) "
                "VALUES (?, ?, ?, ?)",
                (game_id, created_unix_ms, text, scenario_json),
            )
        )

    async def claim(self, game_id: str, seat: int, name: str, token_hash: str) -> None:
        await self._write(
            lambda c: c.execute(
                "INSERT INTO seats(game_id, seat, name, token_hash) VALUES (?, ?, ?, ?)",
                (game_id, seat, name, token_hash),
            )
        )

    async def append(self, game_id: str, entry: StoredAction) -> None:
        await self._write(
            lambda c: c.execute(
                "INSERT INTO actions(game_id, version, seat, code, by_timeout, state_hash) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    entry.version,
                    entry.seat,
                    Action(*entry.action).code(),
                    int(entry.by_timeout),
                    entry.state_hash,
                ),
            )
        )

    async def snapshot(self, game_id: str, version: int, data: dict[str, Any]) -> None:
        """Keep the newest snapshot of a game (older ones are dropped in the same commit)."""
        text = json.dumps(data, separators=(",", ":"))

        def write(c: sqlite3.Connection) -> None:
            c.execute(
                "INSERT OR REPLACE INTO snapshots(game_id, version, data_json) VALUES (?, ?, ?)",
                (game_id, version, text),
            )
            c.execute("DELETE FROM snapshots WHERE game_id = ? AND version < ?", (game_id, version))

        await self._write(write)

    async def finish(self, game_id: str, finished_unix_ms: int, result: dict[str, Any]) -> None:
        text = json.dumps(result, sort_keys=True)
        await self._write(
            lambda c: c.execute(
                "UPDATE games SET finished_unix_ms = ?, result_json = ? WHERE game_id = ?",
                (finished_unix_ms, text, game_id),
            )
        )

    async def delete(self, game_id: str) -> None:
        def write(c: sqlite3.Connection) -> None:
            for table in ("games", "seats", "actions", "snapshots"):
                c.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))

        await self._write(write)

    # -- reads (start-up and finished games; from the caller's thread) -----------------------

    def _reader(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path)
        conn.execute("PRAGMA query_only=1")
        return conn

    def load(
        self, *, unfinished_only: bool = True, game_id: str | None = None
    ) -> tuple[list[StoredGame], list[LoadProblem]]:
        """Read games (by default the unfinished ones) with their seats, log and snapshot.

        A game whose rows are unreadable is reported in the problems and skipped; every
        other game still loads.
        """
        try:
            conn = self._reader()
            clauses = ["finished_unix_ms IS NULL"] if unfinished_only else []
            args: tuple[str, ...] = ()
            if game_id is not None:
                clauses.append("game_id = ?")
                args = (game_id,)
            where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
            rows = conn.execute(
                "SELECT game_id, created_unix_ms, settings_json, scenario_json, "
                f"finished_unix_ms, result_json FROM games {where} ORDER BY created_unix_ms",
                args,
            ).fetchall()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot read the game store: {e}") from None
        games: dict[str, StoredGame] = {}
        problems: list[LoadProblem] = []
        one = "WHERE game_id = ?" if game_id is not None else ""
        for gid, created, settings, scenario, finished, result in rows:
            try:
                games[gid] = StoredGame(
                    game_id=gid,
                    created_unix_ms=int(created),
                    settings=json.loads(settings),
                    scenario_json=scenario,
                    finished_unix_ms=finished,
                    result=json.loads(result) if result else None,
                )
            except (ValueError, TypeError) as e:
                problems.append(LoadProblem(gid, f"unreadable game record: {e}"))
        try:
            for gid, seat, name, token_hash in conn.execute(
                f"SELECT game_id, seat, name, token_hash FROM seats {one}", args
            ):
                if gid in games:
                    games[gid].seats[int(seat)] = (name, token_hash)
            for gid, version, seat, code, by_timeout, state_hash in conn.execute(
                "SELECT game_id, version, seat, code, by_timeout, state_hash FROM actions "
                f"{one} ORDER BY game_id, version",
                args,
            ):
                g = games.get(gid)
                if g is not None:
                    g.actions.append(
                        StoredAction(
                            int(version),
                            int(seat),
                            Action.from_code(int(code)),
                            bool(by_timeout),
                            state_hash,
                        )
                    )
            for gid, version, data in conn.execute(
                f"SELECT game_id, version, data_json FROM snapshots {one}", args
            ):
                g = games.get(gid)
                if g is None or int(version) < g.snapshot_version:
                    continue
                try:
                    g.snapshot = json.loads(data)
                    g.snapshot_version = int(version)
                except ValueError as e:
                    problems.append(LoadProblem(gid, f"unreadable snapshot: {e}"))
                    games.pop(gid)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot read the game store: {e}") from None
        finally:
            conn.close()
        return list(games.values()), problems

    def load_game(self, game_id: str) -> StoredGame | None:
        """One game, finished or not (for results and replays of games out of memory)."""
        games, _ = self.load(unfinished_only=False, game_id=game_id)
        return games[0] if games else None


def _settle(fut: asyncio.Future[None], error: BaseException | None) -> None:
    if fut.done():
        return
    if error is None:
        fut.set_result(None)
    else:
        fut.set_exception(error)
