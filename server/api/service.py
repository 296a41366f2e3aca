"""The gRPC servicers: GameService and DiagnosticsService.

Thin on purpose: each RPC looks the game up, checks the caller's token, hands the request to
the game (which takes its own lock and calls its rules) and maps a :class:`Refusal` to a
status code. Everything a caller receives is built by ``protocol`` (the envelopes, and the
game's wire for its payload) from the rules' per-seat view or from events filtered for that
caller.
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import grpc

from engine.core.contract import SPECTATOR
from protocol import envelopes
from protocol import registry as wires
from protocol.wire import ConversionError
from server.api import game_list, play_session
from server.api.auth import current_identity
from server.api.checks import (
    MAX_IDEMPOTENCY_KEY_LENGTH,
    abort,
    abort_quota,
    access_request,
    check_idempotency_key,
    check_name,
    choice_of,
    join_seat,
    list_viewer,
    must_play,
    seat_of,
    submit_fingerprint,
)
from server.api.fanout import FanoutGate, Turn, event_message
from server.api.identity import LEGACY_ADMIN_NAME, Identity
from server.api.quotas import QuotaBook, QuotaExceeded
from server.api.seeds import game_seed
from server.api.streams import StreamBook
from server.games.abandon import Abandonment, AbandonPolicy
from server.games.game import Game
from server.games.record import GameSettings, Status
from server.games.refusal import Refusal
from server.games.registry import GameRegistry
from server.ops.version import server_version
from server.stores.contract import OpenGamesFull
from yggdrasil.v1 import (
    diagnostics_service_pb2,
    diagnostics_service_pb2_grpc,
    game_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
)

if TYPE_CHECKING:
    from server.ops.interceptors import AioContext

__all__ = [
    "MAX_IDEMPOTENCY_KEY_LENGTH",
    "MAX_PING_PAYLOAD",
    "DiagnosticsService",
    "GameService",
    "submit_fingerprint",
]

MAX_PING_PAYLOAD = 64 * 1024
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
# What ListGames hands out as next_page_token ("p" and a cursor); int() reads every match.
_PAGE_TOKEN = re.compile(r"p[0-9]{1,18}")
# A day: longer limits are surely a unit mistake.
MAX_DECISION_TIME_LIMIT_MS = 24 * 3600 * 1000


def gp_kind(game: Game) -> game_pb2.GameKind.ValueType:
    """The API's GameKind of a hosted game."""
    return game_pb2.GameKind.ValueType(game.wire.kind)


def summary(game: Game) -> game_pb2.GameSummary:
    """A game's public summary (the seed only once the game is finished)."""
    return game_list.summary(game_list.listed(game))


def _settings(
    request: game_service_pb2.CreateGameRequest, identity: Identity, anyone_seeds: bool = False
) -> GameSettings:
    """The settings a CreateGame asks for; the game is the one whose options payload is set
    (none: the default game). The seed is the asked one only for an identity that may
    choose it (``server.api.seeds``)."""
    options = request.options
    limit = options.decision_time_limit_ms
    if not 0 <= limit <= MAX_DECISION_TIME_LIMIT_MS:
        raise Refusal(
            "INVALID_ARGUMENT",
            f"decision_time_limit_ms must be 0 (no limit) .. {MAX_DECISION_TIME_LIMIT_MS}",
        )
    try:
        wire = wires.wire_for_field(options.WhichOneof("game"))
        own = wire.options_from_pb(options)
    except ConversionError as exc:
        raise Refusal("INVALID_ARGUMENT", str(exc)) from None
    asked = options.seed if options.HasField("seed") else None
    seed, chosen_by = game_seed(identity, asked, anyone_seeds)
    if request.scenario_json:  # (admins only) the scenario's seed deals the game
        chosen_by = identity.name if identity.is_admin else LEGACY_ADMIN_NAME
    return GameSettings(
        players=options.player_count,
        seed=seed,
        seed_chosen_by=chosen_by,
        game=wire.rules.name,
        options=own,
        decision_time_limit_ms=limit,
        seat_names=tuple(check_name(n) for n in options.seat_names),
    )


