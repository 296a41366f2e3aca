"""A crowd of watchers: every one gets every event, they send in turns, a slow reader holds
nobody up, and what they held is given back when they leave (make abuse runs the big ones)."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from api_support import Stub, create_game, join_all, random_step

from engine.core.contract import SPECTATOR
from server.api import fanout
from server.api.fanout import FanoutGate
from server.api.service import _watch
from server.api.streams import return_freed_memory
from server.main import RunningServer
from yggdrasil.v1 import game_service_pb2 as gs

CROWD = 300
DECISIONS = 30


def _channels(server: RunningServer, count: int) -> list[grpc.aio.Channel]:
    # Each channel its own connection (a process shares them by default).
    options = [("grpc.use_local_subchannel_pool", 1)]
    return [
        grpc.aio.insecure_channel(f"127.0.0.1:{server.port}", options=options) for _ in range(count)
    ]


def _watch_raw(channel: grpc.aio.Channel, request: gs.WatchGameRequest) -> Any:
    call = channel.unary_stream(
        "/yggdrasil.v1.GameService/WatchGame",
        request_serializer=gs.WatchGameRequest.SerializeToString,
        response_deserializer=lambda data: data,
    )
    return call(request)


async def _drain(call: Any, until: int, into: list[bytes]) -> None:
    while True:
        data = await call.read()
        if data is grpc.aio.EOF:
            return
        into.append(data)
        if gs.WatchGameResponse.FromString(data).sequence >= until:
            return


def _held_at_most(running: RunningServer) -> list[int]:
    """Instrument the service's gate: the most turns held at once, kept up to date."""
    gate = running.fanout
    assert gate is not None
    most = [0]
    grant = gate._grant

    def counting(turn: Any) -> None:
        grant(turn)
        most[0] = max(most[0], gate.slots - gate._free)

    gate._grant = counting
    return most


async def test_a_crowd_gets_every_event_once_in_turns_and_leaves_nothing(
    running: RunningServer, stub: Stub
) -> None:
    game_id = await create_game(stub, 2, seed=71)
    tokens = await join_all(stub, game_id, 2)
    game = running.games.get(game_id)
    most = _held_at_most(running)
    channels = _channels(running, 4)
    request = gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator())
    calls = [_watch_raw(channels[i % 4], request) for i in range(CROWD)]
    firsts = [await call.read() for call in calls]
    start = gs.WatchGameResponse.FromString(firsts[0]).sequence
    rng = random.Random(7)
    for _ in range(DECISIONS):
        assert await random_step(stub, game_id, tokens, rng)
    received: list[list[bytes]] = [[] for _ in calls]
    await asyncio.gather(
        *(_drain(call, game.last_sequence, got) for call, got in zip(calls, received, strict=True))
    )
    expected = list(range(start + 1, game.last_sequence + 1))
    for got in received:
        assert [gs.WatchGameResponse.FromString(d).sequence for d in got] == expected
    # Serialized once per audience: every spectator got the very same bytes.
    assert all(got == received[0] for got in received)
    assert running.fanout is not None
    assert 0 < most[0] <= running.fanout.slots
    for call in calls:
        call.cancel()
    streams = running.streams
    assert streams is not None
    for _ in range(250):
        if streams.total == 0:
            break
        await asyncio.sleep(0.02)
    assert streams.total == 0 and game.streams_open == 0
    assert running.fanout.parked() == 0
    assert game.listeners == []
    for channel in channels:
        await channel.close()


async def test_an_event_is_serialized_once_per_audience_not_per_watcher(
    running: RunningServer, stub: Stub, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 40 spectators and two watchers per seat, with views: each event is made into a message
    # (and serialized) at most once per audience (spectators, seat 0, seat 1), whatever the
    # number of watchers.
    made = [0]

    def counting(**fields: Any) -> gs.WatchGameResponse:
        made[0] += 1
        return gs.WatchGameResponse(**fields)

    monkeypatch.setattr(fanout, "_Response", counting)
    game_id = await create_game(stub, 2, seed=75)
    tokens = await join_all(stub, game_id, 2)
    game = running.games.get(game_id)
    channels = _channels(running, 2)
    requests = [gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator(), include_views=True)]
    requests *= 40
    requests += [
        gs.WatchGameRequest(game_id=game_id, seat_token=token, include_views=True)
        for token in tokens * 2
    ]
    calls = [_watch_raw(channels[i % 2], r) for i, r in enumerate(requests)]
    for call in calls:
        await call.read()
    start = game.last_sequence
    rng = random.Random(5)
    for _ in range(10):
        assert await random_step(stub, game_id, tokens, rng)
    received: list[list[bytes]] = [[] for _ in calls]
    await asyncio.gather(
        *(_drain(call, game.last_sequence, got) for call, got in zip(calls, received, strict=True))
    )
    events = game.last_sequence - start
    assert all(len(got) == events for got in received)
    assert events * 3 >= made[0] >= events  # not events * 44
    for call in calls:
        call.cancel()
    for channel in channels:
        await channel.close()


