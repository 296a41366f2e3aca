"""Restart: every unfinished game comes back from the durable store, exactly as it was.

For each game the store holds (``SqliteStore.load``):

1. its record (settings, scenario), claims (names, token hashes) and log are read;
2. the log must be whole: versions contiguous from the start, as many entries as the game row
   counts and ending at the hash the game row keeps (a log that lost its last entries is not
   served shorter), event sequence numbers increasing;
3. the state is rebuilt from the latest snapshot (the game's ``Rules.from_snapshot``, which
   checks its format; the snapshot must also match the hash the log recorded at its version)
   plus the log tail replayed with ``Rules.apply_unchecked``, or from the start when there is
   no usable snapshot (the log is the truth: an unreadable snapshot or one of an unknown
   format only makes recovery slower, and is reported at ERROR);
4. the rebuilt state must have the hash recorded with the last log entry;
5. the game is hosted again (:meth:`server.games.game.Game.restore`): same id, seat tokens (from
   their hashes), names, status, version, event numbering and idempotency keys, so clients
   continue with their old tokens and retried submissions apply once.

A game that fails any check is logged at ERROR with its id and the problem, counted in the
``yggdrasil_games_unrecoverable`` gauge and kept out of service (its RPCs answer DATA_LOSS);
the other games load regardless. A store that cannot be read at all raises
:class:`server.stores.contract.StoreError` (the server then refuses to start).

That is the eager restore (:func:`restore_games`, ``--restore eager``). The default is lazy
(:func:`restore_lazily`): only the store's index of the unfinished games is read before the
server serves, each is hosted as a ``server.games.dormant.Dormant``, and steps 1-5 run for a
game when it is first used (:func:`wake_from_sqlite`, through ``GameRegistry.wake``), with the
same checks, the same messages and the same DATA_LOSS for a game that fails them: found on
first use instead of at the start, and for that game alone.
"""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from dataclasses import dataclass, field
from functools import partial

import structlog
from prometheus_client import CollectorRegistry, Counter, Gauge
from structlog.typing import FilteringBoundLogger

from engine.core.contract import State
from engine.core.errors import EngineError
from server.games.decision import simultaneous_step, step_goes_on
from server.games.dormant import Dormant, dormant_from
from server.games.event_log import DEFAULT_EVENT_CAP
from server.games.game import Game
from server.games.record import GameRecord, initial_state, result_record, settings_from_record
from server.games.refusal import Refusal
from server.games.registry import GameRegistry
from server.ops.metrics import Metrics
from server.stores import chain
from server.stores.contract import GameStore, LoadProblem, StoredGame, StoreError
from server.stores.sqlite import SqliteStore

__all__ = [
    "ChainBroken",
    "Rebuilt",
    "RecoveryMetrics",
    "RestoreError",
    "RestoreReport",
    "host_rebuilt",
    "keep_out_of_collections",
    "load_finished",
    "rebuild",
    "restore_games",
    "restore_lazily",
    "wake_from_sqlite",
]


class RestoreError(Exception):
    """Why one game cannot be restored (the message names the problem)."""


class ChainBroken(RestoreError):
    """A row of the game's hash chain (its record, a seat claim or an action) is not what was
    written (``server.stores.chain``)."""

    def __init__(self, version: int, where: str = "") -> None:
        super().__init__(
            where
            or (
                f"the action log's hash chain breaks at version {version}: that row was "
                "changed, removed or reordered after it was written"
            )
        )
        self.version = version

    @classmethod
    def at_claim(cls, seat: int) -> ChainBroken:
        return cls(
            -1,
            f"the hash chain breaks at the claim of seat {seat}: its name, token hash or "
            "sequence number was changed after it was written",
        )

    @classmethod
    def at_record(cls) -> ChainBroken:
        return cls(
            -1,
            "the hash chain's genesis does not match the game record: its settings (or id, "
            "creation time, scenario) were changed after it was written",
        )


@dataclass
class Rebuilt:
    """A game's state rebuilt from its stored log."""

    record: GameRecord
    state: State
    base_version: int  # the version before the first decision
    round_start: int  # where the current simultaneous round began (as far as replayed)
    snapshot_version: int  # the snapshot used, or base_version
    snapshot_problem: str | None  # why the latest snapshot was not used (None: fine/absent)
    replayed: int  # decisions replayed with the engine


