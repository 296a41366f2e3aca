"""Shared plumbing for grpc.aio server interceptors that observe every RPC.

A grpc.aio server interceptor only sees the method name; the request is not
deserialized yet.  To see the request, the outcome and the latency we have to
replace the method handler with one whose behaviour wraps the original one.
:class:`WrappingInterceptor` does that once per method (the wrapped handler
is cached while the inner handler object stays the same);
:class:`ObservingInterceptor` builds on it and calls two hooks per RPC:
``_begin`` before the behaviour runs and ``_end`` with the final status code.

Status codes in grpc.aio (checked on grpcio 1.85):

* ``context.code()`` returns ``None`` unless the handler called
  ``set_code``/``abort``; a normal return therefore means ``OK``.
* ``context.abort(...)`` raises ``grpc.aio.AbortError``; ``context.code()``
  then returns the aborted code.
* any other exception is sent as ``UNKNOWN`` unless the handler set a code
  first (then that code is sent), so we mirror that.
* client cancellation and deadline expiry cancel the handler task
  (``asyncio.CancelledError``); ``context.time_remaining()`` tells them apart.

Only ``async`` unary-unary and unary-stream handlers, and bidirectional
handlers written as coroutines (PlaySession: they read and write through the
context; ``request`` is then the request iterator), are wrapped; anything
else (sync behaviours, generator-style client-streaming methods such as
reflection) is passed through untouched.
"""

from __future__ import annotations

import asyncio
import inspect
from abc import abstractmethod
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

import grpc
import grpc.aio

__all__ = [
    "MethodInfo",
    "ObservingInterceptor",
    "WrappingInterceptor",
    "short_method_name",
    "status_after_exception",
    "status_after_return",
    "write_all",
]

_State = TypeVar("_State")

