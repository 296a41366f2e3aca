"""Metrics: the interceptor over a real grpc.aio server, and the HTTP endpoint."""

from __future__ import annotations

import asyncio
import importlib.metadata
import re
import time
import urllib.request
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any

import grpc
import grpc.aio
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import CollectorRegistry

from server.ops.health import add_health_and_reflection
from server.ops.metrics import Metrics, MetricsInterceptor, start_metrics_http_server
from tests.server.serving import serving
from tests.waiting import until

PROBE = "test.Probe"


async def _not_found(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    await context.abort(grpc.StatusCode.NOT_FOUND, "no such game")


async def _boom(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    raise RuntimeError("bug in a handler")


async def _set_code(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    context.set_code(grpc.StatusCode.FAILED_PRECONDITION)
    return b""


async def _slow(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    await asyncio.sleep(10)
    return b""


async def _ticks(
    request: bytes, context: grpc.aio.ServicerContext[Any, Any]
) -> AsyncIterator[bytes]:
    for i in range(3):
        yield bytes([i])


async def _written_ticks(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> None:
    for i in range(2):
        await context.write(bytes([i]))


def _sync_echo(request: bytes, context: grpc.ServicerContext) -> bytes:
    return request


def _probe_handler() -> grpc.GenericRpcHandler:
    unary: Mapping[str, Callable[..., Any]] = {
        "NotFound": _not_found,
        "Boom": _boom,
        "SetCode": _set_code,
        "Slow": _slow,
    }
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
        name: grpc.unary_unary_rpc_method_handler(fn) for name, fn in unary.items()
    }
    handlers["Ticks"] = grpc.unary_stream_rpc_method_handler(_ticks)
    handlers["WrittenTicks"] = grpc.unary_stream_rpc_method_handler(_written_ticks)
    handlers["SyncEcho"] = grpc.unary_unary_rpc_method_handler(_sync_echo)
    return grpc.method_handlers_generic_handler(PROBE, handlers)


def _serving(metrics: Metrics) -> AbstractAsyncContextManager[grpc.aio.Channel]:
    async def health(server: grpc.aio.Server) -> None:
        await add_health_and_reflection(server, [PROBE])

    interceptor = MetricsInterceptor(metrics, watch_methods={"Watch", "Ticks"})
    return serving([interceptor], _probe_handler(), health)


def _unary(
    channel: grpc.aio.Channel, method: str
) -> grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]:
    return channel.unary_unary(f"/{PROBE}/{method}", _raw, _raw)


def _stream(
    channel: grpc.aio.Channel, method: str
) -> grpc.aio.UnaryStreamMultiCallable[bytes, bytes]:
    return channel.unary_stream(f"/{PROBE}/{method}", _raw, _raw)


def _raw(data: bytes) -> bytes:
    return data


def _count(metrics: Metrics, method: str, code: str) -> float:
    value = metrics.registry.get_sample_value(
        "yggdrasil_rpc_duration_seconds_count", {"method": method, "code": code}
    )
    return 0.0 if value is None else value


async def _recorded(metrics: Metrics, method: str, code: str, calls: int = 1) -> None:
    """Wait until the server recorded the call: the client may see its status before the
    server's task has finished the call (and a server stopped at that moment would record it
    as CANCELLED)."""
    await until(
        lambda: _count(metrics, method, code) >= calls, f"no {method} call recorded as {code}"
    )


def _active(metrics: Metrics) -> float | None:
    return metrics.registry.get_sample_value("yggdrasil_watch_streams_active")


def _fresh_metrics() -> Metrics:
    return Metrics(CollectorRegistry())


@pytest.mark.asyncio
async def test_health_check_is_counted_as_ok() -> None:
    metrics = _fresh_metrics()
    async with _serving(metrics) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)  # stubs lack methods
        started = time.perf_counter()
        reply = await stub.Check(health_pb2.HealthCheckRequest(service=PROBE))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        await stub.Check(health_pb2.HealthCheckRequest())
        await _recorded(metrics, "Check", "OK", 2)
        elapsed = time.perf_counter() - started
    assert _count(metrics, "Check", "OK") == 2
    total = metrics.registry.get_sample_value(
        "yggdrasil_rpc_duration_seconds_sum", {"method": "Check", "code": "OK"}
    )
    # Both calls were timed, each within the span the client waited for them.
    assert total is not None and 0 < total < elapsed


@pytest.mark.asyncio
async def test_abort_is_labelled_with_its_code() -> None:
    metrics = _fresh_metrics()
    async with _serving(metrics) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _unary(channel, "NotFound")(b"")
        assert caught.value.code() is grpc.StatusCode.NOT_FOUND
        await _recorded(metrics, "NotFound", "NOT_FOUND")
    assert _count(metrics, "NotFound", "NOT_FOUND") == 1
    assert _count(metrics, "NotFound", "OK") == 0


@pytest.mark.asyncio
async def test_unexpected_exception_is_unknown_and_set_code_is_kept() -> None:
    metrics = _fresh_metrics()
    async with _serving(metrics) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _unary(channel, "Boom")(b"")
        assert caught.value.code() is grpc.StatusCode.UNKNOWN
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _unary(channel, "SetCode")(b"")
        assert caught.value.code() is grpc.StatusCode.FAILED_PRECONDITION
        await _recorded(metrics, "Boom", "UNKNOWN")
        await _recorded(metrics, "SetCode", "FAILED_PRECONDITION")
    assert _count(metrics, "Boom", "UNKNOWN") == 1
    assert _count(metrics, "SetCode", "FAILED_PRECONDITION") == 1


@pytest.mark.asyncio
async def test_deadline_is_labelled_deadline_exceeded() -> None:
    metrics = _fresh_metrics()
    async with _serving(metrics) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _unary(channel, "Slow")(b"", timeout=0.2)
        assert caught.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        await _recorded(metrics, "Slow", "DEADLINE_EXCEEDED")
    assert _count(metrics, "Slow", "DEADLINE_EXCEEDED") == 1


@pytest.mark.asyncio
async def test_streams_are_timed_and_still_deliver_every_message() -> None:
    metrics = _fresh_metrics()
    async with _serving(metrics) as channel:
        got = [m async for m in _stream(channel, "Ticks")(b"")]
        written = [m async for m in _stream(channel, "WrittenTicks")(b"")]
        echoed = await _unary(channel, "SyncEcho")(b"hi")
    assert got == [b"\x00", b"\x01", b"\x02"]
    assert written == [b"\x00", b"\x01"]
    assert echoed == b"hi"
    assert _count(metrics, "Ticks", "OK") == 1
    assert _count(metrics, "WrittenTicks", "OK") == 1
    # Ticks is a watch method: back to zero once its stream ended.
    assert _active(metrics) == 0


@pytest.mark.asyncio
async def test_watch_stream_gauge_goes_up_then_down_on_cancel() -> None:
    metrics = _fresh_metrics()
    async with _serving(metrics) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)  # stubs lack methods
        call = stub.Watch(health_pb2.HealthCheckRequest(service=PROBE))
        first = await call.read()
        assert first.status == health_pb2.HealthCheckResponse.SERVING
        assert _active(metrics) == 1
        call.cancel()
        await until(lambda: _active(metrics) == 0, "the watch stream is still counted")
        assert _count(metrics, "Watch", "CANCELLED") == 1


def test_action_counter_and_http_endpoint() -> None:
    metrics = _fresh_metrics()
    metrics.action_applied("march", "accepted")
    metrics.action_applied("march", "accepted")
    metrics.action_applied("pillage", "rejected")
    metrics.games_created_total.inc()
    metrics.games_hosted.set(3)
    metrics.observe_rpc("SubmitAction", grpc.StatusCode.OK, 0.0003)
    sample = metrics.registry.get_sample_value
    assert sample("yggdrasil_actions_applied_total", {"kind": "march", "outcome": "accepted"}) == 2
    http = start_metrics_http_server(0, "127.0.0.1", metrics.registry)
    try:
        assert http.port > 0
        with urllib.request.urlopen(f"http://127.0.0.1:{http.port}/metrics", timeout=5) as resp:
            body = resp.read().decode()
    finally:
        http.close()
    for name in (
        "yggdrasil_games_hosted 3.0",
        "yggdrasil_games_created_total 1.0",
        "yggdrasil_games_finished_total",
        'yggdrasil_actions_applied_total{kind="pillage",outcome="rejected"} 1.0',
        'yggdrasil_rpc_duration_seconds_bucket{code="OK",le="0.0005",method="SubmitAction"} 1.0',
        "yggdrasil_watch_streams_active",
        "yggdrasil_decisions_timed_out_total",
        "yggdrasil_snapshot_seconds_bucket",
        "yggdrasil_store_append_seconds_bucket",
        f'yggdrasil_build_info{{version="{importlib.metadata.version("yggdrasil")}"}} 1.0',
    ):
        assert name in body, name
    created = [line for line in body.splitlines() if re.match(r"\w+_created[{ ]", line)]
    assert created == []


def test_default_registry_is_private_and_has_process_metrics() -> None:
    first = Metrics()
    second = Metrics()  # no duplicate-registration error: separate registries
    assert first.registry is not second.registry
    names = {m.name for m in first.registry.collect()}
    assert "yggdrasil_games_hosted" in names
    assert "process_cpu_seconds" in names or "python_info" in names
