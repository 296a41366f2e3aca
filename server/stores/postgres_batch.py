"""Group commit for the PostgreSQL store's appends: the decisions of every game a node owns
are written together, one transaction per batch.

Why: committing each decision on its own costs a round trip and a WAL flush (fsync) per
decision, which bounds a node at a few thousand decisions a second however many games it
runs (``docs/performance.md``). A batch of many decisions costs one round trip and one flush.

How: :meth:`AppendBatcher.append` queues the decision's row and waits for its batch. A batch
leaves when it is full (``max_batch`` rows) or when its oldest row has waited ``delay_s``,
whichever comes first, and at most ``in_flight`` batches are being committed at once (each on
a pooled connection): while they are, new rows queue up and leave together in the next one.
With ``delay_s`` 0 a lone decision goes at once (nothing is added to its latency at low load)
and batches grow by themselves with the load, as the SQLite store's writer does.

A batch is **one statement** (:data:`BATCH_APPEND`): the rows go as arrays, the game rows are
updated where this node still owns each game at the epoch and log length it wrote last (the
fence of ``server.stores.postgres``, per game), and only the rows whose game row was updated
are inserted; the statement returns the games written. So a game whose fence fails is refused
alone (:data:`FENCED`) while the others in its batch commit. A batch refused whole by a
constraint (a duplicate version or idempotency key: nothing was written) is redone one row
per statement, so that only the offending row fails. Any other failure (the connection lost,
PostgreSQL restarted) fails every row of the batch with that error; the outcome is then
unknown (the commit may have happened with its answer lost), and the store treats each of
its games as in doubt. A row is never in two batches, and a game is never twice in one
batch (its rows would race for its fence).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from server.ops import tracing

__all__ = [
    "BATCH_APPEND",
    "FENCED",
    "WRITTEN",
    "AppendBatcher",
    "AppendRow",
    "BatchSettings",
]

WRITTEN = True  # the row is committed
FENCED = False  # the row was refused: this node no longer owns its game at that epoch/length


@dataclass(frozen=True, slots=True)
class BatchSettings:
    """How appends are grouped (``--store-batch-max``, ``--store-batch-delay-ms``,
    ``--store-batch-in-flight``)."""

    max_batch: int = 256  # rows per transaction at most
    delay_s: float = 0.0  # longest a row waits for others to join its batch
    in_flight: int = 2  # batches being committed at once (each holds a pooled connection)

    def __post_init__(self) -> None:
        if self.max_batch < 1:
            raise ValueError("a batch holds at least one append")
        if not 0 <= self.delay_s <= 1.0:
            raise ValueError("the batch delay must be between 0 and 1000 ms")
        if self.in_flight < 1:
            raise ValueError("at least one batch must be allowed in flight")


@dataclass(frozen=True, slots=True)
class AppendRow:
    """One decision's row and the fence it is written under."""

    game_id: str
    epoch: int
    log_length: int  # the game row's log length this node last wrote (its fence)
    version: int
    seat: int
    code: int
    by_timeout: bool
    state_hash: str
    sequence: int
    key: str | None
    key_hash: str | None
    deadlines_json: str
    chain: str
    unix_ms: int


# The rows arrive as one array per column (unnest zips them back into rows).
BATCH_APPEND = """
WITH batch AS (
    SELECT * FROM unnest(
        %(games)s::text[], %(epochs)s::bigint[], %(lengths)s::int[], %(versions)s::int[],
        %(seats)s::int[], %(codes)s::int[], %(timeouts)s::bool[], %(hashes)s::text[],
        %(sequences)s::bigint[], %(keys)s::text[], %(key_hashes)s::text[],
        %(deadlines)s::text[], %(chains)s::text[], %(ats)s::bigint[]
    ) AS b(game_id, epoch, length, version, seat, code, by_timeout, hash, sequence, key,
           key_hash, deadlines, chain, at)
),
owned AS (
    UPDATE games g SET log_length = g.log_length + 1, last_hash = b.hash,
                       deadlines_json = b.deadlines, activity_unix_ms = b.at
    FROM batch b
    WHERE g.game_id = ANY(%(games)s::text[]) AND g.game_id = b.game_id
      AND g.owner = %(member)s AND g.epoch = b.epoch AND g.log_length = b.length
      AND EXISTS (SELECT 1 FROM nodes WHERE member = %(member)s AND lease_until > now())
    RETURNING g.game_id
)
INSERT INTO actions (game_id, version, seat, code, by_timeout, state_hash, sequence,
                     idem_key, idem_hash, epoch, chain)
SELECT b.game_id, b.version, b.seat, b.code, b.by_timeout, b.hash, b.sequence, b.key,
       b.key_hash, b.epoch, b.chain
FROM batch b JOIN owned o ON o.game_id = b.game_id
RETURNING game_id
"""

