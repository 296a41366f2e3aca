"""A server fault (an exception a handler did not expect) answers INTERNAL, never UNKNOWN.

Without this, grpc.aio answers an uncaught exception with UNKNOWN and the exception's text
("Unexpected <class 'IndexError'>: tuple index out of range"): the client learns about the
server's code and cannot tell a bug from a refusal. With it, the client gets INTERNAL and the
request id of the access log line, and the log gets one ``handler_fault`` line at error level
with the exception's type and where it was raised. The exception's message is left out of the
log on purpose: it may quote any value, and no log line may carry a seat's secrets.

Refusals (``context.abort``) and cancellations pass through unchanged. A refusal that races
its client's cancellation (1,024 CreateGame calls against a full server, the client cancelling
the rest on its first RESOURCE_EXHAUSTED) fails inside grpc, which cannot send a status on a
call that has ended: that is the client's doing, not a bug, so it is neither logged nor
answered as a fault but ends as the cancellation it is (counted CANCELLED). The barrier is
the innermost interceptor, so the metrics and the access log count the INTERNAL it answers.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import grpc
import grpc.aio
import structlog
from grpc._cython import cygrpc  # type: ignore[attr-defined]  # (no stubs)

from server.ops.interceptors import MethodInfo, WrappingInterceptor, write_all

if TYPE_CHECKING:
    from structlog.typing import FilteringBoundLogger

    from server.ops.interceptors import AioContext

__all__ = ["FaultBarrierInterceptor", "client_left", "fault_frames"]

_PASS_THROUGH = (asyncio.CancelledError, grpc.aio.AbortError)
# What grpc raises when a handler sends a status (context.abort) on a call that has ended.
_SEND_ON_ENDED = (cygrpc.ExecuteBatchError, cygrpc.UsageError)


def client_left(context: AioContext, exc: Exception) -> bool:
    """Whether ``exc`` is grpc refusing to send a status because the call ended (the client
    cancelled it, or its deadline passed) before the handler's answer."""
    return isinstance(exc, _SEND_ON_ENDED) and context.done()
_ROOT = Path(__file__).resolve().parents[3]


def fault_frames(exc: BaseException, limit: int = 8) -> list[str]:
    """The innermost ``limit`` frames of ``exc``'s traceback as ``path:line in function``
    (paths relative to the repository where they are inside it)."""
    frames = traceback.extract_tb(exc.__traceback__)[-limit:]
    out = []
    for frame in frames:
        path = Path(frame.filename)
        try:
            shown = str(path.relative_to(_ROOT))
        except ValueError:
            shown = path.name
        out.append(f"{shown}:{frame.lineno} in {frame.name}")
    return out


class FaultBarrierInterceptor(WrappingInterceptor):
    """Turns a handler's unexpected exception into INTERNAL, logged once."""

    def __init__(self, logger: FilteringBoundLogger | None = None) -> None:
        super().__init__()
        self._logger: FilteringBoundLogger = (
            structlog.get_logger("yggdrasil.faults") if logger is None else logger
        )

    async def _fail(self, info: MethodInfo, exc: Exception, context: AioContext) -> NoReturn:
        request_id = structlog.contextvars.get_contextvars().get("request_id")
        self._logger.error(
            "handler_fault",
            error_type=type(exc).__name__,
            frames=fault_frames(exc),
        )
        where = f" (request {request_id})" if request_id else ""
        await context.abort(
            grpc.StatusCode.INTERNAL,
            f"internal error in {info.short}{where}; the server logged it",
        )
        raise AssertionError("context.abort returned")  # pragma: no cover

    def _wrap_coroutine(
        self, info: MethodInfo, inner: Callable[[Any, AioContext], Awaitable[Any]]
    ) -> Callable[[Any, AioContext], Awaitable[Any]]:
        fail = self._fail

        async def behaviour(request: Any, context: AioContext) -> Any:
            try:
                return await inner(request, context)
            except _PASS_THROUGH:
                raise
            except Exception as exc:
                if client_left(context, exc):
                    raise asyncio.CancelledError() from None
                await fail(info, exc, context)

        return behaviour

    def _wrap_async_gen(
        self, info: MethodInfo, inner: Callable[[Any, AioContext], Any]
    ) -> Callable[[Any, AioContext], Awaitable[None]]:
        fail = self._fail

        async def behaviour(request: Any, context: AioContext) -> None:
            try:
                await write_all(inner(request, context), context)
            except _PASS_THROUGH:
                raise
            except Exception as exc:
                if client_left(context, exc):
                    raise asyncio.CancelledError() from None
                await fail(info, exc, context)

        return behaviour
