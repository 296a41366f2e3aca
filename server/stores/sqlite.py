"""The durable game store: SQLite in WAL mode, one file under the data directory.

The action log is the truth (design notes): every accepted decision is appended and committed
with ``synchronous=FULL`` before ``SubmitAction`` answers, and so are game creation and seat
claims (only a hash of each seat token is kept). Snapshots only shorten recovery.

Each action row also keeps what a restart needs to continue exactly where the server stopped:
the last event sequence number after the decision's events (watchers resume by sequence) and
the idempotency key with a hash of the request it came with (a retried SubmitAction whose
answer was lost is recognised after a restart too). The game row counts its log entries and
keeps the last state hash, a second copy on another page: a log that lost its last rows is
detected at start-up instead of being served shorter.

Since schema 3 (``server.stores.sqlite_migration`` upgrades older files in place, keeping a copy):
seat tokens are kept as keyed hashes under a secret kept in the ``meta`` table
(``server.stores.token_hashes.TokenHasher``), every action row carries its link of the log's hash
chain (``server.stores.chain``), the game row keeps who created the game, when it last changed
(claims and decisions: the abandonment clock survives restarts) and, for an aborted game, when, why
and the last event sequence number of its abort. Since schema 4 the chain also runs through
the seat claims (each claim row carries its link) and the game row keeps the chain's genesis
hash, so a seat's token hash copied onto another seat, or changed settings, are noticed; the
game row keeps the keyed hash of its creator token too (what proves an anonymous creator).

A game's row id is its place in the creation order (``GameRegistry`` hands the number out
and the row is inserted with it): ListGames pages through hosted and stored games alike by
it, and it survives restarts.

All SQLite work happens on one writer thread. Writes queued while a commit is under way are
committed together in the next transaction (group commit): one fsync then acknowledges many
decisions from many games, so durability costs little once games run concurrently. A refused
write (a duplicate version) fails alone: its batch is redone with a savepoint per write. Callers
await a future that resolves only after the commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import queue
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from server.stores import chain
from server.stores.contract import (
    NO_ACCESS,
    AbortRecord,
    GameAccess,
    ListViewer,
    LoadProblem,
    StoredAction,
    StoredGame,
    StoredIndex,
    StoredListing,
    StoreError,
)
from server.stores.sqlite_migration import MIGRATABLE, migrate
from server.stores.sqlite_reads import (
    READ_ERRORS,
    read_finished,
    read_games,
    read_index,
    read_last_order,
)
from server.stores.token_hashes import new_token_key

SCHEMA_VERSION = 4

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    created_unix_ms INTEGER NOT NULL,
    settings_json TEXT NOT NULL,
    scenario_json TEXT NOT NULL,
    finished_unix_ms INTEGER,
    result_json TEXT,
    log_length INTEGER NOT NULL DEFAULT 0,
    last_hash TEXT NOT NULL DEFAULT '',
    creator TEXT NOT NULL DEFAULT '',
    activity_unix_ms INTEGER,
    aborted_unix_ms INTEGER,
    abort_cause INTEGER,
    abort_reason TEXT,
    abort_sequence INTEGER,
    genesis TEXT NOT NULL DEFAULT '',
    creator_token_hash TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    sequence INTEGER NOT NULL DEFAULT 0,
    chain TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    code INTEGER NOT NULL,
    by_timeout INTEGER NOT NULL,
    state_hash TEXT NOT NULL,
    sequence INTEGER NOT NULL DEFAULT 0,
    idem_key TEXT,
    idem_hash TEXT,
    chain TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (game_id, version)
);
CREATE TABLE IF NOT EXISTS snapshots (
    game_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    data_json TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
);
CREATE TABLE IF NOT EXISTS game_access (
    game_id TEXT PRIMARY KEY,
    unlisted INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS seat_reservations (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    key_name TEXT NOT NULL DEFAULT '',
    code_hash TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (game_id, seat)
);
"""


# A write's future and its outcome (None: committed).
_Settled = tuple[asyncio.Future[None], BaseException | None]


# A write: the statements (SQL, parameters) of one record, run in order in one transaction.
_Write = tuple[tuple[str, tuple[object, ...]], ...]