def _privileged(request: game_service_pb2.CreateGameRequest) -> str | None:
    """What of a CreateGame only an admin may ask for (the game's own say), or None."""
    try:
        wire = wires.wire_for_field(request.options.WhichOneof("game"))
    except ConversionError:
        return None  # _settings refuses it
    return wire.privileged_options(request.options)


class GameService(game_service_pb2_grpc.GameServiceServicer):
    """Create, join, view, play and watch hosted games."""

    def __init__(
        self,
        games: GameRegistry,
        admin_token: str | None = None,
        quotas: QuotaBook | None = None,
        abandonment: Abandonment | None = None,
        streams: StreamBook | None = None,
        fanout: FanoutGate | None = None,
        *,
        anyone_seeds: bool = False,
    ) -> None:
        self.games = games
        # Every creator's seed deals its game (--seed-choice anyone), not only those of the
        # identities allowed to choose one (server.api.seeds).
        self.anyone_seeds = anyone_seeds
        self.admin_token = admin_token  # what CreateGame's admin_token must equal
        self.quotas = QuotaBook() if quotas is None else quotas
        self.streams = StreamBook() if streams is None else streams
        # Watch streams send in turns (server.api.fanout).
        self.fanout = FanoutGate() if fanout is None else fanout
        self.abandonment = (
            Abandonment(games, AbandonPolicy(0, 0)) if abandonment is None else abandonment
        )

    def _admin_ok(self, token: str) -> bool:
        expected = self.admin_token
        if expected is None or not token:
            return False
        return hmac.compare_digest(token.encode(), expected.encode())

    async def CreateGame(
        self, request: game_service_pb2.CreateGameRequest, context: AioContext
    ) -> game_service_pb2.CreateGameResponse:
        identity = current_identity()
        try:
            must_play(identity, "create games")
            if (
                request.scenario_json
                and not identity.is_admin
                and not self._admin_ok(request.admin_token)
            ):
                raise Refusal(
                    "PERMISSION_DENIED",
                    "starting from a scenario needs an admin API key (or the server's admin token)",
                )
            privileged = _privileged(request)
            if privileged and not identity.is_admin and not self._admin_ok(request.admin_token):
                raise Refusal(
                    "PERMISSION_DENIED",
                    f"{privileged} needs an admin API key (or the server's admin token)",
                )
            settings = _settings(request, identity, self.anyone_seeds)
            access, join_codes = access_request(request.access)
            self.quotas.charge_create(identity)
            creator_token = secrets.token_urlsafe(32)  # its hash is kept; it is told once
            # In a cluster the store counts the creator's open games on every node.
            limit = identity.quotas.open_games if self.quotas.open_games_in_store else None
            try:
                game = await self.games.create(
                    settings,
                    request.scenario_json,
                    creator=identity.quota_key,
                    creator_token=creator_token,
                    open_limit=limit,
                    access=access,
                )
            except OpenGamesFull:
                self.quotas.game_over(identity.quota_key)  # nothing was created
                raise self.quotas.refuse_open_games(identity) from None
            except BaseException:
                self.quotas.game_over(identity.quota_key)  # nothing was created
                raise
        except Refusal as refusal:
            await abort(context, refusal)
        except QuotaExceeded as exceeded:
            await abort_quota(context, exceeded)
        return game_service_pb2.CreateGameResponse(
            game_id=game.id,
            game=summary(game),
            creator_token=creator_token,
            join_codes=[
                game_service_pb2.SeatJoinCode(seat=seat, join_code=code)
                for seat, code in sorted(join_codes.items())
            ],
        )

    async def JoinGame(
        self, request: game_service_pb2.JoinGameRequest, context: AioContext
    ) -> game_service_pb2.JoinGameResponse:
        identity = current_identity()
        try:
            must_play(identity, "join games")
            game = await self.games.find(request.game_id)
            wanted = request.seat if request.HasField("seat") else None
            seat, token, duplicate = await join_seat(
                game, wanted, request.player_name, request.seat_token, identity, request.join_code
            )
        except Refusal as refusal:
            await abort(context, refusal)
        return game_service_pb2.JoinGameResponse(
            seat=seat, seat_token=token, game=summary(game), duplicate=duplicate
        )

    async def GetView(
        self, request: game_service_pb2.GetViewRequest, context: AioContext
    ) -> game_service_pb2.GetViewResponse:
        try:
            game = await self.games.find(request.game_id)
            which = request.WhichOneof("viewer")  # neither set: a spectator (as WatchGame)
            viewer = seat_of(game, request.seat_token) if which == "seat_token" else SPECTATOR
        except Refusal as refusal:
            await abort(context, refusal)
        return game_service_pb2.GetViewResponse(
            view=game.view(viewer, request.include_engine_state)
        )

    async def SubmitAction(
        self, request: game_service_pb2.SubmitActionRequest, context: AioContext
    ) -> game_service_pb2.SubmitActionResponse:
        identity = current_identity()
        try:
            must_play(identity, "decide")
            self.quotas.charge_decision(identity)
            game = await self.games.find(request.game_id)
            seat = seat_of(game, request.seat_token)
            check_idempotency_key(request.idempotency_key)
            action, index = choice_of(
                game, request.WhichOneof("choice"), request.action, request.legal_index
            )
            fingerprint = submit_fingerprint(request) if request.idempotency_key else b""
            outcome = await game.submit(
                seat,
                action,
                index,
                request.state_version,
                request.idempotency_key,
                fingerprint,
                request.include_view,
            )
        except Refusal as refusal:
            await abort(context, refusal)
        except QuotaExceeded as exceeded:
            await abort_quota(context, exceeded)
        response = game_service_pb2.SubmitActionResponse(
            state_version=outcome.state_version,
            events=outcome.events,
            duplicate=outcome.duplicate,
        )
        if outcome.view is not None:
            response.view.CopyFrom(outcome.view)
        return response

    async def WatchGame(  # type: ignore[override]
        self, request: game_service_pb2.WatchGameRequest, context: AioContext
    ) -> AsyncIterator[game_service_pb2.WatchGameResponse | bytes]:
        try:
            game = await self.games.find(request.game_id)
            which = request.WhichOneof("viewer")
            viewer = seat_of(game, request.seat_token) if which == "seat_token" else SPECTATOR
            if request.from_sequence > game.last_sequence + 1:
                raise Refusal(
                    "OUT_OF_RANGE",
                    f"from_sequence {request.from_sequence} is beyond the next event "
                    f"({game.last_sequence + 1})",
                )
            lease = await self.quotas.open_stream_async(current_identity())
            try:
                slot = self.streams.open(game, viewer)
            except Refusal:
                lease.release()
                raise
        except Refusal as refusal:
            await abort(context, refusal)
        except QuotaExceeded as exceeded:
            await abort_quota(context, exceeded)
        include = request.include_views
        if include:
            game.view_watchers[viewer] += 1
        try:
            async for message in _watch(game, viewer, request.from_sequence, include, self.fanout):
                yield message
        except StreamInterrupted as interrupted:
            await _end_unavailable(context, str(interrupted))
        finally:
            slot.release()
            lease.release()
            if include:
                game.view_watchers[viewer] -= 1
                if game.view_watchers[viewer] <= 0:
                    del game.view_watchers[viewer]

    async def ListGames(
        self, request: game_service_pb2.ListGamesRequest, context: AioContext
    ) -> game_service_pb2.ListGamesResponse:
        try:
            size = request.page_size or DEFAULT_PAGE_SIZE
            if not 1 <= size <= MAX_PAGE_SIZE:
                raise Refusal("INVALID_ARGUMENT", f"page_size must be 0 .. {MAX_PAGE_SIZE}")
            after = None
            if request.page_token:
                token = request.page_token
                if not _PAGE_TOKEN.fullmatch(token):
                    raise Refusal("INVALID_ARGUMENT", "malformed page_token")
                after = int(token[1:])
        except Refusal as refusal:
            await abort(context, refusal)
        name: str | None = None
        if request.kind != game_pb2.GAME_KIND_UNSPECIFIED:
            try:
                name = wires.wire_for_kind(request.kind).rules.name
            except ConversionError:
                return game_service_pb2.ListGamesResponse()  # no game of that kind here
        try:
            games, cursor = await game_list.list_games(
                self.games,
                int(request.status),
                size,
                after,
                list_viewer(current_identity()),
                name,
            )
        except Refusal as refusal:
            await abort(context, refusal)
        return game_service_pb2.ListGamesResponse(
            games=games, next_page_token="" if cursor is None else f"p{cursor}"
        )

    async def GetResult(
        self, request: game_service_pb2.GetResultRequest, context: AioContext
    ) -> game_service_pb2.GetResultResponse:
        try:
            game = await self.games.find(request.game_id)
            if game.aborted is not None:
                raise Refusal(
                    "FAILED_PRECONDITION", f"the game was aborted ({game.aborted.reason})"
                )
            if game.status != Status.FINISHED or game.result is None:
                raise Refusal("FAILED_PRECONDITION", "the game is not finished")
        except Refusal as refusal:
            await abort(context, refusal)
        return game_service_pb2.GetResultResponse(result=game.result)

    async def AbortGame(
        self, request: game_service_pb2.AbortGameRequest, context: AioContext
    ) -> game_service_pb2.AbortGameResponse:
        identity = current_identity()
        try:
            must_play(identity, "abort games")
            game = await self.games.find(request.game_id)
            await self.abandonment.request(
                game, identity, request.reason, request.creator_token
            )
        except Refusal as refusal:
            await abort(context, refusal)
        return game_service_pb2.AbortGameResponse(game=summary(game))

    async def GetReplay(
        self, request: game_service_pb2.GetReplayRequest, context: AioContext
    ) -> game_service_pb2.GetReplayResponse:
        try:
            game = await self.games.find(request.game_id)
            if game.status != Status.FINISHED:
                raise Refusal(
                    "FAILED_PRECONDITION",
                    "replays are only given for finished games (they reveal every secret)",
                )
        except Refusal as refusal:
            await abort(context, refusal)
        options = summary(game).options
        # A replay sets the game up again: everything its options hold (a pack's text too).
        game.wire.options_to_pb(game.settings.options, options, full=True)
        return game_service_pb2.GetReplayResponse(
            kind=gp_kind(game),
            options=options,
            scenario_json=game.record.scenario_json,
            steps=[
                envelopes.replay_step_pb(
                    game.wire,
                    e.seat,
                    game.rules.action_from_code(e.code),
                    e.version,
                    e.by_timeout,
                )
                for e in game.replay_entries()
            ],
            result=game.result,
            final_state_hash=game.state.state_hash(),
        )

    async def GetCatalog(
        self, request: game_service_pb2.GetCatalogRequest, context: AioContext
    ) -> game_service_pb2.GetCatalogResponse:
        try:
            wire = wires.wire_for_kind(request.kind)
        except ConversionError:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "unknown game kind")
        response = game_service_pb2.GetCatalogResponse()
        getattr(response, wire.rules.name).CopyFrom(wire.catalog())
        return response

    # A coroutine that writes with context.write (grpc.aio allows it; the generated stub
    # only knows generator handlers).
    async def PlaySession(  # type: ignore[override]
        self,
        requests: AsyncIterator[game_service_pb2.PlaySessionRequest],
        context: AioContext,
    ) -> None:
        """One seat played over one stream (all of it in ``server.api.play_session``)."""
        await play_session.serve(self.games, context, self.quotas, self.streams)


