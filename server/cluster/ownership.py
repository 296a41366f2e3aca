"""Game ownership in a cluster: node leases, game epochs, takeover (``docs/cluster.md``).

Every node is the same server process on the same PostgreSQL store (``server.stores.postgres``).

* **Lease.** Each node incarnation registers a row in ``nodes`` (its member id, its internal
  address, ``lease_until``) and renews it every ``lease_renew_s`` to ``now() + lease_ttl_s``,
  judged by the *database's* clock. A renewal only extends a lease that is still valid: one
  that ran out stays out, and the node registers again as a new incarnation (a new member id),
  so nothing it did as the old one can count for the new one.
* **Stop serving before the lease can expire.** On its own monotonic clock, the node's lease
  is good until the moment it *sent* its last successful renewal plus the TTL minus
  ``lease_margin_s``. Past that it serves no game (calls get UNAVAILABLE) and drops every game
  from memory (their watch streams end, clients resume elsewhere). Its store writes are fenced
  anyway: each one checks the node's lease and the game's epoch in the same statement.
* **Owner and epoch.** A game belongs to the node that created it (epoch 1). Another node takes
  it over only when the owner's lease has expired by the database's clock (or the game was
  released on a graceful stop): one statement sets ``owner = me, epoch = epoch + 1``, then the
  node reads the snapshot and the log tail and replays them, hash-checked
  (``server.games.recovery.rebuild``), before it answers anything about the game. Idempotency keys,
  seat-token hashes and event numbering come back with the log; decision clocks go on from the
  deadlines the last append stored.
* **Routing.** :meth:`Ownership.route` tells the forwarding layer (``server.cluster.forwarding``)
where a call about a game must go: here (hosted, finished, or just taken over), to the live owner's
address, or nowhere yet (UNAVAILABLE with a hint to retry).
* **Lazy take-back.** Games taken in bulk (a node's start, :meth:`Ownership._take_back_all`)
  are owned (epoch bumped, fenced) and hosted from the store's index as dormant games
  (``server.games.dormant``); each is read and replayed, hash-checked, when first used
  (:meth:`Ownership._wake`: a call, its decision clock, the abandonment sweep). A game taken
  over on its own (a call about it, an orphan adopted per tick) is rebuilt at once.
* **Orphans.** Every renewal tick the node also adopts a few games whose owner's lease has
  expired, so that their clocks keep counting even when no client calls.
* **Graceful stop.** Release every owned game (``owner = NULL``, a takeover needs no wait) and
  end the lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import os
import secrets
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import psycopg
import structlog
from prometheus_client import Counter, Gauge, Histogram
from psycopg_pool import PoolTimeout
from structlog.typing import FilteringBoundLogger

from server.games.dormant import Dormant, dormant_from
from server.games.game import Game
from server.games.record import Status, result_record
from server.games.recovery import RestoreError, host_rebuilt, keep_out_of_collections, rebuild
from server.games.refusal import Refusal
from server.games.registry import GameRegistry
from server.ops.metrics import Metrics
from server.stores.contract import StoredGame, StoredIndex, StoreError
from server.stores.postgres import PostgresStore

__all__ = [
    "ROUTED_HERE",
    "STORE_ERRORS",
    "ClusterMetrics",
    "LeaseSettings",
    "Ownership",
    "Route",
    "store_unavailable",
]

# Fault injection for the cluster chaos test only (never set it anywhere else): see
# Ownership._frozen_clock.
FROZEN_CLOCK_ENV = "YGGDRASIL_CHAOS_FROZEN_CLOCK"

# What a store read raises while PostgreSQL is unreachable or restarting.
STORE_ERRORS = (psycopg.Error, PoolTimeout, OSError, TimeoutError)


def store_unavailable(exc: BaseException) -> Refusal:
    """The answer to a call that needed the store while it could not be read."""
    return Refusal(
        "UNAVAILABLE", f"the game store cannot be reached now ({type(exc).__name__}); retry"
    )


@dataclass(frozen=True, slots=True)
class LeaseSettings:
    """The lease times (``--lease-ttl-s``, ``--lease-renew-s``, ``--lease-margin-s``)."""

    ttl_s: float = 5.0
    renew_s: float = 1.0
    margin_s: float = 1.0
    adopt_per_tick: int = 8  # orphaned games adopted per renewal tick at most
    adopt_chunk: int = 2000  # games taken over per statement when a node starts

    def __post_init__(self) -> None:
        if not 0 < self.renew_s < self.ttl_s - self.margin_s:
            raise ValueError(
                f"lease renewal every {self.renew_s} s must be shorter than the TTL "
                f"{self.ttl_s} s minus the margin {self.margin_s} s"
            )
        if self.margin_s <= 0:
            raise ValueError("the lease margin must be > 0")


@dataclass(frozen=True, slots=True)
class Route:
    """Where a call about a game goes: ``address`` None means here."""

    address: str | None = None
    owner: str = ""

    @property
    def local(self) -> bool:
        return self.address is None


HERE = Route()

# Set (in the call's own context) by the forwarding layer when it routed the call here by its
# game id. A game such a call then finds owned elsewhere moved while the call came (this node
# lost it between the routing and the handler), so the answer is UNAVAILABLE, which a client
# retries and which is routed afresh, and not the FAILED_PRECONDITION that tells a call without
# a game id (a PlaySession without x-game-id) to name its game. The cluster chaos run found a
# `python -m clients.sdk` seat ended by that FAILED_PRECONDITION after a takeover.
ROUTED_HERE: contextvars.ContextVar[bool] = contextvars.ContextVar("routed_here", default=False)

# Store/ownership latency: 100 µs .. 5 s.
STORE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                 0.5, 1.0, 2.5, 5.0)  # fmt: skip


class ClusterMetrics:
    """The cluster's metrics (registered on the server's registry)."""

    def __init__(self, metrics: Metrics) -> None:
        reg = metrics.registry
        ns = "yggdrasil"
        self.lease_headroom_seconds = Gauge(
            "lease_headroom_seconds",
            "Seconds until this node stops serving unless its lease is renewed (its own "
            "monotonic clock: TTL minus margin after the last renewal was sent).",
            namespace=ns,
            registry=reg,
        )
        self.lease_losses_total = Counter(
            "lease_losses_total",
            "Times this node stopped serving because its lease could not be renewed in time.",
            namespace=ns,
            registry=reg,
        )
        self.takeovers_total = Counter(
            "takeovers_total",
            "Games taken over from a node whose lease had expired (or that released them).",
            namespace=ns,
            registry=reg,
        )
        self.takeover_seconds = Histogram(
            "takeover_seconds",
            "Time from the epoch bump to the game being served (read, replay, hash check).",
            buckets=STORE_BUCKETS,
            namespace=ns,
            registry=reg,
        )
        self.fencing_rejections_total = Counter(
            "fencing_rejections_total",
            "Writes the store refused because this node no longer owned the game.",
            namespace=ns,
            registry=reg,
        )
        self.forwarded_calls_total = Counter(
            "forwarded_calls_total",
            "Calls forwarded to the game's owner, by method and status code.",
            ["method", "code"],
            namespace=ns,
            registry=reg,
        )
        self.unhinted_calls_total = Counter(
            "unhinted_calls_total",
            "Calls about a game without a matching x-game-id header (the proxy could not "
            "hash them to the game's node), by method.",
            ["method"],
            namespace=ns,
            registry=reg,
        )
        self.store_seconds = Histogram(
            "store_seconds",
            "PostgreSQL statement latency, by operation.",
            ["op"],
            buckets=STORE_BUCKETS,
            namespace=ns,
            registry=reg,
        )
        self.store_batch_rows = Histogram(
            "store_batch_rows",
            "Decisions committed together in one PostgreSQL transaction (group commit).",
            buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
            namespace=ns,
            registry=reg,
        )
        self.pool_waiting = Gauge(
            "store_pool_waiting",
            "Requests waiting for a PostgreSQL connection from the pool.",
            namespace=ns,
            registry=reg,
        )
        self.pool_wait_seconds_total = Gauge(
            "store_pool_wait_seconds_total",
            "Total time requests waited for a pooled PostgreSQL connection.",
            namespace=ns,
            registry=reg,
        )
        self.games_owned = Gauge(
            "games_owned", "Games this node owns and serves.", namespace=ns, registry=reg
        )

    def observe_store(self, op: str, seconds: float) -> None:
        self.store_seconds.labels(op=op).observe(seconds)


def new_member(node_id: str) -> str:
    """A fresh incarnation id of a node: its id and a random suffix."""
    return f"{node_id}/{secrets.token_hex(4)}"


class Ownership:
    """This node's lease and the games it owns. ``await start()``; ``await stop()``."""

    def __init__(
        self,
        store: PostgresStore,
        registry: GameRegistry,
        *,
        node_id: str,
        address: str,
        settings: LeaseSettings,
        metrics: ClusterMetrics,
        logger: FilteringBoundLogger | None = None,
        eager: bool = False,
    ) -> None:
        self.store = store
        # --restore eager: each game taken back in bulk is rebuilt at once (in the
        # background, the node serving meanwhile) rather than on its first use.
        self.eager = eager
        self.registry = registry
        self.node_id = node_id
        self.address = address
        self.settings = settings
        self.metrics = metrics
        self.logger: FilteringBoundLogger = (
            structlog.get_logger("yggdrasil.ownership") if logger is None else logger
        )
        self.member = ""
        self._valid_until = 0.0  # loop time until which this node may serve
        self._renewer: asyncio.Task[None] | None = None
        self._expiry: asyncio.TimerHandle | None = None  # stops serving at _valid_until
        self._takeovers: dict[str, asyncio.Future[Game | None]] = {}
        self._homecoming: asyncio.Task[None] | None = None  # see _take_back_all
        self._prefetched: dict[str, StoredGame] = {}  # read in bulk for --restore eager
        self._owners: dict[str, tuple[str, str, float]] = {}  # game -> (address, owner, until)
        self.stopping = False
        # Chaos only (FROZEN_CLOCK_ENV): behave like a node whose monotonic clock stood still
        # through a stall (some hypervisors freeze it while a VM is paused), so that it cannot
        # notice on its own that its lease ran out and only the store's fence stops it.
        self._frozen_clock = os.environ.get(FROZEN_CLOCK_ENV) == "1"
        # Set by the server: reports NOT_SERVING to health checks (the proxy's) while the
        # lease is lost, SERVING again once the node registered anew.
        self.on_serving: Callable[[bool], Coroutine[Any, Any, None]] | None = None
        self._reports: set[asyncio.Task[None]] = set()
        store.on_fenced = self._fenced
        store.on_doubt = self._doubt
        store.observe = metrics.observe_store
        store.observe_batch_rows = metrics.store_batch_rows.observe
        registry.archive = self._archive
        registry.waker = self._wake
        metrics.lease_headroom_seconds.set_function(self.headroom)
        metrics.games_owned.set_function(lambda: len(self.store._fences))
        metrics.pool_waiting.set_function(lambda: store.pool.get_stats().get("requests_waiting", 0))
        metrics.pool_wait_seconds_total.set_function(
            lambda: store.pool.get_stats().get("requests_wait_ms", 0) / 1000.0
        )

    # -- the lease -------------------------------------------------------------------------

    @property
    def serving(self) -> bool:
        if self.stopping:
            return False
        if self._frozen_clock:
            return self._valid_until > 0
        return asyncio.get_running_loop().time() < self._valid_until

    def headroom(self) -> float:
        try:
            now = asyncio.get_running_loop().time()
        except RuntimeError:
            now = time.monotonic()  # the metrics thread: the loop uses the monotonic clock
        return max(0.0, self._valid_until - now)

    async def _register(self) -> None:
        member = new_member(self.node_id)
        sent = asyncio.get_running_loop().time()
        async with self.store.pool.connection() as conn:
            await conn.execute(
                "INSERT INTO nodes (member, node_id, address, lease_until) "
                "VALUES (%s, %s, %s, now() + make_interval(secs => %s))",
                (member, self.node_id, self.address, self.settings.ttl_s),
            )
        self.member = member
        self.store.member = member
        self._extend(sent)
        self._report(True)
        self.logger.info("node_registered", member=member, address=self.address)

    async def _renew(self) -> bool:
        """Extend the lease if it is still valid by the database's clock."""
        sent = asyncio.get_running_loop().time()
        async with self.store.pool.connection() as conn:
            cur = await conn.execute(
                "UPDATE nodes SET lease_until = now() + make_interval(secs => %s) "
                "WHERE member = %s AND lease_until > now()",
                (self.settings.ttl_s, self.member),
            )
            renewed = cur.rowcount == 1
        if renewed:
            self._extend(sent)
        return renewed

    def _extend(self, sent: float) -> None:
        """The lease was renewed by a statement sent at loop time ``sent``: serve until
        ``sent + TTL - margin``, and stop then (a timer) unless it is renewed again."""
        until = sent + self.settings.ttl_s - self.settings.margin_s
        if until <= self._valid_until:
            return
        self._valid_until = until
        if self._expiry is not None:
            self._expiry.cancel()
        self._expiry = asyncio.get_running_loop().call_at(until, self._expire)

    def _expire(self) -> None:
        self._expiry = None
        if self._frozen_clock:
            return
        if asyncio.get_running_loop().time() >= self._valid_until > 0:
            self._lose_lease("the lease could not be renewed in time")

    async def start(self) -> None:
        await self._register()
        loop = asyncio.get_running_loop()
        self._renewer = loop.create_task(self._renew_forever())
        self._homecoming = loop.create_task(self._take_back_all())

    async def _renew_forever(self) -> None:
        while not self.stopping:
            try:
                renewed = await asyncio.wait_for(self._renew(), self.settings.renew_s * 2)
            except (psycopg.Error, OSError, TimeoutError) as e:
                self.logger.warning("lease_renewal_failed", member=self.member, error=str(e))
                renewed = None
            if renewed is False:
                self._lose_lease("the lease expired before it was renewed")
                with contextlib.suppress(psycopg.Error, OSError, TimeoutError):
                    await asyncio.wait_for(self._register(), self.settings.renew_s * 2)
                    self._take_back_again()
            if renewed:
                with contextlib.suppress(psycopg.Error, OSError, TimeoutError, Refusal):
                    await self._adopt_orphans()
            await asyncio.sleep(self.settings.renew_s)

    def _lose_lease(self, why: str) -> None:
        """Stop serving every game: another node may take them over once the lease is out."""
        owned = list(self.store._fences)
        if owned or self._valid_until > 0:
            self.metrics.lease_losses_total.inc()
        self.logger.error("lease_lost", member=self.member, why=why, games=len(owned))
        self._report(False)
        self._valid_until = 0.0
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        for game_id in owned:
            self._drop(game_id)
        for game_id in [g for g, game in self.registry.games.items() if not game.closed]:
            if self.registry.games[game_id].status != Status.FINISHED:
                self._drop(game_id)
        for game_id in list(self.registry.dormant):
            self._drop(game_id)

    def _report(self, serving: bool) -> None:
        if self.on_serving is None or self.stopping:
            return
        task = asyncio.get_running_loop().create_task(self.on_serving(serving))
        self._reports.add(task)
        task.add_done_callback(self._reports.discard)

    # -- games leaving this node -----------------------------------------------------------

    def _drop(self, game_id: str) -> None:
        self.store.unfence(game_id)
        self.registry.retire(game_id)

    def _fenced(self, game_id: str) -> None:
        self.metrics.fencing_rejections_total.inc()
        self.logger.error("write_fenced", game_id=game_id, member=self.member)
        self._drop(game_id)

    def _doubt(self, game_id: str) -> None:
        """A write's outcome is unknown: serve nothing of the game until it is read again."""
        self.logger.warning("write_outcome_unknown", game_id=game_id)
        self._drop(game_id)

    # -- routing ---------------------------------------------------------------------------

    async def route(self, game_id: str, *, forwarded: bool = False) -> Route:
        """Where a call about ``game_id`` goes (Refusal UNAVAILABLE when nowhere yet)."""
        if not self.serving:
            raise Refusal("UNAVAILABLE", "this node is not serving games now; try again")
        self._refuse_broken(game_id)
        game = self.registry.games.get(game_id)
        if game is not None and (self.store.owns(game_id) or game.status == Status.FINISHED):
            return HERE
        if game_id in self.registry.dormant and self.store.owns(game_id):
            return HERE  # rebuilt by the call itself (GameRegistry.find)
        cached = self._owners.get(game_id)
        if cached is not None and not forwarded:
            if cached[2] > asyncio.get_running_loop().time():
                return Route(cached[0], cached[1])
            del self._owners[game_id]
        owner = await self.store.ownership(game_id)
        if owner is None or owner.finished:
            return HERE  # NOT_FOUND, or a finished game answered from the store
        if owner.owner_address is not None and owner.owner != self.member:
            if forwarded:
                raise Refusal(
                    "UNAVAILABLE", "the game moved to another node while this call came; retry"
                )
            self.remember_owner(game_id, owner.owner_address, owner.owner or "")
            return Route(owner.owner_address, owner.owner or "")
        taken = await self.take_over(game_id)
        if taken is not None:
            return HERE
        # Another node won the race: look again (it is live, so forward to it).
        owner = await self.store.ownership(game_id)
        if owner is not None and owner.owner_address is not None and not forwarded:
            return Route(owner.owner_address, owner.owner or "")
        raise Refusal("UNAVAILABLE", "the game is changing owner; try again")

    def _refuse_broken(self, game_id: str) -> None:
        """DATA_LOSS for a game this node found it cannot rebuild. Known broken, it is not
        taken over again: each takeover is an epoch bump, a full read of its log and a replay,
        and every call about it would pay them again (30 GetViews moved an epoch by 30). It
        stays out of service on this node until the node restarts (another node that takes it
        over finds the same damage once)."""
        problem = self.registry.broken.get(game_id)
        if problem is not None:
            raise Refusal(
                "DATA_LOSS",
                f"game {game_id!r} could not be restored and is out of service: {problem}",
            )

    def remember_owner(self, game_id: str, address: str, owner: str) -> None:
        until = asyncio.get_running_loop().time() + self.settings.renew_s
        self._owners[game_id] = (address, owner, until)
        if len(self._owners) > 100_000:
            self._owners.clear()

    def forget_owner(self, game_id: str) -> None:
        self._owners.pop(game_id, None)

    # -- takeover --------------------------------------------------------------------------

    async def take_over(self, game_id: str) -> Game | None:
        """Own ``game_id`` if its owner's lease has expired (or it is ours or released):
        epoch + 1, then read and replay it, hash-checked. None if another node owns it.

        One takeover of a game runs at a time, in a task of its own that every caller waits
        for: a caller that is cancelled (its client gave up) neither stops it half-way (the
        epoch taken but the game not hosted) nor cancels the other callers."""
        pending = self._takeovers.get(game_id)
        if pending is None:
            pending = asyncio.get_running_loop().create_task(self._take_over(game_id))
            self._takeovers[game_id] = pending
            pending.add_done_callback(lambda _: self._takeovers.pop(game_id, None))
        taken = await asyncio.shield(pending)
        if taken is None and game_id in self.registry.dormant and self.store.owns(game_id):
            # Its chunk was taken back meanwhile (_take_back_chunk): rebuilt on this use.
            return await self.registry.wake(game_id)
        return taken

    async def _take_over(self, game_id: str) -> Game | None:
        self._refuse_broken(game_id)
        if game_id in self.registry.dormant and self.store.owns(game_id):
            return await self.registry.wake(game_id)
        hosted = self.registry.games.get(game_id)
        if hosted is not None and self.store.owns(game_id):
            return hosted
        async with self.store.pool.connection() as conn:
            cur = await conn.execute(
                "UPDATE games g SET owner = %(me)s, epoch = epoch + 1 "
                "WHERE game_id = %(game)s AND finished_unix_ms IS NULL AND (owner IS NULL "
                "OR owner = %(me)s OR NOT EXISTS (SELECT 1 FROM nodes n "
                "WHERE n.member = g.owner AND n.lease_until > now())) "
                "AND EXISTS (SELECT 1 FROM nodes WHERE member = %(me)s AND lease_until > now()) "
                "RETURNING epoch, log_length",
                {"me": self.member, "game": game_id},
            )
            row = await cur.fetchone()
        if row is None:
            return None
        started = time.perf_counter()
        epoch, log_length = int(row[0]), int(row[1])
        if hosted is not None:
            self.registry.retire(game_id)  # a stale copy (an append's outcome was unknown)
        try:
            stored = await self.store.fetch_game(game_id)
            if stored is None:
                return None
            rebuilt = rebuild(stored)
            game = host_rebuilt(stored, rebuilt, self.registry)
        except RestoreError as e:
            self.registry.broken[game_id] = str(e)
            self.logger.error("game_not_restored", game_id=game_id, problem=str(e))
            raise Refusal("DATA_LOSS", f"game {game_id!r} cannot be rebuilt: {e}") from None
        if len(stored.actions) != log_length:
            raise Refusal("UNAVAILABLE", "the game's log changed during its takeover; retry")
        self.store.fence(game_id, epoch, log_length)
        self.registry.adopt(game)
        finished = game.rules.result(game.state)
        if finished is not None:  # the last decision was logged, its ending was not
            await self.store.finish(game_id, int(time.time() * 1000), result_record(finished))
        else:
            game.start_clock(stored.deadlines_ms)
        self._owners.pop(game_id, None)
        self.metrics.takeovers_total.inc()
        self.metrics.takeover_seconds.observe(time.perf_counter() - started)
        self.logger.info("game_taken_over", game_id=game_id, epoch=epoch, replayed=rebuilt.replayed)
        return game

    async def _adopt_orphans(self) -> None:
        """Take over a few unfinished games whose owner's lease has expired."""
        async with self.store.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT game_id FROM games g WHERE finished_unix_ms IS NULL AND (owner IS NULL "
                "OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.member = g.owner "
                "AND n.lease_until > now())) ORDER BY random() LIMIT %s",
                (self.settings.adopt_per_tick,),
            )
            orphans = [str(r[0]) for r in await cur.fetchall()]
        for game_id in orphans:
            if self.stopping or not self.serving:
                return
            with contextlib.suppress(Refusal):
                await self.take_over(game_id)

    # -- taking games back in bulk at start ---------------------------------------------------

    def _take_back_again(self) -> None:
        """After a lost lease the node registered anew: the games it dropped are orphans of
        its old incarnation now, taken back like those of a crashed one."""
        if self._homecoming is None or self._homecoming.done():
            self._homecoming = asyncio.get_running_loop().create_task(self._take_back_all())

    async def _take_back_all(self) -> None:
        """A node that starts hosts again every game no live node owns: those it released on
        a graceful stop, those of its crashed earlier incarnation once that one's lease is
        over, and any other orphan. In chunks of ``adopt_chunk`` games, each one statement
        that takes them (epoch + 1) and one read of their rows, so that a node restarting on
        a hundred thousand games serves them all again within seconds (``make bench-scale``),
        instead of ``adopt_per_tick`` a tick. It serves from the start meanwhile: a call about
        a game not taken back yet takes that one over on its own (:meth:`take_over`), and a
        call about a game of the chunk being taken waits for it."""
        try:
            while not self.stopping:
                adopted = 0
                while self.serving and not self.stopping:
                    count = await self._take_back_chunk(self.settings.adopt_chunk)
                    if count == 0:
                        break
                    adopted += count
                if adopted:
                    self.logger.info("games_taken_back", games=adopted)
                # The crashed incarnation's games become orphans when its lease ends.
                wait = await self.store.previous_lease_left_s(self.node_id)
                if wait <= 0:
                    return
                await asyncio.sleep(wait + self.settings.renew_s)
        except (*STORE_ERRORS, Refusal) as e:
            # The per-tick adoption and the calls themselves take the rest over.
            self.logger.warning("take_back_interrupted", error=str(e))

    async def _take_back_chunk(self, limit: int) -> int:
        """Take over up to ``limit`` orphans and host them dormant, from their index (each is
        rebuilt when first used: :meth:`_wake`); returns how many were taken."""
        taken = await self.store.take_orphans(limit)
        if not taken:
            return 0
        loop = asyncio.get_running_loop()
        mine: dict[str, tuple[int, int, asyncio.Future[Game | None]]] = {}
        for game_id, epoch, log_length in taken:
            # A takeover of its own that began meanwhile took it (or will, at a newer epoch).
            if game_id in self._takeovers or (
                game_id in self.registry.games and self.store.owns(game_id)
            ):
                continue
            future: asyncio.Future[Game | None] = loop.create_future()
            self._takeovers[game_id] = future
            future.add_done_callback(functools.partial(self._takeover_done, game_id))
            mine[game_id] = (epoch, log_length, future)
        try:
            indexed, problems = await self.store.fetch_index(list(mine))
            for problem in problems:
                self.registry.broken[problem.game_id] = problem.problem
                self.logger.error(
                    "game_not_restored", game_id=problem.game_id, problem=problem.problem
                )
            now_ms = self.registry.clock.wall_ms()
            for index in indexed:
                epoch, log_length, _ = mine[index.game_id]
                self._host_dormant(index, epoch, log_length, now_ms)
        finally:
            for _, _, future in mine.values():
                if not future.done():
                    future.set_result(None)  # a caller waiting for one wakes it (take_over)
        if self.eager:
            await self._rebuild_all([i.game_id for i in indexed])
        keep_out_of_collections()  # or a full collection over them would stop the lease
        return len(taken)

    def _takeover_done(self, game_id: str, future: asyncio.Future[Game | None]) -> None:
        if self._takeovers.get(game_id) is future:
            del self._takeovers[game_id]

    def _host_dormant(self, index: StoredIndex, epoch: int, log_length: int, now_ms: int) -> None:
        """Host a game taken over in bulk, dormant (rebuilt on first use: :meth:`_wake`)."""
        game_id = index.game_id
        if index.log_length != log_length or index.epoch != epoch:
            return  # changed meanwhile: a call takes it over again
        try:
            dormant = dormant_from(index, now_ms)
        except (KeyError, TypeError, ValueError) as e:
            problem = f"unreadable game settings: {type(e).__name__}: {e}"
            self.registry.broken[game_id] = problem
            self.logger.error("game_not_restored", game_id=game_id, problem=problem)
            return
        if game_id in self.registry.games:
            self.registry.retire(game_id)  # a stale copy
        self.store.fence(game_id, epoch, log_length)
        self.registry.host_dormant(dormant)
        self._owners.pop(game_id, None)
        self.metrics.takeovers_total.inc()
        if index.version is None:  # its version needs the engine: rebuilt now
            task = asyncio.get_running_loop().create_task(self._wake_soon(game_id))
            self._reports.add(task)
            task.add_done_callback(self._reports.discard)

    async def _rebuild_all(self, game_ids: list[str]) -> None:
        """``--restore eager``: the chunk's games read in one go and each rebuilt now (through
        the registry, so that a call's own first use of one shares its rebuild)."""
        stored_games, problems = await self.store.fetch_games(
            [g for g in game_ids if g in self.registry.dormant]
        )
        for problem in problems:  # its first use reads it again and puts it out of service
            self.logger.error("game_not_restored", game_id=problem.game_id, problem=problem.problem)
        self._prefetched.update((g.game_id, g) for g in stored_games)
        try:
            for n, stored in enumerate(stored_games, 1):
                if stored.game_id in self.registry.dormant:
                    with contextlib.suppress(Refusal):
                        await self.registry.wake(stored.game_id)
                if n % 50 == 0:
                    await asyncio.sleep(0)  # the calls of hosted games go on meanwhile
        finally:
            for stored in stored_games:
                self._prefetched.pop(stored.game_id, None)

    async def _wake_soon(self, game_id: str) -> None:
        with contextlib.suppress(Refusal):
            await self.registry.wake(game_id)

    async def _wake(self, dormant: Dormant) -> Game:
        """Rebuild a game taken back dormant (``GameRegistry.waker``): its rows read, its log
        replayed and hash-checked as a takeover does; DATA_LOSS (out of service) if it cannot
        be rebuilt, UNAVAILABLE (retry: routed afresh) if it left this node meanwhile."""
        game_id = dormant.id
        started = time.perf_counter()
        if not self.store.owns(game_id) or self.store.epoch_of(game_id) != dormant.epoch:
            self._drop(game_id)
            raise Refusal("UNAVAILABLE", "the game moved to another node; try again")
        try:
            stored = self._prefetched.pop(game_id, None) or await self.store.fetch_game(game_id)
        except STORE_ERRORS as exc:
            raise store_unavailable(exc) from None
        except StoreError as e:
            self.registry.broken[game_id] = str(e)
            self.logger.error("game_not_restored", game_id=game_id, problem=str(e))
            raise Refusal("DATA_LOSS", f"game {game_id!r} cannot be rebuilt: {e}") from None
        if stored is None:
            self._drop(game_id)
            raise Refusal("NOT_FOUND", f"no game {game_id!r}")
        try:
            rebuilt = rebuild(stored)
            game = host_rebuilt(stored, rebuilt, self.registry)
        except RestoreError as e:
            self.registry.broken[game_id] = str(e)
            self.logger.error("game_not_restored", game_id=game_id, problem=str(e))
            raise Refusal("DATA_LOSS", f"game {game_id!r} cannot be rebuilt: {e}") from None
        if (
            len(stored.actions) != dormant.log_length
            or stored.epoch != dormant.epoch
            or game_id not in self.registry.dormant
            or not self.store.owns(game_id)
        ):
            game.close()
            self._drop(game_id)  # changed or dropped meanwhile: a call takes it over again
            raise Refusal("UNAVAILABLE", "the game's log changed while it was rebuilt; retry")
        self.registry.adopt(game, dormant.order)
        finished = game.rules.result(game.state)
        if finished is not None:  # the last decision was logged, its ending was not
            await self.store.finish(game_id, int(time.time() * 1000), result_record(finished))
        else:
            game.start_clock(stored.deadlines_ms or dormant.clock_deadlines())
        self.metrics.takeover_seconds.observe(time.perf_counter() - started)
        return game

    async def _archive(self, game_id: str) -> Game | None:
        """A game not in memory: finished ones are rebuilt from the store; an unfinished one
        is moving between nodes right now (the route said it is ours)."""
        try:
            stored = await self.store.fetch_game(game_id)
        except STORE_ERRORS as exc:
            raise store_unavailable(exc) from None
        if stored is None:
            return None
        if stored.finished_unix_ms is None:
            # Reached only by a call that was not routed (a stream without x-game-id), or
            # while the game moves: take it if its owner is gone, else say where it is.
            route = await self.route(game_id)
            hosted = self.registry.games.get(game_id)
            if route.local and hosted is not None:
                return hosted
            if route.local and game_id in self.registry.dormant:
                return await self.registry.wake(game_id)
            if not route.local and ROUTED_HERE.get():
                raise Refusal("UNAVAILABLE", "the game moved to another node; try again")
            if not route.local:
                raise Refusal(
                    "FAILED_PRECONDITION",
                    f"game {game_id!r} is served by another node; send the x-game-id header "
                    "with the call so that it can be forwarded there",  # (no internal name)
                )
            raise Refusal("UNAVAILABLE", "the game is moving between nodes; try again")
        try:
            rebuilt = rebuild(stored)
            game = host_rebuilt(stored, rebuilt, self.registry, archived=True)
        except RestoreError as e:
            raise Refusal("DATA_LOSS", f"game {game_id!r} cannot be rebuilt: {e}") from None
        game.close()
        return game

    # -- graceful stop ---------------------------------------------------------------------

    async def stop(self) -> None:
        """Release every owned game and end the lease (best effort: the lease runs out anyway)."""
        self.stopping = True
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
            self._renewer = None
        if self._homecoming is not None:
            self._homecoming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._homecoming
            self._homecoming = None
        if self._takeovers:  # no game is left half-taken when the games are released
            await asyncio.wait(list(self._takeovers.values()), timeout=5)
        owned = list(self.store._fences)
        with contextlib.suppress(psycopg.Error, OSError, TimeoutError):
            async with asyncio.timeout(5):
                async with self.store.pool.connection() as conn:
                    await conn.execute(
                        "UPDATE games SET owner = NULL WHERE owner = %s AND "
                        "finished_unix_ms IS NULL",
                        (self.member,),
                    )
                    await conn.execute("DELETE FROM nodes WHERE member = %s", (self.member,))
        for game_id in owned:
            self.store.unfence(game_id)
        self.logger.info("node_stopped", member=self.member, released=len(owned))