# The row id is the creation order given by the registry (NULL: SQLite picks the next one).
_INSERT_GAME = (
    "INSERT INTO games(rowid, game_id, created_unix_ms, settings_json, scenario_json, creator, "
    "activity_unix_ms, genesis, creator_token_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_SEAT = (
    "INSERT INTO seats(game_id, seat, name, token_hash, sequence, chain) VALUES (?, ?, ?, ?, ?, ?)"
)
_TOUCH_GAME = "UPDATE games SET activity_unix_ms = ? WHERE game_id = ?"
_INSERT_ACCESS = "INSERT INTO game_access(game_id, unlisted) VALUES (?, ?)"
_INSERT_RESERVATION = (
    "INSERT INTO seat_reservations(game_id, seat, key_name, code_hash) VALUES (?, ?, ?, ?)"
)
_INSERT_ACTION = (
    "INSERT INTO actions(game_id, version, seat, code, by_timeout, state_hash, sequence, "
    "idem_key, idem_hash, chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_COUNT_ACTION = (
    "UPDATE games SET log_length = log_length + 1, last_hash = ?, activity_unix_ms = ? "
    "WHERE game_id = ?"
)
_ABORT = (
    "UPDATE games SET aborted_unix_ms = ?, abort_cause = ?, abort_reason = ?, "
    "abort_sequence = ? WHERE game_id = ? AND aborted_unix_ms IS NULL "
    "AND finished_unix_ms IS NULL"
)
_PUT_SNAPSHOT = "INSERT OR REPLACE INTO snapshots(game_id, version, data_json) VALUES (?, ?, ?)"
_DROP_SNAPSHOTS = "DELETE FROM snapshots WHERE game_id = ? AND version < ?"
_FINISH = "UPDATE games SET finished_unix_ms = ?, result_json = ? WHERE game_id = ?"


_FINISHED, _ABORTED = 3, 4  # Status numbers (server.games.record.Status), as the proto's


