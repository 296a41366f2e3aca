"""A gRPC relay in front of a server that ends calls the way Envoy does when a game's owner node
dies behind it (issue 26, point 1): a stream that has started is reset, and the client sees
INTERNAL ("Received RST_STREAM with error code 2"); a unary call whose node died after it
acted (a decision committed, its answer lost) ends INTERNAL too.

Calls are relayed as bytes. Every WatchGame and PlaySession stream is cut after some messages
(20 to 40, drawn per stream: more than one decision's events, at most 15 or so, and the view a
resumed stream starts with, so that every stream brings something new), and every third
SubmitAction is answered INTERNAL after the server applied it: a client must resume and resend
(with the same idempotency key) to finish a game.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc
import grpc.aio

RESET = "Received RST_STREAM with error code 2"
_STREAMS = ("/yggdrasil.v1.GameService/WatchGame",)
_BIDI = ("/yggdrasil.v1.GameService/PlaySession",)
_SUBMIT = "/yggdrasil.v1.GameService/SubmitAction"


def _raw(data: bytes) -> bytes:
    return data


class ResettingProxy:
    def __init__(self, target: str, seed: int = 26) -> None:
        self.target = target
        self.rng = random.Random(seed)
        self.resets = 0  # streams cut
        self.lost_answers = 0  # SubmitActions answered INTERNAL after they were applied
        self._submits = 0
        self._server: grpc.aio.Server | None = None
        self._channel: grpc.aio.Channel | None = None
        self.address = ""

    async def start(self) -> ResettingProxy:
        self._channel = grpc.aio.insecure_channel(self.target)
        self._server = grpc.aio.server()
        self._server.add_generic_rpc_handlers([_Handler(self)])
        port = self._server.add_insecure_port("127.0.0.1:0")
        await self._server.start()
        self.address = f"127.0.0.1:{port}"
        return self

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(None)
        if self._channel is not None:
            await self._channel.close()

    def _metadata(self, context: Any) -> tuple[tuple[str, str | bytes], ...]:
        skip = {"user-agent", "grpc-accept-encoding", "grpc-encoding", "grpc-timeout", "te",
                "content-type"}  # fmt: skip
        return tuple((k, v) for k, v in context.invocation_metadata() or () if k not in skip)

    async def unary(self, method: str, request: bytes, context: Any) -> bytes:
        assert self._channel is not None
        call = self._channel.unary_unary(method, _raw, _raw)
        try:
            reply: bytes = await call(request, metadata=self._metadata(context))
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "")
            raise
        if method == _SUBMIT:
            self._submits += 1
            if self._submits % 3 == 0:  # applied, and the answer is lost with the node
                self.lost_answers += 1
                await context.abort(grpc.StatusCode.INTERNAL, RESET)
        return reply

    async def stream(self, method: str, request: bytes, context: Any) -> None:
        assert self._channel is not None
        call = self._channel.unary_stream(method, _raw, _raw)(
            request, metadata=self._metadata(context)
        )
        budget = self.rng.randint(20, 40)
        try:
            async for message in call:
                if budget == 0:
                    self.resets += 1
                    await context.abort(grpc.StatusCode.INTERNAL, RESET)
                await context.write(message)
                budget -= 1
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "")
        finally:
            call.cancel()

    async def bidi(self, method: str, requests: Any, context: Any) -> None:
        assert self._channel is not None
        call = self._channel.stream_stream(method, _raw, _raw)(metadata=self._metadata(context))

        async def pump() -> None:
            async for message in requests:
                await call.write(message)
            await call.done_writing()

        pumping = asyncio.get_running_loop().create_task(pump())
        budget = self.rng.randint(20, 40)
        try:
            async for message in call:
                if budget == 0:
                    self.resets += 1
                    await context.abort(grpc.StatusCode.INTERNAL, RESET)
                await context.write(message)
                budget -= 1
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "")
        finally:
            pumping.cancel()
            call.cancel()


class _Handler(grpc.GenericRpcHandler):
    def __init__(self, proxy: ResettingProxy) -> None:
        self.proxy = proxy

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler[Any, Any] | None:
        method = details.method
        proxy = self.proxy
        if method in _STREAMS:

            async def streaming(request: bytes, context: Any) -> None:
                await proxy.stream(method, request, context)

            return grpc.unary_stream_rpc_method_handler(streaming, _raw, _raw)
        if method in _BIDI:

            async def both(requests: Any, context: Any) -> None:
                await proxy.bidi(method, requests, context)

            return grpc.stream_stream_rpc_method_handler(both, _raw, _raw)

        async def once(request: bytes, context: Any) -> bytes:
            return await proxy.unary(method, request, context)

        return grpc.unary_unary_rpc_method_handler(once, _raw, _raw)