if TYPE_CHECKING:
    # The grpc classes are only generic in the typeshed stubs, not at run time.
    AioContext: TypeAlias = grpc.aio.ServicerContext[Any, Any]
    Handler: TypeAlias = grpc.RpcMethodHandler[Any, Any]
    Continuation: TypeAlias = Callable[
        [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
    ]

# Upper bound on cached wrapped handlers, in case a catch-all generic handler
# serves arbitrary (client-chosen) method names.
_MAX_CACHED_METHODS = 1024


def short_method_name(full_method: str) -> str:
    """``/yggdrasil.v1.Yggdrasil/SubmitAction`` -> ``SubmitAction``."""
    return full_method.rpartition("/")[2] or full_method


class MethodInfo:
    """What an interceptor knows about a method before any call."""

    __slots__ = ("full", "short", "streaming")

    def __init__(self, full: str, streaming: bool) -> None:
        self.full = full
        self.short = short_method_name(full)
        self.streaming = streaming


def status_after_return(context: AioContext) -> grpc.StatusCode:
    """Status of an RPC whose behaviour returned normally."""
    code: grpc.StatusCode | None = context.code()
    return grpc.StatusCode.OK if code is None else code


def status_after_exception(context: AioContext, exc: BaseException) -> grpc.StatusCode:
    """Status of an RPC whose behaviour raised ``exc``."""
    if isinstance(exc, asyncio.CancelledError):
        remaining = context.time_remaining()
        if remaining is not None and remaining <= 0:
            return grpc.StatusCode.DEADLINE_EXCEEDED
        return grpc.StatusCode.CANCELLED
    code: grpc.StatusCode | None = context.code()
    if code is None or code is grpc.StatusCode.OK:
        return grpc.StatusCode.UNKNOWN
    return code


async def write_all(responses: Any, context: AioContext) -> None:
    """Send every message of an async-generator behaviour with ``context.write``, and close
    the generator whatever happens (so its ``finally`` runs in the RPC's own task)."""
    try:
        async for response in responses:
            await context.write(response)
    finally:
        await responses.aclose()


class WrappingInterceptor(grpc.aio.ServerInterceptor):
    """Base class: replaces each async unary-unary and unary-stream behaviour with one that
    wraps it (built once per method, see :meth:`_wrap_coroutine` and :meth:`_wrap_async_gen`)."""

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    @abstractmethod
    def _wrap_coroutine(
        self, info: MethodInfo, inner: Callable[[Any, AioContext], Awaitable[Any]]
    ) -> Callable[[Any, AioContext], Awaitable[Any]]:
        """The behaviour that replaces a coroutine behaviour (unary-unary, or unary-stream or
        bidirectional using context.write())."""

    @abstractmethod
    def _wrap_async_gen(
        self, info: MethodInfo, inner: Callable[[Any, AioContext], Any]
    ) -> Callable[[Any, AioContext], Awaitable[None]]:
        """The behaviour that replaces an async-generator (unary-stream) behaviour."""

    async def intercept_service(
        self,
        continuation: Continuation,
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(method, handler)
        if cached is not None or len(self._wrapped) < _MAX_CACHED_METHODS:
            self._wrapped[method] = (handler, wrapped)
        return wrapped

    def _wrap(self, method: str, handler: Handler) -> Handler:
        if handler.request_streaming:
            bidi_inner: Any = handler.stream_stream
            if not handler.response_streaming or not inspect.iscoroutinefunction(bidi_inner):
                return handler
            return grpc.stream_stream_rpc_method_handler(
                self._wrap_coroutine(MethodInfo(method, True), bidi_inner),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.response_streaming:
            stream_inner: Any = handler.unary_stream
            if inspect.isasyncgenfunction(stream_inner):
                behaviour = self._wrap_async_gen(MethodInfo(method, True), stream_inner)
            elif inspect.iscoroutinefunction(stream_inner):
                behaviour = self._wrap_coroutine(MethodInfo(method, True), stream_inner)
            else:
                return handler
            return grpc.unary_stream_rpc_method_handler(
                behaviour,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        unary_inner: Any = handler.unary_unary
        if not inspect.iscoroutinefunction(unary_inner):
            return handler
        return grpc.unary_unary_rpc_method_handler(
            self._wrap_coroutine(MethodInfo(method, False), unary_inner),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


class ObservingInterceptor(WrappingInterceptor, Generic[_State]):
    """Base class: wraps handlers and calls ``_begin``/``_end`` per RPC."""

    @abstractmethod
    def _begin(self, method: MethodInfo, request: Any, context: AioContext) -> _State:
        """Called in the RPC's task before the behaviour runs."""

    @abstractmethod
    def _end(self, state: _State, code: grpc.StatusCode, context: AioContext) -> None:
        """Called in the RPC's task once the behaviour has finished."""

    def _wrap_coroutine(
        self, info: MethodInfo, inner: Callable[[Any, AioContext], Awaitable[Any]]
    ) -> Callable[[Any, AioContext], Awaitable[Any]]:
        # Unary-unary behaviours, and unary-stream ones that use context.write().
        begin = self._begin
        end = self._end

        async def behaviour(request: Any, context: AioContext) -> Any:
            state = begin(info, request, context)
            try:
                response = await inner(request, context)
            except BaseException as exc:
                end(state, status_after_exception(context, exc), context)
                raise
            end(state, status_after_return(context), context)
            return response

        return behaviour

    def _wrap_async_gen(
        self, info: MethodInfo, inner: Callable[[Any, AioContext], Any]
    ) -> Callable[[Any, AioContext], Awaitable[None]]:
        # An async-generator behaviour is driven here with context.write()
        # rather than re-exposed as a generator: that way the generator is
        # closed, and _end runs, inside the RPC's own task even when the
        # client cancels while a message is being sent.
        begin = self._begin
        end = self._end

        async def behaviour(request: Any, context: AioContext) -> None:
            state = begin(info, request, context)
            try:
                await write_all(inner(request, context), context)
            except BaseException as exc:
                end(state, status_after_exception(context, exc), context)
                raise
            end(state, status_after_return(context), context)

        return behaviour