@dataclass
class RestoreReport:
    """What a start-up restore did (also logged and exported as metrics)."""

    restored: int = 0
    dormant: int = 0  # of those, hosted from the index and not rebuilt yet (a lazy restore)
    problems: list[LoadProblem] = field(default_factory=list)  # out of service
    chain_breaks: list[str] = field(default_factory=list)  # of those, the broken hash chains
    snapshot_problems: list[LoadProblem] = field(default_factory=list)  # rebuilt from the log
    repaired_finished: int = 0  # games whose ending had not been recorded yet
    actions_total: int = 0
    actions_replayed: int = 0
    load_seconds: float = 0.0
    seconds: float = 0.0


# -- metrics -----------------------------------------------------------------------------------


# Games out of service named in the game_out_of_service metric at most (one series each).
MAX_NAMED_GAMES = 50

_BY_REGISTRY: weakref.WeakKeyDictionary[CollectorRegistry, RecoveryMetrics] = (
    weakref.WeakKeyDictionary()
)


class RecoveryMetrics:
    """The restore metrics, registered once per Prometheus registry."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.games_unrecoverable = Gauge(
            "games_unrecoverable",
            "Games found in the store that could not be restored (kept out of service).",
            namespace="yggdrasil",
            registry=registry,
        )
        self.games_restored = Gauge(
            "games_restored",
            "Games restored from the store at the last start.",
            namespace="yggdrasil",
            registry=registry,
        )
        self.restore_seconds = Gauge(
            "restore_seconds",
            "Time the last start-up restore took.",
            namespace="yggdrasil",
            registry=registry,
        )
        self.restore_problems_total = Counter(
            "restore_problems_total",
            "Problems found while restoring (game: out of service; snapshot: rebuilt from "
            "the whole log instead).",
            ["kind"],
            namespace="yggdrasil",
            registry=registry,
        )
        self.log_chain_breaks_total = Counter(
            "log_chain_breaks_total",
            "Games whose action log's hash chain was found broken (on restore, or when a "
            "finished game was loaded); each is out of service (DATA_LOSS).",
            namespace="yggdrasil",
            registry=registry,
        )
        self.game_out_of_service = Gauge(
            "game_out_of_service",
            "1 for each game kept out of service (DATA_LOSS), by game id and why (chain: its "
            f"log's hash chain is broken; damaged: anything else); at most {MAX_NAMED_GAMES} "
            "games are named.",
            ["game_id", "why"],
            namespace="yggdrasil",
            registry=registry,
        )
        self.named = 0

    def out_of_service(self, game_id: str, chain_broken: bool) -> None:
        """Count a game put out of service (and name it, up to MAX_NAMED_GAMES)."""
        if chain_broken:
            self.log_chain_breaks_total.inc()
        if self.named < MAX_NAMED_GAMES:
            self.named += 1
            why = "chain" if chain_broken else "damaged"
            self.game_out_of_service.labels(game_id=game_id[:64], why=why).set(1)

    @classmethod
    def of(cls, metrics: Metrics) -> RecoveryMetrics:
        found = _BY_REGISTRY.get(metrics.registry)
        if found is None:
            found = _BY_REGISTRY[metrics.registry] = cls(metrics.registry)
        return found


# -- rebuilding one game -------------------------------------------------------------------------


def _record(stored: StoredGame) -> GameRecord:
    try:
        settings = settings_from_record(stored.settings)
    except (KeyError, TypeError, ValueError) as e:
        raise RestoreError(f"unreadable game settings: {type(e).__name__}: {e}") from None
    return GameRecord(
        stored.game_id,
        settings,
        stored.scenario_json,
        stored.created_unix_ms,
        stored.creator,
        stored.creator_token_hash,
        access=stored.access,
    )


def _check_log(stored: StoredGame, base: int) -> None:
    actions = stored.actions
    for i, entry in enumerate(actions):
        if entry.version != base + i:
            raise RestoreError(
                f"the log is not contiguous: entry {i} is for version {entry.version}, "
                f"expected {base + i} (decisions were lost)"
            )
    if stored.log_length != len(actions):
        raise RestoreError(
            f"the game record counts {stored.log_length} logged decisions but the log holds "
            f"{len(actions)} (decisions were lost or the file was damaged)"
        )
    last = actions[-1].state_hash if actions else ""
    if stored.last_hash != last:
        raise RestoreError(
            f"the game record's last state hash {stored.last_hash!r} differs from the log's "
            f"{last!r}"
        )
    previous = max(stored.seat_sequences.values(), default=0)
    for entry in actions:
        if entry.sequence <= previous:
            raise RestoreError(
                f"event sequence numbers do not increase at version {entry.version} "
                f"({entry.sequence} after {previous})"
            )
        previous = entry.sequence
    broken = chain.chain_break(chain_head(stored, claims_only=True), actions)
    if broken is not None:
        raise ChainBroken(broken)


def chain_head(stored: StoredGame, *, claims_only: bool = False) -> str:
    """The head of a stored game's hash chain (its last action's link, or with
    ``claims_only`` or no action its last claim's, or its genesis), verified up to the
    claims: ChainBroken if the record or a claim is not what was written."""
    first = chain.genesis(
        stored.game_id, stored.created_unix_ms, stored.settings, stored.scenario_json
    )
    if stored.genesis and stored.genesis != first:
        raise ChainBroken.at_record()
    claims = [
        chain.Claim(seat, name, token_hash, stored.seat_sequences.get(seat, 0),
                    stored.seat_chains.get(seat, ""))
        for seat, (name, token_hash) in stored.seats.items()
    ]  # fmt: skip
    broken, head = chain.claims_break(first, claims)
    if broken is not None:
        raise ChainBroken.at_claim(broken)
    if stored.actions and not claims_only:
        return stored.actions[-1].chain
    return head


def _from_snapshot(
    record: GameRecord, stored: StoredGame, base: int
) -> tuple[State | None, str | None]:
    """The snapshot's state if it is usable; else None and why not."""
    if stored.snapshot_problem is not None:
        return None, stored.snapshot_problem
    if stored.snapshot is None:
        return None, None
    version = stored.snapshot_version
    end = base + len(stored.actions)
    if version > end:
        raise RestoreError(
            f"a snapshot exists at version {version} but the log ends at version {end} "
            "(decisions were lost)"
        )
    try:
        state = record.settings.rules.from_snapshot(stored.snapshot)
    except EngineError as e:
        return None, f"snapshot at version {version}: {e}"
    if state.version != version:
        return None, f"snapshot stored as version {version} holds version {state.version}"
    if version > base:
        logged = stored.actions[version - base - 1].state_hash
        if state.state_hash() != logged:
            return None, (
                f"snapshot at version {version} has hash {state.state_hash()} but the log "
                f"recorded {logged}"
            )
    return state, None