async def test_a_reader_that_does_not_read_holds_nobody_up(
    running: RunningServer, stub: Stub
) -> None:
    game_id = await create_game(stub, 2, seed=72)
    tokens = await join_all(stub, game_id, 2)
    game = running.games.get(game_id)
    channels = _channels(running, 2)
    # Views with every event: a reader that never reads fills its flow-control window fast.
    request = gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator(), include_views=True)
    slow = _watch_raw(channels[0], request)
    await slow.read()  # then never again
    others = [_watch_raw(channels[1], request) for _ in range(20)]
    for call in others:
        await call.read()
    rng = random.Random(8)
    for _ in range(60):
        if not await random_step(stub, game_id, tokens, rng):
            break
    received: list[list[bytes]] = [[] for _ in others]
    await asyncio.wait_for(
        asyncio.gather(
            *(_drain(c, game.last_sequence, got) for c, got in zip(others, received, strict=True))
        ),
        timeout=60,
    )
    assert all(gs.WatchGameResponse.FromString(got[-1]).sequence == game.last_sequence
               for got in received)  # fmt: skip
    for call in [slow, *others]:
        call.cancel()
    for channel in channels:
        await channel.close()


async def test_a_watcher_far_behind_still_gets_every_event_to_the_end(
    running: RunningServer, stub: Stub
) -> None:
    # A recorder whose sending stalls (its reader stopped reading) while a whole game is
    # played, hundreds of events, gets every one of them afterwards, GameEnded last: being
    # behind is no reason to skip events. (The stream's messages, taken from the service's
    # generator directly, so the stall is exact.)
    game_id = await create_game(stub, 4, seed=73)
    tokens = await join_all(stub, game_id, 4)
    game = running.games.get(game_id)
    stream = _watch(game, SPECTATOR, 0, False, FanoutGate())
    first = await anext(stream)
    assert isinstance(first, gs.WatchGameResponse)
    waiting = asyncio.ensure_future(anext(stream))  # caught up: waits for the next event
    rng = random.Random(9)
    assert await random_step(stub, game_id, tokens, rng)
    messages = [await waiting]  # then it stalls, as if its write waited for the network
    while await random_step(stub, game_id, tokens, rng):
        pass
    assert game.last_sequence - first.sequence > 256
    messages += [message async for message in stream]
    decoded = [
        m if isinstance(m, gs.WatchGameResponse) else gs.WatchGameResponse.FromString(m)
        for m in messages
    ]
    assert [m.sequence for m in decoded] == list(range(first.sequence + 1, game.last_sequence + 1))
    assert not any(m.resync for m in decoded)
    assert decoded[-1].event.WhichOneof("payload") == "game_ended"


def _rss_kib() -> int:
    found = re.search(r"VmRSS:\s+(\d+)", Path("/proc/self/status").read_text())
    assert found is not None
    return int(found.group(1))


async def test_memory_returns_after_a_crowd_leaves(running: RunningServer, stub: Stub) -> None:
    """Rounds of a crowd that comes, watches some decisions and leaves: the process (server
    and clients alike, they share it here) comes back to the same size each time, instead of
    growing by what each crowd held."""
    game_id = await create_game(stub, 4, seed=73)
    tokens = await join_all(stub, game_id, 4)
    game = running.games.get(game_id)
    rng = random.Random(9)
    after: list[int] = []
    for _ in range(4):
        channels = _channels(running, 4)
        request = gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator(), include_views=True)
        calls = [_watch_raw(channels[i % 4], request) for i in range(CROWD)]
        for call in calls:
            await call.read()
        for _ in range(5):
            await random_step(stub, game_id, tokens, rng)
        got: list[bytes] = []
        await asyncio.gather(*(_drain(c, game.last_sequence, got) for c in calls))
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()
        del calls, channels, got
        while running.streams is not None and running.streams.total:
            await asyncio.sleep(0.02)
        await asyncio.to_thread(return_freed_memory)  # what StreamBook.trim_forever does
        after.append(_rss_kib())
    # The first round warms pools and caches up; the later ones must not add up.
    assert max(after[1:]) - after[0] < 12 * 1024, after
