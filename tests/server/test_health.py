"""Health checking and reflection over a real grpc.aio server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

import grpc
import grpc.aio
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from server.ops.health import HealthControl, add_health_and_reflection, set_not_serving

SERVICE = "yggdrasil.test.Game"
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@asynccontextmanager
async def _serving() -> AsyncIterator[tuple[grpc.aio.Channel, HealthControl]]:
    server = grpc.aio.server()
    health = await add_health_and_reflection(server, [SERVICE])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield channel, health
    finally:
        await server.stop(None)


@pytest.mark.asyncio
async def test_serving_then_not_serving() -> None:
    async with _serving() as (channel, health):
        stub: Any = health_pb2_grpc.HealthStub(channel)  # stubs lack methods
        for name in ("", SERVICE):
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=name))
            assert reply.status == SERVING, name
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.Check(health_pb2.HealthCheckRequest(service="no.Such"))
        assert caught.value.code() is grpc.StatusCode.NOT_FOUND

        await set_not_serving(health)
        for name in ("", SERVICE):
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=name))
            assert reply.status == NOT_SERVING, name


@pytest.mark.asyncio
async def test_reflection_lists_services() -> None:
    async with _serving() as (channel, _):
        stub: Any = reflection_pb2_grpc.ServerReflectionStub(cast(Any, channel))
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = [r async for r in stub.ServerReflectionInfo(iter([request]))]
    names = {s.name for s in replies[0].list_services_response.service}
    assert names == {
        SERVICE,
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
    }