# One row alone (a batch refused whole by a constraint is redone with it, row by row).
SINGLE_APPEND = """
WITH owned AS (
    UPDATE games SET log_length = log_length + 1, last_hash = %(hash)s,
                     deadlines_json = %(deadlines)s, activity_unix_ms = %(at)s
    WHERE game_id = %(game)s AND owner = %(member)s AND epoch = %(epoch)s
      AND log_length = %(length)s
      AND EXISTS (SELECT 1 FROM nodes WHERE member = %(member)s AND lease_until > now())
    RETURNING game_id
)
INSERT INTO actions (game_id, version, seat, code, by_timeout, state_hash, sequence,
                     idem_key, idem_hash, epoch, chain)
SELECT game_id, %(version)s, %(seat)s, %(code)s, %(by_timeout)s, %(hash)s, %(sequence)s,
       %(key)s, %(key_hash)s, %(epoch)s, %(chain)s
FROM owned
"""


def batch_params(member: str, rows: Sequence[AppendRow]) -> dict[str, Any]:
    """The parameters of :data:`BATCH_APPEND`: one list per column."""
    return {
        "member": member,
        "games": [r.game_id for r in rows],
        "epochs": [r.epoch for r in rows],
        "lengths": [r.log_length for r in rows],
        "versions": [r.version for r in rows],
        "seats": [r.seat for r in rows],
        "codes": [r.code for r in rows],
        "timeouts": [r.by_timeout for r in rows],
        "hashes": [r.state_hash for r in rows],
        "sequences": [r.sequence for r in rows],
        "keys": [r.key for r in rows],
        "key_hashes": [r.key_hash for r in rows],
        "deadlines": [r.deadlines_json for r in rows],
        "chains": [r.chain for r in rows],
        "ats": [r.unix_ms for r in rows],
    }


def single_params(member: str, row: AppendRow) -> dict[str, Any]:
    """The parameters of :data:`SINGLE_APPEND`."""
    return {
        "game": row.game_id,
        "member": member,
        "epoch": row.epoch,
        "length": row.log_length,
        "version": row.version,
        "seat": row.seat,
        "code": row.code,
        "by_timeout": row.by_timeout,
        "hash": row.state_hash,
        "sequence": row.sequence,
        "key": row.key,
        "key_hash": row.key_hash,
        "deadlines": row.deadlines_json,
        "chain": row.chain,
        "at": row.unix_ms,
    }


@dataclass(slots=True)
class _Pending:
    row: AppendRow
    future: asyncio.Future[bool]
    queued: float  # loop time


