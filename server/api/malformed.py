"""Request bytes that do not parse are INVALID_ARGUMENT, logged once as a warning.

Without this, grpc.aio answers a request it cannot deserialize with UNKNOWN and the parser's
text ("Unexpected <class 'DecodeError'>: Error parsing message ...") and logs a traceback; a
malformed message on a PlaySession stream became an INTERNAL handler fault. Here every
method's request deserializer is replaced by one that never raises: a message that does not
parse becomes a :class:`Malformed` marker, and the call ends with INVALID_ARGUMENT ("the
request is not a valid <type> message") and one ``malformed_request`` warning carrying the
request id (bound by the access log), the method and the size, never the bytes.

The interceptor must sit inside the access log (for the request id) and outside the fault
barrier and the cluster's forwarding (they never see a marker).

It also lets a streaming behaviour yield messages it has already serialized (bytes): they go
out as they are (:func:`passthrough_serializer`). WatchGame sends one event to many watchers
that way, serialized once (``server.api.fanout``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NoReturn

import grpc
import grpc.aio
import structlog

from server.ops.interceptors import MethodInfo, WrappingInterceptor, write_all

if TYPE_CHECKING:
    from structlog.typing import FilteringBoundLogger

    from server.ops.interceptors import AioContext, Handler

__all__ = [
    "Malformed",
    "MalformedRequestInterceptor",
    "passthrough_serializer",
    "safe_deserializer",
]


class Malformed:
    """What a request that did not parse is handed to the behaviour as."""

    __slots__ = ("size", "type_name")

    def __init__(self, type_name: str, size: int) -> None:
        self.type_name = type_name
        self.size = size


def _type_name(deserialize: Callable[[bytes], Any]) -> str:
    owner = getattr(deserialize, "__self__", None)
    descriptor = getattr(owner, "DESCRIPTOR", None)
    name = getattr(descriptor, "full_name", None)
    return str(name) if name else "request"


def safe_deserializer(deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any]:
    """``deserialize`` that returns a :class:`Malformed` instead of raising."""
    if deserialize is None:
        return lambda data: data
    type_name = _type_name(deserialize)

    def parse(data: bytes) -> Any:
        try:
            return deserialize(data)
        except Exception:  # DecodeError and anything else the parser raises
            return Malformed(type_name, len(data))

    return parse


def passthrough_serializer(
    serialize: Callable[[Any], bytes] | None,
) -> Callable[[Any], bytes]:
    """``serialize`` for messages, and bytes as they are (already serialized)."""
    if serialize is None:
        return lambda message: message

    def send(message: Any) -> bytes:
        if type(message) is bytes:
            return message
        return serialize(message)

    return send


class _CheckedContext:
    """A servicer context whose ``read()`` refuses a malformed message of a request stream."""

    def __init__(self, context: AioContext, refuse: Callable[[Malformed], Awaitable[NoReturn]]):
        self._context = context
        self._refuse = refuse

    async def read(self) -> Any:
        message = await self._context.read()
        if isinstance(message, Malformed):
            await self._refuse(message)
        return message

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class MalformedRequestInterceptor(WrappingInterceptor):
    """INVALID_ARGUMENT for request bytes that do not parse (see the module doc)."""

    def __init__(self, logger: FilteringBoundLogger | None = None) -> None:
        super().__init__()
        self._logger: FilteringBoundLogger = (
            structlog.get_logger("yggdrasil.requests") if logger is None else logger
        )
        self._request_streams: set[str] = set()

    def _wrap(self, method: str, handler: Handler) -> Handler:
        changes: dict[str, Any] = {
            "request_deserializer": safe_deserializer(handler.request_deserializer)
        }
        if handler.response_streaming:
            changes["response_serializer"] = passthrough_serializer(handler.response_serializer)
        safe = handler._replace(**changes)  # type: ignore[attr-defined]
        if handler.request_streaming:
            self._request_streams.add(method)
        wrapped: Handler = super()._wrap(method, safe)
        if wrapped is safe and handler.request_streaming:
            return handler  # not wrapped (a generator-style stream): left as it was
        return wrapped

    async def _refuse(
        self, info: MethodInfo, malformed: Malformed, context: AioContext
    ) -> NoReturn:
        request_id = structlog.contextvars.get_contextvars().get("request_id")
        self._logger.warning(
            "malformed_request",
            method=info.short,
            message_type=malformed.type_name,
            size=malformed.size,
            request_id=request_id,
        )
        await context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the request is not a valid {malformed.type_name} message ({malformed.size} "
            "bytes that do not parse)",
        )
        raise AssertionError("context.abort returned")  # pragma: no cover

    def _wrap_coroutine(
        self, info: MethodInfo, inner: Callable[[Any, AioContext], Awaitable[Any]]
    ) -> Callable[[Any, AioContext], Awaitable[Any]]:
        refuse = self._refuse
        streaming_requests = info.full in self._request_streams

        async def behaviour(request: Any, context: AioContext) -> Any:
            if isinstance(request, Malformed):
                await refuse(info, request, context)
            if streaming_requests:

                async def refused(malformed: Malformed) -> NoReturn:
                    await refuse(info, malformed, context)

                checked: Any = _CheckedContext(context, refused)
                return await inner(request, checked)
            return await inner(request, context)

        return behaviour

    def _wrap_async_gen(
        self, info: MethodInfo, inner: Callable[[Any, AioContext], Any]
    ) -> Callable[[Any, AioContext], Awaitable[None]]:
        refuse = self._refuse

        async def behaviour(request: Any, context: AioContext) -> None:
            if isinstance(request, Malformed):
                await refuse(info, request, context)
            await write_all(inner(request, context), context)

        return behaviour
