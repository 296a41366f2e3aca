"""Forwarding: a call about a game owned by another live node is relayed to that node.

Envoy hashes the ``x-game-id`` header to a node, but the hash is only a hint: nodes come and
go, and a game stays where it is until its owner dies. So every GameService call whose request
names a game (``game_id``) first asks :meth:`server.cluster.ownership.Ownership.route` where the
game is. Here: the call runs as usual. Elsewhere: this node relays it over an internal channel to
the owner's advertised address, unary calls and server streams alike (messages are relayed as bytes,
never decoded), with the caller's metadata and remaining deadline; errors keep their status
details (such as a VersionMismatch). Only a caller that is itself a node (signed:
``server.cluster.node_auth``) is told the owner, in the trailing metadata
(``x-yggdrasil-owner: <member>@<address>``): an internal address is nothing a client needs.

A relayed call carries ``x-yggdrasil-forwarded`` and this node's signature
(``server.cluster.node_auth``); a node never relays such a call again (if the game moved
meanwhile it answers UNAVAILABLE and the client retries), so no call can loop, and a client
cannot send either without the cluster's secret.

A relaying node is a proxy like Envoy: it appends the address it got the call from to
``x-forwarded-for``, so the owner, which believes a signed node whatever its address, counts an
anonymous caller by its own address, not by the relaying node's
(``server.cluster.client_address``).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import grpc
import grpc.aio

from server.cluster.client_address import FORWARDED_FOR, with_hop
from server.cluster.node_auth import NODE_AUTH_HEADER, ClusterSecrets, calling_node
from server.cluster.ownership import (
    ROUTED_HERE,
    STORE_ERRORS,
    ClusterMetrics,
    Ownership,
    Route,
    store_unavailable,
)
from server.games.refusal import Refusal, abort
from server.ops import tracing
from server.ops.interceptors import short_method_name, write_all
from server.ops.tls import ServerTls

if TYPE_CHECKING:
    from server.ops.interceptors import AioContext, Continuation, Handler

__all__ = ["FORWARDED_HEADER", "OWNER_TRAILER", "ForwardingInterceptor", "relayed_metadata"]

FORWARDED_HEADER = "x-yggdrasil-forwarded"
GAME_ID_HEADER = "x-game-id"  # what the proxy hashes (clients/connection.py sends it)
OWNER_TRAILER = "x-yggdrasil-owner"
# Metadata gRPC sets per hop itself: never copied onto the relayed call.
_PER_HOP = frozenset(
    {"user-agent", "grpc-accept-encoding", "grpc-encoding", "grpc-timeout", "te", "content-type"}
)
_INTERNAL_CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.ping_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 0),
    ("grpc.http2.max_pings_without_data", 0),
]

Metadata = tuple[tuple[str, str | bytes], ...]


class ForwardingInterceptor(grpc.aio.ServerInterceptor):
    """Routes every call of ``services`` that names a game (see the module doc)."""

    def __init__(
        self,
        ownership: Ownership,
        metrics: ClusterMetrics,
        secrets: ClusterSecrets,
        services: Sequence[str] = ("yggdrasil.v1.GameService",),
        *,
        tls: ServerTls | None = None,
    ) -> None:
        self.ownership = ownership
        # A node that serves TLS relays over TLS too, with its certificate as the client's
        # (server.ops.tls); channels made before its files changed are replaced.
        self.tls = tls
        self._tls_generation = -1
        self.metrics = metrics
        self.secrets = secrets  # signs every relayed call
        self._prefixes = tuple(f"/{s}/" for s in services)
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}
        # With tracing on, the client span injects its own trace context.
        self._replaced = frozenset({"traceparent", "tracestate"} if tracing.enabled() else ())

    async def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or not method.startswith(self._prefixes):
            return handler
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(method, handler)
        self._wrapped[method] = (handler, wrapped)
        return wrapped

    def _wrap(self, method: str, handler: Handler) -> Handler:
        if handler.request_streaming and not handler.response_streaming:
            return handler  # none in the API
        serialize = handler.response_serializer

        def serializer(message: Any) -> bytes:
            # A relayed reply is already bytes; a local one is a message.
            if isinstance(message, bytes):
                return message
            assert serialize is not None
            out: bytes = serialize(message)
            return out

        if handler.request_streaming:
            return grpc.stream_stream_rpc_method_handler(
                self._bidi(method, handler.stream_stream),  # type: ignore[arg-type]
                request_deserializer=handler.request_deserializer,
                response_serializer=serializer,
            )
        if handler.response_streaming:
            inner_stream: Any = handler.unary_stream
            return grpc.unary_stream_rpc_method_handler(
                self._streaming(method, inner_stream),
                request_deserializer=handler.request_deserializer,
                response_serializer=serializer,
            )
        return grpc.unary_unary_rpc_method_handler(
            self._unary(method, handler.unary_unary),  # type: ignore[arg-type]
            request_deserializer=handler.request_deserializer,
            response_serializer=serializer,
        )

    async def _route(self, short: str, request: Any, context: AioContext) -> Route | None:
        """None: serve here; else the live owner to relay to."""
        return await self._route_id(short, getattr(request, "game_id", ""), context)

    async def _route_id(self, short: str, game_id: str, context: AioContext) -> Route | None:
        if not game_id:
            return None
        forwarded = hinted = False
        for key, value in context.invocation_metadata() or ():
            if key == FORWARDED_HEADER:
                # (node_auth refused the call already if a client sent it unsigned)
                forwarded = calling_node() is not None
            elif key == GAME_ID_HEADER and value == game_id:
                hinted = True
        if not hinted and not forwarded:
            self.metrics.unhinted_calls_total.labels(method=short).inc()
        try:
            route = await self.ownership.route(game_id, forwarded=forwarded)
        except Refusal as refusal:
            await abort(context, refusal)
        except STORE_ERRORS as exc:
            await abort(context, store_unavailable(exc))
        if route.local:
            ROUTED_HERE.set(True)  # (this call's context only: see ROUTED_HERE)
            return None
        return route

    def _unary(
        self, method: str, inner: Callable[[Any, AioContext], Awaitable[Any]]
    ) -> Callable[[Any, AioContext], Awaitable[Any]]:
        short = short_method_name(method)

        async def behaviour(request: Any, context: AioContext) -> Any:
            route = await self._route(short, request, context)
            if route is None:
                return await inner(request, context)
            assert route.address is not None
            call: grpc.aio.UnaryUnaryCall[bytes, bytes] = self._channel(route.address).unary_unary(
                method
            )(
                request.SerializeToString(),
                metadata=self._metadata(context, method),
                timeout=context.time_remaining(),
            )
            try:
                response = await call
                trailing = await call.trailing_metadata()
            except grpc.aio.AioRpcError as error:
                await self._fail(short, request.game_id, route, error, context)
            self._done(short, grpc.StatusCode.OK, route, trailing, context)
            return response

        return behaviour

    def _streaming(
        self, method: str, inner: Callable[[Any, AioContext], Any]
    ) -> Callable[[Any, AioContext], Awaitable[None]]:
        short = short_method_name(method)
        generator = inspect.isasyncgenfunction(inner)

        async def behaviour(request: Any, context: AioContext) -> None:
            route = await self._route(short, request, context)
            if route is None:
                if generator:
                    await write_all(inner(request, context), context)
                else:
                    await inner(request, context)
                return
            assert route.address is not None
            call: grpc.aio.UnaryStreamCall[bytes, bytes] = self._channel(
                route.address
            ).unary_stream(method)(
                request.SerializeToString(),
                metadata=self._metadata(context, method),
                timeout=context.time_remaining(),
            )
            try:
                async for message in call:
                    await context.write(message)
                trailing = await call.trailing_metadata()
            except grpc.aio.AioRpcError as error:
                await self._fail(short, request.game_id, route, error, context)
            finally:
                call.cancel()
            self._done(short, grpc.StatusCode.OK, route, trailing, context)

        return behaviour

    def _bidi(
        self, method: str, inner: Callable[[Any, AioContext], Any]
    ) -> Callable[[Any, AioContext], Awaitable[None]]:
        """A bidirectional stream (PlaySession): its game is named by the ``x-game-id``
        header (its first message is read by the handler itself); relayed both ways."""
        short = short_method_name(method)

        async def behaviour(requests: Any, context: AioContext) -> None:
            game_id = next(
                (str(v) for k, v in context.invocation_metadata() or () if k == GAME_ID_HEADER),
                "",
            )
            if not game_id:
                self.metrics.unhinted_calls_total.labels(method=short).inc()
            route = await self._route_id(short, game_id, context)
            if route is None:
                result = inner(requests, context)
                if inspect.isasyncgen(result):
                    await write_all(result, context)
                else:
                    await result
                return
            assert route.address is not None
            call: grpc.aio.StreamStreamCall[bytes, bytes] = self._channel(
                route.address
            ).stream_stream(method)(
                metadata=self._metadata(context, method), timeout=context.time_remaining()
            )

            async def pump() -> None:
                while True:
                    message = await context.read()
                    if message is grpc.aio.EOF:
                        await call.done_writing()
                        return
                    await call.write(message.SerializeToString())

            pumping = asyncio.get_running_loop().create_task(pump())
            try:
                async for reply in call:
                    await context.write(reply)
                trailing = await call.trailing_metadata()
            except grpc.aio.AioRpcError as error:
                await self._fail(short, game_id, route, error, context)
            finally:
                pumping.cancel()
                call.cancel()
            self._done(short, grpc.StatusCode.OK, route, trailing, context)

        return behaviour

    def _channel(self, address: str) -> grpc.aio.Channel:
        credentials = None
        if self.tls is not None:
            generation, credentials = self.tls.channel_credentials()
            if generation != self._tls_generation:
                self._retire_channels()
                self._tls_generation = generation
        channel = self._channels.get(address)
        if channel is None:
            options = _INTERNAL_CHANNEL_OPTIONS
            interceptors = tracing.client_interceptors()  # the forwarded call's span
            channel = (
                grpc.aio.insecure_channel(address, options=options, interceptors=interceptors)
                if credentials is None
                else grpc.aio.secure_channel(
                    address, credentials, options=options, interceptors=interceptors
                )
            )
            self._channels[address] = channel
        return channel

    def _retire_channels(self) -> None:
        """Drop the channels made with older TLS files; calls still on them finish first."""
        old, self._channels = self._channels, {}
        for channel in old.values():
            task = asyncio.get_running_loop().create_task(channel.close(grace=30.0))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    def _metadata(self, context: AioContext, method: str) -> Metadata:
        member = self.ownership.member
        return (
            *relayed_metadata(
                context.invocation_metadata() or (), context.peer(), member, self._replaced
            ),
            self.secrets.sign(member, method),
        )

    def _owner(self, route: Route) -> tuple[tuple[str, str], ...]:
        """The owner trailer, for a caller that is a node (diagnostics); none for clients."""
        if calling_node() is None:
            return ()
        return ((OWNER_TRAILER, f"{route.owner}@{route.address}"),)

    def _done(
        self,
        short: str,
        code: grpc.StatusCode,
        route: Route,
        trailing: Any,
        context: AioContext,
    ) -> None:
        self.metrics.forwarded_calls_total.labels(method=short, code=code.name).inc()
        context.set_trailing_metadata((*_pairs(trailing), *self._owner(route)))

    async def _fail(
        self,
        short: str,
        game_id: str,
        route: Route,
        error: grpc.aio.AioRpcError,
        context: AioContext,
    ) -> None:
        code = error.code()
        self.metrics.forwarded_calls_total.labels(method=short, code=code.name).inc()
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
            self.ownership.forget_owner(game_id)  # ask the store again next time
        trailing = (*_pairs(error.trailing_metadata()), *self._owner(route))
        await context.abort(code, error.details() or "", trailing_metadata=trailing)

    async def close(self) -> None:
        channels, self._channels = list(self._channels.values()), {}
        await asyncio.gather(*(c.close() for c in channels), return_exceptions=True)
        for task in list(self._closing):
            task.cancel()


def relayed_metadata(
    metadata: Iterable[tuple[str, str | bytes]],
    peer: str,
    member: str,
    replaced: frozenset[str] = frozenset(),
) -> Metadata:
    """What a relayed call carries (before its signature): the caller's metadata less what
    gRPC sets per hop (and ``replaced``), x-forwarded-for with ``peer`` appended, and the
    relaying ``member``."""
    received = tuple(metadata)
    kept = tuple(
        (key, value)
        for key, value in received
        if key not in _PER_HOP
        and key not in (FORWARDED_HEADER, FORWARDED_FOR, NODE_AUTH_HEADER)
        and key not in replaced
    )
    hop = with_hop(received, peer)
    return (*kept, *((hop,) if hop else ()), (FORWARDED_HEADER, member))


def _pairs(metadata: Any) -> Metadata:
    return tuple((str(k), v) for k, v in (metadata or ()) if k != OWNER_TRAILER)