async def _end_unavailable(context: AioContext, message: str) -> None:
    """End a stream UNAVAILABLE; a client that already left (or a call the server is
    tearing down) is not told."""
    if context.done():
        return
    try:
        await context.abort(grpc.StatusCode.UNAVAILABLE, message)
    except grpc.aio.AbortError:
        raise
    except Exception:  # the call ended while the status was being sent: nobody to tell
        return


class StreamInterrupted(Exception):
    """The server ends a stream of a game that is not over (shutdown): the client resumes
    from ``next_sequence``, on this server once it is back or on another one."""

    def __init__(self, next_sequence: int, moved: bool = False) -> None:
        # A cluster node that lost the game (its lease ran out, a write's outcome was unknown)
        # says so: the client resumes the same way, wherever the game is now.
        why = "the game moved to another node" if moved else "the server is shutting down"
        super().__init__(f"{why}; resume with from_sequence {next_sequence}")
        self.next_sequence = next_sequence


async def _watch(
    game: Game,
    viewer: int,
    start: int,
    include_views: bool,
    gate: FanoutGate | None = None,
) -> AsyncIterator[game_service_pb2.WatchGameResponse | bytes]:
    """The messages of one WatchGame stream (see WatchGameRequest for the contract). The
    stream sends in turns with every other stream (``gate``: server.api.fanout), seats first."""
    gate = FanoutGate() if gate is None else gate
    turn = Turn(urgent=viewer != SPECTATOR)
    try:
        await gate.take(turn)
        async for message in _messages(game, viewer, start, include_views, gate, turn):
            yield message
    finally:
        gate.give_back(turn)


