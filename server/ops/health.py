"""gRPC health checking and server reflection for the aio server."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import grpc.aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

__all__ = ["HealthControl", "add_health_and_reflection", "set_not_serving"]


class HealthControl(Protocol):
    """What we use of ``grpc_health.v1.health.aio.HealthServicer``.

    Spelled out so this module type-checks whether or not the grpc_health
    stubs are installed.
    """

    async def set(self, service: str, status: int) -> None: ...

    async def enter_graceful_shutdown(self) -> None: ...


async def add_health_and_reflection(
    server: grpc.aio.Server, service_names: Iterable[str]
) -> HealthControl:
    """Register health and reflection on ``server`` (before it starts).

    Each of ``service_names`` (full names, e.g. ``yggdrasil.v1.Yggdrasil``)
    and the overall ``""`` service report SERVING.  Reflection lists the
    given services plus health and reflection themselves.  Returns the
    asyncio health servicer (its methods are coroutines).
    """
    names = list(dict.fromkeys(service_names))
    concrete = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(concrete, server)
    servicer: HealthControl = concrete
    serving: int = health_pb2.HealthCheckResponse.SERVING
    for name in [health.OVERALL_HEALTH, *names]:
        await servicer.set(name, serving)
    reflection.enable_server_reflection(
        [*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    return servicer


async def set_not_serving(servicer: HealthControl) -> None:
    """Report NOT_SERVING for every service, for good (graceful shutdown)."""
    await servicer.enter_graceful_shutdown()
