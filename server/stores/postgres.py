"""The PostgreSQL game store: the same protocol as ``server.stores.sqlite.SqliteStore``, for a
cluster.

Rows are those of the SQLite store (games, seats, actions, snapshots) plus what ownership
needs (``docs/cluster.md``): each game row has an ``owner`` (a node incarnation's member id)
and an ``epoch``; each node has a lease row (``nodes``, renewed by ``server.cluster.ownership``).

Every write that changes a game's log is **fenced**: it updates the game row only where
``owner`` is this node, ``epoch`` is the one this node took the game with, ``log_length`` is the
length this node last wrote, and this node's lease is still valid by the database's clock, and
it inserts the row in the same statement (a CTE). The row lock makes a takeover and an append
exclude each other, and ``PRIMARY KEY (game_id, version)`` alone already forbids a forked log.
A write that changes no row means this node was fenced (:class:`Fenced`): the caller
acknowledges nothing. Any other failure leaves the outcome unknown (the commit may have
happened with its answer lost): the game is handed to ``on_doubt`` so that it is reloaded from
the store before it answers again. A write returns only after its commit.

Appends, the one write of every decision, are grouped (``server.stores.postgres_batch``): the
decisions of all the games this node owns are committed together, one statement and one
transaction per batch, each still fenced per game, so a node's decision rate is not bounded
by one round trip and one WAL flush per decision. The rarer writes (create, claim, finish,
abort, snapshot) are one statement each.

Schema changes are the numbered SQL files in ``server/stores/migrations/``, applied in order at
start (``server.stores.postgres_migrations``: under a transaction-scoped advisory lock, so nodes
starting together do not race) and recorded in ``schema_version``. Connections come from a
psycopg_pool pool in autocommit mode: each statement is its own transaction."""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import psycopg
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool

from server.ops import tracing
from server.stores import chain as chains
from server.stores.contract import (
    NO_ACCESS,
    AbortRecord,
    GameAccess,
    ListViewer,
    LoadProblem,
    OpenGamesFull,
    StoredAction,
    StoredGame,
    StoredIndex,
    StoredListing,
    StoreError,
    attach_access,
    attach_index_rows,
    attach_rows,
    index_entry,
)
from server.stores.postgres_batch import WRITTEN, AppendBatcher, AppendRow, BatchSettings
from server.stores.postgres_migrations import apply_migrations

__all__ = [
    "Fenced",
    "GameOwnership",
    "PostgresStore",
]

# Fault injection for the cluster chaos test only (tests/cluster/test_cluster_chaos.py; never
# set it anywhere else): the process exits at once, as if SIGKILLed, right after an append
# whose idempotency key starts with this prefix has committed and before anyone hears of it.
CRASH_AFTER_COMMIT_ENV = "YGGDRASIL_CHAOS_CRASH_AFTER_COMMIT"


class Fenced(StoreError):
    """This node no longer owns the game (another took it over, or its lease ran out)."""


@dataclass(frozen=True, slots=True)
class GameOwnership:
    """A game's owner as the store has it."""

    game_id: str
    owner: str | None
    epoch: int
    finished: bool
    owner_address: str | None  # the owner's internal address if its lease is valid now
    log_length: int


@dataclass(slots=True)
class _Fence:
    epoch: int
    log_length: int


# Orphans taken in bulk (server.cluster.ownership: a node that starts takes back every game no
# live node owns). SKIP LOCKED: a game another node is taking over right now is left to it.
_TAKE_ORPHANS = """
UPDATE games g SET owner = %(me)s, epoch = g.epoch + 1
FROM (
    SELECT game_id FROM games o
    WHERE finished_unix_ms IS NULL
      AND (owner IS NULL OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.member = o.owner
                                        AND n.lease_until > now()))
    LIMIT %(limit)s FOR UPDATE SKIP LOCKED
) picked
WHERE g.game_id = picked.game_id
  AND EXISTS (SELECT 1 FROM nodes WHERE member = %(me)s AND lease_until > now())
RETURNING g.game_id, g.epoch, g.log_length
"""

