"""A small SDK for Python bots: let a ``Bot`` (``clients.bots.base.Bot``) play one seat of a
game hosted by a Yggdrasil server.

    from clients.bots import HeuristicBot
    from clients.sdk import play_seat

    result = await play_seat("127.0.0.1:50051", game_id, HeuristicBot(), seat=1)
    print(result.scores, result.winners)

``play_seat`` plays over one ``PlaySession`` stream: it opens the session with the seat's token
(or joins the seat from it), and whenever the server asks the seat to decide it converts the
message to the dict a bot expects (:func:`prompt_to_bot_view`; with the redacted engine state
for bots that read it), asks the bot and sends the chosen index with the message's state
version and an idempotency key. A decision refused as stale (FAILED_PRECONDITION) is counted
and forgotten (the server asks again when it is the seat's turn); a lost connection or a server
restart makes it reconnect with backoff and open the session again from the last sequence seen,
resending every decision not answered yet with its SAME idempotency key (the server answers
one it had applied as a duplicate). ``transport="unary"`` plays the frontends' way instead
(WatchGame, GetView with the engine state, SubmitAction), with the same guarantees.

``python -m clients.sdk --server ADDR --game ID --seat K --bot heuristic`` plays one seat from
the command line (what the tournament runner's ``cmd:`` bots can run).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import secrets
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import grpc
import grpc.aio

from clients import games
from clients.bots.base import Bot
from clients.connection import (
    API_KEY_ENV,
    GAME_ID_HEADER,
    KEEPALIVE_S,
    RESUMABLE,
    ChannelPool,
    ChannelSlot,
    ClientTls,
    add_tls_arguments,
    connection_hint,
    default_api_key,
    default_join_code,
    default_tls,
    new_key,
    open_channel,
    retry_delay,
    stub_for,
    tls_from_args,
)
from clients.games import kit_for_kind
from engine import registry
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

if TYPE_CHECKING:
    from yggdrasil.v1.game_service_pb2_grpc import GameServiceAsyncStub

__all__ = [
    "TRANSPORTS",
    "BotClient",
    "DecisionRefused",
    "Result",
    "game_of",
    "main",
    "make_bot",
    "play_seat",
    "prompt_to_bot_view",
    "proto_view_to_bot_view",
]

SPECTATOR = -1
# Codes after which the client reconnects and carries on (server restarting, network gone,
# stream torn down with the server, or reset by a proxy whose node died: INTERNAL, see
# clients.connection.RESUMABLE). A decision is resent with its key: answered once.
_RECOVERABLE = RESUMABLE
_OVER = (gp.GAME_STATUS_FINISHED, gp.GAME_STATUS_ABORTED)
# A channel of its own (grpc shares subchannels between the channels of a process by default,
# so a fresh channel would inherit another one's reconnect backoff) that retries a lost
# server quickly.
_CHANNEL_OPTIONS = [
    ("grpc.use_local_subchannel_pool", 1),
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
]


# ============================================================================================
# The view a bot sees
# ============================================================================================


def _bot_actions(legal_actions: Iterable[gp.LegalAction], kind: int) -> list[dict[str, Any]]:
    fields = kit_for_kind(kind).legal_fields
    return [
        {
            "index": legal.index,
            "code": legal.code,
            **fields(legal.code),
            "label": legal.label,
        }
        for legal in legal_actions
    ]


def _engine_state_json(view: gp.View) -> str:
    """The redacted engine state a view was asked for: every game's view payload carries it
    as ``engine_state_json`` ("" when not asked)."""
    field = view.WhichOneof("game")
    return str(getattr(getattr(view, field), "engine_state_json", "")) if field else ""


def proto_view_to_bot_view(view: gp.View) -> dict[str, Any]:
    """The bot's view dict of a seat's proto view (pure; see ``clients.bots.base``).

    Keys: ``viewer`` (seat, -1 for a spectator), ``game_id``, ``version`` (state version),
    ``awaiting``, ``committed``, ``players``, ``legal_actions`` (``index``, ``code``,
    ``label``, and what the game's kit adds from the code: Blood Rage's ``kind`` and ``args``
    [a, b, c]) and ``engine_state`` (the redacted snapshot, parsed; None unless asked with
    include_engine_state)."""
    actions = _bot_actions(view.legal_actions, view.kind)
    state_json = _engine_state_json(view)
    return {
        "viewer": view.viewer_seat if view.HasField("viewer_seat") else SPECTATOR,
        "game_id": view.game_id,
        "version": view.state_version,
        "players": len(view.seats),
        "awaiting": list(view.awaiting_seats),
        "committed": list(view.committed_seats),
        "legal_actions": actions,
        "engine_state": json.loads(state_json) if state_json else None,
    }


def prompt_to_bot_view(message: gs.PlaySessionResponse, view: gp.View | None) -> dict[str, Any]:
    """The bot's view dict of a PlaySession message that asks for a decision: that of its
    view if it carries one, else that of ``view`` (the session's newest full view, for
    ``players``, ``game_id`` and the game's kind) with the message's state version and legal
    actions (``engine_state`` None; ``awaiting`` is then just the seat, ``committed`` empty)."""
    if message.HasField("view"):
        return proto_view_to_bot_view(message.view)
    base = gp.View() if view is None else view
    out = proto_view_to_bot_view(base)
    out["viewer"] = message.seat
    out["version"] = message.state_version
    out["awaiting"] = [message.seat]
    out["committed"] = []
    out["engine_state"] = None
    out["legal_actions"] = _bot_actions(message.legal_actions, base.kind)
    return out


def make_bot(spec: str, game: str = registry.DEFAULT) -> Bot:
    """An in-process bot from its name: ``random`` or one of the game's own strategies
    (Blood Rage: ``heuristic``, ``ismcts[:budget_ms]``, ``duct[:budget_ms]``); see
    ``clients.games.make_bot``."""
    return games.make_bot(spec, game)


# ============================================================================================
# Playing a seat
# ============================================================================================


@dataclass
class Result:
    """How a seat's game ended, as the server reported it."""

    game_id: str
    seat: int
    seat_token: str
    status: str  # FINISHED or ABORTED
    scores: list[int] = field(default_factory=list)  # per seat (Blood Rage: Glory)
    ranks: list[int] = field(default_factory=list)  # per seat, 1 = best
    winners: list[int] = field(default_factory=list)
    decisions: int = 0  # decisions this client submitted and the server accepted
    stale: int = 0  # submits answered FAILED_PRECONDITION (chosen again)
    reconnects: int = 0
    # Decisions the server could not take for now (UNAVAILABLE in-band on a PlaySession, e.g.
    # a full disk): nothing was applied, and the seat chose again after a pause. (Over unary
    # calls such an answer ends the call, and the retry counts as a reconnect.) Also calls
    # refused by a quota of a rate and retried after the RetryInfo delay the server gave.
    retried: int = 0

    @property
    def won(self) -> bool:
        return self.seat in self.winners


class _StreamDropped(Exception):
    """The stream (PlaySession or WatchGame) ended before the game did."""


class DecisionRefused(RuntimeError):
    """The server refused a decision for a reason no retry can fix (e.g. INVALID_ARGUMENT)."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message


_CODES = {code.value[0]: code for code in grpc.StatusCode}
# In-band answers after which the same decision may be taken again later (nothing changed).
_RETRY_LATER = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED)
TRANSPORTS = ("session", "unary")


async def _write(call: Any, request: gs.PlaySessionRequest) -> None:
    """Send on a PlaySession call. A write to a stream the server or the network already ended
    fails with whatever the transport made of it (grpc answers INTERNAL "Internal error from
    Core" when the connection died under the write): the stream is gone, so reconnect. A real
    refusal from the server is read from the stream, not lost: reads come after every write."""
    try:
        await call.write(request)
    except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as error:  # (the latter: ended)
        raise _StreamDropped() from error


class BotClient:
    """One seat played by one bot. ``await BotClient(...).run()`` returns the :class:`Result`.

    ``transport="session"`` (the default) plays over one PlaySession stream: the server says
    when the seat must decide and answers each decision in-band. ``"unary"`` plays the way a
    frontend does: WatchGame to learn about changes, GetView, SubmitAction per decision (kept
    to compare the two, e.g. in benchmarks).
    """

    def __init__(
        self,
        address: str,
        game_id: str,
        bot: Bot,
        *,
        seat: int | None = None,
        token: str | None = None,
        name: str = "",
        rng: random.Random | None = None,
        include_state: bool | None = None,
        rpc_timeout_s: float = 30.0,
        backoff_s: float = 0.1,
        max_backoff_s: float = 2.0,
        max_failures: int = 30,
        keepalive_s: float = KEEPALIVE_S,
        transport: str = "session",
        stub: GameServiceAsyncStub | None = None,
        api_key: str | None = None,
        channels: ChannelPool | None = None,
        tls: ClientTls | None = None,
        join_code: str | None = None,
    ) -> None:
        if transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {TRANSPORTS}, not {transport!r}")
        self.address = address
        # Sent as `authorization: Bearer <key>` with every call; default $YGGDRASIL_API_KEY.
        self.api_key = api_key if api_key is not None else default_api_key()
        # TLS of the channel (None: $YGGDRASIL_TLS / $YGGDRASIL_CA_FILE, else plaintext).
        self.tls = tls if tls is not None else default_tls()
        # The join code of a reserved seat (default $YGGDRASIL_JOIN_CODE): how a bot a
        # tournament or a friend invited claims the seat kept for it.
        self.join_code = join_code if join_code is not None else default_join_code()
        self.game_id = game_id
        self.bot = bot
        self.seat = seat
        self.token = token
        self.name = name
        self.rng = rng if rng is not None else random.Random()
        # The redacted engine state costs the server a full view per decision: only for bots
        # that read it (a bot may say so with `wants_state`; unknown bots get it).
        self.include_state = (
            bool(getattr(bot, "wants_state", True)) if include_state is None else include_state
        )
        self.rpc_timeout_s = rpc_timeout_s
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.max_failures = max_failures
        self.keepalive_s = keepalive_s
        self.transport = transport
        self._channel: grpc.aio.Channel | None = None
        # A caller's stub is used as it is (its channel is the caller's, and reconnects by
        # itself); without one the client opens a channel of its own.
        self._given_stub = stub
        self._stub: GameServiceAsyncStub | None = stub
        # Or a slot on a pool's channel (a client running many seats at once: each channel
        # carries at most so many streams; clients.connection.ChannelPool).
        self._pool = channels
        self._slot: ChannelSlot | None = None
        self._call: Any = None  # the open WatchGame or PlaySession call
        self._next_sequence = 0
        self._known_version = -1  # newest state version already handled
        self._pending: gs.SubmitActionRequest | None = None  # unary: sent, not acknowledged
        self._unanswered: list[gs.PlayDecision] = []  # session: sent, no answer seen yet
        self._view: gp.View | None = None  # session: the newest full view received
        self._join_token: str | None = None  # the token JoinGame claims the seat with
        self.decisions = 0
        self.stale = 0
        self.reconnects = 0
        self.retried = 0
        self._failures = 0  # consecutive failures without progress

    # --- connection ---------------------------------------------------------------------

    def _connect(self) -> GameServiceAsyncStub:
        if self._stub is None and self._pool is not None:
            self._slot = self._pool.take()
            self._stub = self._slot.stub
        if self._stub is None:
            self._channel = open_channel(
                self.address,
                self.keepalive_s,
                api_key=self.api_key,
                options=_CHANNEL_OPTIONS,
                tls=self.tls,
            )
            self._stub = stub_for(self._channel)
        return self._stub

    async def _disconnect(self) -> None:
        if self._call is not None:
            self._call.cancel()
            self._call = None
        if self._channel is not None:
            await self._channel.close()
        self._channel = None
        if self._slot is not None:
            self._slot.release()
            self._slot = None
        self._stub = self._given_stub

    def _join_token_once(self) -> str:
        # Drawn once and kept across retries: if the answer to a join is lost, the retry
        # (same token) gets the same seat back instead of claiming another.
        if self._join_token is None:
            self._join_token = secrets.token_urlsafe(32)
        return self._join_token

    async def run(self) -> Result:
        self._failures = 0
        play = self._play_session if self.transport == "session" else self._play_unary
        try:
            while True:
                try:
                    return await play(self._connect())
                except (grpc.aio.AioRpcError, _StreamDropped) as error:
                    # A quota refusal with a RetryInfo (a rate: game creation, decisions) is
                    # retried after the delay the server gave; one without (open games,
                    # streams) is the caller's to fix.
                    wait = retry_delay(error) if isinstance(error, grpc.aio.AioRpcError) else None
                    if (
                        isinstance(error, grpc.aio.AioRpcError)
                        and error.code() not in _RECOVERABLE
                        and wait is None
                    ):
                        raise
                    self._failures += 1
                    if self._failures > self.max_failures:
                        raise
                    if wait is not None:
                        self.retried += 1
                        await asyncio.sleep(wait * (1 + self.rng.random() / 4))
                        continue  # same channel: nothing is wrong with the connection
                    self.reconnects += 1
                    await self._disconnect()
                    await self._back_off()
        finally:
            await self._disconnect()

    async def _back_off(self) -> None:
        exponent = min(self._failures - 1, 8)
        delay = min(self.max_backoff_s, self.backoff_s * 2**exponent)
        await asyncio.sleep(delay * (0.5 + self.rng.random() / 2))

    async def _choose(self, bot_view: dict[str, Any]) -> int:
        index = await asyncio.to_thread(self.bot.choose, bot_view, self.rng)
        count = len(bot_view["legal_actions"])
        if not 0 <= index < count:
            raise ValueError(f"bot {self.bot.name!r} chose index {index} of {count}")
        return int(index)

    # --- PlaySession ----------------------------------------------------------------------

    def _open_request(self) -> gs.PlaySessionRequest:
        """The open of a (new or resumed) session: the seat, where its events stopped, and
        the decisions not answered yet, resent with their keys."""
        opened = gs.PlayOpen(
            game_id=self.game_id,
            from_sequence=self._next_sequence,
            resend=self._unanswered,
            include_views=self.include_state,
            include_engine_state=self.include_state,
        )
        if self.token is not None:
            opened.seat_token = self.token
        else:
            opened.join.player_name = self.name
            opened.join.seat_token = self._join_token_once()
            opened.join.join_code = self.join_code
            if self.seat is not None:
                opened.join.seat = self.seat
        return gs.PlaySessionRequest(open=opened)

    def _open_session(self, stub: GameServiceAsyncStub) -> Any:
        """Start a PlaySession call (a seam for tests that record or cut the stream)."""
        # A stream's first message is not seen by a proxy: the game goes in the metadata.
        return stub.PlaySession(metadata=((GAME_ID_HEADER, self.game_id),))

    async def _play_session(self, stub: GameServiceAsyncStub) -> Result:
        """Play over one PlaySession stream until the game is over (_StreamDropped or an
        AioRpcError if the stream breaks first)."""
        call = self._call = self._open_session(stub)
        await _write(call, self._open_request())
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                self._call = None
                raise _StreamDropped()
            if not any(answer.code for answer in message.answers):
                self._failures = 0  # (refusals to retry keep counting, see _settle)
            if message.seat_token:
                self.token = message.seat_token
            self.seat = message.seat
            self._next_sequence = message.sequence + 1
            self._known_version = max(self._known_version, message.state_version)
            if message.HasField("view"):
                self._view = message.view
            for answer in message.answers:
                await self._settle(answer)
            if message.status in _OVER:
                # The server ends the stream right after this message: let it end OK rather
                # than cancel it (a cancelled stream is counted as such on the server).
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(call.code(), 1.0)
                return self._result(message.status, message.result)
            if message.legal_actions:
                index = await self._choose(prompt_to_bot_view(message, self._view))
                decision = gs.PlayDecision(
                    legal_index=index,
                    state_version=message.state_version,
                    idempotency_key=new_key(),
                )
                self._unanswered.append(decision)
                await _write(call, gs.PlaySessionRequest(decision=decision))

    async def _settle(self, answer: gs.PlayAnswer) -> None:
        """Take the answer to the oldest unanswered decision (answers come in order)."""
        position = next(
            (
                i
                for i, d in enumerate(self._unanswered)
                if d.idempotency_key == answer.idempotency_key
            ),
            None,
        )
        if position is None:
            return  # not one of ours (cannot happen with this client)
        del self._unanswered[: position + 1]
        code = _CODES.get(answer.code, grpc.StatusCode.UNKNOWN)
        if code == grpc.StatusCode.OK:
            self.decisions += 1
        elif code == grpc.StatusCode.FAILED_PRECONDITION:
            self.stale += 1  # the game moved on: the server asks again when it is our turn
        elif code in _RETRY_LATER:
            # Nothing was applied (e.g. the store is full); the server asks again at once:
            # pause as after a lost connection before choosing again.
            self.retried += 1
            self._failures += 1
            if self._failures > self.max_failures:
                raise DecisionRefused(code, answer.message)
            await self._back_off()
        else:
            raise DecisionRefused(code, answer.message)

    # --- unary calls (the frontends' path) -----------------------------------------------

    async def _play_unary(self, stub: GameServiceAsyncStub) -> Result:
        while True:
            if self.token is None:
                await self._join(stub)
            if self._pending is not None:
                await self._send_pending(stub)
            view = await self._act_until_idle(stub)
            if view.status in _OVER:
                return self._result(view.status, view.result)
            await self._wait_for_change(stub)

    async def _join(self, stub: GameServiceAsyncStub) -> None:
        request = gs.JoinGameRequest(
            game_id=self.game_id,
            player_name=self.name,
            seat_token=self._join_token_once(),
            join_code=self.join_code,
        )
        if self.seat is not None:
            request.seat = self.seat
        reply: gs.JoinGameResponse = await stub.JoinGame(request, timeout=self.rpc_timeout_s)
        self.seat = reply.seat
        self.token = reply.seat_token

    async def _get_view(self, stub: GameServiceAsyncStub) -> gp.View:
        request = gs.GetViewRequest(
            game_id=self.game_id,
            seat_token=self.token or "",
            include_engine_state=self.include_state,
        )
        reply: gs.GetViewResponse = await stub.GetView(request, timeout=self.rpc_timeout_s)
        if self.seat is None and reply.view.HasField("viewer_seat"):
            self.seat = reply.view.viewer_seat
        return reply.view

    async def _send_pending(self, stub: GameServiceAsyncStub) -> None:
        """Send (or resend, same idempotency key) the pending decision; forget it once the
        server answered. A stale answer just means "look again"."""
        assert self._pending is not None
        try:
            await stub.SubmitAction(self._pending, timeout=self.rpc_timeout_s)
            self.decisions += 1
            self._failures = 0
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise  # the pending request stays for a retry if recoverable
            self.stale += 1
        self._pending = None

    async def _act_until_idle(self, stub: GameServiceAsyncStub) -> gp.View:
        """Decide while the seat has legal actions; return the first view without any."""
        while True:
            view = await self._get_view(stub)
            self._known_version = max(self._known_version, view.state_version)
            if view.status in _OVER or not view.legal_actions:
                return view
            index = await self._choose(proto_view_to_bot_view(view))
            self._pending = gs.SubmitActionRequest(
                game_id=self.game_id,
                seat_token=self.token or "",
                legal_index=index,
                state_version=view.state_version,
                idempotency_key=new_key(),
            )
            await self._send_pending(stub)

    async def _wait_for_change(self, stub: GameServiceAsyncStub) -> None:
        """Read WatchGame until a view newer than the last one handled gives this seat legal
        actions, or the game ends. The stream stays open between calls."""
        if self._call is None:
            self._call = stub.WatchGame(
                gs.WatchGameRequest(
                    game_id=self.game_id,
                    seat_token=self.token or "",
                    from_sequence=self._next_sequence,
                    include_views=True,
                )
            )
        while True:
            message = await self._call.read()
            if message is grpc.aio.EOF:
                self._call = None
                raise _StreamDropped()
            self._next_sequence = message.sequence + 1
            self._failures = 0
            if message.event.WhichOneof("payload") in ("game_ended", "game_aborted"):
                return
            if message.HasField("view"):
                view = message.view
                if view.status in _OVER:
                    return
                if view.state_version > self._known_version and view.legal_actions:
                    return

    def _result(self, status: int, result: gp.GameResult) -> Result:
        seats = sorted(result.seats, key=lambda s: s.seat)
        return Result(
            game_id=self.game_id,
            seat=-1 if self.seat is None else self.seat,
            seat_token=self.token or "",
            status=gp.GameStatus.Name(status).removeprefix("GAME_STATUS_"),  # type: ignore[arg-type]
            scores=[int(s.score) for s in seats],
            ranks=[int(s.rank) for s in seats],
            winners=sorted(result.winners),
            decisions=self.decisions,
            stale=self.stale,
            reconnects=self.reconnects,
            retried=self.retried,
        )


async def play_seat(
    address: str,
    game_id: str,
    bot: Bot,
    *,
    seat: int | None = None,
    token: str | None = None,
    name: str = "",
    rng: random.Random | None = None,
    include_state: bool | None = None,
    transport: str = "session",
    api_key: str | None = None,
    channels: ChannelPool | None = None,
    tls: ClientTls | None = None,
    join_code: str | None = None,
) -> Result:
    """Play one seat of ``game_id`` on the server at ``address`` with ``bot`` until the game
    is over: join ``seat`` (the lowest free one if None) unless a seat ``token`` is given.
    ``channels``: play over a slot of this pool's channels instead of a channel of its own.
    ``include_state``: send the bot the redacted engine state (None: unless the bot says
    ``wants_state = False``); ``transport``: ``session`` (PlaySession) or ``unary``;
    ``api_key`` (default ``$YGGDRASIL_API_KEY``) identifies the client to the server;
    ``tls`` (default from the environment: :func:`clients.connection.default_tls`) is the
    channel's TLS; ``join_code`` (default ``$YGGDRASIL_JOIN_CODE``) claims a reserved seat."""
    client = BotClient(
        address,
        game_id,
        bot,
        seat=seat,
        token=token,
        name=name,
        rng=rng,
        include_state=include_state,
        transport=transport,
        api_key=api_key,
        channels=channels,
        tls=tls,
        join_code=join_code,
    )
    return await client.run()


# ============================================================================================
# Command line: one seat
# ============================================================================================


class _Slowed:
    """A bot that thinks ``delay_s`` longer (``choose`` runs in a thread of the SDK's)."""

    def __init__(self, bot: Bot, delay_s: float) -> None:
        self.bot = bot
        self.name = bot.name
        self.wants_state = bool(getattr(bot, "wants_state", True))
        self.delay_s = delay_s

    def choose(self, view: dict[str, Any], rng: random.Random) -> int:
        time.sleep(self.delay_s)
        return self.bot.choose(view, rng)
async def game_of(
    address: str, game_id: str, *, api_key: str | None = None, tls: ClientTls | None = None
) -> str:
    """The registry name of the game ``game_id`` is (from a spectator's view of it), so that
    its bots are the right game's; ValueError if this client does not know that game."""
    key = api_key if api_key is not None else default_api_key()
    async with open_channel(address, api_key=key, tls=tls) as channel:
        reply = await stub_for(channel).GetView(
            gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
        )
    try:
        return kit_for_kind(reply.view.kind).name
    except KeyError:
        raise ValueError(f"game {game_id} is of a kind this client does not know") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m clients.sdk", description="Play one seat of a game with a bot."
    )
    parser.add_argument("--server", required=True, help="host:port")
    parser.add_argument("--game", required=True, help="game id")
    parser.add_argument("--seat", type=int, default=None, help="seat to join (default: any)")
    parser.add_argument("--token", default=None, help="an existing seat token instead")
    parser.add_argument(
        "--bot", default="random", help="random, heuristic, ismcts[:ms] or duct[:ms]"
    )
    parser.add_argument("--name", default="", help="display name")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bot's random draws")
    parser.add_argument(
        "--delay-ms", type=int, default=0, help="pause before each decision (a slower game)"
    )
    parser.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default="session",
        help="session: one PlaySession stream (default); unary: WatchGame, GetView, SubmitAction",
    )
    parser.add_argument(
        "--api-key",
        default=None,
        help=f"API key sent to the server (default ${API_KEY_ENV}; prefer the variable: "
        "flags are visible to other users)",
    )
    parser.add_argument(
        "--join-code",
        default=None,
        help="join code of a reserved seat (default $YGGDRASIL_JOIN_CODE; prefer the variable: "
        "flags are visible to other users)",
    )
    add_tls_arguments(parser)
    args = parser.parse_args(argv)
    tls = tls_from_args(args)
    try:
        game = asyncio.run(game_of(args.server, args.game, api_key=args.api_key, tls=tls))
        bot = make_bot(args.bot, game)
    except ValueError as exc:
        parser.error(str(exc))
    except grpc.aio.AioRpcError as error:
        code = error.code()
        print(f"error: {code.name if code else 'UNKNOWN'}: {error.details()}", file=sys.stderr)
        return 1
    if args.delay_ms < 0:
        parser.error("--delay-ms must be >= 0")
    if args.delay_ms:
        bot = _Slowed(bot, args.delay_ms / 1000)
    try:
        result = asyncio.run(
            play_seat(
                args.server,
                args.game,
                bot,
                seat=args.seat,
                token=args.token,
                name=args.name or bot.name,
                rng=random.Random(args.seed),
                transport=args.transport,
                api_key=args.api_key,
                tls=tls,
                join_code=args.join_code,
            )
        )
    except DecisionRefused as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except grpc.aio.AioRpcError as error:
        code = error.code()
        hint = connection_hint(error, tls is not None)
        print(
            f"error: {code.name if code else 'UNKNOWN'}: {error.details()}"
            + (f" ({hint})" if hint else ""),
            file=sys.stderr,
        )
        return 1
    print(
        json.dumps(
            {
                "game_id": result.game_id,
                "seat": result.seat,
                "status": result.status,
                "scores": result.scores,
                "winners": result.winners,
            }
        )
    )
    return 0 if result.status == "FINISHED" else 1


if __name__ == "__main__":
    sys.exit(main())