def _hosted(stored: StoredGame, registry: GameRegistry) -> tuple[Rebuilt, Game]:
    """A stored unfinished game rebuilt, and the ``Game`` the registry hosts it as: the eager
    restart and the lazy first use build it the same way."""
    rebuilt = rebuild(stored)
    game = _game(
        stored,
        rebuilt,
        registry.store,
        registry.metrics,
        registry.event_cap,
        registry.snapshot_every,
        None,
    )
    return rebuilt, game


def rebuild(stored: StoredGame, *, use_snapshot: bool = True) -> Rebuilt:
    """Rebuild a game's current state from its stored snapshot and log, verified.

    RestoreError if the log is damaged or does not reproduce its recorded hash."""
    record = _record(stored)
    try:
        start = initial_state(record) if record.scenario_json else None
    except Exception as e:
        raise RestoreError(f"the game's scenario cannot be loaded: {e}") from None
    base = start.version if start is not None else 0
    _check_log(stored, base)
    if start is None:
        # The options are read before the snapshot: they may carry what it needs (a Fire &
        # Axe game's data pack, which its snapshot names only by digest).
        s = record.settings
        try:
            s.rules.options(s.players, s.seed, s.options)
        except Exception as e:
            raise RestoreError(f"the game's options do not set up a game: {e}") from None
    state, problem = _from_snapshot(record, stored, base) if use_snapshot else (None, None)
    if state is None:
        try:
            state = start if start is not None else initial_state(record)
        except Exception as e:
            raise RestoreError(f"the game's options do not set up a game: {e}") from None
    rules = record.settings.rules
    from_version = state.version
    round_start = from_version
    tail = stored.actions[from_version - base :]
    for entry in tail:
        # The same rule as Game._apply: a simultaneous step goes on while it waits for seats
        # it awaited already.
        try:
            was = simultaneous_step(rules, state)
            rules.apply_unchecked(state, entry.seat, rules.action_from_code(entry.code))
            if not step_goes_on(rules, was, state):
                round_start = state.version
        except Exception as e:
            raise RestoreError(
                f"replaying the logged decision at version {entry.version} failed: "
                f"{type(e).__name__}: {e}" + (f" (and {problem})" if problem else "")
            ) from None
    if stored.actions:
        recorded = stored.actions[-1].state_hash
        got = state.state_hash()
        if got != recorded:
            raise RestoreError(
                f"state hash mismatch at version {state.version}: the log recorded {recorded}, "
                f"replaying it gives {got}" + (f" (and {problem})" if problem else "")
            )
    return Rebuilt(record, state, base, round_start, from_version, problem, len(tail))