async def _messages(
    game: Game, viewer: int, start: int, include_views: bool, gate: FanoutGate, turn: Turn
) -> AsyncIterator[game_service_pb2.WatchGameResponse | bytes]:
    response = game_service_pb2.WatchGameResponse

    def resync() -> game_service_pb2.WatchGameResponse:
        return response(sequence=game.last_sequence, view=game.view(viewer), resync=True)

    # Where to go on is taken from each message before it is yielded: while a yield waits for
    # the transport, the game may publish more events, and those must follow, not be skipped.
    if start == 0 or start == game.last_sequence + 1:
        first_message = response(sequence=game.last_sequence, view=game.view(viewer))
    else:
        # Resume: the view as it was after event start - 1, then every event after it. A view
        # exists only where a group of events (a claim's, a decision's) ends; if start falls
        # inside a group, the view before that group is sent and the group is sent whole.
        base = game.group_end_at_or_before(start - 1)
        if base + 1 < game.first_kept_sequence:
            # After a restart (or once a finished game was compacted), events published
            # earlier are rebuilt from the log (verified against the sequence numbers it
            # recorded); if they cannot be, the watcher gets an explicit resync.
            game.recover_events(base + 1)
        if base + 1 < game.first_kept_sequence:
            first_message = resync()
        else:
            first_message = response(sequence=base, view=game.view_after(viewer, base))
    next_sequence = first_message.sequence + 1
    yield first_message
    while True:
        sent_from = next_sequence
        if game.compacted and next_sequence < game.first_kept_sequence:
            game.recover_events(next_sequence)  # a compacted game that is over: rebuilt once
        # A watcher that fell behind gets every event it has not had (a recorder needs them
        # all; the gate bounds what its catching up costs others), unless they are no longer
        # kept: then a resync.
        if next_sequence < game.first_kept_sequence:
            message = resync()
            next_sequence = message.sequence + 1
            yield message
        for stored in game.events_from(next_sequence):
            # Serialized once per audience (server.api.fanout), not once per watcher.
            yield event_message(game, stored, viewer, include_views)
            next_sequence = stored.sequence + 1
            if envelopes.is_game_ended(stored.full):
                return
        if game.status in (Status.FINISHED, Status.ABORTED) and next_sequence > game.last_sequence:
            return
        if game.closed:
            # A closed game (shutdown) ends its streams once they have delivered every event
            # it published: the last decision before a SIGTERM still reaches its watchers.
            # The game is not over, so the stream ends UNAVAILABLE with where to resume.
            # (Never loop without sending: that would spin the event loop.)
            if next_sequence > game.last_sequence or next_sequence == sent_from:
                if game.status in (Status.FINISHED, Status.ABORTED):
                    return
                raise StreamInterrupted(next_sequence, moved=game.retired)
            continue
        await gate.wait_for(game, next_sequence, turn)


class DiagnosticsService(diagnostics_service_pb2_grpc.DiagnosticsServiceServicer):
    """Cheap calls for probing the server."""

    async def Ping(
        self, request: diagnostics_service_pb2.PingRequest, context: AioContext
    ) -> diagnostics_service_pb2.PingResponse:
        if len(request.payload) > MAX_PING_PAYLOAD:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, f"payload over {MAX_PING_PAYLOAD} bytes"
            )
        return diagnostics_service_pb2.PingResponse(
            payload=request.payload, server_version=server_version()
        )
