"""Talking to a Yggdrasil server: channel and stub, error details, watching with resume,
submitting with retries, and the local store of seat tokens.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
import grpc.aio
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped]

from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

if TYPE_CHECKING:
    from yggdrasil.v1.game_service_pb2_grpc import GameServiceAsyncStub

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "API_KEY_ENV",
    "DEFAULT_SERVER",
    "GAME_ID_HEADER",
    "JOIN_CODE_ENV",
    "KEEPALIVE_S",
    "MAX_CALLS_PER_CHANNEL",
    "PATIENCE_S",
    "RESUMABLE",
    "RETRYABLE",
    "ChannelPool",
    "ChannelSlot",
    "ClientTls",
    "SavedSeat",
    "TokenStore",
    "add_tls_arguments",
    "channel_options",
    "connection_hint",
    "default_api_key",
    "default_join_code",
    "default_server",
    "default_tls",
    "default_token_file",
    "error_text",
    "follow",
    "game_id_interceptors",
    "key_interceptors",
    "misconfigured",
    "never_sent",
    "new_key",
    "open_channel",
    "resending_interceptors",
    "stub_for",
    "submit",
    "tls_from_args",
    "version_mismatch",
]

DEFAULT_SERVER = "127.0.0.1:50051"
API_KEY_ENV = "YGGDRASIL_API_KEY"
_DETAILS_KEY = "grpc-status-details-bin"
# Events after which a game has no more (it ended, or it was aborted).
_LAST_EVENTS = ("game_ended", "game_aborted")
# What a call about a game may end with while the game moves to another node or the proxy in
# front loses its node (docs/clients.md, "Retrying"): worth resending an idempotent call (a
# read, a decision with its idempotency key, a join with its token) and resuming a stream
# after. Envoy ends a stream whose node died with INTERNAL ("RST_STREAM with error code 2"),
# not UNAVAILABLE: a client that resumed only after UNAVAILABLE gave up at every owner kill.
RETRYABLE = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.UNKNOWN,
)
# A stream may also end CANCELLED without the client asking (its proxy's upstream went away).
RESUMABLE = (*RETRYABLE, grpc.StatusCode.CANCELLED)
# How long a client keeps retrying without progress: a dead node's games wait for its lease to
# run out (5 s by default) and a takeover; a restarting server takes a few seconds too.
PATIENCE_S = 120.0
MAX_BACKOFF_S = 2.0


def default_server() -> str:
    """``$YGGDRASIL_SERVER`` or ``127.0.0.1:50051``."""
    return os.environ.get("YGGDRASIL_SERVER", "").strip() or DEFAULT_SERVER


JOIN_CODE_ENV = "YGGDRASIL_JOIN_CODE"


def default_join_code() -> str:
    """``$YGGDRASIL_JOIN_CODE``: the join code of a reserved seat ("" if none)."""
    return os.environ.get(JOIN_CODE_ENV, "").strip()


def default_api_key() -> str | None:
    """``$YGGDRASIL_API_KEY``, or None (the server then treats the caller as anonymous)."""
    return os.environ.get(API_KEY_ENV, "").strip() or None


@dataclass(frozen=True)
class ClientTls:
    """TLS of a client's channel: the server's certificate is checked against ``ca_file``
    (None: the system's trusted roots, as for a server with a public certificate); with
    ``cert_file`` and ``key_file`` the client presents its own certificate (a server that
    requires client certificates: mutual TLS). ``server_name`` overrides the name checked
    against the certificate (default: the host of the address dialled)."""

    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    server_name: str = ""

    def credentials(self) -> grpc.ChannelCredentials:
        """The channel credentials (OSError if a file cannot be read)."""
        if (self.cert_file is None) != (self.key_file is None):
            raise ValueError("a client certificate needs its key: give both, or neither")
        return grpc.ssl_channel_credentials(
            root_certificates=self.ca_file.read_bytes() if self.ca_file else None,
            private_key=self.key_file.read_bytes() if self.key_file else None,
            certificate_chain=self.cert_file.read_bytes() if self.cert_file else None,
        )

    def options(self) -> list[tuple[str, Any]]:
        return [("grpc.ssl_target_name_override", self.server_name)] if self.server_name else []


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value) if value else None


def default_tls() -> ClientTls | None:
    """TLS from the environment: ``$YGGDRASIL_TLS`` (1/true/yes/on), or a CA file in
    ``$YGGDRASIL_CA_FILE`` (which implies it); client certificate ``$YGGDRASIL_CLIENT_CERT``
    and ``$YGGDRASIL_CLIENT_KEY``. None: plaintext."""
    on = os.environ.get("YGGDRASIL_TLS", "").strip().lower() in ("1", "true", "yes", "on")
    ca = _env_path("YGGDRASIL_CA_FILE")
    cert, key = _env_path("YGGDRASIL_CLIENT_CERT"), _env_path("YGGDRASIL_CLIENT_KEY")
    if not (on or ca or cert):
        return None
    return ClientTls(ca, cert, key)


def add_tls_arguments(parser: Any, *, repeated: bool = False) -> None:
    """``--tls``, ``--ca-file``, ``--client-cert``, ``--client-key`` (the same in every
    command of ours; :func:`tls_from_args` reads them). ``repeated``: a sub-command's copy
    (hidden, and only set when given: ``yggdrasil list --tls`` as well as ``yggdrasil --tls
    list``)."""
    add = parser.add_argument
    if repeated:

        def add(*flags: str, **kwargs: Any) -> None:
            kwargs.update(default=argparse.SUPPRESS, help=argparse.SUPPRESS)
            parser.add_argument(*flags, **kwargs)

    add(
        "--tls",
        action="store_true",
        default=None,
        help="connect with TLS, checking the server's certificate against the system's "
        "trusted CAs (or --ca-file) [env YGGDRASIL_TLS=1]",
    )
    add(
        "--ca-file",
        type=Path,
        default=None,
        help="PEM CA certificate(s) to check the server's certificate with; implies --tls "
        "[env YGGDRASIL_CA_FILE]",
    )
    add(
        "--client-cert",
        type=Path,
        default=None,
        help="PEM certificate to present (a server that requires client certificates) "
        "[env YGGDRASIL_CLIENT_CERT]",
    )
    add(
        "--client-key",
        type=Path,
        default=None,
        help="PEM key of --client-cert [env YGGDRASIL_CLIENT_KEY]",
    )


def tls_from_args(args: Any) -> ClientTls | None:
    """The TLS the arguments of :func:`add_tls_arguments` ask for; the environment
    (:func:`default_tls`) fills in what they leave out."""
    env = default_tls()
    ca = getattr(args, "ca_file", None) or (env.ca_file if env else None)
    cert = getattr(args, "client_cert", None) or (env.cert_file if env else None)
    key = getattr(args, "client_key", None) or (env.key_file if env else None)
    if getattr(args, "tls", None) or ca or cert or env is not None:
        return ClientTls(ca, cert, key)
    return None


def connection_hint(error: grpc.aio.AioRpcError | grpc.RpcError, tls: bool) -> str:
    """What a failed connection most likely means, in words ("" when nothing specific).

    gRPC reports a client that speaks plaintext to a TLS port (or the reverse, or one whose
    CA does not sign the server's certificate) as UNAVAILABLE with a low-level message such as
    "Socket closed"; this names the likely cause and the flag that fixes it."""
    if error.code() != grpc.StatusCode.UNAVAILABLE:
        return ""
    details = error.details() or ""
    if "CERTIFICATE_VERIFY_FAILED" in details:
        return (
            "the server's TLS certificate is not signed by a CA this client trusts: give the "
            "server's CA with --ca-file (or $YGGDRASIL_CA_FILE)"
        )
    if "WRONG_VERSION_NUMBER" in details or "wrong version number" in details.lower():
        return "the server does not speak TLS on this port: connect without --tls"
    if "Ssl handshake" in details or "Tls handshake" in details or "Handshake" in details:
        return f"the TLS handshake failed: {details}"
    closed = any(
        text in details
        for text in ("Socket closed", "Connection reset", "connection reset", "EOF", "GOAWAY")
    )
    if closed and not tls:
        return (
            "the server closed the connection at once: it may expect TLS (connect with "
            "--tls, and --ca-file for a private CA)"
        )
    if closed and tls:
        return (
            "the server closed the connection during the TLS handshake: it may require a "
            "client certificate (--client-cert, --client-key)"
        )
    return ""


def default_token_file() -> Path:
    """``$YGGDRASIL_TOKEN_FILE`` or ``~/.yggdrasil/tokens.json``."""
    env = os.environ.get("YGGDRASIL_TOKEN_FILE", "").strip()
    return Path(env) if env else Path.home() / ".yggdrasil" / "tokens.json"


# Seconds between keepalive pings while a call is open.
KEEPALIVE_S = 20.0


def channel_options(keepalive_s: float = KEEPALIVE_S) -> list[tuple[str, int]]:
    """Channel arguments of every client here: keepalive pings while a call is open.

    A WatchGame stream sends nothing while nobody decides. If the server's machine vanishes
    without closing the connection (a crash of the host, a dropped network path), nothing
    would ever fail the stream and the client would wait for the kernel's TCP timeout, hours.
    With pings, an unanswered one fails the call (UNAVAILABLE) within ``keepalive_s`` plus
    half that, and the client reconnects. The server accepts pings once a second or slower.
    """
    ping_ms = max(1000, int(keepalive_s * 1000))
    answer_ms = max(1000, ping_ms // 2)
    return [
        ("grpc.keepalive_time_ms", ping_ms),
        # Both: with gRPC 1.85 the keepalive timeout alone let an unanswered ping wait
        # (measured on the server: still open after 40 s); the ping timeout ends it.
        ("grpc.keepalive_timeout_ms", answer_ms),
        ("grpc.http2.ping_timeout_ms", answer_ms),
        ("grpc.keepalive_permit_without_calls", 0),
        ("grpc.http2.max_pings_without_data", 0),
    ]


class _BearerKey:
    """Sends ``authorization: Bearer <key>`` with every call of a channel."""

    def __init__(self, api_key: str) -> None:
        self._pair = ("authorization", f"Bearer {api_key}")

    def _details(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()))
        metadata.add(*self._pair)
        return grpc.aio.ClientCallDetails(
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            details.wait_for_ready,
        )


# One class per kind of call: grpc.aio files an interceptor under the first kind it is.
class _UnaryUnaryKey(_BearerKey, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


class _UnaryStreamKey(_BearerKey, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


class _StreamUnaryKey(_BearerKey, grpc.aio.StreamUnaryClientInterceptor):
    async def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(self._details(details), requests)


class _StreamStreamKey(_BearerKey, grpc.aio.StreamStreamClientInterceptor):
    async def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(self._details(details), requests)


def key_interceptors(api_key: str | None) -> list[grpc.aio.ClientInterceptor]:
    """Interceptors that send ``api_key`` with every call (none for no key)."""
    if not api_key:
        return []
    kinds = (_UnaryUnaryKey, _UnaryStreamKey, _StreamUnaryKey, _StreamStreamKey)
    return [kind(api_key) for kind in kinds]


# Sent with every call about a game: a cluster's proxy (Envoy) hashes it to pick the node
# that most likely owns the game (docs/cluster.md); a single server ignores it.
GAME_ID_HEADER = "x-game-id"


def _with_game_id(details: grpc.aio.ClientCallDetails, request: Any) -> grpc.aio.ClientCallDetails:
    game_id = getattr(request, "game_id", "")
    if not game_id:
        return details
    metadata = grpc.aio.Metadata(*(details.metadata or ()))
    if not metadata.get_all(GAME_ID_HEADER):
        metadata.add(GAME_ID_HEADER, game_id)
    return grpc.aio.ClientCallDetails(
        details.method, details.timeout, metadata, details.credentials, details.wait_for_ready
    )


class _UnaryGameId(grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_game_id(details, request), request)


class _StreamGameId(grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_game_id(details, request), request)


def game_id_interceptors() -> list[grpc.aio.ClientInterceptor]:
    """Client interceptors that add ``x-game-id: <request.game_id>`` to every unary and
    server-streaming call whose request names a game. (One object per kind: a channel files
    each interceptor under the first kind it is an instance of.)"""
    return [_UnaryGameId(), _StreamGameId()]


# Unary calls that change nothing, or nothing twice: sent again after a RETRYABLE end.
_READS = frozenset(
    f"/yggdrasil.v1.GameService/{m}"
    for m in ("GetView", "GetResult", "GetReplay", "ListGames", "GetCatalog")
)
_SUBMIT = "/yggdrasil.v1.GameService/SubmitAction"
_JOIN = "/yggdrasil.v1.GameService/JoinGame"


def _safe_to_resend(method: str, request: Any, error: grpc.aio.AioRpcError) -> bool:
    """Whether a unary call that ended with ``error`` may be sent again as it is: a refused
    stream or a failed connection always (it never reached the server); a RETRYABLE end for a
    read, a decision with its idempotency key (answered once) or a join with its own token
    (the same seat back). Never CreateGame or AbortGame after they may have been served."""
    if misconfigured(error):
        return False
    if never_sent(error):
        return True
    if error.code() not in RETRYABLE:
        return False
    if method in _READS:
        return True
    if method == _SUBMIT:
        return bool(getattr(request, "idempotency_key", ""))
    if method == _JOIN:
        return bool(getattr(request, "seat_token", ""))
    return False


class _Resending(grpc.aio.UnaryUnaryClientInterceptor):
    """Sends a unary call again, with growing pauses for up to ``patience_s``, while it ends
    in a way that is safe to resend (``_safe_to_resend``); else its end is the caller's."""

    def __init__(self, patience_s: float) -> None:
        self.patience_s = patience_s
        # Whether a server has answered a call on this channel yet. Before it has, a
        # connection closed at once is a plaintext client at a TLS port (or the reverse),
        # not a node dying under a game: that end goes to the caller with its hint at once.
        self.answered = False

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        method = details.method.decode() if isinstance(details.method, bytes) else details.method
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.patience_s
        attempt = 0
        while True:
            call = await continuation(details, request)
            try:
                await call
                self.answered = True
                return call
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRYABLE:
                    self.answered = True
                first_contact = not self.answered and connection_hint(error, tls=False) != ""
                if (
                    first_contact
                    or not _safe_to_resend(method, request, error)
                    or loop.time() >= give_up
                ):
                    return call  # the caller reads its end
            except asyncio.CancelledError:
                raise
            attempt += 1
            await asyncio.sleep(min(MAX_BACKOFF_S, 0.05 * 2**attempt) * (0.5 + random.random()))


def resending_interceptors(patience_s: float = PATIENCE_S) -> list[grpc.aio.ClientInterceptor]:
    """The interceptor that resends unary calls after a transient end when that is safe (see
    ``_safe_to_resend``), for ``patience_s`` at most: every client of ours rides out a node
    that dies behind its proxy."""
    return [_Resending(patience_s)] if patience_s > 0 else []


def open_channel(
    target: str,
    keepalive_s: float = KEEPALIVE_S,
    *,
    api_key: str | None = None,
    options: Sequence[tuple[str, Any]] = (),
    patience_s: float = PATIENCE_S,
    tls: ClientTls | None = None,
) -> grpc.aio.Channel:
    """A channel to ``target`` with keepalive pings, sending ``api_key`` (if any) as
    ``authorization: Bearer <key>`` with every call, and ``x-game-id`` with every call about
    a game; a unary call that ends in a way safe to resend is sent again for ``patience_s``
    (0: never); over TLS with ``tls`` (plaintext without: for loopback and private networks
    only, since the API key and seat tokens are bearer secrets)."""
    interceptors = [
        *resending_interceptors(patience_s),
        *game_id_interceptors(),
        *key_interceptors(api_key),
    ]
    if tls is None:
        return grpc.aio.insecure_channel(
            target, options=[*options, *channel_options(keepalive_s)], interceptors=interceptors
        )
    return grpc.aio.secure_channel(
        target,
        tls.credentials(),
        options=[*options, *tls.options(), *channel_options(keepalive_s)],
        interceptors=interceptors,
    )


def stub_for(channel: grpc.aio.Channel) -> GameServiceAsyncStub:
    return game_service_pb2_grpc.GameServiceStub(channel)


# Calls (unary or streams) one pooled channel carries at once. A server lets one connection
# carry so many (its --max-streams-per-connection, 256 by default) and refuses the streams a
# fresh connection opens past that before it has heard the server's limit (RST_STREAM
# REFUSED_STREAM, seen as UNAVAILABLE): 1,000 CreateGame calls at once on one channel failed
# so. Staying well under the default keeps a client clear of that; a refusal is still retried.
MAX_CALLS_PER_CHANNEL = 100


class ChannelSlot:
    """One call's place on a pooled channel; :meth:`release` once it ends (idempotent)."""

    __slots__ = ("_pooled", "stub")

    def __init__(self, pooled: _Pooled) -> None:
        self._pooled: _Pooled | None = pooled
        self.stub: GameServiceAsyncStub = pooled.stub

    def release(self) -> None:
        pooled, self._pooled = self._pooled, None
        if pooled is not None:
            pooled.calls -= 1


@dataclass(eq=False)
class _Pooled:
    channel: grpc.aio.Channel
    stub: GameServiceAsyncStub
    calls: int = 0


class ChannelPool:
    """Channels to one server, each its own connection, each carrying at most ``per_channel``
    calls at once (see MAX_CALLS_PER_CHANNEL): a client that runs many games at once (the
    tournament runner) takes a slot for each call or stream, on the least busy channel, and a
    new channel opens when every one is full. Channels reconnect by themselves."""

    def __init__(
        self,
        target: str,
        *,
        api_key: str | None = None,
        per_channel: int = MAX_CALLS_PER_CHANNEL,
        keepalive_s: float = KEEPALIVE_S,
        options: Sequence[tuple[str, Any]] = (),
        tls: ClientTls | None = None,
    ) -> None:
        if per_channel < 1:
            raise ValueError("per_channel must be at least 1")
        self.target = target
        self.api_key = api_key
        self.per_channel = per_channel
        self.keepalive_s = keepalive_s
        self.tls = tls  # every channel's TLS (None: plaintext)
        # Its own subchannel: without it grpc shares one connection between equal channels.
        self.options = [("grpc.use_local_subchannel_pool", 1), *options]
        self._channels: list[_Pooled] = []

    def take(self) -> ChannelSlot:
        """A slot on the least busy channel with room (a new channel if none has)."""
        room = [p for p in self._channels if p.calls < self.per_channel]
        if room:
            pooled = min(room, key=lambda p: p.calls)
        else:
            channel = open_channel(
                self.target,
                self.keepalive_s,
                api_key=self.api_key,
                options=self.options,
                tls=self.tls,
            )
            pooled = _Pooled(channel, stub_for(channel))
            self._channels.append(pooled)
        pooled.calls += 1
        return ChannelSlot(pooled)

    @contextlib.asynccontextmanager
    async def call(self) -> AsyncIterator[GameServiceAsyncStub]:
        """A stub for one call (or stream), its slot held while the block runs."""
        slot = self.take()
        try:
            yield slot.stub
        finally:
            slot.release()

    @property
    def channels(self) -> int:
        return len(self._channels)

    async def close(self) -> None:
        pooled, self._channels = self._channels, []
        await asyncio.gather(*(p.channel.close() for p in pooled), return_exceptions=True)


def never_sent(error: grpc.aio.AioRpcError) -> bool:
    """Whether a failed call certainly never reached the server's handler, so that even a
    call that is not idempotent (CreateGame) may be sent again: a stream the server refused
    (RST_STREAM REFUSED_STREAM, error code 7: a fresh connection opened more calls than the
    server lets one carry) or a connection that could not be made."""
    if error.code() != grpc.StatusCode.UNAVAILABLE:
        return False
    details = (error.details() or "").lower()
    return any(
        mark in details
        for mark in ("error code 7", "refused_stream", "failed to connect", "connection refused")
    )


def misconfigured(error: grpc.aio.AioRpcError) -> bool:
    """Whether a call failed on a TLS mismatch that no resend mends: the server's certificate
    signed by a CA this client does not trust, TLS spoken to a plaintext port, a handshake the
    server refused. Resending would only make the person wait out the whole patience before
    reading ``connection_hint``'s advice, which is the same after two minutes."""
    if error.code() != grpc.StatusCode.UNAVAILABLE:
        return False
    details = error.details() or ""
    return any(
        mark in details
        for mark in (
            "CERTIFICATE_VERIFY_FAILED",
            "WRONG_VERSION_NUMBER",
            "wrong version number",
            "andshake",
        )
    )


def new_key() -> str:
    """A fresh idempotency key."""
    return uuid.uuid4().hex


def version_mismatch(error: grpc.aio.AioRpcError) -> gp.VersionMismatch | None:
    """The VersionMismatch detail of a FAILED_PRECONDITION from SubmitAction, if any."""
    for key, value in error.trailing_metadata() or ():
        if key == _DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                mismatch = gp.VersionMismatch()
                if detail.Unpack(mismatch):
                    return mismatch
    return None


def retry_delay(error: grpc.aio.AioRpcError) -> float | None:
    """Seconds to wait before trying again, from the google.rpc ``RetryInfo`` detail the
    server adds to a quota refusal (RESOURCE_EXHAUSTED of a rate: the bucket refills), or None
    when it gave none (a limit that only frees up when something ends: retrying will not help
    by itself)."""
    if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None
    for key, value in error.trailing_metadata() or ():
        if key == _DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.RetryInfo()
                if detail.Unpack(info):
                    return float(info.retry_delay.ToNanoseconds()) / 1e9
    return None


def error_text(error: grpc.aio.AioRpcError) -> str:
    """``NOT_FOUND: unknown game 'x'`` — the code and the server's message."""
    code = error.code()
    name = code.name if code is not None else "UNKNOWN"
    return f"{name}: {error.details() or ''}".rstrip(": ")


async def submit(
    stub: GameServiceAsyncStub,
    request: gs.SubmitActionRequest,
    *,
    patience_s: float = PATIENCE_S,
    backoff_s: float = 0.2,
) -> gs.SubmitActionResponse:
    """SubmitAction, retried after a RETRYABLE end with the same idempotency key (so a request
    the server already applied is answered, not applied twice), for ``patience_s`` at most."""
    if not request.idempotency_key:
        request.idempotency_key = new_key()
    loop = asyncio.get_running_loop()
    give_up = loop.time() + patience_s
    attempt = 0
    while True:
        try:
            response: gs.SubmitActionResponse = await stub.SubmitAction(request)
            return response
        except grpc.aio.AioRpcError as error:
            if error.code() not in RETRYABLE or misconfigured(error) or loop.time() >= give_up:
                raise
        await asyncio.sleep(min(MAX_BACKOFF_S, backoff_s * 2**attempt))
        attempt += 1


async def follow(
    stub: GameServiceAsyncStub,
    game_id: str,
    *,
    seat_token: str | None = None,
    from_sequence: int = 0,
    include_views: bool = True,
    reconnects: int | None = None,
    backoff_s: float = 0.3,
    patience_s: float = PATIENCE_S,
) -> AsyncIterator[gs.WatchGameResponse]:
    """WatchGame, resumed from the last sequence seen after a stream ended RESUMABLE (a node
    that died behind a proxy ends it INTERNAL) or before the game did. Ends after the
    GameEnded event; gives up (raises, or returns after a clean end) once streams have failed
    for ``patience_s`` in a row (none delivered a message), or after ``reconnects`` failures
    in a row if given. Each event is
    yielded once: a resumed stream's first message is a view (at or before the last event
    yielded), then only events not yielded yet."""
    next_sequence = from_sequence
    failures = 0
    loop = asyncio.get_running_loop()
    failing_since = 0.0  # when the streams began to fail in a row (a quiet game is no failure)

    def used_up() -> bool:
        nonlocal failing_since
        if reconnects is not None and failures > reconnects:
            return True
        if failures == 1:
            failing_since = loop.time()
        return loop.time() - failing_since > patience_s

    while True:
        request = gs.WatchGameRequest(
            game_id=game_id, from_sequence=next_sequence, include_views=include_views
        )
        if seat_token is not None:
            request.seat_token = seat_token
        else:
            request.spectator.SetInParent()
        call = stub.WatchGame(request)
        try:
            async for message in call:
                failures = 0
                if message.HasField("event") and message.sequence < next_sequence:
                    # Resumed inside a decision's events: the stream starts at the view before
                    # that decision and sends its events again; these were yielded already.
                    continue
                yield message
                next_sequence = max(next_sequence, message.sequence + 1)
                if message.event.WhichOneof("payload") in _LAST_EVENTS:
                    return
                if (
                    message.HasField("view")
                    and message.view.status
                    in (
                        gp.GAME_STATUS_FINISHED,
                        gp.GAME_STATUS_ABORTED,
                    )
                    and not message.HasField("event")
                ):
                    return
        except grpc.aio.AioRpcError as error:
            if error.code() not in RESUMABLE or misconfigured(error):
                raise
            failures += 1
            if used_up():
                raise
        else:
            failures += 1
            if used_up():
                return
        finally:
            call.cancel()
        await asyncio.sleep(min(MAX_BACKOFF_S, backoff_s * failures) * (0.5 + random.random()))


# ============================================================================================
# Seat tokens
# ============================================================================================


@dataclass(frozen=True)
class SavedSeat:
    game_id: str
    seat: int
    token: str
    server: str
    name: str
    # "player" (joined by `join` or `play`) or "bot": `play` without --seat only picks players.
    role: str = "player"


class TokenStore:
    """Seat tokens saved by ``yggdrasil join``, by game id and seat, and the creator tokens of
    the games ``yggdrasil create`` made (what ``yggdrasil abort`` proves its creator with), in
    a JSON file readable by its owner only::

        {"games": {"<game_id>": {"<seat>": {"token": "...", "server": "...", "name": "...",
                                             "role": "player" | "bot"}}},
         "created": {"<game_id>": "<creator token>"}}
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {"games": {}}
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read the token file {self.path}: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("games"), dict):
            raise ValueError(f"the token file {self.path} is not in the expected format")
        return data

    def seats(self, game_id: str) -> list[SavedSeat]:
        entries = self._load()["games"].get(game_id, {})
        out = []
        for seat, entry in entries.items():
            if isinstance(entry, dict) and isinstance(entry.get("token"), str):
                out.append(
                    SavedSeat(
                        game_id,
                        int(seat),
                        entry["token"],
                        str(entry.get("server", "")),
                        str(entry.get("name", "")),
                        str(entry.get("role", "player")),
                    )
                )
        return sorted(out, key=lambda s: s.seat)

    def lookup(self, game_id: str, seat: int | None, role: str = "player") -> SavedSeat | None:
        """The saved seat: the given one, or else the only one of ``role`` saved for the game."""
        seats = self.seats(game_id)
        if seat is not None:
            return next((s for s in seats if s.seat == seat), None)
        seats = [s for s in seats if s.role == role]
        if len(seats) > 1:
            listed = ", ".join(str(s.seat) for s in seats)
            raise ValueError(f"several seats of game {game_id} are saved ({listed}): pick --seat")
        return seats[0] if seats else None

    def creator_token(self, game_id: str) -> str:
        """The creator token saved for ``game_id`` ("" if none)."""
        created = self._load().get("created", {})
        token = created.get(game_id, "") if isinstance(created, dict) else ""
        return token if isinstance(token, str) else ""

    def save_creator_token(self, game_id: str, token: str) -> None:
        """Keep the creator token CreateGame gave for ``game_id``."""
        self._update(lambda data: data.setdefault("created", {}).__setitem__(game_id, token))

    def save(self, saved: SavedSeat) -> None:
        """Add or replace one seat's entry. Several ``yggdrasil bot`` processes started at once
        save into the same file: the read-modify-write holds an exclusive lock on a file
        beside it (so no entry is lost), and each writer writes its own temporary file before
        the atomic rename (so none renames another's half-written one away)."""
        entry = {"token": saved.token, "server": saved.server, "name": saved.name,
                 "role": saved.role}  # fmt: skip
        self._update(
            lambda data: data.setdefault("games", {}).setdefault(saved.game_id, {}).__setitem__(
                str(saved.seat), entry
            )
        )

    def _update(self, change: Callable[[dict[str, Any]], object]) -> None:
        """Read, ``change`` and write the file, under the lock (see :meth:`save`)."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with self._locked():
            data = self._load()
            change(data)
            fd, tmp = tempfile.mkstemp(  # mode 0o600
                dir=self.path.parent, prefix=self.path.name + ".", suffix=".tmp"
            )
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(data, handle, indent=2, sort_keys=True)
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """An exclusive advisory lock on ``<file>.lock`` (POSIX; where ``fcntl`` is missing,
        as on Windows, saves are not serialized)."""
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock
