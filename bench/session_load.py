"""PlaySession load for the server bench: whole games, each played by its seats' sessions.

``in_flight`` sessions are open at once: ``in_flight // players`` games, each played by one
PlaySession stream per seat, as the SDK plays them. A seat answers every request to decide at
once with a random legal index (seeded), so the client does as little per decision as the
SubmitAction load does with its plans. Games are created and joined before the timed phases;
their sessions are opened inside them (each first message carries a full view), so the rate
includes what a session costs besides its decisions.

The sessions stay open across the bench's rounds: between PlaySession phases a gate is closed
and no seat sends a decision (nor does a worker start a game), so the other phases run on a
quiet server. A seat asked to decide while the gate is closed holds the request there
(``held``): once every seat its game awaits is holding, nothing is on its way and the game
cannot move until the gate opens, which is how a test knows the load has settled.

Decision latency is the time from a decision sent to the game's next message that asks a
seat to decide (or ends the game): when the game can go on. A decision of a simultaneous
round that does not end it waits there for the round's last one, as a unary call waits
behind the calls in flight before it.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import grpc.aio

from yggdrasil.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

OVER = (game_pb2.GAME_STATUS_FINISHED, game_pb2.GAME_STATUS_ABORTED)


class SeatedGame(Protocol):
    """A game created for the bench with every seat claimed (``server_bench._Seated``)."""

    game_id: str
    tokens: list[str]


class GameSource(Protocol):
    def take(self) -> SeatedGame | None: ...


@dataclass
class _InPlay:
    """Decisions of one game sent and not yet followed by a request to decide."""

    sent: list[float] = field(default_factory=list)


class SessionLoad:
    """Worker tasks that play prepared games over PlaySession while the gate is open."""

    def __init__(self, stub: Any, games: GameSource, in_flight: int, seed: int = 1) -> None:
        self.stub = stub
        self.games = games
        self.gate = asyncio.Event()
        self.latencies: list[float] = []
        self.decisions = 0  # sent while the gate was open
        self.refused = 0  # answered with a refusal (should stay 0)
        self.games_played = 0
        # (game id, seat) of every seat holding a request to decide at the closed gate.
        self.held: set[tuple[str, int]] = set()
        self._rng = random.Random(seed)
        self._workers = max(1, in_flight // 4)
        self._tasks: list[asyncio.Task[None]] = []
        self._failure: BaseException | None = None

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._worker()) for _ in range(self._workers)]

    async def phase(self, stop_at: float) -> None:
        """Let the sessions play until ``stop_at`` (perf_counter)."""
        self.gate.set()
        try:
            await asyncio.sleep(max(0.0, stop_at - time.perf_counter()))
        finally:
            self.gate.clear()
        if self._failure is not None:
            raise RuntimeError(f"a PlaySession worker failed: {self._failure!r}")

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _worker(self) -> None:
        try:
            while True:
                await self.gate.wait()
                game = self.games.take()
                if game is None:
                    raise RuntimeError("the bench ran out of prepared games; prepare more")
                in_play = _InPlay()
                await asyncio.gather(
                    *(self._seat(game, seat, in_play) for seat in range(len(game.tokens)))
                )
                self.games_played += 1
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # reported by the next phase()
            self._failure = exc

    async def _seat(self, game: SeatedGame, seat: int, in_play: _InPlay) -> None:
        rng = random.Random(self._rng.random())
        call = self.stub.PlaySession()
        try:
            opened = game_service_pb2.PlayOpen(game_id=game.game_id, seat_token=game.tokens[seat])
            await call.write(game_service_pb2.PlaySessionRequest(open=opened))
            keys = 0
            while True:
                message = await call.read()
                if message is grpc.aio.EOF:
                    raise RuntimeError("a session ended before its game")
                self.refused += sum(1 for answer in message.answers if answer.code)
                over = message.status in OVER
                if message.legal_actions or over:
                    now = time.perf_counter()
                    self.latencies.extend(now - t for t in in_play.sent)
                    in_play.sent.clear()
                if over:  # the server ends the stream now: let it end OK
                    while await call.read() is not grpc.aio.EOF:
                        pass
                    return
                if message.legal_actions:
                    index = rng.randrange(len(message.legal_actions))
                    if not self.gate.is_set():
                        self.held.add((game.game_id, seat))
                        try:
                            await self.gate.wait()
                        finally:
                            self.held.discard((game.game_id, seat))
                    keys += 1
                    decision = game_service_pb2.PlayDecision(
                        legal_index=index,
                        state_version=message.state_version,
                        idempotency_key=f"{seat}-{keys}",
                    )
                    in_play.sent.append(time.perf_counter())
                    self.decisions += 1
                    await call.write(game_service_pb2.PlaySessionRequest(decision=decision))
        finally:
            if not call.done():
                call.cancel()


class SpreadSessions:
    """Sessions spread over several connections, ``per_connection`` at most on each, played
    as one load (the interface of :class:`SessionLoad`).

    A server takes a bounded number of streams on one connection (256 by default): the
    sessions past it would wait for a stream that the sessions before them never give back
    (their games wait for those very seats), and the load would stand still."""

    def __init__(self, loads: list[SessionLoad], channels: list[grpc.aio.Channel]) -> None:
        self.loads = loads
        self._channels = channels

    @classmethod
    async def open(
        cls,
        address: str,
        sessions: int,
        games: Callable[[Any, int], Awaitable[GameSource]],
        per_connection: int = 200,
    ) -> SpreadSessions:
        """``games(stub, sessions)`` prepares the games of that many sessions on ``stub``."""
        parts = max(1, -(-sessions // per_connection))
        loads: list[SessionLoad] = []
        channels: list[grpc.aio.Channel] = []
        for part in range(parts):
            here = sessions // parts + (1 if part < sessions % parts else 0)
            # A subchannel pool of its own: one connection per channel, not one shared.
            channel = grpc.aio.insecure_channel(
                address, options=[("grpc.use_local_subchannel_pool", 1)]
            )
            channels.append(channel)
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            loads.append(SessionLoad(stub, await games(stub, here), here, seed=part + 1))
        return cls(loads, channels)

    @property
    def latencies(self) -> list[float]:
        return [t for load in self.loads for t in load.latencies]

    def clear_latencies(self) -> None:
        for load in self.loads:
            load.latencies.clear()

    @property
    def decisions(self) -> int:
        return sum(load.decisions for load in self.loads)

    @property
    def refused(self) -> int:
        return sum(load.refused for load in self.loads)

    def start(self) -> None:
        for load in self.loads:
            load.start()

    async def phase(self, stop_at: float) -> None:
        await asyncio.gather(*(load.phase(stop_at) for load in self.loads))

    async def close(self) -> None:
        for load in self.loads:
            await load.close()
        for channel in self._channels:
            await channel.close()