def _game(
    stored: StoredGame,
    rebuilt: Rebuilt,
    store: GameStore,
    metrics: Metrics,
    event_cap: int,
    snapshot_every: int,
    logger: FilteringBoundLogger | None,
) -> Game:
    try:
        return Game.restore(
            rebuilt.record,
            rebuilt.state,
            stored.actions,
            stored.seats,
            stored.seat_sequences,
            store,
            metrics,
            base_version=rebuilt.base_version,
            round_start=rebuilt.round_start,
            snapshot_version=rebuilt.snapshot_version,
            event_cap=event_cap,
            snapshot_every=snapshot_every,
            logger=logger,
            activity_unix_ms=stored.activity_unix_ms,
            aborted=stored.aborted,
            chain_head=chain_head(stored) if stored.seat_chains or stored.genesis else "",
        )
    except ValueError as e:  # a token hash or seat SeatTokens refuses
        raise RestoreError(f"unusable seat claims: {e}") from None


def host_rebuilt(
    stored: StoredGame, rebuilt: Rebuilt, registry: GameRegistry, *, archived: bool = False
) -> Game:
    """A game for ``registry`` from its rebuilt state (``archived``: a finished game read
    back for its result and replay, which writes nothing). RestoreError if its claims are
    unusable."""
    return _game(
        stored,
        rebuilt,
        registry.store,
        registry.metrics,
        DEFAULT_EVENT_CAP if archived else registry.event_cap,
        0 if archived else registry.snapshot_every,
        None,
    )


# -- start-up --------------------------------------------------------------------------------


async def _restore(
    store: SqliteStore, registry: GameRegistry, report: RestoreReport, started: float
) -> None:
    stored_games, problems = store.load()
    # New games are numbered after every stored one, finished ones too (ListGames' order).
    registry.continue_order_after(store.last_order())
    report.load_seconds = time.perf_counter() - started
    report.problems.extend(problems)
    repairs: list[Game] = []
    for stored in stored_games:
        report.actions_total += len(stored.actions)
        try:
            rebuilt, game = _hosted(stored, registry)
        except RestoreError as e:
            report.problems.append(LoadProblem(stored.game_id, str(e)))
            if isinstance(e, ChainBroken):
                report.chain_breaks.append(stored.game_id)
            continue
        except Exception as e:  # damage nobody foresaw must not stop the other games
            report.problems.append(
                LoadProblem(stored.game_id, f"cannot be rebuilt: {type(e).__name__}: {e}")
            )
            continue
        report.actions_replayed += rebuilt.replayed
        registry.adopt(game, stored.order)
        report.restored += 1
        if rebuilt.snapshot_problem is not None:
            report.snapshot_problems.append(LoadProblem(stored.game_id, rebuilt.snapshot_problem))
            if game.snapshots.every:
                game.snapshots.soon(game.state)  # the next restart need not replay it all again
        if game.rules.result(game.state) is not None:
            repairs.append(game)
        else:
            game.start_clock()
    for game in repairs:
        # The last decision was logged but the crash came before the game was marked finished.
        finished = game.rules.result(game.state)
        assert finished is not None
        await store.finish(game.id, int(time.time() * 1000), result_record(finished))
        report.repaired_finished += 1


def keep_out_of_collections() -> None:
    """Leave the games just hosted out of every later garbage collection (``gc.freeze``).

    Why: a full collection walks every tracked object, and a hundred thousand hosted games are
    millions of them: on this project's machine one full collection over 20,000 restored games
    took 3-4.5 s, the event loop standing still meanwhile (every call waits; a cluster node
    misses its lease renewals and drops every game). Frozen, they cost collections nothing.
    The price: a reference cycle among them is never collected once it is garbage (what a game
    frees without cycles is still freed as usual), so at most what was frozen stays. The young
    generations are collected first, so that recent garbage is not frozen with them."""
    gc.collect(1)
    gc.freeze()


