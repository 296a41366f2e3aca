"""A PlaySession stream driven step by step by a test (imported as a plain module)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc.aio

from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

OVER = (gp.GAME_STATUS_FINISHED, gp.GAME_STATUS_ABORTED)


def decision(
    message: gs.PlaySessionResponse, index: int = 0, key: str | None = None
) -> gs.PlayDecision:
    """A decision answering ``message`` with a legal index (and a fresh key unless given)."""
    return gs.PlayDecision(
        legal_index=index,
        state_version=message.state_version,
        idempotency_key=key if key is not None else uuid.uuid4().hex,
    )


class Session:
    """One PlaySession call: ``open`` it, ``read`` the server's messages, ``send`` decisions."""

    def __init__(self, stub: Any) -> None:
        self.call = stub.PlaySession()
        self.received: list[gs.PlaySessionResponse] = []

    @classmethod
    async def open(cls, stub: Any, game_id: str, **fields: Any) -> Session:
        """Open a session (``seat_token=...`` or ``join=gs.PlayJoin(...)``, and any other
        PlayOpen field) and return it once the open is sent."""
        session = cls(stub)
        await session.call.write(gs.PlaySessionRequest(open=gs.PlayOpen(game_id=game_id, **fields)))
        return session

    async def read(self, timeout: float = 10.0) -> gs.PlaySessionResponse:
        message = await asyncio.wait_for(self.call.read(), timeout)
        assert message is not grpc.aio.EOF, "the session ended"
        self.received.append(message)
        return message  # type: ignore[no-any-return]

    async def send(self, choice: gs.PlayDecision) -> str:
        await self.call.write(gs.PlaySessionRequest(decision=choice))
        return choice.idempotency_key

    async def ask_view(self) -> None:
        await self.call.write(gs.PlaySessionRequest(view_request=gs.PlayViewRequest()))

    async def end(self) -> Any:
        """Wait for the server to end the stream; returns its status code."""
        return await asyncio.wait_for(self.call.code(), 60)  # a hang guard

    def cancel(self) -> None:
        self.call.cancel()


async def play_out(session: Session, rng: Any, timeout: float = 30.0) -> gs.PlaySessionResponse:
    """Answer every request to decide with a random legal index until the game is over;
    returns the last message."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        message = await session.read(max(0.1, deadline - loop.time()))
        if message.status in OVER:
            return message
        if message.legal_actions:
            await session.send(decision(message, rng.randrange(len(message.legal_actions))))
