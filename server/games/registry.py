"""Every game a server hosts, by id: :class:`GameRegistry` creates games, hosts those
recovery restored (``server.games.recovery``), finds finished ones again in the store, and evicts
games that are over once their retention has passed.

A lazy restart hosts unfinished games as :class:`~server.games.dormant.Dormant` first (known
from the store's index, not rebuilt): they are listed, counted and swept like the others, and
:meth:`GameRegistry.wake` rebuilds one (through ``waker``, which recovery or the cluster's
ownership sets) the first time a call needs it, when its decision clock falls due, or when the
abandonment sweep aborts it. Concurrent first uses share one rebuild.

The registry is a plain dict: no lock, nothing shared on the decision path (each game has its
own lock, ``server.games.game.Game``). Creation order is a number the registry hands out and the
store keeps, so that ListGames (``server.api.game_list``) pages hosted and stored games alike.
"""

from __future__ import annotations

import asyncio
import heapq
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from operator import itemgetter

import structlog

from engine.core.errors import OptionsError, ScenarioError
from server.games import game_log
from server.games.access import AccessRequest
from server.games.decision_clock import LOOP_CLOCK, DecisionClock, Timer
from server.games.dormant import Dormant
from server.games.event_log import DEFAULT_EVENT_CAP
from server.games.game import Game
from server.games.record import GameRecord, GameSettings, Status, settings_record
from server.games.refusal import Refusal
from server.ops.metrics import Metrics
from server.stores.contract import NO_ACCESS, GameStore, OpenGamesFull
from server.stores.token_hashes import creator_token_hash

__all__ = [
    "ARCHIVE_CACHE_SIZE",
    "MAX_GAME_ID_LENGTH",
    "WAKE_LEAD_S",
    "ArchiveLoader",
    "GameRegistry",
    "Waker",
    "creator_of",
]


def creator_of(game: Game | Dormant) -> str:
    """The quota key of the identity that created a hosted game, rebuilt or dormant."""
    return game.creator if isinstance(game, Dormant) else game.record.creator


def _new_game_id() -> str:
    return secrets.token_hex(8)


# Longer game ids are refused before any lookup (this server's ids are 16 hex characters).
MAX_GAME_ID_LENGTH = 64

# Finished games read back from the store (GetResult/GetReplay after eviction), kept a while.
ARCHIVE_CACHE_SIZE = 64

ArchiveLoader = Callable[[str], Awaitable["Game | None"]]

# Rebuilds a dormant game and hosts it (``adopt``); Refusal if it cannot (a broken log: the
# waker puts it in ``broken`` first).
Waker = Callable[[Dormant], Awaitable[Game]]

# A dormant game whose decision clock runs is rebuilt this long before its deadline, so that
# the default decision is applied at the deadline itself (a rebuild takes milliseconds).
WAKE_LEAD_S = 1.0