class AppendBatcher:
    """Queues appends and commits them in batches (see the module doc). Started lazily by
    the first append, on the running loop; :meth:`close` waits for what is queued."""

    def __init__(
        self,
        pool: AsyncConnectionPool[Any],
        member: Callable[[], str],
        settings: BatchSettings,
        *,
        crash_prefix: str = "",
    ) -> None:
        self.pool = pool
        self.member = member  # this node's incarnation now (it changes when it registers anew)
        self.settings = settings
        self._crash_prefix = crash_prefix
        self._queue: deque[_Pending] = deque()
        self._grew = asyncio.Event()  # set when a row is queued (the collector wakes)
        self._slots = asyncio.Semaphore(settings.in_flight)
        self._collector: asyncio.Task[None] | None = None
        self._flushes: set[asyncio.Task[None]] = set()
        self._closed = False
        # For metrics and tests: committed batches, rows in them, largest batch, and the
        # (rows, seconds) of the last ones (bounded).
        self.batches = 0
        self.rows = 0
        self.largest = 0
        self.failed_batches = 0
        self.recent: deque[tuple[int, float]] = deque(maxlen=1024)
        self.observe_batch: Callable[[int, float], None] | None = None

    async def append(self, row: AppendRow) -> bool:
        """Queue ``row`` and wait for its batch: :data:`WRITTEN` once committed,
        :data:`FENCED` if its game's fence failed; the batch's error if the batch failed
        (a constraint violation: this row's own)."""
        if self._closed:
            raise psycopg.OperationalError("the store is closed")
        loop = asyncio.get_running_loop()
        if self._collector is None:
            self._collector = loop.create_task(self._collect(), name="store-append-batcher")
        future: asyncio.Future[bool] = loop.create_future()
        self._queue.append(_Pending(row, future, loop.time()))
        self._grew.set()
        return await future

    async def close(self) -> None:
        """Commit what is queued, then stop."""
        self._closed = True
        self._grew.set()
        if self._collector is not None:
            await self._collector
            self._collector = None
        if self._flushes:
            await asyncio.gather(*self._flushes, return_exceptions=True)

    # -- the collector -----------------------------------------------------------------------

    async def _collect(self) -> None:
        try:
            await self._collect_forever()
        except BaseException as e:
            # Nothing queued may wait for ever: its callers learn that its outcome is unknown
            # (it was not written), and the next append starts a new collector.
            self._collector = None
            while self._queue:
                pending = self._queue.popleft()
                if not pending.future.done():
                    pending.future.set_exception(
                        psycopg.OperationalError(f"the append batcher stopped: {e!r}")
                    )
            raise

    async def _collect_forever(self) -> None:
        loop = asyncio.get_running_loop()
        settings = self.settings
        while True:
            if not self._queue:
                if self._closed:
                    return
                self._grew.clear()
                await self._grew.wait()
                continue
            # Wait for the batch to fill, or for its oldest row to have waited long enough.
            while (
                settings.delay_s > 0
                and len(self._queue) < settings.max_batch
                and not self._closed
                and (left := self._queue[0].queued + settings.delay_s - loop.time()) > 0
            ):
                self._grew.clear()
                try:
                    await asyncio.wait_for(self._grew.wait(), left)
                except TimeoutError:
                    break
            await self._slots.acquire()  # rows keep queueing while every slot is busy
            # The queue is shared between the slots free now: two batches committing side by
            # side overlap their round trips, where one twice their size would wait for both.
            free = max(1, settings.in_flight - len(self._flushes))
            batch = self._take(min(settings.max_batch, -(-len(self._queue) // free)))
            task = loop.create_task(self._flush(batch))
            self._flushes.add(task)
            task.add_done_callback(self._flushes.discard)

    def _take(self, limit: int) -> list[_Pending]:
        """Up to ``limit`` queued rows, oldest first, one per game (a later row of a game
        already taken stays queued, in order, for the next batch)."""
        batch: list[_Pending] = []
        games: set[str] = set()
        skipped: list[_Pending] = []
        queue = self._queue
        while queue and len(batch) < limit:
            pending = queue.popleft()
            if pending.future.done():  # its caller is gone and was told so
                continue
            if pending.row.game_id in games:
                skipped.append(pending)
                continue
            games.add(pending.row.game_id)
            batch.append(pending)
        queue.extendleft(reversed(skipped))
        return batch

    async def _flush(self, batch: list[_Pending]) -> None:
        try:
            if batch:
                await self._commit(batch)
        finally:
            self._slots.release()

    async def _commit(self, batch: list[_Pending]) -> None:
        rows = [p.row for p in batch]
        member = self.member()
        started = time.perf_counter()
        try:
            with tracing.TRACER.start_as_current_span("store.append_batch") as span:
                span.set_attribute("yggdrasil.batch_rows", len(rows))
                async with self.pool.connection() as conn:
                    cur = await conn.execute(BATCH_APPEND.encode(), batch_params(member, rows))
                    written = {str(r[0]) for r in await cur.fetchall()}
        except psycopg.errors.IntegrityError:
            # Refused whole, nothing written: redo it row by row so that only the offending
            # row fails (rare: a row that repeats a version or an idempotency key).
            await self._one_by_one(batch, member)
            return
        except BaseException as e:
            self.failed_batches += 1
            for pending in batch:
                if not pending.future.done():
                    pending.future.set_exception(_copy(e))
            if not isinstance(e, Exception):
                raise
            return
        seconds = time.perf_counter() - started
        self._committed(rows, seconds)
        for pending in batch:
            if not pending.future.done():
                pending.future.set_result(WRITTEN if pending.row.game_id in written else FENCED)

    async def _one_by_one(self, batch: list[_Pending], member: str) -> None:
        for pending in batch:
            started = time.perf_counter()
            try:
                async with self.pool.connection() as conn:
                    cur = await conn.execute(
                        SINGLE_APPEND.encode(), single_params(member, pending.row)
                    )
                    count = cur.rowcount
            except Exception as e:
                if not pending.future.done():
                    pending.future.set_exception(e)
                continue
            self._committed([pending.row], time.perf_counter() - started)
            if not pending.future.done():
                pending.future.set_result(WRITTEN if count == 1 else FENCED)

    def _committed(self, rows: list[AppendRow], seconds: float) -> None:
        self.batches += 1
        self.rows += len(rows)
        self.largest = max(self.largest, len(rows))
        self.recent.append((len(rows), seconds))
        if self.observe_batch is not None:
            self.observe_batch(len(rows), seconds)
        if self._crash_prefix and any((r.key or "").startswith(self._crash_prefix) for r in rows):
            os._exit(137)  # chaos only: committed, and nobody has heard of it


def _copy(error: BaseException) -> BaseException:
    """The batch's error for one of its rows (each waiter raises its own instance, so that
    one traceback does not grow with the others')."""
    try:
        copy = type(error)(*error.args)
    except Exception:
        return error
    copy.__cause__ = error
    return copy
