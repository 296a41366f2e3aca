"""WatchGame: first message is a view; resuming from a sequence gives no gaps or duplicates;
streams end after GameEnded; a watcher that fell behind trimmed events is resynced."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc.aio
import pytest
from api_support import Stub, create_game, join_all, random_step, spectator_view

from engine.blood_rage.flow import legal_actions
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


async def _read(call: Any, count: int) -> list[gs.WatchGameResponse]:
    out: list[gs.WatchGameResponse] = []
    for _ in range(count):
        message = await asyncio.wait_for(call.read(), timeout=10)
        assert message is not grpc.aio.EOF
        out.append(message)
    return out


async def test_resume_without_gaps_or_duplicates(stub: Stub) -> None:
    game_id = await create_game(stub, 3, seed=2)
    tokens = await join_all(stub, game_id, 3)
    rng = random.Random(2)
    for _ in range(10):
        await random_step(stub, game_id, tokens, rng)

    # A seat watches from the start, reads part of the log, and disconnects.
    first = stub.WatchGame(
        gs.WatchGameRequest(game_id=game_id, seat_token=tokens[1], from_sequence=1)
    )
    got = await _read(first, 8)
    first.cancel()
    # The view before event 1 (nobody seated yet), then the events from 1.
    assert got[0].HasField("view") and not got[0].HasField("event")
    assert got[0].sequence == got[0].view.last_sequence == 0
    assert got[0].view.viewer_seat == 1 and got[0].view.status == gp.GAME_STATUS_OPEN
    assert not any(s.claimed for s in got[0].view.seats)
    events = {m.sequence: m.event for m in got[1:]}
    assert list(events) == list(range(1, 8))

    # More happens while it is away; then it resumes after the last event it received.
    for _ in range(10):
        await random_step(stub, game_id, tokens, rng)
    second = stub.WatchGame(
        gs.WatchGameRequest(game_id=game_id, seat_token=tokens[1], from_sequence=8)
    )
    latest = (await spectator_view(stub, game_id)).last_sequence
    (head,) = await _read(second, 1)
    # Event 7 may be in the middle of a decision's events: the view is then the one before
    # that decision, and the decision's events follow whole (7 and those before it again).
    assert head.HasField("view") and not head.HasField("event")
    assert head.sequence == head.view.last_sequence <= 7
    got = await _read(second, latest - head.sequence)
    assert [m.sequence for m in got] == list(range(head.sequence + 1, latest + 1))
    assert all(m.HasField("event") and m.event.sequence == m.sequence for m in got)
    for message in got:
        if message.sequence in events:  # a repeat is the same event
            assert message.event == events[message.sequence]
        events[message.sequence] = message.event
    assert list(events) == list(range(1, latest + 1))

    # Live events keep coming in order on the open stream.
    for _ in range(5):
        await random_step(stub, game_id, tokens, rng)
    now = (await spectator_view(stub, game_id)).last_sequence
    got = await _read(second, now - latest)
    assert [m.sequence for m in got] == list(range(latest + 1, now + 1))
    second.cancel()

    # Resuming after the view a client holds (View.last_sequence + 1): exactly that view
    # first, then the events after it. Three seats: claims end at 1, 2 and 4 (the last claim
    # also starts the game), so from 3 the view is the one with two seats claimed.
    third = stub.WatchGame(
        gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator(), from_sequence=3)
    )
    head, nxt = await _read(third, 2)
    assert head.sequence == head.view.last_sequence == 2 and not head.HasField("event")
    assert head.view.status == gp.GAME_STATUS_OPEN
    assert [s.claimed for s in head.view.seats] == [True, True, False]
    assert nxt.sequence == 3 and nxt.event.WhichOneof("payload") == "seat_claimed"
    third.cancel()


async def test_start_from_now_and_end_after_game_ended(stub: Stub) -> None:
    game_id = await create_game(stub, 2, seed=4)
    tokens = await join_all(stub, game_id, 2)
    call = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()))
    (first,) = await _read(call, 1)
    assert first.HasField("view") and not first.HasField("event")
    assert first.sequence == first.view.last_sequence == 3  # two seats claimed, status changed
    rng = random.Random(4)
    sequences = []

    async def drain() -> None:
        while (message := await call.read()) is not grpc.aio.EOF:
            sequences.append(message.sequence)
            assert message.HasField("event")

    reader = asyncio.create_task(drain())
    while await random_step(stub, game_id, tokens, rng):
        pass
    await asyncio.wait_for(reader, timeout=10)  # the stream ended by itself
    assert sequences == list(range(first.sequence + 1, sequences[-1] + 1))
    final = await spectator_view(stub, game_id)
    assert sequences[-1] == final.last_sequence

    # Watching a finished game: one view, then the stream ends.
    call = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, seat_token=tokens[0]))
    messages = [m async for m in call]
    assert len(messages) == 1 and messages[0].view.status == gp.GAME_STATUS_FINISHED


async def test_include_views_show_the_state_after_each_decision(stub: Stub) -> None:
    game_id = await create_game(stub, 2, seed=8)
    tokens = await join_all(stub, game_id, 2)
    call = stub.WatchGame(
        gs.WatchGameRequest(game_id=game_id, seat_token=tokens[0], include_views=True)
    )
    (first,) = await _read(call, 1)
    rng = random.Random(8)
    for _ in range(6):
        await random_step(stub, game_id, tokens, rng)
    latest = (await spectator_view(stub, game_id)).last_sequence
    messages = await _read(call, latest - first.sequence)
    assert len(messages) >= 6
    with_views = [m for m in messages if m.HasField("view")]
    assert len(with_views) == 6  # one per decision: on its last event
    for message in messages:
        if message.HasField("view"):
            assert message.view.state_version == message.event.state_version
            assert message.view.last_sequence == message.sequence
        else:  # an event inside a decision's events: the next message is of the same decision
            following = messages[messages.index(message) + 1]
            assert following.event.state_version == message.event.state_version
    assert messages[-1].view.last_sequence == latest
    call.cancel()


async def test_a_watcher_behind_trimmed_events_is_resynced(
    server_factory: object, running: RunningServer
) -> None:
    small = await server_factory(event_cap=5)  # type: ignore[operator]
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{small.port}") as channel:
            from yggdrasil.v1 import game_service_pb2_grpc

            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game_id = await create_game(stub, 2, seed=6)
            tokens = await join_all(stub, game_id, 2)
            rng = random.Random(6)
            for _ in range(6):
                await random_step(stub, game_id, tokens, rng)
            call = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=1))
            (message,) = await _read(call, 1)
            latest = (await spectator_view(stub, game_id)).last_sequence
            assert message.resync and message.sequence == latest
            assert message.view.last_sequence == latest
            call.cancel()
    finally:
        await small.shutdown(0)


def _parsed(message: gs.WatchGameResponse | bytes) -> gs.WatchGameResponse:
    """A message as the client gets it (events are yielded serialized: server.api.fanout)."""
    if isinstance(message, bytes):
        return gs.WatchGameResponse.FromString(message)
    return message


async def test_events_published_while_the_first_message_is_sent_are_not_skipped(
    running: RunningServer, stub: Stub
) -> None:
    """Regression: the stream used to read where to go on *after* yielding its first message,
    so an event published while that message was on its way was skipped, and a seat waiting
    for its turn on the stream waited forever. Driven step by step: the first message is
    taken, a decision is applied, then the stream must continue with that decision's events."""
    from server.api.service import _watch

    game_id = await create_game(stub, 2, seed=61)
    tokens = await join_all(stub, game_id, 2)
    game = running.games.get(game_id)
    for start, make_stale in ((0, False), (1, True)):
        if make_stale:  # a watcher behind the kept events gets a resync first: same rule
            # Room for one decision's events (the last pick of a draft round also ends it)
            # but not for what came before.
            game.events.cap = 4
            await random_step(stub, game_id, tokens, random.Random(2))
            await random_step(stub, game_id, tokens, random.Random(3))
        stream = _watch(game, 0, start, True)
        first = await stream.__anext__()
        assert first.resync is make_stale
        assert await random_step(stub, game_id, tokens, random.Random(start))
        after = _parsed(await asyncio.wait_for(stream.__anext__(), timeout=5))
        assert after.sequence == first.sequence + 1
        assert after.HasField("event")
        while not after.HasField("view"):  # the view comes with the decision's last event
            after = _parsed(await asyncio.wait_for(stream.__anext__(), timeout=5))
        assert after.view.state_version == game.version
        assert after.sequence == after.view.last_sequence == game.last_sequence
        await stream.aclose()