async def restore_games(
    store: SqliteStore,
    registry: GameRegistry,
    *,
    logger: FilteringBoundLogger | None = None,
) -> RestoreReport:
    """Host every unfinished game of ``store`` in ``registry`` again (see the module doc).

    StoreError if the store cannot be read at all."""
    log: FilteringBoundLogger = (
        structlog.get_logger("yggdrasil.recovery") if logger is None else logger
    )
    metrics = RecoveryMetrics.of(registry.metrics)
    report = RestoreReport()
    started = time.perf_counter()
    # Tens of thousands of long-lived objects are made at once: collecting them while they
    # are being made only costs time (nothing here is garbage yet).
    collecting = gc.isenabled()
    gc.disable()
    try:
        await _restore(store, registry, report, started)
        keep_out_of_collections()
    finally:
        if collecting:
            gc.enable()
    for problem in report.problems:
        registry.broken[problem.game_id] = problem.problem
        log.error("game_not_restored", game_id=problem.game_id, problem=problem.problem)
        metrics.restore_problems_total.labels(kind="game").inc()
        metrics.out_of_service(problem.game_id, problem.game_id in report.chain_breaks)
    for problem in report.snapshot_problems:
        log.error(
            "snapshot_unusable",
            game_id=problem.game_id,
            problem=problem.problem,
            recovered="from the whole log",
        )
        metrics.restore_problems_total.labels(kind="snapshot").inc()
    report.seconds = time.perf_counter() - started
    metrics.games_unrecoverable.set(len(registry.broken))
    metrics.games_restored.set(report.restored)
    metrics.restore_seconds.set(report.seconds)
    log.info(
        "games_restored",
        restored=report.restored,
        out_of_service=len(report.problems),
        snapshot_problems=len(report.snapshot_problems),
        repaired_finished=report.repaired_finished,
        actions_total=report.actions_total,
        actions_replayed=report.actions_replayed,
        load_seconds=round(report.load_seconds, 3),
        seconds=round(report.seconds, 3),
    )
    return report


# -- finished games out of memory ----------------------------------------------------------


async def load_finished(store: SqliteStore, registry: GameRegistry, game_id: str) -> Game | None:
    """A finished or aborted game rebuilt from the store (for GetResult/GetReplay after it
    left memory), its log checked as at a restart; None if the store has no such game by
    that id. A game that cannot be rebuilt is put out of service (DATA_LOSS from then on),
    logged at ERROR and counted, like a game that a restart cannot restore."""
    try:
        stored = await asyncio.to_thread(store.load_game, game_id)
    except StoreError as e:
        raise Refusal("DATA_LOSS", f"game {game_id!r} cannot be read from the store: {e}") from None
    if stored is None or (stored.finished_unix_ms is None and stored.aborted is None):
        return None
    try:
        rebuilt = rebuild(stored)
        game = _game(stored, rebuilt, registry.store, registry.metrics, DEFAULT_EVENT_CAP, 0, None)
    except RestoreError as e:
        problem = str(e)
        registry.broken[game_id] = problem
        metrics = RecoveryMetrics.of(registry.metrics)
        metrics.restore_problems_total.labels(kind="game").inc()
        metrics.out_of_service(game_id, isinstance(e, ChainBroken))
        metrics.games_unrecoverable.set(len(registry.broken))
        structlog.get_logger("yggdrasil.recovery").error(
            "game_not_restored", game_id=game_id, problem=problem
        )
        raise Refusal("DATA_LOSS", f"game {game_id!r} cannot be rebuilt: {problem}") from None
    game.close()
    return game


# -- the lazy restore ----------------------------------------------------------------------


def _out_of_service(
    registry: GameRegistry, game_id: str, problem: str, chain_broken: bool
) -> Refusal:
    """Put a game that cannot be rebuilt out of service (as a restart that finds it so would:
    logged at ERROR, counted, DATA_LOSS from then on); returns the refusal to raise."""
    registry.broken[game_id] = problem
    metrics = RecoveryMetrics.of(registry.metrics)
    metrics.restore_problems_total.labels(kind="game").inc()
    metrics.out_of_service(game_id, chain_broken)
    metrics.games_unrecoverable.set(len(registry.broken))
    structlog.get_logger("yggdrasil.recovery").error(
        "game_not_restored", game_id=game_id, problem=problem
    )
    return Refusal(
        "DATA_LOSS", f"game {game_id!r} could not be restored and is out of service: {problem}"
    )


