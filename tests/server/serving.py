"""A throwaway grpc.aio server on loopback for the interceptor tests: the given interceptors
in front of one generic service, and a channel to it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import grpc
import grpc.aio


@asynccontextmanager
async def serving(
    interceptors: Sequence[grpc.aio.ServerInterceptor],
    service: grpc.GenericRpcHandler,
    prepare: Callable[[grpc.aio.Server], Awaitable[Any]] | None = None,
) -> AsyncIterator[grpc.aio.Channel]:
    server = grpc.aio.server(interceptors=list(interceptors))
    if prepare is not None:
        await prepare(server)
    server.add_generic_rpc_handlers([service])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield channel
    finally:
        await server.stop(None)