async def test_a_closing_game_delivers_what_it_published_before_its_streams_end(
    running: RunningServer, stub: Stub
) -> None:
    """Shutdown closes every game, right after the in-flight decisions finish: a watcher must
    still get the events of those decisions before its stream ends (it used to end at once)."""
    from server.api.fanout import FanoutGate
    from server.api.service import StreamInterrupted, _watch

    game_id = await create_game(stub, 2, seed=62)
    await join_all(stub, game_id, 2)
    game = running.games.get(game_id)
    # The stream parks (server.api.fanout.FanoutGate.wait_for) when it has sent everything: note
    # when it does.
    parked: list[int] = []
    parked_now = asyncio.Event()
    gate = FanoutGate()
    wait_for = gate.wait_for

    async def noting_wait_for(waited: Any, sequence: int, turn: Any) -> None:
        parked.append(sequence)
        parked_now.set()
        await wait_for(waited, sequence, turn)

    gate.wait_for = noting_wait_for  # type: ignore[method-assign]
    stream = _watch(game, 0, 0, False, gate)
    first = await stream.__anext__()
    waiting = asyncio.ensure_future(stream.__anext__())
    await asyncio.wait_for(parked_now.wait(), timeout=5)
    # The stream waits for the event after the first message, and has sent nothing more.
    assert parked == [first.sequence + 1] and game.last_sequence == first.sequence
    assert not waiting.done()
    # A decision applied and the game closed with no await in between (as at shutdown).
    state = game.state
    seat = game.awaiting()[0]
    async with game.lock:
        await game._apply(seat, legal_actions(state, seat)[0], by_timeout=False)
        published = game.last_sequence
        game.close()
    received = [_parsed(await asyncio.wait_for(waiting, timeout=5))]
    with pytest.raises(StreamInterrupted) as interrupted:  # the game is not over
        async for message in stream:
            received.append(_parsed(message))
    assert [m.sequence for m in received] == list(range(first.sequence + 1, published + 1))
    assert interrupted.value.next_sequence == published + 1
    assert str(interrupted.value).endswith(f"resume with from_sequence {published + 1}")
