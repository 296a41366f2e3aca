"""Decision time limits: the documented default is applied and reported."""

from __future__ import annotations

import asyncio
import time

import grpc.aio
from api_support import Stub, create_game, join_all, seat_view

from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


def _timed_out_total(running: RunningServer) -> float:
    value = running.metrics.registry.get_sample_value("yggdrasil_decisions_timed_out_total")
    return 0.0 if value is None else value


async def test_silent_seats_get_the_default_decision(running: RunningServer, stub: Stub) -> None:
    game_id = await create_game(stub, 2, seed=31, decision_time_limit_ms=150)
    # No clock while the game is OPEN.
    await asyncio.sleep(0.3)
    assert running.games.get(game_id).version == 0
    started_ms = time.time() * 1000
    tokens = await join_all(stub, game_id, 2)
    view = await seat_view(stub, game_id, tokens[0])
    assert view.decision_deadline_unix_ms >= started_ms + 100
    pack = [c.instance for c in view.blood_rage.own.draft_pack]
    call = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, seat_token=tokens[0]))
    await call.read()

    # Nobody answers: both seats of the simultaneous draft pick are decided for.
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
    assert len(applied) >= 2 and all(a.by_timeout for a in applied[:2])
    mine = next(a for a in applied if a.seat == 0)
    # The default of a draft pick is the first card of the pack (no pass-like choice there).
    assert mine.action.draft_pick.card == pack[0]
    theirs = next(a for a in applied if a.seat == 1)
    assert not theirs.action.draft_pick.HasField("card")  # still secret from seat 0
    assert _timed_out_total(running) >= 2
    replay_log = running.games.get(game_id).log
    assert all(entry.by_timeout for entry in replay_log[:2])


async def test_a_decision_in_time_resets_the_clock(running: RunningServer, stub: Stub) -> None:
    game_id = await create_game(stub, 2, seed=32, decision_time_limit_ms=2000)
    tokens = await join_all(stub, game_id, 2)
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
    game = running.games.get(game_id)
    assert len(game.log) == 2 and not any(e.by_timeout for e in game.log)
    assert _timed_out_total(running) == 0