class GameRegistry:
    """Every hosted game, by id. A dict: no lock, nothing shared on the decision path."""

    def __init__(
        self,
        store: GameStore,
        metrics: Metrics,
        *,
        max_games: int = 10_000,
        finished_retention_s: float = 600.0,
        event_cap: int = DEFAULT_EVENT_CAP,
        snapshot_every: int = 0,
        archive: ArchiveLoader | None = None,
        clock: DecisionClock = LOOP_CLOCK,
    ) -> None:
        self.store = store
        self.clock = clock  # every hosted game's decision clock
        self.metrics = metrics
        self.max_games = max_games
        metrics.max_games.set(max_games)
        self.finished_retention_s = finished_retention_s
        self.event_cap = event_cap
        self.snapshot_every = snapshot_every
        self.archive = archive
        self.games: dict[str, Game] = {}
        self.broken: dict[str, str] = {}  # game id -> why it could not be restored
        # Unfinished games known from the store's index, not rebuilt yet (a lazy restart).
        self.dormant: dict[str, Dormant] = {}
        self.waker: Waker | None = None
        self._waking: dict[str, asyncio.Task[Game]] = {}
        self._alarms: list[tuple[float, str]] = []  # (clock time to wake at, game id), a heap
        self._alarm: Timer | None = None
        self._alarm_at = 0.0
        self._order: dict[str, int] = {}
        self._counter = 0
        self.closing = False
        # Called with every game of this registry once it is over (quotas count open games).
        # (A dormant game is passed when it is found out of service before it was rebuilt.)
        self.on_game_over: list[Callable[[Game | Dormant], None]] = []
        self._sweeper: asyncio.Task[None] | None = None
        self._archived: OrderedDict[str, Game] = OrderedDict()
        self._wakes: set[asyncio.Task[None]] = set()  # rebuilds the decision clock started

    def get(self, game_id: str) -> Game:
        game = self.games.get(game_id)
        if game is None:
            problem = self.broken.get(game_id)
            if problem is not None:
                raise Refusal(
                    "DATA_LOSS",
                    f"game {game_id!r} could not be restored and is out of service: {problem}",
                )
            raise Refusal("NOT_FOUND", f"no game {game_id!r}")
        return game

    async def find(self, game_id: str) -> Game:
        """A game by id: hosted in memory, else a finished game rebuilt from the store's log
        (evicted after its retention, or finished before a restart). A finished game answers
        every call from memory or from the store alike: its final view, result, replay, and
        FAILED_PRECONDITION to a decision or a new seat; only the store's absence (the
        memory store) makes it NOT_FOUND once evicted."""
        if len(game_id) > MAX_GAME_ID_LENGTH:  # ids are 16 characters: not worth a lookup
            raise Refusal("INVALID_ARGUMENT", f"game_id is at most {MAX_GAME_ID_LENGTH} characters")
        game = self.games.get(game_id)
        if game is not None:
            return game
        if game_id in self.dormant or game_id in self._waking:
            return await self.wake(game_id)
        if game_id in self.broken:
            return self.get(game_id)
        cached = self._archived.get(game_id)
        if cached is not None:
            self._archived.move_to_end(game_id)
            return cached
        loaded = await self.archive(game_id) if self.archive is not None else None
        if loaded is None:
            raise Refusal("NOT_FOUND", f"no game {game_id!r}")
        if not loaded.over or loaded is self.games.get(game_id):
            # A game in play that the archive path took over (a cluster node): it is hosted,
            # not archived. Cached here it would outlive its leaving this node (a lost lease)
            # and be answered from, stale, after it finished elsewhere.
            return loaded
        self._archived[game_id] = loaded
        while len(self._archived) > ARCHIVE_CACHE_SIZE:
            self._archived.popitem(last=False)
        return loaded

    async def create(
        self,
        settings: GameSettings,
        scenario_json: str = "",
        creator: str = "",
        creator_token: str = "",
        open_limit: float | None = None,
        access: AccessRequest | None = None,
    ) -> Game:
        """Build and register a game; Refusal(INVALID_ARGUMENT) for bad options/scenarios,
        or reservations of seats the game does not have (``access``: unlisted, reserved
        seats; stored with the game). ``creator_token`` proves its creator later
        (AbortGame): only its keyed hash is kept. ``open_limit``: the creator's open games,
        counted by a store the cluster shares (OpenGamesFull at the limit; see
        ``GameStore.create``)."""
        if self.closing:
            raise Refusal("UNAVAILABLE", "the server is shutting down")
        if self.hosted_count() >= self.max_games:
            raise Refusal("RESOURCE_EXHAUSTED", f"the server hosts {self.max_games} games already")
        rules = settings.rules
        try:
            if scenario_json:
                state = rules.from_scenario(scenario_json)
                options = rules.options_of(state)
                settings = replace(
                    settings,
                    players=options.players,
                    seed=options.seed,
                    options=rules.options_record(options),
                )
            else:
                options = rules.options(settings.players, settings.seed, settings.options)
                settings = replace(settings, options=rules.options_record(options))
                state = rules.new_game(options)
        except (OptionsError, ScenarioError) as exc:
            raise Refusal("INVALID_ARGUMENT", str(exc)) from None
        if settings.seat_names and len(settings.seat_names) != state.players:
            raise Refusal(
                "INVALID_ARGUMENT",
                f"seat_names lists {len(settings.seat_names)} names for {state.players} seats",
            )
        if access is not None:
            access.check(state.players)
        game_id = _new_game_id()
        key = self.store.token_key
        proof = creator_token_hash(key, game_id, creator_token) if creator_token else ""
        stored_access = access.stored(key, game_id) if access is not None else NO_ACCESS
        record = GameRecord(
            game_id,
            settings,
            scenario_json,
            int(time.time() * 1000),
            creator,
            proof,
            access=stored_access,
        )
        self._counter += 1  # taken before the write: concurrent creates get distinct numbers
        order = self._counter
        try:
            await self.store.create(
                record.game_id,
                record.created_unix_ms,
                settings_record(settings),
                scenario_json,
                order=order,
                creator=creator,
                creator_token_hash=proof,
                open_limit=open_limit,
                access=stored_access,
            )
        except OpenGamesFull:
            raise
        except Exception as exc:
            structlog.get_logger("yggdrasil.games").error(
                "store_create_failed", game_id=record.game_id, error=str(exc)
            )
            raise Refusal("UNAVAILABLE", "the game could not be created; try again") from exc
        game = Game(
            record,
            state,
            self.store,
            self.metrics,
            event_cap=self.event_cap,
            snapshot_every=self.snapshot_every,
            clock=self.clock,
        )
        self._register(game, order)
        self.metrics.games_created_total.inc()
        game_log.game_created(game.logger, game.id, settings, bool(scenario_json))
        return game

    def adopt(self, game: Game, order: int | None = None) -> None:
        """Host a game restored from the store, at its place in the creation order (the
        store's; the next number if None). Adopt games in that order."""
        game.clock = self.clock
        self.dormant.pop(game.id, None)
        if order is None:
            self._counter += 1
            order = self._counter
        self._register(game, order)
        if game.status == Status.FINISHED and game.finished_at is None:
            game.finished_at = asyncio.get_running_loop().time()

    def continue_order_after(self, last: int) -> None:
        """New games are numbered after ``last`` (the store's highest creation order, so that
        a restarted server lists old and new games in one order)."""
        self._counter = max(self._counter, last)

    def _register(self, game: Game, order: int) -> None:
        game.on_finished.append(self._game_over)
        self.games[game.id] = game
        self._counter = max(self._counter, order)
        self._order[game.id] = order
        self.metrics.games_hosted.set(self.hosted_count())

    def _game_over(self, game: Game | Dormant) -> None:
        for callback in self.on_game_over:
            callback(game)

    def hosted_count(self) -> int:
        """Games hosted, rebuilt or dormant (what ``--max-games`` and the metric count)."""
        return len(self.games) + len(self.dormant)

    # -- dormant games (a lazy restart) ------------------------------------------------------

    def host_dormant(self, dormant: Dormant) -> None:
        """Host an unfinished game known from the store's index, to be rebuilt on first use
        (and when its decision clock falls due). Host them in creation order."""
        self.dormant[dormant.id] = dormant
        self._counter = max(self._counter, dormant.order)
        self._order[dormant.id] = dormant.order
        if dormant.due_unix_ms:
            wait_s = (dormant.due_unix_ms - self.clock.wall_ms()) / 1000.0 - WAKE_LEAD_S
            heapq.heappush(self._alarms, (self.clock.now() + wait_s, dormant.id))
            self._set_alarm()
        self.metrics.games_hosted.set(self.hosted_count())

    async def wake(self, game_id: str) -> Game:
        """The game ``game_id`` rebuilt (at once if it is hosted already): one rebuild per
        game however many calls ask at once, in a task of its own that a caller's
        cancellation does not stop half-way. DATA_LOSS if its log is broken (it is out of
        service from then on, as an eager restart would have left it); NOT_FOUND if it is
        not hosted."""
        game = self.games.get(game_id)
        if game is not None:
            return game
        pending = self._waking.get(game_id)
        if pending is None:
            dormant = self.dormant.get(game_id)
            if dormant is None:
                return self.get(game_id)
            pending = asyncio.get_running_loop().create_task(self._wake(dormant))
            self._waking[game_id] = pending
            pending.add_done_callback(lambda _: self._waking.pop(game_id, None))
        return await asyncio.shield(pending)

    async def _wake(self, dormant: Dormant) -> Game:
        if self.waker is None:
            raise Refusal("UNAVAILABLE", f"game {dormant.id!r} cannot be rebuilt here; retry")
        try:
            return await self.waker(dormant)
        except Refusal:
            if dormant.id in self.broken and self.dormant.pop(dormant.id, None) is not None:
                self._order.pop(dormant.id, None)
                self.metrics.games_hosted.set(self.hosted_count())
                self._game_over(dormant)  # out of service: no longer an open game
                self.get(dormant.id)  # DATA_LOSS, as every later call about it
            raise

    def _set_alarm(self) -> None:
        """One timer on the decision clock, for the earliest dormant game due."""
        while self._alarms and self._alarms[0][1] not in self.dormant:
            heapq.heappop(self._alarms)  # rebuilt or gone meanwhile
        if not self._alarms or self.closing:
            return
        first = self._alarms[0][0]
        if self._alarm is not None:
            if self._alarm_at <= first:
                return
            self._alarm.cancel()
        self._alarm_at = first
        self._alarm = self.clock.call_later(max(0.0, first - self.clock.now()), self._ring)

    def _ring(self) -> None:
        """Rebuild every dormant game whose clock is (nearly) due; their own clocks then
        apply the default decisions at the deadlines."""
        self._alarm = None
        now = self.clock.now()
        while self._alarms and self._alarms[0][0] <= now:
            _, game_id = heapq.heappop(self._alarms)
            if game_id in self.dormant and game_id not in self._waking:
                task = asyncio.get_running_loop().create_task(self._wake_quietly(game_id))
                self._wakes.add(task)
                task.add_done_callback(self._wakes.discard)
        self._set_alarm()

    async def _wake_quietly(self, game_id: str) -> None:
        """A wake nobody waits for (the clock's): a failure is the waker's to log."""
        try:
            await self.wake(game_id)
        except Refusal as refusal:
            structlog.get_logger("yggdrasil.games").warning(
                "dormant_game_not_rebuilt", game_id=game_id, problem=refusal.message
            )

    # -- finished games leave memory ---------------------------------------------------------

    def start(self) -> None:
        """Start the periodic sweep that evicts finished games after their retention."""
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())

    def _sweep_interval(self) -> float:
        return min(30.0, max(0.05, self.finished_retention_s / 4))

    async def _sweep_forever(self) -> None:
        while not self.closing:
            await asyncio.sleep(self._sweep_interval())
            self.sweep()

    def sweep(self, now: float | None = None) -> int:
        """Evict finished games older than the retention; returns how many left memory.

        With a durable store they stay queryable (GetResult, GetReplay) from the store."""
        now = asyncio.get_running_loop().time() if now is None else now
        due = [
            g.id
            for g in self.games.values()
            if g.status in (Status.FINISHED, Status.ABORTED)
            and g.finished_at is not None
            and now - g.finished_at >= self.finished_retention_s
            and not g.lock.locked()
        ]
        for game in self.games.values():
            if game.over and not game.compacted:
                game.compact()  # the last watcher left since it ended
        for game_id in due:
            game = self.games[game_id]
            self._remove(game_id)
            game_log.game_left_memory(
                game.logger, game.id, game.status, durable=self.archive is not None
            )
        return len(due)

    def retire(self, game_id: str) -> None:
        """Drop a game from this node without a word to the store (a cluster moved it away,
        or a write's outcome is unknown): calls still holding it answer UNAVAILABLE, its watch
        streams end (clients resume where the game is now), its clock stops."""
        game = self.games.get(game_id)
        if game is not None:
            game.retired = True
        self._remove(game_id)
        self._archived.pop(game_id, None)  # no copy of it is answered from here any more

    def _remove(self, game_id: str) -> None:
        game = self.games.pop(game_id, None)
        self.dormant.pop(game_id, None)
        self._order.pop(game_id, None)
        if game is not None:
            game.close()
        self.metrics.games_hosted.set(self.hosted_count())

    def hosted_newest_first(
        self, status: int, before: int | None
    ) -> Iterator[tuple[int, Game | Dormant]]:
        """(creation order, game) of the hosted games, rebuilt or dormant, of ``status`` (0:
        any) created before ``before``, newest first (``server.api.game_list`` pages through
        them). Sorted: games created at once may register out of order (timsort on nearly
        sorted keys is linear)."""
        for game_id, order in sorted(self._order.items(), key=itemgetter(1), reverse=True):
            if before is not None and order >= before:
                continue
            game: Game | Dormant | None = self.games.get(game_id)
            if game is None:
                game = self.dormant.get(game_id)
                if game is None:
                    continue
            if status and int(game.status) != status:
                continue
            yield order, game

    def close(self) -> None:
        """Shutdown: refuse new games, stop clocks and the sweep, end watch streams."""
        self.closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if self._alarm is not None:
            self._alarm.cancel()
            self._alarm = None
        for game in self.games.values():
            game.close()

    async def idle(self) -> None:
        """Wait until no game is applying a timeout default or writing a snapshot."""
        await asyncio.gather(*(game.idle() for game in list(self.games.values())))