_CLAIM = """
WITH owned AS (
    UPDATE games SET activity_unix_ms = %(at)s
    WHERE game_id = %(game)s AND owner = %(member)s AND epoch = %(epoch)s
      AND EXISTS (SELECT 1 FROM nodes WHERE member = %(member)s AND lease_until > now())
    RETURNING game_id
)
INSERT INTO seats (game_id, seat, name, token_hash, sequence, chain)
SELECT game_id, %(seat)s, %(name)s, %(hash)s, %(sequence)s, %(chain)s FROM owned
"""

_FINISH = """
UPDATE games SET finished_unix_ms = %(at)s, result_json = %(result)s, deadlines_json = '{}'
WHERE game_id = %(game)s AND owner = %(member)s AND epoch = %(epoch)s
"""

# The creator's open games, counted under a lock on its key (the transaction's: released at its
# end). The index games_open_by_creator (migration 4) serves the count.
_LOCK_CREATOR = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 26))"
_OPEN_GAMES = "SELECT count(*) FROM games WHERE creator = %s AND finished_unix_ms IS NULL"

_CREATE = """
INSERT INTO games (game_id, created_unix_ms, settings_json, scenario_json, owner, epoch, creator,
                   activity_unix_ms, genesis, creator_token_hash)
SELECT %(game)s, %(created)s, %(settings)s, %(scenario)s, %(member)s, 1, %(creator)s,
       %(created)s, %(genesis)s, %(creator_token_hash)s
WHERE EXISTS (SELECT 1 FROM nodes WHERE member = %(member)s AND lease_until > now())
"""

# An abort is fenced like an append; an aborted game counts as over (finished_unix_ms set).
_ABORT = """
UPDATE games SET aborted_unix_ms = %(at)s, abort_cause = %(cause)s, abort_reason = %(reason)s,
                 abort_sequence = %(sequence)s, finished_unix_ms = %(at)s, deadlines_json = '{}'
WHERE game_id = %(game)s AND owner = %(member)s AND epoch = %(epoch)s
  AND finished_unix_ms IS NULL
  AND EXISTS (SELECT 1 FROM nodes WHERE member = %(member)s AND lease_until > now())
"""

_SNAPSHOT = """
WITH put AS (
    INSERT INTO snapshots (game_id, version, data_json) VALUES (%(game)s, %(version)s, %(data)s)
    ON CONFLICT (game_id, version) DO UPDATE SET data_json = EXCLUDED.data_json
)
DELETE FROM snapshots WHERE game_id = %(game)s AND version < %(version)s
"""


