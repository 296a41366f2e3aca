"""A handler's unexpected exception answers INTERNAL with the request id, is logged once
without its message, and is counted; refusals and cancellations pass through unchanged."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import grpc
import grpc.aio
import pytest

from server.api.faults import FaultBarrierInterceptor
from server.ops.logs import AccessLogInterceptor
from server.ops.metrics import Metrics, MetricsInterceptor, new_registry
from tests.server.serving import serving
from tests.waiting import until

Lines = Callable[[], list[dict[str, Any]]]
SERVICE = "test.Faults"
SECRET = "hand-of-seat-2-SHOULD-NOT-APPEAR"
Context = grpc.aio.ServicerContext[Any, Any]


async def _broken(request: bytes, context: Context) -> bytes:
    raise IndexError(SECRET)


async def _refused(request: bytes, context: Context) -> bytes:
    await context.abort(grpc.StatusCode.NOT_FOUND, "no such game")
    raise AssertionError("unreachable")


# Set once the late refusal has been sent (or failed to be).
REFUSED_LATE = asyncio.Event()


async def _late_refusal(request: bytes, context: Context) -> bytes:
    """A refusal that comes after the client gave up (issue 26, point 9: a CreateGame refused
    RESOURCE_EXHAUSTED while its client cancelled it): the call has ended already."""
    try:
        while not context.done():
            await asyncio.sleep(0.01)
    except asyncio.CancelledError:
        pass  # the refusal below races the client's cancellation
    try:
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "the server is full")
    finally:
        REFUSED_LATE.set()
    raise AssertionError("unreachable")


async def _fine(request: bytes, context: Context) -> bytes:
    return b"ok:" + request


async def _broken_stream(request: bytes, context: Context) -> AsyncIterator[bytes]:
    yield b"first"
    raise KeyError(SECRET)


async def _endless(request: bytes, context: Context) -> AsyncIterator[bytes]:
    while True:
        yield b"tick"
        await asyncio.sleep(0.01)


def _handlers() -> grpc.GenericRpcHandler:
    unary = {"Broken": _broken, "Refused": _refused, "Fine": _fine, "LateRefusal": _late_refusal}
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
        name: grpc.unary_unary_rpc_method_handler(fn) for name, fn in unary.items()
    }
    handlers["BrokenStream"] = grpc.unary_stream_rpc_method_handler(_broken_stream)
    handlers["Endless"] = grpc.unary_stream_rpc_method_handler(_endless)
    return grpc.method_handlers_generic_handler(SERVICE, handlers)


def _serving(metrics: Metrics) -> AbstractAsyncContextManager[grpc.aio.Channel]:
    interceptors = [
        MetricsInterceptor(metrics, watch_methods={"Endless"}),
        AccessLogInterceptor(),
        FaultBarrierInterceptor(),
    ]
    return serving(interceptors, _handlers())


def _count(metrics: Metrics, method: str, code: str) -> float:
    value = metrics.registry.get_sample_value(
        "yggdrasil_rpc_duration_seconds_count", {"method": method, "code": code}
    )
    return 0.0 if value is None else value


def _counted(metrics: Metrics, method: str) -> float:
    return sum(
        sample.value
        for family in metrics.registry.collect()
        for sample in family.samples
        if sample.name == "yggdrasil_rpc_duration_seconds_count"
        and sample.labels["method"] == method
    )


def _raw(data: bytes) -> bytes:
    return data


async def test_a_fault_answers_internal_and_is_logged_once_without_its_message(
    captured: tuple[io.StringIO, Lines],
) -> None:
    buffer, lines = captured
    metrics = Metrics(new_registry(process_collectors=False))
    async with _serving(metrics) as channel:
        call = channel.unary_unary(f"/{SERVICE}/Broken", _raw, _raw)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call(b"x")
        # context.abort sends the status before the server's task goes on to count and log
        # the call: wait for that before the server stops (its stop would cancel the task).
        await until(lambda: _counted(metrics, "Broken"), "the failed call not counted")
    error = caught.value
    assert error.code() == grpc.StatusCode.INTERNAL
    details = error.details() or ""
    assert "internal error in Broken" in details
    assert SECRET not in details and "IndexError" not in details

    (fault,) = [line for line in lines() if line["event"] == "handler_fault"]
    assert fault["level"] == "error"
    assert fault["error_type"] == "IndexError"
    assert fault["method"] == "Broken"
    assert any(
        "tests/server/test_faults.py" in frame and "_broken" in frame for frame in fault["frames"]
    )
    assert f"(request {fault['request_id']})" in details
    (access,) = [line for line in lines() if line["event"] == "rpc"]
    assert access["code"] == "INTERNAL" and access["request_id"] == fault["request_id"]
    assert SECRET not in buffer.getvalue()
    assert _count(metrics, "Broken", "INTERNAL") == 1
    assert _count(metrics, "Broken", "UNKNOWN") == 0


async def test_a_stream_that_faults_after_a_message_ends_internal(
    captured: tuple[io.StringIO, Lines],
) -> None:
    buffer, lines = captured
    metrics = Metrics(new_registry(process_collectors=False))
    received = []
    async with _serving(metrics) as channel:
        call = channel.unary_stream(f"/{SERVICE}/BrokenStream", _raw, _raw)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async for message in call(b""):
                received.append(message)
        await until(lambda: _counted(metrics, "BrokenStream"), "the failed stream not counted")
    assert received == [b"first"]
    assert caught.value.code() == grpc.StatusCode.INTERNAL
    (fault,) = [line for line in lines() if line["event"] == "handler_fault"]
    assert fault["error_type"] == "KeyError"
    assert SECRET not in buffer.getvalue()
    assert _count(metrics, "BrokenStream", "INTERNAL") == 1


async def test_refusals_answers_and_cancellations_pass_through(
    captured: tuple[io.StringIO, Lines],
) -> None:
    _, lines = captured
    metrics = Metrics(new_registry(process_collectors=False))
    async with _serving(metrics) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await channel.unary_unary(f"/{SERVICE}/Refused", _raw, _raw)(b"")
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
        assert caught.value.details() == "no such game"
        assert await channel.unary_unary(f"/{SERVICE}/Fine", _raw, _raw)(b"a") == b"ok:a"

        stream = channel.unary_stream(f"/{SERVICE}/Endless", _raw, _raw)(b"")
        assert await stream.read() == b"tick"
        stream.cancel()
        await until(
            lambda: _count(metrics, "Endless", "CANCELLED"), "the cancelled stream not counted"
        )
    assert _count(metrics, "Endless", "CANCELLED") == 1
    assert not [line for line in lines() if line["event"] == "handler_fault"]
    codes = sorted(line["code"] for line in lines() if line["event"] == "rpc")
    assert codes == ["CANCELLED", "NOT_FOUND", "OK"]


async def test_a_refusal_after_the_client_cancelled_is_no_fault(
    captured: tuple[io.StringIO, Lines],
) -> None:
    """Issue 26, point 9: a refusal that races its client's cancellation is neither logged
    as a handler fault (nor at ERROR at all) nor counted as INTERNAL: the client left."""
    _, lines = captured
    REFUSED_LATE.clear()
    metrics = Metrics(new_registry(process_collectors=False))
    async with _serving(metrics) as channel:
        call = channel.unary_unary(f"/{SERVICE}/LateRefusal", _raw, _raw)(b"")
        await asyncio.sleep(0.2)
        call.cancel()
        await asyncio.wait_for(REFUSED_LATE.wait(), 10)
        await until(lambda: _counted(metrics, "LateRefusal"), "the cancelled call not counted")
        assert await channel.unary_unary(f"/{SERVICE}/Fine", _raw, _raw)(b"a") == b"ok:a"
    assert not [line for line in lines() if line["event"] == "handler_fault"]
    assert not [line for line in lines() if line["level"] in ("error", "critical")], lines()
    assert _count(metrics, "LateRefusal", "CANCELLED") == 1
    assert _counted(metrics, "LateRefusal") == 1  # as nothing else (INTERNAL, UNKNOWN, ...)
