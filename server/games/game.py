"""Hosted games: one :class:`Game` per game id, each changed by one writer at a time.

A game owns its engine state, seat tokens and action log, and changes them. Every change
(join, decision, timeout, abort) happens under the game's own ``asyncio.Lock``, which is
fair, so decisions apply one at a time in arrival order; different games never wait for each
other and there is no global lock (the registry, ``server.games.registry``, is a plain dict).

The log is the truth: before a decision is applied and acknowledged it is appended to the
game's store (``server.stores.contract.GameStore``: ``server.stores.sqlite.SqliteStore`` commits it
durably, ``server.stores.memory.MemoryStore`` is for tests and benchmarks). State change and
event publication then happen with no ``await`` in between, so every reader sees a state and
the event log that describes it together. A write and the change that records it run as one
unit that the caller's cancellation cannot cut in two (``server.games.uncancellable``): a client
that cancels its call while its decision is being logged loses the answer, never the
agreement between the log and the game.

Durability (see ``server.games.recovery`` for the restart side): each log entry also records the
game's last event sequence number after that decision and its idempotency key, so that a
restarted server numbers new events where the old one stopped and recognises retries of
decisions it had already applied.

What a game keeps besides is held by collaborators, each in a module of its own:

* ``events`` (``server.games.event_log``): the published events, their numbering and resume points;
  those no longer kept are rebuilt from the log (``server.games.event_recovery``), and what one
  decision publishes is ``server.games.decision_events``;
* ``views`` (``server.games.views``): what each viewer sees, now and at earlier moments;
* ``answers`` (``server.games.idempotency``): the answers retried decisions get again;
* ``deadlines`` (``server.games.deadlines``): the decision time limits and the default decision;
* ``snapshots`` (``server.games.snapshots``): background snapshots for a shorter recovery.

Whether a decision may apply at all is ``server.games.decision_checks``.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

import structlog
from structlog.typing import FilteringBoundLogger

from engine.core.contract import SPECTATOR, Action, Rules, State
from protocol import envelopes
from protocol import registry as wires
from protocol.envelopes import GameResultPb, ViewPb
from protocol.wire import ConvertedEvent, Wire
from server.games import game_log
from server.games.access import JoinCodes, claim_seat
from server.games.compact import KEPT_ANSWERS, CompactLog
from server.games.deadlines import Deadline, SeatDeadlines
from server.games.decision import work_out
from server.games.decision_checks import Position, checked_action, refusal_outcome
from server.games.decision_clock import LOOP_CLOCK, DecisionClock
from server.games.event_log import DEFAULT_EVENT_CAP, EventLog, StoredEvent
from server.games.event_recovery import recover_events
from server.games.idempotency import AnswerBook, SubmitOutcome, first_answer, request_digest
from server.games.message_cache import MessageCache
from server.games.record import (
    GameRecord,
    Status,
    initial_state,
    result_record,
    settings_record,
)
from server.games.refusal import Refusal
from server.games.seat_tokens import SeatTokens, new_token
from server.games.snapshots import GameSnapshots
from server.games.uncancellable import run_to_end
from server.games.views import GameViews
from server.ops.logs import log_action_applied
from server.ops.metrics import Metrics
from server.stores import chain
from server.stores.contract import AbortRecord, GameStore, StoredAction
from server.stores.memory import MemoryStore
from server.stores.token_hashes import TokenHasher

__all__ = ["Game"]

T = TypeVar("T")


class Game:
    """One hosted game. Methods that change it take ``self.lock``."""

    def __init__(
        self,
        record: GameRecord,
        state: State,
        store: GameStore,
        metrics: Metrics,
        *,
        event_cap: int = DEFAULT_EVENT_CAP,
        logger: FilteringBoundLogger | None = None,
        snapshot_every: int = 0,
        clock: DecisionClock = LOOP_CLOCK,
    ) -> None:
        self.id = record.game_id
        self.record = record
        self.settings = record.settings
        # The game's rules and their conversion to the API (engine.registry, one per game).
        self.wire: Wire = wires.wire(record.settings.game)
        self.rules: Rules = self.wire.rules
        self.state = state
        self.store = store
        self.metrics = metrics
        self.logger: FilteringBoundLogger = (
            structlog.get_logger("yggdrasil.games") if logger is None else logger
        )
        players = state.players
        self.status = Status.OPEN
        self.tokens = SeatTokens(range(players), TokenHasher(store.token_key, record.game_id))
        self.join_codes = JoinCodes(store.token_key, record.game_id)  # reserved seats' codes
        self.reserved_seats = tuple(r.seat for r in record.access.reservations)
        # When it was created, a seat claimed, or a decision taken (Unix ms): the
        # abandonment clock (server.games.abandon), kept by the store so it survives restarts.
        self.activity_unix_ms = record.created_unix_ms
        self.aborted: AbortRecord | None = None
        # The hash chain after its last link (a claim or a log entry; durable stores only).
        self._chain = ""
        names = list(record.settings.seat_names)
        self.names: list[str] = names + [""] * (players - len(names))
        self.lock = asyncio.Lock()
        self.log: list[StoredAction] | CompactLog = []  # compact once the game is over
        self.streams_open = 0  # watch streams and play sessions (server.api.streams)
        self.compacted = False  # over, and what can be made again dropped (server.games.compact)
        self.result: GameResultPb | None = None
        self.closed = False
        # Dropped from this node (a cluster moved it, or a write's outcome is unknown): calls
        # still holding it change nothing and answer UNAVAILABLE.
        self.retired = False
        self.finished_at: float | None = None  # loop time the game ended (for eviction)
        self.events = EventLog(state.version, event_cap)  # published, numbered, kept
        self.answers = AnswerBook()  # for retried decisions (server.games.idempotency)
        self._facts: Any = None  # the wire's public facts of self.state, made when needed
        self._round_start = state.version
        # The awaited seats' deadlines on the decision clock (a ManualClock in tests).
        self.deadlines = SeatDeadlines(clock)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.views = GameViews(self)  # current and earlier views, kept while they hold
        self.view_watchers: Counter[int] = Counter()  # viewer -> watch streams with views
        self.messages = MessageCache()  # serialized event messages, shared by watchers
        # Called once when the game is over (finished, or aborted).
        self.on_finished: list[Callable[[Game], None]] = []
        # Called (synchronously, no arguments) after every publication and on close: how a
        # PlaySession learns that its seat may have to decide without a task per wait.
        self.listeners: list[Callable[[], None]] = []
        # Snapshots (durable stores only): every `snapshot_every` decisions and at phase ends.
        self.snapshots = GameSnapshots(
            record.game_id, self.rules, store, metrics, self.logger, snapshot_every, state.version
        )
        # See _whole: only this exact class is known never to suspend (a subclass may).
        self._writes_inline = type(store) is MemoryStore

    @classmethod
    def restore(
        cls,
        record: GameRecord,
        state: State,
        log: Sequence[StoredAction],
        seats: dict[int, tuple[str, str]],
        claim_sequences: dict[int, int],
        store: GameStore,
        metrics: Metrics,
        *,
        base_version: int,
        round_start: int,
        snapshot_version: int,
        event_cap: int = DEFAULT_EVENT_CAP,
        snapshot_every: int = 0,
        logger: FilteringBoundLogger | None = None,
        activity_unix_ms: int = 0,
        aborted: AbortRecord | None = None,
        chain_head: str = "",
    ) -> Game:
        """A game rebuilt from its durable log (``state`` is the state after ``log``);
        ``chain_head`` is its hash chain's last link when the log is empty (its last claim's).

        Tokens come back from their hashes, names from the claims, the status from the claims
        and the state; event numbering continues after the last sequence number the log
        recorded; retries of logged decisions are recognised by their idempotency keys.
        """
        game = cls(
            record,
            state,
            store,
            metrics,
            event_cap=event_cap,
            logger=logger,
            snapshot_every=snapshot_every,
        )
        game.tokens = SeatTokens.restore(
            range(state.players),
            {s: h for s, (_, h) in seats.items()},
            TokenHasher(store.token_key, record.game_id),
        )
        game.activity_unix_ms = activity_unix_ms or record.created_unix_ms
        game._chain = log[-1].chain if log else chain_head
        for seat, (name, _) in seats.items():
            game.names[seat] = name
        game.log = list(log)
        game.events.base_version = base_version
        game.events.restore(
            claim_sequences,
            [e.sequence for e in log],
            aborted.sequence if aborted is not None else None,
        )
        game._round_start = round_start
        game.snapshots.version = snapshot_version
        game.answers.restore(log)
        finished = game.rules.result(state)
        if aborted is not None:
            game.status = Status.ABORTED
            game.aborted = aborted
        elif finished is not None:
            game.status = Status.FINISHED
            game.result = envelopes.result_to_pb(
                game.wire, finished, game.names, game.rules.view(state, SPECTATOR)
            )
        elif all(game.claimed()):
            game.status = Status.IN_PROGRESS
        return game

    # -- reading ---------------------------------------------------------------------------

    def _public_facts(self) -> Any:
        """The public facts of the current state that events are derived from."""
        if self._facts is None:
            self._facts = self.wire.public_facts(self.state)
        return self._facts

    @property
    def version(self) -> int:
        return self.state.version

    @property
    def over(self) -> bool:
        """Finished or aborted: nothing changes it any more."""
        return self.status in (Status.FINISHED, Status.ABORTED)

    @property
    def last_sequence(self) -> int:
        """The sequence number of the newest event published (0: none yet)."""
        return self.events.last_sequence

    @property
    def first_kept_sequence(self) -> int:
        return self.events.first_kept_sequence

    def decision_start(self, seat: int) -> int:
        """The state version at which the decision awaited of ``seat`` began: the current
        version, or during a simultaneous step the version the step began at or the one
        after the seat's own last choice in it, whichever is later. A decision made at that
        version or later is not stale: the others' choices in the step, made in secret,
        change nothing the seat sees or may do (``decision_checks.step_goes_on``)."""
        start = self._round_start
        log = self.log
        if start < self.state.version and isinstance(log, list):
            for entry in reversed(log):
                if entry.version < start:
                    break
                if entry.seat == seat:
                    return entry.version + 1
        return start

    @property
    def clock(self) -> DecisionClock:
        """The decision clock its deadlines run on (the registry's, once hosted)."""
        return self.deadlines.clock

    @clock.setter
    def clock(self, clock: DecisionClock) -> None:
        self.deadlines.clock = clock

    def deadline_unix_ms(self, seat: int) -> int:
        """When ``seat``'s decision times out (Unix ms); 0 if it has no deadline."""
        return self.deadlines.unix_ms(seat)

    def claimed(self) -> list[bool]:
        return [self.tokens.is_claimed(s) for s in range(self.state.players)]

    def seat_for_token(self, token: str) -> int | None:
        """The seat a token belongs to (constant-time compare), or None."""
        if not token:
            return None
        return self.tokens.seat_for(token)

    def awaiting(self) -> list[int]:
        if self.status != Status.IN_PROGRESS:
            return []
        return self.rules.awaiting(self.state)

    def view(self, viewer: int, include_state: bool = False) -> ViewPb:
        """The current view of a seat or of SPECTATOR (through the engine's view function).

        Kept per viewer until anything it shows may have changed (callers must not mutate it).
        ``include_state`` adds the viewer's redacted engine state (for searching bots).
        """
        return self.views.current(viewer, include_state)

    def view_at(self, viewer: int, version: int) -> ViewPb:
        """The view as it was right after ``version`` was reached (replays when needed)."""
        return self.views.at(viewer, version)

    # -- the stream's resume points (server.games.event_log)
    # ------------------------------------------

    def group_end_at_or_before(self, sequence: int) -> int:
        """The last sequence of the newest group of events that ends at or before
        ``sequence`` (0: before the first one)."""
        return self.events.group_end_at_or_before(sequence)

    def ends_group(self, sequence: int) -> bool:
        """Whether event ``sequence`` is the last of its group (a view may follow it)."""
        return self.events.ends_group(sequence)

    def view_after(self, viewer: int, sequence: int) -> ViewPb:
        """The view right after the group of events ending at ``sequence`` (a value of
        :meth:`group_end_at_or_before`): it reflects exactly the events up to ``sequence``,
        and its last_sequence is ``sequence``."""
        return self.views.after(viewer, sequence)

    def initial_state(self) -> State:
        """The game's state before its first decision (rebuilt from the record)."""
        return initial_state(self.record)

    def state_at(self, version: int) -> State:
        """The state once ``version`` was reached (a replay of the log from the start)."""
        rules = self.rules
        state = self.initial_state()
        for entry in self.log:
            if entry.version >= version:
                break
            rules.apply_unchecked(state, entry.seat, rules.action_from_code(entry.code))
        return state

    def events_from(self, sequence: int) -> list[StoredEvent]:
        """Stored events with sequence >= ``sequence`` (those still kept)."""
        return self.events.events_from(sequence)

    async def wait_for(self, sequence: int) -> None:
        """Return once an event with this sequence exists, or the game is closed."""
        while self.last_sequence < sequence and not self.closed:
            await self.events.changed.wait()

    # -- events of an earlier process -------------------------------------------------------

    def recover_events(self, sequence: int) -> bool:
        """Make events from ``sequence`` on available again after a restart (or once the game
        dropped them), if they can be: rebuilt from the log (``server.games.event_recovery``).
        Returns whether ``sequence`` is now kept."""
        return recover_events(self, sequence)

    # -- changing --------------------------------------------------------------------------

    async def join(
        self,
        seat: int | None,
        name: str,
        token: str = "",
        claimant: str = "",
        join_code: str = "",
    ) -> tuple[int, str, bool]:
        """Claim a seat (if None: the caller's reserved seat, else the lowest free one nobody
        reserved); returns (seat, token, duplicate).

        ``token`` is a client-chosen token (else one is drawn). If it already holds a seat,
        this is a retried join: that seat is answered again (``duplicate``) and nothing is
        claimed. A reserved seat goes only to the API key named ``claimant`` it is reserved
        for, or to ``join_code`` (``server.games.access``). The claim (the token's hash) is
        durable before the token is handed out; if the store refuses it, the seat stays
        free."""
        async with self.lock:
            held = self.tokens.seat_for(token) if token else None
            if held is not None:
                if seat is not None and seat != held:
                    raise Refusal(
                        "FAILED_PRECONDITION",
                        f"this seat_token already holds seat {held}, not seat {seat}",
                    )
                return held, token, True
            if self.status in (Status.FINISHED, Status.ABORTED):
                raise Refusal("FAILED_PRECONDITION", f"the game is {self.status.name.lower()}")
            players = self.state.players
            claimed = self.claimed()
            seat = claim_seat(
                self.record.access, self.join_codes, claimed, seat, claimant, join_code
            )
            token = token or new_token()
            name = name or self.names[seat]
            events = [envelopes.seat_claimed_event(seat, name)]
            complete = sum(claimed) + 1 == players
            if complete:
                events.append(envelopes.status_changed_event(Status.IN_PROGRESS))
            if self.retired:
                raise Refusal("UNAVAILABLE", "the game moved to another node; try again")
            await self._whole(self._claim(seat, name, token, events, complete))
            return seat, token, False

    async def _claim(
        self, seat: int, name: str, token: str, events: list[ConvertedEvent], complete: bool
    ) -> None:
        """Log a seat's claim, then take it in memory (a unit: see :meth:`_whole`)."""
        sequence = self.last_sequence + len(events)
        now_ms = self.clock.wall_ms()
        digest = self.tokens.digest(token)
        # The claim is a link of the game's hash chain (durable stores): a token hash copied
        # onto another seat in the store breaks it (server.stores.chain).
        link = (
            chain.seat_link(self._chain_head(), seat, name, digest, sequence)
            if self.store.durable
            else ""
        )
        try:
            await self.store.claim(self.id, seat, name, digest, sequence, now_ms, chain=link)
        except Exception as exc:
            self.logger.error("store_claim_failed", game_id=self.id, error=str(exc))
            raise Refusal("UNAVAILABLE", "the seat could not be claimed; try again") from exc
        # -- no await from here on --
        self.tokens = self.tokens.with_claim(seat, token)
        self._chain = link
        self.activity_unix_ms = now_ms
        self.names[seat] = name
        self.events.claim_sequences[seat] = sequence
        if complete:
            self.status = Status.IN_PROGRESS
        self._publish(events)
        self._reset_clock(None)
        game_log.seat_claimed(self.logger, self.id, seat, name, self.claimed())
        if complete:
            game_log.game_started(self.logger, self.id, self.state.players)

    async def _whole(self, unit: Coroutine[Any, Any, T]) -> T:
        """Run ``unit`` (a store write and the change in memory that records it) to its end,
        even if the caller is cancelled meanwhile (``server.games.uncancellable``): the caller holds
        the game's lock, and keeps it until the unit is done; a shutdown waits for it
        (:meth:`idle`). With the memory store nothing can suspend, so nothing can be cut."""
        if self._writes_inline:
            return await unit
        return await run_to_end(unit, self.finish_before_idle)

    async def submit(
        self,
        seat: int,
        action: Action | None,
        legal_index: int | None,
        state_version: int,
        idempotency_key: str = "",
        fingerprint: bytes = b"",
        include_view: bool = False,
    ) -> SubmitOutcome:
        """Apply one decision of ``seat`` (an action, or an index into its legal list)."""
        started = time.perf_counter()
        digest = request_digest(fingerprint) if idempotency_key else ""
        async with self.lock:
            try:
                if idempotency_key:
                    answer = self.answers.lookup(seat, idempotency_key, digest)
                    if answer is not None:
                        if answer.restored:
                            answer = first_answer(self, seat, answer, include_view)
                        self._count(action, "duplicate", seat, started)
                        return answer._replace(duplicate=True, restored=False)
                position = Position(
                    self.rules,
                    self.state,
                    self.status,
                    self.last_sequence,
                    self.decision_start(seat),
                )
                chosen = checked_action(position, seat, action, legal_index, state_version)
            except Refusal as refusal:
                self._count(action, refusal_outcome(refusal), seat, started)
                raise
            return await self._whole(
                self._decide(seat, chosen, idempotency_key, digest, include_view, started)
            )

    async def _decide(
        self,
        seat: int,
        action: Action,
        idempotency_key: str,
        digest: str,
        include_view: bool,
        started: float,
    ) -> SubmitOutcome:
        """Apply a checked decision and keep its answer for retries (a unit: see
        :meth:`_whole`; a caller cancelled meanwhile gets its answer on a retry)."""
        published = await self._apply(
            seat, action, by_timeout=False, idempotency=(idempotency_key, digest)
        )
        result = SubmitOutcome(
            self.state.version,
            tuple(e.for_viewer(seat) for e in published),
            self.view(seat) if include_view else None,
        )
        if idempotency_key:
            self.answers.remember(seat, idempotency_key, digest, result.state_version)
        self._count(action, "applied", seat, started)
        return result

    def _count(self, action: Action | None, outcome: str, seat: int, started: float) -> None:
        """Count and log one decision of ``seat`` (None: refused before it was known which:
        an index out of range)."""
        kind = self.wire.action_kind(action) if action is not None else "by_index"
        self.metrics.action_applied(kind, outcome)
        log_action_applied(
            self.logger,
            self.id,
            seat,
            kind,
            outcome,
            (time.perf_counter() - started) * 1000.0,
            self.state.version,
        )

    async def _apply(
        self,
        seat: int,
        action: Action,
        by_timeout: bool,
        idempotency: tuple[str, str] = ("", ""),
    ) -> list[StoredEvent]:
        """Apply a legal decision to a copy, log it, then swap the copy in and publish its
        events. Caller holds the lock and runs it inside a unit (:meth:`_whole`). Until the
        store has the entry, nothing visible changes; after it, nothing awaits, so readers
        see state and events change together.

        The events are worked out before the entry is written, so that the entry records the
        sequence number they will end at."""
        state = self.state
        durable = self.store.durable
        # The hash lets recovery check a replayed log; a store that keeps nothing across a
        # restart never replays one, so it goes without (no cost per decision), and without
        # the hash chain over its rows.
        worked = work_out(
            self.wire,
            state,
            self._public_facts(),
            seat,
            action,
            by_timeout,
            self.names,
            hashed=durable,
        )
        new, events, result_pb = worked.state, worked.events, worked.result
        state_hash = worked.state_hash
        status = Status.FINISHED if result_pb else self.status
        plan = self._plan_clock(worked.awaiting, status, seat)
        sequence = self.last_sequence + len(events)
        code = action.code()
        link = (
            chain.link(
                self._chain_head(),
                state.version,
                seat,
                code,
                by_timeout,
                state_hash,
                sequence,
                idempotency[0],
                idempotency[1],
            )
            if durable
            else ""
        )
        now_ms = self.clock.wall_ms()
        entry = StoredAction(
            state.version,
            seat,
            code,
            by_timeout,
            state_hash,
            sequence,
            idempotency[0],
            idempotency[1],
            tuple((s, d[1]) for s, d in plan.items()),
            chain=link,
            unix_ms=now_ms,
        )
        if self.retired:
            raise Refusal("UNAVAILABLE", "the game moved to another node; try again")
        started = time.perf_counter()
        try:
            await self.store.append(self.id, entry)
        except Exception as exc:
            self.logger.error("store_append_failed", game_id=self.id, error=str(exc))
            raise Refusal(
                "UNAVAILABLE", "the decision could not be logged; nothing changed"
            ) from exc
        if durable:  # the memory store's append is a list append: nothing to watch
            self.metrics.store_append_seconds.observe(time.perf_counter() - started)
        # -- no await from here on --
        self.state = new
        self.log.append(entry)
        self._chain = link
        self.activity_unix_ms = now_ms
        self._facts = worked.facts
        if result_pb is not None:
            self.status = Status.FINISHED
            self.result = result_pb
        # A simultaneous step goes on while it waits for seats it awaited already.
        if not worked.round_goes_on:
            self._round_start = new.version
        published = self._publish(events)
        self._reset_clock(seat, plan)
        if result_pb is not None:
            self.finished_at = asyncio.get_running_loop().time()
            self.metrics.games_finished_total.inc()
            game_log.game_finished(self.logger, self.id, result_pb, self.version)
            for callback in self.on_finished:
                callback(self)
            finished = self.rules.result(new)
            assert finished is not None
            try:
                await self.store.finish(self.id, int(time.time() * 1000), result_record(finished))
            except Exception as exc:
                # The decision is logged and answered: whoever loads the game next sees from
                # its log that it ended and records the result then (server.games.recovery).
                self.logger.error("store_finish_failed", game_id=self.id, error=str(exc))
            self.compact()  # unless someone watches it (then when the last one leaves)
        elif self.snapshots.due(new.version, worked.phase_changed):
            self.snapshots.soon(new)
        return published

    def _publish(self, events: Sequence[ConvertedEvent]) -> list[StoredEvent]:
        """Number and keep ``events`` at the current state, cache the new views of those
        watching views, and wake the watchers and listeners."""
        out = self.events.publish(events, self.state.version)
        self.views.keep_watched(self.view_watchers)
        self.events.wake()
        for listener in tuple(self.listeners):
            listener()
        return out

    def _chain_head(self) -> str:
        """The hash the next link (a claim or a log entry) links to: the last link's, or the
        game's genesis."""
        if self._chain:
            return self._chain
        record = self.record
        return chain.genesis(
            self.id,
            record.created_unix_ms,
            settings_record(record.settings),
            record.scenario_json,
        )

    async def abort(self, cause: int, reason: str) -> AbortRecord:
        """Stop the game before its end (see ``server.games.abandon``): it becomes ABORTED, durably
        first; its watchers get StatusChanged and GameAborted, its clock stops, and decisions
        and new seats are refused from then on. FAILED_PRECONDITION if it is already over;
        UNAVAILABLE if the store refuses (nothing changed then)."""
        async with self.lock:
            if self.status in (Status.FINISHED, Status.ABORTED):
                raise Refusal("FAILED_PRECONDITION", f"the game is {self.status.name.lower()}")
            events = [
                envelopes.status_changed_event(Status.ABORTED),
                envelopes.game_aborted_event(cause, reason),
            ]
            record = AbortRecord(
                self.clock.wall_ms(), cause, reason, self.last_sequence + len(events)
            )
            await self._whole(self._abort(record, events))
            return record

    async def _abort(self, record: AbortRecord, events: list[ConvertedEvent]) -> None:
        """Log the abort, then end the game in memory (a unit: see :meth:`_whole`)."""
        try:
            await self.store.abort(self.id, record)
        except Exception as exc:
            self.logger.error("store_abort_failed", game_id=self.id, error=str(exc))
            raise Refusal("UNAVAILABLE", "the game could not be aborted; try again") from exc
        # -- no await from here on --
        self.status = Status.ABORTED
        self.aborted = record
        self._publish(events)
        self._reset_clock(None)  # not in progress: the deadlines go
        self.finished_at = asyncio.get_running_loop().time()
        for callback in self.on_finished:
            callback(self)
        self.compact()

    # -- decision clock --------------------------------------------------------------------

    def _plan_clock(
        self, awaiting: Sequence[int], status: Status, acted: int | None
    ) -> dict[int, Deadline]:
        """The deadlines (clock time, Unix ms) once the seats ``awaiting`` are awaited: every
        newly awaited seat (and the seat that just acted) gets a fresh one, the others keep
        theirs."""
        limit_ms = self.settings.decision_time_limit_ms
        if limit_ms <= 0 or status != Status.IN_PROGRESS or self.closed:
            return {}
        return self.deadlines.plan(awaiting, acted, limit_ms)

    def _reset_clock(self, acted: int | None, plan: dict[int, Deadline] | None = None) -> None:
        """Install the deadlines of the current state (``plan``, if already worked out)."""
        if plan is None:
            plan = self._plan_clock(self.rules.awaiting(self.state), self.status, acted)
        self.deadlines.install(plan, self._on_timer)

    def start_clock(self, deadlines_ms: dict[int, int] | None = None) -> None:
        """Start the decision clock of a restored game: with ``deadlines_ms`` (seat -> Unix ms,
        as the previous owner stored them) each awaited seat keeps its deadline; any other
        awaited seat gets a full turn."""
        if deadlines_ms:
            self.deadlines.carry_over(deadlines_ms)
        self._reset_clock(None)

    def _on_timer(self) -> None:
        task = asyncio.get_running_loop().create_task(self._expire())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _expire(self) -> None:
        """Apply the default decision for every awaited seat whose time has run out."""
        async with self.lock:
            while self.status == Status.IN_PROGRESS and not self.closed:
                due = self.deadlines.due(self.rules.awaiting(self.state))
                if not due:
                    break
                seat = due[0]
                if not self.rules.legal_actions(self.state, seat):
                    self.deadlines.drop(seat)
                    continue
                action = self.rules.default_action(self.state, seat)
                started = time.perf_counter()
                try:
                    await self._whole(self._default(seat, action, started))
                except Refusal:
                    return
            self._reset_clock(None)

    async def _default(self, seat: int, action: Action, started: float) -> None:
        """Apply a timed-out seat's default decision (a unit: see :meth:`_whole`)."""
        await self._apply(seat, action, by_timeout=True)
        self.metrics.decisions_timed_out_total.inc()
        self._count(action, "timed_out", seat, started)

    # -- life cycle ------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the clock and end every watch stream (server shutdown, game removal).

        A timeout default being applied right now still finishes (see :meth:`idle`)."""
        self.closed = True
        self.deadlines.stop()
        self.events.wake()
        for listener in tuple(self.listeners):
            listener()

    def finish_before_idle(self, task: asyncio.Task[Any]) -> None:
        """Have :meth:`idle` wait for ``task`` too: a change still being logged after its
        RPC ended (a unit of :meth:`_whole`, a PlaySession torn down mid-decision) must
        reach the store before the server closes it."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def idle(self) -> None:
        """Wait for the clock's in-flight work (timeout defaults being applied), changes
        left to finish (:meth:`finish_before_idle`) and snapshots being written (which the
        former may start). Cancelling the wait (a shutdown whose grace ran out) cancels none
        of them: a write is never cut off from the change it records."""
        while True:
            pending = [t for t in (*self._tasks, *self.snapshots.writing) if not t.done()]
            if not pending:
                return
            done, _ = await asyncio.wait(pending)
            for task in done:  # retrieved: their own code logged what went wrong
                if not task.cancelled():
                    task.exception()

    def replay_entries(self) -> list[StoredAction]:
        return list(self.log)

    # -- a game that is over keeps little (server.games.compact) -----------------------------

    def compact(self) -> bool:
        """Drop what a game that is over can make again (``server.games.compact``): its
        published events, cached views and messages, its log's hashes and keys, all but its
        newest answers. False if it is not over, has streams open, or is compact already."""
        if not self.over or self.streams_open or self.compacted:
            return False
        self.compacted = True
        self.events.drop_published()
        self.messages.clear()
        self.views.forget()
        self._facts = None
        if not isinstance(self.log, CompactLog):
            self.log = CompactLog(self.log)
        self.answers.keep(KEPT_ANSWERS)
        return True
