"""Quotas counted for the whole cluster, not per node (issue 26: a key limited to 3 open games
and 2 streams created 9 games and held 6 streams on 3 nodes).

Each node counts what it sees in memory (``server.api.quotas``); in a cluster a caller spreads
over the nodes (Envoy sends CreateGame to any of them, streams to their game's owner), so the
counts that bound what a caller holds at once are kept in PostgreSQL:

* **open games**: the store counts the creator's unfinished games when it creates another,
  in the same transaction (``server.stores.postgres.PostgresStore.create``'s ``open_limit``);
* **streams** (WatchGame, PlaySession): :class:`StreamLeases` keeps one row per open stream
  (``stream_leases``), taken under a transaction-scoped advisory lock on the quota key only if
  the key holds fewer than its limit, renewed by the node that holds it every renewal period
  to the database's ``now()`` plus the lease TTL, and deleted when the stream ends. A node that
  dies stops renewing: its streams stop counting within a TTL.

The **rates** (game creation, decisions) stay per node: a token bucket shared through the
database would cost a write per decision. docs/operations.md says so: a cluster of N nodes
lets a caller up to N times its configured rates; set them divided by N for a cluster-wide
figure.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable

import psycopg
import structlog
from psycopg_pool import PoolTimeout

from server.stores.postgres import PostgresStore

__all__ = ["StreamLeases"]

_LOCK_KEY = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 27))"
_HELD = "SELECT count(*) FROM stream_leases WHERE quota_key = %s AND expires_at > now()"
_TAKE = (
    "INSERT INTO stream_leases (lease_id, quota_key, member, expires_at) "
    "VALUES (%s, %s, %s, now() + make_interval(secs => %s))"
)
_RENEW = (
    "UPDATE stream_leases SET expires_at = now() + make_interval(secs => %s), member = %s "
    "WHERE lease_id = ANY(%s)"
)
_FORGET_EXPIRED = "DELETE FROM stream_leases WHERE expires_at < now() - interval '1 minute'"
_ERRORS = (psycopg.Error, PoolTimeout, OSError, TimeoutError)


class StreamLeases:
    """The cluster-wide count of open streams per quota key (see the module doc)."""

    def __init__(
        self,
        store: PostgresStore,
        member: Callable[[], str],
        ttl_s: float,
        renew_s: float,
    ) -> None:
        self.store = store
        self._member = member  # this node's current incarnation (it changes on re-register)
        self.ttl_s = ttl_s
        self.renew_s = renew_s
        self._held: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._logger = structlog.get_logger("yggdrasil.quotas")

    async def acquire(self, quota_key: str, limit: float) -> str | None:
        """A lease id if ``quota_key`` holds fewer than ``limit`` streams across the cluster
        (the stream is counted from now on), else None. Store errors pass through."""
        lease = secrets.token_hex(12)
        async with self.store.pool.connection() as conn, conn.transaction():
            await conn.execute(_LOCK_KEY, (quota_key,))
            row = await (await conn.execute(_HELD, (quota_key,))).fetchone()
            if row is not None and int(row[0]) >= limit:
                return None
            await conn.execute(_TAKE, (lease, quota_key, self._member(), self.ttl_s))
        self._held.add(lease)
        return lease

    def release(self, lease: str) -> None:
        """The stream ended: its lease goes (in the background; if that fails, it expires)."""
        self._held.discard(lease)
        task = asyncio.get_running_loop().create_task(self._delete(lease))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _delete(self, lease: str) -> None:
        with contextlib.suppress(*_ERRORS):
            async with self.store.pool.connection() as conn:
                await conn.execute("DELETE FROM stream_leases WHERE lease_id = %s", (lease,))

    async def renew(self) -> None:
        """Extend every lease this node holds, and forget long-expired ones of anyone."""
        async with self.store.pool.connection() as conn:
            if self._held:
                await conn.execute(_RENEW, (self.ttl_s, self._member(), list(self._held)))
            await conn.execute(_FORGET_EXPIRED)

    async def renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self.renew_s)
            try:
                await self.renew()
            except _ERRORS as exc:
                self._logger.warning("stream_leases_not_renewed", error=str(exc))

    @property
    def held(self) -> int:
        return len(self._held)