class PostgresStore:
    """A durable, fenced store on PostgreSQL. ``await open()`` first, ``await close()`` last.

    ``member`` is the id of this node's incarnation (its lease row, see
    ``server.cluster.ownership``); writes are refused (:class:`Fenced`) for games this node does
    not own under that id."""

    durable = True
    lists_every_game = True

    def __init__(
        self,
        url: str,
        *,
        member: str = "",
        min_connections: int = 2,
        max_connections: int = 8,
        open_timeout_s: float = 30.0,
        observe: Callable[[str, float], None] | None = None,
        batch: BatchSettings | None = None,
    ) -> None:
        self.url = url
        self.member = member
        self.open_timeout_s = open_timeout_s
        self.pool = AsyncConnectionPool(
            url,
            min_size=min_connections,
            max_size=max_connections,
            open=False,
            kwargs={"autocommit": True},
            name="yggdrasil",
            timeout=10.0,
        )
        self._fences: dict[str, _Fence] = {}
        self.on_fenced: Callable[[str], None] = lambda game_id: None
        self.on_doubt: Callable[[str], None] = lambda game_id: None
        self.observe = observe  # (operation, seconds) of each statement, for metrics
        self.fenced_total = 0
        self.token_key = b""  # the secret of the seat tokens' keyed hashes (read by open)
        self._batcher = AppendBatcher(
            self.pool,
            lambda: self.member,
            batch or BatchSettings(),
            crash_prefix=os.environ.get(CRASH_AFTER_COMMIT_ENV, ""),
        )
        self._batcher.observe_batch = self._observe_batch
        self.observe_batch_rows: Callable[[int], None] | None = None  # rows per batch (metrics)

    # -- life cycle ------------------------------------------------------------------------

    async def open(self) -> None:
        """Open the pool and bring the schema to the newest migration.

        StoreError (naming the database) if it cannot be reached or has a newer schema."""
        try:
            await self.pool.open(wait=True, timeout=self.open_timeout_s)
            await self.migrate()
            self.token_key = await self._read_token_key()
        except (psycopg.Error, TimeoutError, OSError) as e:
            await self.pool.close()
            raise StoreError(f"{self.where}: cannot open the game store: {e}") from None

    @property
    def where(self) -> str:
        """The database, for messages (no password)."""
        try:
            info = psycopg.conninfo.conninfo_to_dict(self.url)
        except psycopg.ProgrammingError:
            return "PostgreSQL"
        host = info.get("host", "") or "localhost"
        return f"postgresql://{host}:{info.get('port', 5432)}/{info.get('dbname', '')}"

    async def migrate(self) -> int:
        """Apply the migrations not yet recorded (``server.stores.postgres_migrations``); returns
        the schema version."""
        async with self.pool.connection() as conn, conn.transaction():
            return await apply_migrations(conn, self.where)

    async def _read_token_key(self) -> bytes:
        async with self.pool.connection() as conn:
            cur = await conn.execute("SELECT value FROM meta WHERE key = 'token_key'")
            row = await cur.fetchone()
        try:
            key = bytes.fromhex(row[0]) if row is not None else b""
        except (TypeError, ValueError):
            key = b""
        if len(key) != 32:
            raise StoreError(f"{self.where}: the store's token key is missing or damaged")
        return key

    @property
    def batcher(self) -> AppendBatcher:
        """The group commit of this store's appends (its counts are read by metrics)."""
        return self._batcher

    def _observe_batch(self, rows: int, seconds: float) -> None:
        if self.observe is not None:
            self.observe("append_batch", seconds)
        if self.observe_batch_rows is not None:
            self.observe_batch_rows(rows)

    async def close(self) -> None:
        await self._batcher.close()
        # At most a second for the pool's workers: a worker still trying to reach a database
        # that is gone (stopped with the cluster) would hold the node's exit 5 s, the pool's
        # default, past a container's stop timeout (seen in compose-check: SIGKILL, 137).
        await self.pool.close(timeout=1.0)

    # -- fences ----------------------------------------------------------------------------

    def fence(self, game_id: str, epoch: int, log_length: int) -> None:
        """Write for ``game_id`` as its owner at ``epoch`` from log length ``log_length``."""
        self._fences[game_id] = _Fence(epoch, log_length)

    def unfence(self, game_id: str) -> None:
        self._fences.pop(game_id, None)

    def owns(self, game_id: str) -> bool:
        return game_id in self._fences

    def epoch_of(self, game_id: str) -> int:
        fence = self._fences.get(game_id)
        return fence.epoch if fence is not None else 0

    def _fence_of(self, game_id: str) -> _Fence:
        fence = self._fences.get(game_id)
        if fence is None:
            raise Fenced(f"game {game_id!r} is not owned by this node")
        return fence

    async def _run(self, op: str, game_id: str, sql: str, params: dict[str, Any]) -> int:
        """One statement in its own transaction; returns the rows it changed. A failure whose
        outcome is unknown hands the game to ``on_doubt`` before it is raised."""
        started = time.perf_counter()
        try:
            with tracing.TRACER.start_as_current_span(f"store.{op}"):
                async with self.pool.connection() as conn:
                    cur = await conn.execute(sql.encode(), params)
                    count = cur.rowcount
        except psycopg.errors.UniqueViolation:
            raise  # refused whole: nothing changed, the outcome is known
        except BaseException:
            self.on_doubt(game_id)
            raise
        finally:
            if self.observe is not None:
                self.observe(op, time.perf_counter() - started)
        return count

    def _refused(self, game_id: str, what: str) -> Fenced:
        self.fenced_total += 1
        self._fences.pop(game_id, None)
        self.on_fenced(game_id)
        return Fenced(f"{what} of game {game_id!r} refused: this node no longer owns it")

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
        open_limit: float | None = None,
        access: GameAccess = NO_ACCESS,
    ) -> None:
        """Record a new game owned by this node (epoch 1). Its place in the creation order is
        the database's (``list_order``), cluster-wide: ``order`` (one node's count) is unused.
        With ``open_limit``, the creator's open games are counted across the cluster first
        (OpenGamesFull at the limit), in the same transaction as the insert and under an
        advisory lock on the creator's key, so that two nodes cannot both let the last one in.
        Its ``access`` is written first (:meth:`_create_access`)."""
        await self._create_access(game_id, access)
        params = {
            "game": game_id,
            "created": created_unix_ms,
            "settings": json.dumps(settings, sort_keys=True),
            "scenario": scenario_json,
            "member": self.member,
            "creator": creator,
            "genesis": chains.genesis(game_id, created_unix_ms, settings, scenario_json),
            "creator_token_hash": creator_token_hash,
        }
        if open_limit is not None and creator and math.isfinite(open_limit):
            created = await self._create_within(game_id, params, creator, int(open_limit))
        else:
            created = await self._run("create", game_id, _CREATE, params)
        if created != 1:
            raise Fenced("this node's lease has run out; it creates no game")
        self._fences[game_id] = _Fence(1, 0)

    async def _create_within(
        self, game_id: str, params: dict[str, Any], creator: str, limit: int
    ) -> int:
        started = time.perf_counter()
        try:
            with tracing.TRACER.start_as_current_span("store.create"):
                async with self.pool.connection() as conn, conn.transaction():
                    await conn.execute(_LOCK_CREATOR, (creator,))
                    cur = await conn.execute(_OPEN_GAMES, (creator,))
                    row = await cur.fetchone()
                    if row is not None and int(row[0]) >= limit:
                        raise OpenGamesFull(f"{creator} has {row[0]} open games")
                    cur = await conn.execute(_CREATE.encode(), params)
                    return cur.rowcount
        finally:
            if self.observe is not None:
                self.observe("create", time.perf_counter() - started)

    async def _create_access(self, game_id: str, access: GameAccess) -> None:
        """The access rows of a game about to be created, in a transaction of their own before
        the game row: a game never exists without them (if the game row then fails, rows of
        a game id that never existed stay behind: ids are random, and nothing reads them)."""
        if not access.restricted:
            return
        async with self.pool.connection() as conn, conn.transaction():
            await conn.execute(
                b"INSERT INTO game_access (game_id, unlisted) VALUES (%s, %s)",
                (game_id, access.unlisted),
            )
            for r in access.reservations:
                await conn.execute(
                    b"INSERT INTO seat_reservations (game_id, seat, key_name, code_hash) "
                    b"VALUES (%s, %s, %s, %s)",
                    (game_id, r.seat, r.key_name, r.code_hash),
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
        fence = self._fence_of(game_id)
        params = {
            "game": game_id,
            "member": self.member,
            "epoch": fence.epoch,
            "seat": seat,
            "name": name,
            "hash": token_hash,
            "sequence": sequence,
            "chain": chain,
            "at": unix_ms or int(time.time() * 1000),
        }
        if await self._run("claim", game_id, _CLAIM, params) != 1:
            raise self._refused(game_id, "a seat claim")

    async def append(self, game_id: str, entry: StoredAction) -> None:
        """Queue the decision for the next group commit (``server.stores.postgres_batch``) and
        return once its batch has committed. Fenced if this game's fence failed (the others
        in the batch are not affected); a failed batch raises its error here, the game in
        doubt (its outcome is unknown)."""
        fence = self._fence_of(game_id)
        row = AppendRow(
            game_id=game_id,
            epoch=fence.epoch,
            log_length=fence.log_length,
            version=entry.version,
            seat=entry.seat,
            code=entry.code,
            by_timeout=entry.by_timeout,
            state_hash=entry.state_hash,
            sequence=entry.sequence,
            key=entry.idempotency_key or None,
            key_hash=entry.request_hash or None,
            deadlines_json=json.dumps({str(s): d for s, d in entry.deadlines_ms}),
            chain=entry.chain,
            unix_ms=entry.unix_ms or int(time.time() * 1000),
        )
        started = time.perf_counter()
        try:
            with tracing.TRACER.start_as_current_span("store.append"):
                written = await self._batcher.append(row)
        except psycopg.errors.IntegrityError:
            raise  # refused alone: nothing of it was written, the outcome is known
        except BaseException:
            self.on_doubt(game_id)
            raise
        finally:
            if self.observe is not None:
                self.observe("append", time.perf_counter() - started)
        if written is not WRITTEN:
            raise self._refused(game_id, f"the decision at version {entry.version}")
        fence.log_length += 1

    async def snapshot(self, game_id: str, version: int, data: dict[str, Any]) -> None:
        """Keep the newest snapshot of a game (a snapshot describes a logged prefix, so a
        stale owner's one is still true: it is not fenced)."""
        text = json.dumps(data, separators=(",", ":"))
        params = {"game": game_id, "version": version, "data": text}
        started = time.perf_counter()
        try:
            async with self.pool.connection() as conn:
                await conn.execute(_SNAPSHOT.encode(), params)
        finally:
            if self.observe is not None:
                self.observe("snapshot", time.perf_counter() - started)

    async def finish(self, game_id: str, finished_unix_ms: int, result: dict[str, Any]) -> None:
        fence = self._fence_of(game_id)
        params = {
            "game": game_id,
            "member": self.member,
            "epoch": fence.epoch,
            "at": finished_unix_ms,
            "result": json.dumps(result, sort_keys=True),
        }
        if await self._run("finish", game_id, _FINISH, params) != 1:
            raise self._refused(game_id, "the result")

    async def abort(self, game_id: str, record: AbortRecord) -> None:
        fence = self._fence_of(game_id)
        params = {
            "game": game_id,
            "member": self.member,
            "epoch": fence.epoch,
            "at": record.unix_ms,
            "cause": record.cause,
            "reason": record.reason,
            "sequence": record.sequence,
        }
        if await self._run("abort", game_id, _ABORT, params) != 1:
            raise self._refused(game_id, "the abort")

    async def delete(self, game_id: str) -> None:
        async with self.pool.connection() as conn:
            await conn.execute("DELETE FROM games WHERE game_id = %s", (game_id,))
        self._fences.pop(game_id, None)

    # -- reads -------------------------------------------------------------------------------

    async def ownership(self, game_id: str) -> GameOwnership | None:
        """Who owns a game now (the owner's address only while its lease is valid)."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT g.owner, g.epoch, g.finished_unix_ms IS NOT NULL, n.address, "
                "g.log_length FROM games g LEFT JOIN nodes n "
                "ON n.member = g.owner AND n.lease_until > now() WHERE g.game_id = %s",
                (game_id,),
            )
            row = await cur.fetchone()
        if row is None:
            return None
        owner, epoch, finished, address, length = row
        return GameOwnership(game_id, owner, int(epoch), bool(finished), address, int(length))

    async def take_orphans(self, limit: int) -> list[tuple[str, int, int]]:
        """Own (``epoch + 1``) up to ``limit`` unfinished games that no live node owns (released
        by a graceful stop, or left by an incarnation whose lease is over), in one statement;
        returns each one's (game id, epoch, log length). Games another node is taking at the
        same moment are skipped, not waited for."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(_TAKE_ORPHANS.encode(), {"me": self.member, "limit": limit})
            rows = await cur.fetchall()
        return [(str(g), int(e), int(n)) for g, e, n in rows]

    async def previous_lease_left_s(self, node_id: str) -> float:
        """Seconds until the last lease of this node's earlier incarnations ends, by the
        database's clock (0 if none is valid): their games are orphans from then on."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT extract(epoch FROM max(lease_until) - now()) FROM nodes "
                "WHERE node_id = %s AND member <> %s AND lease_until > now()",
                (node_id, self.member),
            )
            row = await cur.fetchone()
        return max(0.0, float(row[0])) if row is not None and row[0] is not None else 0.0

    async def fetch_games(
        self, game_ids: Sequence[str]
    ) -> tuple[list[StoredGame], list[LoadProblem]]:
        """Many games with their seats, logs and newest snapshots, read in one transaction."""
        some = "WHERE game_id = ANY(%s) "
        async with self.pool.connection() as conn, conn.transaction():
            rows = []
            for sql in (_GAME_ROWS, _SEAT_ROWS, _ACTION_ROWS, _SNAPSHOT_ROWS):
                order = "ORDER BY game_id, version" if sql is _ACTION_ROWS else ""
                cur = await conn.execute((sql + some + order).encode(), (list(game_ids),))
                rows.append(await cur.fetchall())
        games, seats, actions, snaps = rows
        return _assemble(games, seats, actions, snaps)

    async def fetch_index(
        self, game_ids: Sequence[str]
    ) -> tuple[list[StoredIndex], list[LoadProblem]]:
        """The index of many games (``StoredIndex``: no log, no snapshot; their last log
        entry found by an index seek each), read in one transaction: what a node taking
        games back needs to serve them until each is first used."""
        some = {"ids": list(game_ids)}
        async with self.pool.connection() as conn, conn.transaction():
            rows = await (await conn.execute(_INDEX_ROWS, some)).fetchall()
            seats = await (
                await conn.execute(
                    b"SELECT game_id, seat, name, sequence FROM seats WHERE game_id = ANY(%(ids)s)",
                    some,
                )
            ).fetchall()
            access = await (
                await conn.execute(_ACCESS_ROWS + b"WHERE game_id = ANY(%(ids)s)", some)
            ).fetchall()
            reservations = await (
                await conn.execute(_RESERVATION_ROWS + b"WHERE game_id = ANY(%(ids)s)", some)
            ).fetchall()
        games: dict[str, StoredIndex] = {}
        problems: list[LoadProblem] = []
        for row in rows:
            try:
                entry = index_entry(row[:11])
            except (ValueError, TypeError, AttributeError) as e:
                problems.append(LoadProblem(str(row[0]), f"unreadable game record: {e}"))
                continue
            entry.epoch = int(row[11])
            games[entry.game_id] = entry
        attach_index_rows(games, seats, access, reservations)
        return list(games.values()), problems

    async def fetch_game(self, game_id: str) -> StoredGame | None:
        """One game with its seats, log and newest snapshot, read in one transaction."""
        one = "WHERE game_id = %s "
        async with self.pool.connection() as conn, conn.transaction():
            rows = []
            for sql in (_GAME_ROWS, _SEAT_ROWS, _ACTION_ROWS, _SNAPSHOT_ROWS):
                order = "ORDER BY version" if sql is _ACTION_ROWS else ""
                cur = await conn.execute((sql + one + order).encode(), (game_id,))
                rows.append(await cur.fetchall())
            access_rows = await (
                await conn.execute(_ACCESS_ROWS + b"WHERE game_id = %s", (game_id,))
            ).fetchall()
            reservation_rows = await (
                await conn.execute(_RESERVATION_ROWS + b"WHERE game_id = %s", (game_id,))
            ).fetchall()
        games, seats, actions, snaps = rows
        loaded, problems = _assemble(games, seats, actions, snaps)
        attach_access({g.game_id: g for g in loaded}, access_rows, reservation_rows)
        if problems:
            raise StoreError(f"game {game_id}: {problems[0].problem}")
        return loaded[0] if loaded else None

    async def list_games(
        self, status: int, before: int | None, limit: int, viewer: ListViewer | None = None
    ) -> list[tuple[StoredListing, int]]:
        """Games of ``status`` (0: any; Status numbers) created before ``before`` in the
        cluster's creation order, newest first, each with its status, that ``viewer`` may
        see; at most ``limit``."""
        status_filter = "" if not status else "AND status = %(status)s"
        sql = f"""
            SELECT * FROM (
                SELECT g.list_order, g.game_id, g.created_unix_ms, g.settings_json,
                       g.scenario_json <> '',
                       (SELECT max(version) + 1 FROM actions a WHERE a.game_id = g.game_id),
                       greatest(
                           (SELECT max(sequence) FROM actions a WHERE a.game_id = g.game_id),
                           (SELECT max(sequence) FROM seats s WHERE s.game_id = g.game_id)),
                       CASE WHEN g.aborted_unix_ms IS NOT NULL THEN 4
                            WHEN g.finished_unix_ms IS NOT NULL THEN 3
                            WHEN (SELECT count(*) FROM seats s WHERE s.game_id = g.game_id)
                                 >= coalesce((g.settings_json::jsonb ->> 'players')::int, 0)
                            THEN 2 ELSE 1 END AS status
                FROM games g WHERE g.list_order < %(before)s AND {_VISIBLE}
            ) listed WHERE true {status_filter}
            ORDER BY list_order DESC LIMIT %(limit)s
        """
        params = {"before": before if before is not None else 2**63 - 1, "limit": limit,
                  "status": status, **_visible_params(viewer)}  # fmt: skip
        async with self.pool.connection() as conn:
            rows = await (await conn.execute(sql.encode(), params)).fetchall()
            ids = [str(r[1]) for r in rows]
            names: dict[str, dict[int, str]] = {gid: {} for gid in ids}
            if ids:
                cur = await conn.execute(
                    "SELECT game_id, seat, name FROM seats WHERE game_id = ANY(%s)", (ids,)
                )
                for gid, seat, name in await cur.fetchall():
                    names[str(gid)][int(seat)] = str(name)
                holders = {gid: StoredGame(gid, 0, {}, "") for gid in ids}
                attach_access(
                    holders,
                    await (
                        await conn.execute(_ACCESS_ROWS + b"WHERE game_id = ANY(%s)", (ids,))
                    ).fetchall(),
                    await (
                        await conn.execute(_RESERVATION_ROWS + b"WHERE game_id = ANY(%s)", (ids,))
                    ).fetchall(),
                )
        out: list[tuple[StoredListing, int]] = []
        for *columns, row_status in rows:
            listing = StoredListing.from_row(columns, names[str(columns[1])])
            if listing is not None:
                listing = replace(listing, access=holders[listing.game_id].access)
                out.append((listing, int(row_status)))
        return out

    def load(
        self, *, unfinished_only: bool = True, game_id: str | None = None
    ) -> tuple[list[StoredGame], list[LoadProblem]]:
        """Like SqliteStore.load (a blocking read on a connection of its own)."""
        where = []
        args: tuple[str, ...] = ()
        if unfinished_only:
            where.append("finished_unix_ms IS NULL")
        if game_id is not None:
            where.append("game_id = %s")
            args = (game_id,)
        one = "WHERE game_id = %s " if game_id is not None else ""
        try:
            with psycopg.connect(self.url, autocommit=False) as conn:
                clause = f"WHERE {' AND '.join(where)} " if where else ""
                games = conn.execute(_GAME_ROWS + clause + "ORDER BY created_unix_ms", args)
                game_rows = games.fetchall()
                seats = conn.execute(_SEAT_ROWS + one, args).fetchall()
                actions = conn.execute(_ACTION_ROWS + one + "ORDER BY game_id, version", args)
                action_rows = actions.fetchall()
                snaps = conn.execute(_SNAPSHOT_ROWS + one, args).fetchall()
                access_rows = conn.execute(_ACCESS_ROWS + one.encode(), args).fetchall()
                reservations = conn.execute(_RESERVATION_ROWS + one.encode(), args).fetchall()
        except psycopg.Error as e:
            raise StoreError(f"{self.where}: cannot read the game store: {e}") from None
        loaded, problems = _assemble(game_rows, seats, action_rows, snaps)
        attach_access({g.game_id: g for g in loaded}, access_rows, reservations)
        return loaded, problems

    def load_game(self, game_id: str) -> StoredGame | None:
        games, problems = self.load(unfinished_only=False, game_id=game_id)
        if problems:
            raise StoreError(f"game {game_id}: {problems[0].problem}")
        return games[0] if games else None


_GAME_ROWS = (
    "SELECT game_id, created_unix_ms, settings_json, scenario_json, finished_unix_ms, "
    "result_json, log_length, last_hash, owner, epoch, deadlines_json, creator, "
    "activity_unix_ms, aborted_unix_ms, abort_cause, abort_reason, abort_sequence, genesis, "
    "creator_token_hash FROM games "
)
_INDEX_ROWS = b"""
SELECT g.game_id, g.list_order, g.created_unix_ms, g.settings_json, g.scenario_json <> '',
       g.log_length, last.version, last.sequence, g.creator, g.activity_unix_ms,
       g.deadlines_json, g.epoch
FROM games g LEFT JOIN LATERAL (
    SELECT a.version, a.sequence FROM actions a WHERE a.game_id = g.game_id
    ORDER BY a.version DESC LIMIT 1
) last ON true
WHERE g.game_id = ANY(%(ids)s) ORDER BY g.list_order
"""
_SEAT_ROWS = "SELECT game_id, seat, name, token_hash, sequence, chain FROM seats "
_ACTION_ROWS = (
    "SELECT game_id, version, seat, code, by_timeout, state_hash, sequence, idem_key, "
    "idem_hash, epoch, chain FROM actions "
)
_SNAPSHOT_ROWS = "SELECT game_id, version, data_json FROM snapshots "
_ACCESS_ROWS = b"SELECT game_id, unlisted FROM game_access "
_RESERVATION_ROWS = b"SELECT game_id, seat, key_name, code_hash FROM seat_reservations "
# The games a ListViewer may see (its parameters: _visible_params).
_VISIBLE = """(
    NOT EXISTS (SELECT 1 FROM game_access x WHERE x.game_id = g.game_id AND x.unlisted)
    OR %(sees_all)s
    OR (%(creator)s <> '' AND g.creator = %(creator)s)
    OR (%(key_name)s <> '' AND EXISTS (
        SELECT 1 FROM seat_reservations r
        WHERE r.game_id = g.game_id AND r.key_name = %(key_name)s)))"""


def _visible_params(viewer: ListViewer | None) -> dict[str, Any]:
    if viewer is None:
        return {"sees_all": True, "creator": "", "key_name": ""}
    return {"sees_all": viewer.sees_all, "creator": viewer.creator, "key_name": viewer.key_name}


def _assemble(
    game_rows: Iterable[TupleRow],
    seat_rows: Iterable[TupleRow],
    action_rows: Iterable[TupleRow],
    snapshot_rows: Sequence[TupleRow],
) -> tuple[list[StoredGame], list[LoadProblem]]:
    games: dict[str, StoredGame] = {}
    problems: list[LoadProblem] = []
    for row in game_rows:
        gid, created, settings, scenario, finished, result, length, last, _, epoch, dl = row[:11]
        creator, activity, aborted, cause, reason, abort_sequence, genesis, creator_proof = row[11:]
        try:
            parsed = json.loads(settings)
            if not isinstance(parsed, dict):
                raise ValueError("the settings are not a JSON object")
            deadlines = {int(s): int(d) for s, d in json.loads(dl or "{}").items()}
            games[gid] = StoredGame(
                game_id=gid,
                created_unix_ms=int(created),
                settings=parsed,
                scenario_json=str(scenario),
                finished_unix_ms=None if finished is None else int(finished),
                result=json.loads(result) if result else None,
                log_length=int(length),
                last_hash=str(last),
                epoch=int(epoch),
                deadlines_ms=deadlines,
                creator=str(creator or ""),
                genesis=str(genesis or ""),
                creator_token_hash=str(creator_proof or ""),
                activity_unix_ms=int(activity if activity is not None else created),
                aborted=None
                if aborted is None
                else AbortRecord(int(aborted), int(cause), str(reason), int(abort_sequence)),
            )
        except (ValueError, TypeError, AttributeError) as e:
            problems.append(LoadProblem(gid, f"unreadable game record: {e}"))
    attach_rows(games, seat_rows, action_rows, snapshot_rows)
    return list(games.values()), problems