class SqliteStore:
    """A durable store. Start it with :meth:`open` (it creates the file if needed).

    ``fsync=False`` (``synchronous=OFF``) is for benchmarks only: a crash may then lose
    acknowledged decisions.
    """

    durable = True
    lists_every_game = False

    def __init__(self, path: Path, *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._queue: queue.SimpleQueue[tuple[_Write, asyncio.Future[None]] | None] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._conn: sqlite3.Connection | None = None
        self._lock_fd: int | None = None  # holds the store's lock file while open
        self.token_key = b""  # the secret of the seat tokens' keyed hashes (read by open)
        self.migrated_from: int | None = None  # the schema this open upgraded, if any
        self.commits = 0  # transactions committed (for tests and metrics)
        self.writes = 0
        self.commit_seconds = 0.0

    # -- life cycle ------------------------------------------------------------------------

    def open(self) -> None:
        """Open (or create) the database and start the writer thread.

        StoreError (naming the file) if it is not a usable game store, or if another server
        process has it open: two servers on one store would each restore and serve the same
        games (a split brain), so the first one holds an exclusive lock on ``<file>.lock``
        for as long as it runs (the kernel drops it when the process dies, even by SIGKILL).
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_fd = _exclusive_lock(self.path.with_name(self.path.name + ".lock"))
        try:
            self._open_database()
        except BaseException:
            self._release_lock()
            raise

    def _open_database(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={'FULL' if self.fsync else 'OFF'}")
            row = None
            if _has_meta(conn):
                row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is not None and row[0] in MIGRATABLE:
                self.migrated_from = int(row[0])
                migrate(conn, self.path, int(row[0]))
            conn.executescript(_SCHEMA)
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is None:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
                conn.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('token_key', ?)",
                    (new_token_key().hex(),),
                )
                conn.execute("COMMIT")
            elif row[0] != str(SCHEMA_VERSION):
                raise StoreError(
                    f"{self.path}: store schema version {row[0]} is not the {SCHEMA_VERSION} "
                    "this server reads"
                )
            self.token_key = _token_key(conn, self.path)
        except READ_ERRORS as e:
            if conn is not None:
                conn.close()
            raise StoreError(f"{self.path}: cannot open the game store: {e}") from None
        except StoreError:
            if conn is not None:
                conn.close()
            raise
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
        self._release_lock()

    def _release_lock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor releases the flock
            self._lock_fd = None

    def _writer(self) -> None:
        conn = self._conn
        assert conn is not None
        stop = False
        while not stop:
            item = self._queue.get()
            if item is None:
                break
            batch: list[tuple[_Write, asyncio.Future[None]]] = [item]
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
            failed: BaseException | None = None
            try:
                errors = self._commit(conn, batch)
            except BaseException as e:
                failed = e
                errors = [None] * len(batch)
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            self.commit_seconds += time.perf_counter() - started
            self.commits += 1
            self.writes += len(batch)
            # One wake-up of each waiting event loop per batch, not one per write: every
            # call_soon_threadsafe writes to the loop's wake-up pipe and retakes the GIL.
            settled: dict[asyncio.AbstractEventLoop, list[_Settled]] = {}
            for (_, fut), error in zip(batch, errors, strict=True):
                settled.setdefault(fut.get_loop(), []).append((fut, failed or error))
            for loop, outcomes in settled.items():
                loop.call_soon_threadsafe(_settle_all, outcomes)

    @staticmethod
    def _commit(
        conn: sqlite3.Connection, batch: list[tuple[_Write, asyncio.Future[None]]]
    ) -> list[BaseException | None]:
        """Commit a batch in one transaction; returns each write's own error (if refused).

        Consecutive writes of the same shape (a run of appends) go to SQLite as one
        ``executemany`` per statement: far fewer trips between Python and SQLite (each one
        gives up and retakes the GIL the event loop needs)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            i = 0
            while i < len(batch):
                shape = tuple(sql for sql, _ in batch[i][0])
                j = i + 1
                while j < len(batch) and tuple(sql for sql, _ in batch[j][0]) == shape:
                    j += 1
                for k, sql in enumerate(shape):
                    conn.executemany(sql, [batch[m][0][k][1] for m in range(i, j)])
                i = j
        except sqlite3.Error:
            conn.execute("ROLLBACK")
        else:
            conn.execute("COMMIT")
            return [None] * len(batch)
        # Some write was refused: redo the batch with one savepoint per write, so that it
        # fails alone (rare, so the common path pays nothing for it).
        errors: list[BaseException | None] = [None] * len(batch)
        conn.execute("BEGIN IMMEDIATE")
        for i, (write, _) in enumerate(batch):
            conn.execute("SAVEPOINT w")
            try:
                for sql, params in write:
                    conn.execute(sql, params)
            except sqlite3.Error as e:
                errors[i] = e
                conn.execute("ROLLBACK TO w")
            conn.execute("RELEASE w")
        conn.execute("COMMIT")
        return errors

    async def _write(self, write: _Write) -> None:
        if self._thread is None:
            raise StoreError("the store is not open")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put((write, fut))
        await fut

    # -- writes (each returns once committed) ------------------------------------------------

    async def create(
        self,
        game_id: str,
        created_unix_ms: int,
        settings: dict[str, Any],
        scenario_json: str,
        order: int | None = None,
        creator: str = "",
        creator_token_hash: str = "",
        open_limit: float | None = None,  # (one node counts open games in memory)
        access: GameAccess = NO_ACCESS,
    ) -> None:
        """Record a new game; ``order`` is its place in the creation order (its row id);
        its ``access`` in the same transaction."""
        text = json.dumps(settings, sort_keys=True)
        await self._write(
            (
                (
                    _INSERT_GAME,
                    (
                        order,
                        game_id,
                        created_unix_ms,
                        text,
                        scenario_json,
                        creator,
                        created_unix_ms,
                        chain.genesis(game_id, created_unix_ms, settings, scenario_json),
                        creator_token_hash,
                    ),
                ),
                *_access_writes(game_id, access),
            )
        )

    async def claim(
        self,
        game_id: str,
        seat: int,
        name: str,
        token_hash: str,
        sequence: int = 0,
        unix_ms: int = 0,
        chain: str = "",
    ) -> None:
        await self._write(
            (
                (_INSERT_SEAT, (game_id, seat, name, token_hash, sequence, chain)),
                (_TOUCH_GAME, (unix_ms or int(time.time() * 1000), game_id)),
            )
        )

    async def abort(self, game_id: str, record: AbortRecord) -> None:
        """Mark a game aborted (StoreError if it is not open or in progress any more)."""
        await self._write(
            (
                (
                    _ABORT,
                    (record.unix_ms, record.cause, record.reason, record.sequence, game_id),
                ),
            )
        )

    async def append(self, game_id: str, entry: StoredAction) -> None:
        await self._write(
            (
                (
                    _INSERT_ACTION,
                    (
                        game_id,
                        entry.version,
                        entry.seat,
                        entry.code,
                        int(entry.by_timeout),
                        entry.state_hash,
                        entry.sequence,
                        entry.idempotency_key or None,
                        entry.request_hash or None,
                        entry.chain,
                    ),
                ),
                (
                    _COUNT_ACTION,
                    (entry.state_hash, entry.unix_ms or int(time.time() * 1000), game_id),
                ),
            )
        )

    async def snapshot(self, game_id: str, version: int, data: dict[str, Any]) -> None:
        """Keep the newest snapshot of a game (older ones are dropped in the same commit)."""
        text = json.dumps(data, separators=(",", ":"))
        await self._write(
            (
                (_PUT_SNAPSHOT, (game_id, version, text)),
                (_DROP_SNAPSHOTS, (game_id, version)),
            )
        )

    async def finish(self, game_id: str, finished_unix_ms: int, result: dict[str, Any]) -> None:
        text = json.dumps(result, sort_keys=True)
        await self._write(((_FINISH, (finished_unix_ms, text, game_id)),))

    async def delete(self, game_id: str) -> None:
        await self._write(
            tuple(
                (f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
                for table in ("games", "seats", "actions", "snapshots")
            )
        )

    # -- reads (start-up and finished games; from the caller's thread: server.stores.sqlite_reads)
    # ---

    def _reader(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path)
        conn.execute("PRAGMA query_only=1")
        return conn

    def load(
        self, *, unfinished_only: bool = True, game_id: str | None = None
    ) -> tuple[list[StoredGame], list[LoadProblem]]:
        """Read games (by default the unfinished ones) with their seats, log and snapshot
        (``server.stores.sqlite_reads.read_games``: an unreadable game is reported, the others
        load). StoreError if not even the list of games can be read."""
        try:
            conn = self._reader()
        except READ_ERRORS as e:
            raise StoreError(f"{self.path}: cannot read the game store: {e}") from None
        try:
            return read_games(conn, self.path, unfinished_only, game_id)
        finally:
            conn.close()

    def load_index(self) -> tuple[list[StoredIndex], list[LoadProblem]]:
        """The index of every unfinished game, without logs or snapshots (a lazy restart:
        ``server.stores.sqlite_reads.read_index``). StoreError if the games cannot be listed."""
        try:
            conn = self._reader()
        except READ_ERRORS as e:
            raise StoreError(f"{self.path}: cannot read the game store: {e}") from None
        try:
            return read_index(conn, self.path)
        finally:
            conn.close()

    def last_order(self) -> int:
        """The highest creation order (row id) given so far; 0 for an empty store."""
        try:
            conn = self._reader()
            try:
                return read_last_order(conn)
            finally:
                conn.close()
        except READ_ERRORS as e:
            raise StoreError(f"{self.path}: cannot read the game store: {e}") from None

    def list_finished(
        self,
        before: int | None,
        limit: int,
        *,
        finished: bool = True,
        aborted: bool = False,
        viewer: ListViewer | None = None,
    ) -> list[StoredListing]:
        """Finished (and/or aborted) games, newest first (by creation order), created before
        ``before``; at most ``limit``. A game whose record cannot be read is left out (it is
        reported when someone asks for it by id). StoreError if the list cannot be read at
        all."""
        try:
            conn = self._reader()
            try:
                return read_finished(conn, before, limit, finished, aborted, viewer)
            finally:
                conn.close()
        except READ_ERRORS as e:
            raise StoreError(f"{self.path}: cannot list the finished games: {e}") from None

    async def list_games(
        self, status: int, before: int | None, limit: int, viewer: ListViewer | None = None
    ) -> list[tuple[StoredListing, int]]:
        """The finished and aborted games (as ``status`` asks: 0 both), read off the event
        loop; the others are hosted, and listed by the host."""
        finished = status in (0, _FINISHED)
        aborted = status in (0, _ABORTED)
        if not (finished or aborted):
            return []
        rows = await asyncio.to_thread(
            self.list_finished, before, limit, finished=finished, aborted=aborted, viewer=viewer
        )
        return [(row, _ABORTED if row.aborted else _FINISHED) for row in rows]

    def load_game(self, game_id: str) -> StoredGame | None:
        """One game, finished or not (for results and replays of games out of memory)."""
        games, problems = self.load(unfinished_only=False, game_id=game_id)
        if problems:
            raise StoreError(f"game {game_id}: {problems[0].problem}")
        return games[0] if games else None


def _access_writes(game_id: str, access: GameAccess) -> _Write:
    """The rows of a game's access (none for a listed game without reservations)."""
    if not access.restricted:
        return ()
    return (
        (_INSERT_ACCESS, (game_id, int(access.unlisted))),
        *(
            (_INSERT_RESERVATION, (game_id, r.seat, r.key_name, r.code_hash))
            for r in access.reservations
        ),
    )


def _has_meta(conn: sqlite3.Connection) -> bool:
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    return found is not None


def _token_key(conn: sqlite3.Connection, path: Path) -> bytes:
    row = conn.execute("SELECT value FROM meta WHERE key = 'token_key'").fetchone()
    try:
        key = bytes.fromhex(row[0]) if row is not None else b""
    except (TypeError, ValueError):
        key = b""
    if len(key) != 32:
        raise StoreError(
            f"{path}: the store's token key is missing or damaged; no seat token can be "
            "checked (restore the file from a backup)"
        )
    return key


def _exclusive_lock(path: Path) -> int:
    """Open and flock ``path`` (non-blocking); StoreError if another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        os.close(fd)
        who = f" (pid {holder})" if holder else ""
        raise StoreError(
            f"{path.with_suffix('')}: the store is in use by another server process{who}"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    return fd


def _settle_all(outcomes: list[_Settled]) -> None:
    for fut, error in outcomes:
        if fut.done():
            continue
        if error is None:
            fut.set_result(None)
        else:
            fut.set_exception(error)
