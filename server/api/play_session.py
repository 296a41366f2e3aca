"""PlaySession: one seat of one game played over one bidirectional stream.

Bots drive thousands of decisions; as unary calls each one costs gRPC's per-call work (about
the price of a no-op RPC) on top of the game's. On an open stream a decision is one message
in and one message out. The contract is documented on ``GameService.PlaySession`` in
``proto/yggdrasil/v1/game_service.proto``; in short:

* the client opens with the game and its seat (token or join), a resume point and the
  decisions it sent on an earlier stream without an answer;
* the server sends a message when the seat must decide (its legal actions, the events since
  the previous message filtered for the seat, answers to the session's accepted decisions),
  when a decision is refused (at once, with SubmitAction's code, message and details), when a
  view is asked for, and when the game ends;
* decisions go through :meth:`server.games.game.Game.submit` like SubmitAction's (same lock, log,
  idempotency keys, clock, events, metrics), so the two paths cannot disagree;
* a session is a stream and each decision a decision of the caller's identity: they count
  against the same quotas as WatchGame streams and SubmitAction calls (``server.api.quotas``); a
  decision over the rate is answered RESOURCE_EXHAUSTED with the QuotaFailure and RetryInfo
  details, like SubmitAction's, and the seat is asked again.

A session is two tasks: the RPC's own task writes (:meth:`_Session.pump`), and a reader task
reads the client's messages and applies decisions. The game calls the session back after
each change (``Game.listeners``); the callback only sets the session's wake-up event when
its seat may have something to be told, so a decision of another seat costs this session no
task switch. The pump never writes while the reader is inside a decision, so an accepted
decision's answer rides on the message that follows it.

Nothing here holds state across streams: everything a resumed session needs is in the open
message (resume point, unanswered decisions) and in the game (events, idempotency keys). That
keeps the handler self-contained, e.g. for relaying the stream from another node.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import grpc
import grpc.aio
import structlog

from protocol import envelopes
from server.api.auth import current_identity
from server.api.checks import (
    MAX_IDEMPOTENCY_KEY_LENGTH,
    abort,
    abort_quota,
    check_idempotency_key,
    choice_of,
    join_seat,
    must_play,
    refusal_status,
    seat_of,
    submit_fingerprint,
)
from server.api.identity import Identity
from server.api.quotas import QuotaBook, QuotaExceeded, StreamLease, quota_status
from server.api.streams import StreamBook
from server.games.game import Game
from server.games.record import Status
from server.games.refusal import Refusal
from server.games.registry import GameRegistry
from yggdrasil.v1 import game_service_pb2 as gs

if TYPE_CHECKING:
    from server.ops.interceptors import AioContext

__all__ = ["serve"]

_IN_PROGRESS = Status.IN_PROGRESS
_OVER = (Status.FINISHED, Status.ABORTED)


async def serve(
    games: GameRegistry,
    context: AioContext,
    quotas: QuotaBook | None = None,
    streams: StreamBook | None = None,
) -> None:
    """Run one PlaySession stream to its end (the servicer's whole body)."""
    quotas = QuotaBook() if quotas is None else quotas
    streams = StreamBook() if streams is None else streams
    identity = current_identity()
    first = await context.read()
    if first is grpc.aio.EOF:
        return
    lease: StreamLease | None = None
    try:
        must_play(identity, "play")
        if first.WhichOneof("kind") != "open":
            raise Refusal("INVALID_ARGUMENT", "the first message of a PlaySession must be open")
        opened = first.open
        game = await games.find(opened.game_id)
        which = opened.WhichOneof("seat")
        token = ""
        if which == "seat_token":
            seat = seat_of(game, opened.seat_token)
        elif which == "join":
            join = opened.join
            wanted = join.seat if join.HasField("seat") else None
            seat, token, _ = await join_seat(
                game, wanted, join.player_name, join.seat_token, identity, join.join_code
            )
        else:
            raise Refusal("INVALID_ARGUMENT", "open needs seat_token or join")
        start = opened.from_sequence
        if start > game.last_sequence + 1:
            raise Refusal(
                "OUT_OF_RANGE",
                f"from_sequence {start} is beyond the next event ({game.last_sequence + 1})",
            )
        lease = await quotas.open_stream_async(identity)
        try:
            slot = streams.open(game, seat)
        except Refusal:
            lease.release()
            raise
    except Refusal as refusal:
        await abort(context, refusal)
    except QuotaExceeded as exceeded:
        await abort_quota(context, exceeded)
    structlog.contextvars.bind_contextvars(game_id=game.id, seat=seat)
    try:
        session = _Session(game, seat, context, opened, token, quotas, identity)
        await session.run()
    finally:
        slot.release()
        lease.release()


def _resume_point(game: Game, start: int) -> int:
    """The first event a session opened with from_sequence ``start`` is sent, as WatchGame
    resumes: 0 (or the next event) means none before the first message; otherwise events
    come in whole groups (a claim's, a decision's), so from the start of the group that holds
    event ``start``. After a restart the previous process's events are rebuilt from the log if
    they can be; if they cannot, the first message says resync."""
    if start == 0 or start > game.last_sequence:
        return game.last_sequence + 1
    first = game.group_end_at_or_before(start - 1) + 1
    if first < game.first_kept_sequence:
        game.recover_events(first)
    return first


class _Session:
    """One open stream of one seat."""

    def __init__(
        self,
        game: Game,
        seat: int,
        context: AioContext,
        opened: gs.PlayOpen,
        token: str,
        quotas: QuotaBook,
        identity: Identity,
    ) -> None:
        self.quotas = quotas
        self.identity = identity
        self.game = game
        self.seat = seat
        self.context = context
        self.opened = opened
        self.joined_token = token
        self.include_views = opened.include_views
        self.include_state = opened.include_engine_state
        self.next_sequence = _resume_point(game, opened.from_sequence)
        self.wake = asyncio.Event()
        self.answers: list[gs.PlayAnswer] = []
        self.first = True  # the first message is still to be sent
        self.view_wanted = False
        self.refused = False  # a refusal waits in `answers`: send it at once
        self.reprompt = False  # ask again for the decision whose answer was refused
        self.prompted_round = -1  # Game.decision_start of the last request to decide
        self.busy = False  # the reader is inside a decision
        self.stopping = False
        self.client_done = False  # the client closed its side
        self.protocol_error = ""
        self.failure: BaseException | None = None  # the reader's unexpected exception

    # -- life cycle ----------------------------------------------------------------------

    async def run(self) -> None:
        game = self.game
        game.listeners.append(self.on_change)
        gauge = game.metrics.play_sessions_active
        gauge.inc()
        reader: asyncio.Task[None] | None = None
        try:
            # The resent decisions are answered in the first message: no message until the
            # reader has applied them (it does so before it reads anything).
            self.busy = bool(self.opened.resend)
            reader = asyncio.get_running_loop().create_task(self.read())
            await self.pump()
        finally:
            gauge.dec()
            game.listeners.remove(self.on_change)
            if reader is not None and not reader.done():
                if self.busy:
                    # A decision being applied finishes (a log write is not cut half-way),
                    # before a shutdown closes the store; the reader then stops by itself.
                    self.stopping = True
                    game.finish_before_idle(reader)
                else:
                    reader.cancel()

    def on_change(self) -> None:
        """Game listener: wake the pump if this change may concern the seat."""
        if not self.wake.is_set() and self.has_news():
            self.wake.set()

    def has_news(self) -> bool:
        """Whether the pump may have something to send or to end now (cheap: no message is
        built). An accepted decision alone is no news: its answer rides on the next message."""
        if self.refused or self.view_wanted or self.client_done or self.protocol_error:
            return True
        game = self.game
        if game.status != _IN_PROGRESS or game.closed or self.failure is not None:
            return True
        return self.seat in game.awaiting() and (
            self.reprompt or game.decision_start(self.seat) != self.prompted_round
        )

    # -- the client's messages -----------------------------------------------------------

    async def read(self) -> None:
        context = self.context
        try:
            for decision in self.opened.resend:
                await self.decide(decision)
            while not self.stopping:
                request = await context.read()
                if request is grpc.aio.EOF:
                    self.client_done = True
                    return
                kind = request.WhichOneof("kind")
                if kind == "decision":
                    await self.decide(request.decision)
                elif kind == "view_request":
                    self.view_wanted = True
                    self.wake.set()
                else:
                    self.protocol_error = (
                        "open is only the first message of a PlaySession"
                        if kind == "open"
                        else "a PlaySession message must set decision or view_request"
                    )
                    return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # handed to the RPC's task, which reports it
            self.failure = exc
        finally:
            self.wake.set()

    async def decide(self, decision: gs.PlayDecision) -> None:
        """Apply one decision of the seat and queue its answer (sent at once if refused)."""
        game = self.game
        key = decision.idempotency_key
        self.busy = True
        try:
            if not key:
                raise Refusal("INVALID_ARGUMENT", "a PlaySession decision needs an idempotency_key")
            check_idempotency_key(key)
            self.quotas.charge_decision(self.identity)
            which = decision.WhichOneof("choice")
            action, index = choice_of(game, which, decision.action, decision.legal_index)
            essence = gs.SubmitActionRequest(
                game_id=game.id, state_version=decision.state_version, idempotency_key=key
            )
            if action is not None:
                essence.action.CopyFrom(decision.action)
            else:
                essence.legal_index = decision.legal_index
            outcome = await game.submit(
                self.seat,
                action,
                index,
                decision.state_version,
                key,
                submit_fingerprint(essence),
            )
            self.answers.append(
                gs.PlayAnswer(
                    idempotency_key=key,
                    state_version=outcome.state_version,
                    duplicate=outcome.duplicate,
                )
            )
        except (Refusal, QuotaExceeded) as refusal:
            status = (
                refusal_status(refusal) if isinstance(refusal, Refusal) else quota_status(refusal)
            )
            self.answers.append(
                gs.PlayAnswer(
                    idempotency_key=key[:MAX_IDEMPOTENCY_KEY_LENGTH],
                    code=status.code,
                    message=status.message,
                    details=status.details,
                )
            )
            self.refused = True
            # A refused answer to the current request asks again; one to an earlier request
            # does not (the seat has been asked for the current decision already).
            if decision.state_version >= self.prompted_round >= 0:
                self.reprompt = True
        finally:
            self.busy = False
            if self.has_news():
                self.wake.set()

    # -- the server's messages -----------------------------------------------------------

    async def pump(self) -> None:
        """Send what the seat must be told, as it comes, until the session ends."""
        context = self.context
        wake = self.wake
        while True:
            wake.clear()
            if self.failure is not None:
                raise self.failure
            message, last = self.compose()
            if message is not None:
                await context.write(message)
                if last:
                    return
                continue
            if self.protocol_error:
                await abort(context, Refusal("INVALID_ARGUMENT", self.protocol_error))
            if self.game.closed and not self.busy:
                await _end_unavailable(context, self.next_sequence)
                return
            if self.client_done and not self.busy:
                return
            await wake.wait()

    def compose(self) -> tuple[gs.PlaySessionResponse | None, bool]:
        """The message to send now, if any, and whether it is the session's last."""
        if self.busy:
            return None, False
        game = self.game
        status = game.status
        seat = self.seat
        over = status in _OVER
        awaited = status == _IN_PROGRESS and not game.closed and seat in game.awaiting()
        round_ = game.decision_start(seat) if awaited else -1
        prompt = awaited and (round_ != self.prompted_round or self.reprompt)
        flush = self.client_done and bool(self.answers)
        if not (self.first or self.view_wanted or self.refused or prompt or over or flush):
            return None, False
        message = gs.PlaySessionResponse(
            seat=seat, state_version=game.version, status=envelopes.status_to_pb(status)
        )
        last_sequence = game.last_sequence
        start = self.next_sequence
        view = self.first or self.view_wanted or (prompt and self.include_views)
        if start <= last_sequence:
            if start < game.first_kept_sequence:
                message.resync = True
                view = True
            else:
                message.events.extend([e.for_viewer(seat) for e in game.events_from(start)])
        message.sequence = last_sequence
        self.next_sequence = last_sequence + 1
        if prompt:
            envelopes.add_legal_actions(
                game.wire,
                message.legal_actions,
                game.rules.legal_actions(game.state, seat),
                game.state,
            )
            message.decision_deadline_unix_ms = game.deadline_unix_ms(seat)
            self.prompted_round = round_
        if view:
            message.view.CopyFrom(game.view(seat, self.include_state))
        if self.answers:
            message.answers.extend(self.answers)
            self.answers.clear()
        if self.first and self.joined_token:
            message.seat_token = self.joined_token
        if over and game.result is not None:
            message.result.CopyFrom(game.result)
        self.first = self.view_wanted = self.refused = self.reprompt = False
        return message, over


async def _end_unavailable(context: AioContext, next_sequence: int) -> None:
    """End the stream with UNAVAILABLE (the game was closed: shutdown, or it left memory), so
    the client opens it again, elsewhere or later. A client that already left is not told."""
    if context.done():
        return
    try:
        await abort(
            context,
            Refusal(
                "UNAVAILABLE",
                "the server is shutting down; open the session again with from_sequence "
                f"{next_sequence}",
            ),
        )
    except grpc.aio.AbortError:
        raise
    except Exception:  # the call ended while the status was being sent: nobody to tell
        return
