"""Decision time limits: the documented default is applied and reported.

The server's decision clock is a ManualClock here: time moves only when the test moves it,
so "no deadline runs out" and "this deadline runs out now" are exact, whatever the load.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc.aio
import pytest
from api_support import Stub, create_game, join_all, seat_view

from server.games.decision_clock import ManualClock
from server.games.game import Game
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc


def _timed_out_total(running: RunningServer) -> float:
    value = running.metrics.registry.get_sample_value("yggdrasil_decisions_timed_out_total")
    return 0.0 if value is None else value


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def clocked(
    server_factory: Callable[..., Awaitable[RunningServer]], clock: ManualClock
) -> AsyncIterator[tuple[RunningServer, Stub]]:
    """A server whose decision clock is ``clock``, and a stub to it."""
    running = await server_factory(clock=clock)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield running, game_service_pb2_grpc.GameServiceStub(channel)
    finally:
        await running.shutdown(0)


async def _until_version(game: Game, version: int) -> None:
    """Let the timeout task (started by the clock's callback) apply its defaults."""
    async with asyncio.timeout(5):
        while game.version < version:
            await asyncio.sleep(0)


async def test_silent_seats_get_the_default_decision(
    clocked: tuple[RunningServer, Stub], clock: ManualClock
) -> None:
    running, stub = clocked
    game_id = await create_game(stub, 2, seed=31, decision_time_limit_ms=150)
    game = running.games.get(game_id)
    # No clock while the game is OPEN: nothing is scheduled, and an hour changes nothing.
    assert clock.pending == 0
    assert clock.advance(3600.0) == 0
    assert game.version == 0
    tokens = await join_all(stub, game_id, 2)
    view = await seat_view(stub, game_id, tokens[0])
    assert clock.pending == 1
    assert view.decision_deadline_unix_ms == clock.wall_ms() + 150
    pack = [c.instance for c in view.blood_rage.own.draft_pack]
    call = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, seat_token=tokens[0]))
    await call.read()

    # 1 ms before the deadline nothing happens; at the deadline both seats of the
    # simultaneous draft pick are decided for.
    assert clock.advance(0.149) == 0
    assert game.version == 0 and not game.log
    assert clock.advance(0.001) == 1
    await _until_version(game, 2)
    events: list[gp.Event] = []

    def applied_count() -> int:
        return sum(
            1
            for e in events
            if e.WhichOneof("payload") == "blood_rage"
            and e.blood_rage.WhichOneof("kind") == "action_applied"
        )

    while applied_count() < 2:
        message = await asyncio.wait_for(call.read(), timeout=5)
        assert message is not grpc.aio.EOF
        events.append(message.event)
    call.cancel()
    timed_out = [e.timed_out.seat for e in events if e.WhichOneof("payload") == "timed_out"]
    assert sorted(timed_out) == [0, 1]
    applied = [
        e.blood_rage.action_applied
        for e in events
        if e.WhichOneof("payload") == "blood_rage"
        and e.blood_rage.WhichOneof("kind") == "action_applied"
    ]
    assert len(applied) == 2 and all(a.by_timeout for a in applied)
    mine = next(a for a in applied if a.seat == 0)
    # The default of a draft pick is the first card of the pack (no pass-like choice there).
    assert mine.action.draft_pick.card == pack[0]
    theirs = next(a for a in applied if a.seat == 1)
    assert not theirs.action.draft_pick.HasField("card")  # still secret from seat 0
    assert _timed_out_total(running) == 2
    assert [entry.by_timeout for entry in game.log] == [True, True]
    # The next round's seats got a fresh deadline, a full limit from the defaults.
    assert clock.next_due() == pytest.approx(clock.now() + 0.15)


async def test_a_decision_in_time_resets_the_clock(
    clocked: tuple[RunningServer, Stub], clock: ManualClock
) -> None:
    running, stub = clocked
    game_id = await create_game(stub, 2, seed=32, decision_time_limit_ms=2000)
    tokens = await join_all(stub, game_id, 2)
    game = running.games.get(game_id)
    assert clock.advance(1.999) == 0  # 1 ms left for both seats
    for seat in (0, 1):
        view = await seat_view(stub, game_id, tokens[seat])
        await stub.SubmitAction(
            gs.SubmitActionRequest(
                game_id=game_id,
                seat_token=tokens[seat],
                legal_index=0,
                state_version=view.state_version,
            )
        )
    assert len(game.log) == 2 and not any(e.by_timeout for e in game.log)
    # The next pick has a full 2 s from the decision, not what was left of the first one.
    assert clock.advance(1.999) == 0
    assert game.version == 2 and _timed_out_total(running) == 0
    assert clock.advance(0.001) == 1
    await _until_version(game, 4)
    assert [e.by_timeout for e in game.log] == [False, False, True, True]
    assert _timed_out_total(running) == 2