async def wake_from_sqlite(store: SqliteStore, registry: GameRegistry, dormant: Dormant) -> Game:
    """Rebuild a dormant game from the store and host it (``GameRegistry.waker`` of a lazy
    restore): its rows read (off the event loop), the log checked and replayed as an eager
    restore does (:func:`rebuild`), its clock started with the deadlines it had while dormant,
    an ending the crash left unrecorded recorded. DATA_LOSS (the game out of service) if it
    cannot be rebuilt."""
    game_id = dormant.id
    try:
        found, problems = await asyncio.to_thread(
            store.load, unfinished_only=False, game_id=game_id
        )
    except StoreError as e:
        raise _out_of_service(registry, game_id, f"unreadable rows: {e}", False) from None
    if problems:
        raise _out_of_service(registry, game_id, problems[0].problem, False)
    if not found:
        raise _out_of_service(registry, game_id, "the game record is missing", False)
    stored = found[0]
    try:
        rebuilt, game = _hosted(stored, registry)
    except RestoreError as e:
        raise _out_of_service(registry, game_id, str(e), isinstance(e, ChainBroken)) from None
    except Exception as e:  # damage nobody foresaw fails this game alone
        problem = f"cannot be rebuilt: {type(e).__name__}: {e}"
        raise _out_of_service(registry, game_id, problem, False) from None
    if registry.closing or game_id not in registry.dormant:  # it left meanwhile (shutdown)
        game.close()
        raise Refusal("UNAVAILABLE", "the server is shutting down")
    registry.adopt(game, dormant.order)
    if rebuilt.snapshot_problem is not None:
        structlog.get_logger("yggdrasil.recovery").error(
            "snapshot_unusable",
            game_id=game_id,
            problem=rebuilt.snapshot_problem,
            recovered="from the whole log",
        )
        RecoveryMetrics.of(registry.metrics).restore_problems_total.labels(kind="snapshot").inc()
        if game.snapshots.every:
            game.snapshots.soon(game.state)
    finished = game.rules.result(game.state)
    if finished is not None:  # the last decision was logged, the ending was not
        await store.finish(game_id, int(time.time() * 1000), result_record(finished))
    else:
        game.start_clock(dormant.clock_deadlines())
    return game


async def restore_lazily(
    store: SqliteStore,
    registry: GameRegistry,
    *,
    logger: FilteringBoundLogger | None = None,
) -> RestoreReport:
    """Host every unfinished game of ``store`` in ``registry`` from the store's index, each
    rebuilt on first use (see the module doc); the few whose version only the engine can
    tell (set up from a scenario, no decision yet) are rebuilt now.

    StoreError if the store cannot be read at all."""
    log: FilteringBoundLogger = (
        structlog.get_logger("yggdrasil.recovery") if logger is None else logger
    )
    metrics = RecoveryMetrics.of(registry.metrics)
    report = RestoreReport()
    started = time.perf_counter()
    indexed, problems = await asyncio.to_thread(store.load_index)
    registry.continue_order_after(await asyncio.to_thread(store.last_order))
    report.load_seconds = time.perf_counter() - started
    registry.waker = partial(wake_from_sqlite, store, registry)
    now_ms = registry.clock.wall_ms()
    now: list[str] = []
    collecting = gc.isenabled()
    gc.disable()  # as restore_games: nothing made here is garbage yet
    try:
        for index in indexed:
            try:
                dormant = dormant_from(index, now_ms)
            except (KeyError, TypeError, ValueError) as e:
                problem = f"unreadable game settings: {type(e).__name__}: {e}"
                problems.append(LoadProblem(index.game_id, problem))
                continue
            registry.host_dormant(dormant)
            if index.version is None:
                now.append(index.game_id)
        keep_out_of_collections()
    finally:
        if collecting:
            gc.enable()
    for found in problems:
        registry.broken[found.game_id] = found.problem
        log.error("game_not_restored", game_id=found.game_id, problem=found.problem)
        metrics.restore_problems_total.labels(kind="game").inc()
        metrics.out_of_service(found.game_id, False)
    report.problems.extend(problems)
    for game_id in now:
        try:
            await registry.wake(game_id)
        except Refusal as refusal:
            report.problems.append(LoadProblem(game_id, refusal.message))
    report.dormant = len(registry.dormant)
    report.restored = report.dormant + len(registry.games)
    report.seconds = time.perf_counter() - started
    metrics.games_unrecoverable.set(len(registry.broken))
    metrics.games_restored.set(report.restored)
    metrics.restore_seconds.set(report.seconds)
    log.info(
        "games_restored",
        restored=report.restored,
        dormant=report.dormant,
        out_of_service=len(report.problems),
        load_seconds=round(report.load_seconds, 3),
        seconds=round(report.seconds, 3),
    )
    return report
