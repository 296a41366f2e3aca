"""The lazy restart (``--restore lazy``, the default; ``server.games.recovery.restore_lazily``):
a restarted server hosts its unfinished games from the store's index, lists and counts them
before any is rebuilt, and rebuilds each once, on its first use, when its decision clock falls
due, or when the abandonment sweep aborts it; a broken log fails its game alone, on use."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from durable_support import create_game, join_all, play, spectator, start, stub_for

from server.games.decision_clock import LOOP_CLOCK, DecisionClock, ManualClock
from server.games.dormant import Dormant
from server.games.game import Game
from server.games.record import Status
from server.main import RunningServer
from tests.waiting import until
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

Stub = Any
OPEN = gp.GAME_STATUS_OPEN
PLAYING = gp.GAME_STATUS_IN_PROGRESS


@asynccontextmanager
async def _lazily(
    data_dir: Path, clock: DecisionClock = LOOP_CLOCK, **config: Any
) -> AsyncIterator[tuple[RunningServer, Stub, Counter[str]]]:
    """A server restarted lazily on ``data_dir``, with a count of the rebuilds of each game."""
    running = await start(data_dir, clock=clock, restore="lazy", **config)
    registry = running.games
    waker = registry.waker
    assert waker is not None
    rebuilds: Counter[str] = Counter()

    async def counted(dormant: Dormant) -> Game:
        rebuilds[dormant.id] += 1
        await asyncio.sleep(0.01)  # (a slower rebuild: concurrent first uses overlap it)
        return await waker(dormant)

    registry.waker = counted
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield running, stub_for(channel), rebuilds
    finally:
        await running.shutdown(0)


async def _with_server(
    data_dir: Path, body: Callable[[RunningServer, Stub], Awaitable[Any]], **config: Any
) -> Any:
    running = await start(data_dir, **config)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            return await body(running, stub_for(channel))
    finally:
        await running.shutdown(0)


def _listing(reply: gs.ListGamesResponse) -> dict[str, bytes]:
    return {g.game_id: g.SerializeToString(deterministic=True) for g in reply.games}


async def test_a_restart_lists_and_counts_every_game_before_rebuilding_any(
    tmp_path: Path,
) -> None:
    async def played(running: RunningServer, stub: Stub) -> tuple[dict[str, bytes], ...]:
        rng = random.Random(3)
        for seed in range(4):
            game_id = await create_game(stub, 2 + seed % 2, seed=seed)
            if seed:  # one stays OPEN
                tokens = await join_all(stub, game_id, 2 + seed % 2)
                await play(stub, game_id, tokens, rng, n=seed * 3)
        four = await create_game(stub, 4, seed=9)
        await stub.JoinGame(gs.JoinGameRequest(game_id=four, seat=2, player_name="late"))
        return await _pages(stub)

    before = await _with_server(tmp_path, played, restore="eager")
    opened_before = {k: u.open_games for k, u in (await _quota_usage(tmp_path)).items()}
    async with _lazily(tmp_path) as (running, stub, rebuilds):
        registry = running.games
        assert running.restore is not None and running.restore.dormant == 5
        assert len(registry.dormant) == 5 and not registry.games
        after = await _pages(stub)
        assert after == before  # the same summaries, byte for byte, none rebuilt
        sample = running.metrics.registry.get_sample_value
        assert sample("yggdrasil_games_hosted") == 5
        assert running.quotas is not None
        opened = {k: u.open_games for k, u in running.quotas._usage.items()}
        assert opened == opened_before and sum(opened.values()) == 5
        assert not rebuilds and not registry.games  # listing rebuilt nothing


async def _pages(stub: Stub) -> tuple[dict[str, bytes], ...]:
    """ListGames of every status, of each status, of each game, and a page of two."""
    requests = [
        gs.ListGamesRequest(page_size=100),
        gs.ListGamesRequest(page_size=100, status=OPEN),
        gs.ListGamesRequest(page_size=100, status=PLAYING),
        gs.ListGamesRequest(page_size=100, kind=gp.GAME_KIND_BLOOD_RAGE),
        gs.ListGamesRequest(page_size=100, kind=gp.GAME_KIND_FIRE_AND_AXE),
        gs.ListGamesRequest(page_size=2),
    ]
    pages = [_listing(await stub.ListGames(r)) for r in requests]
    first = await stub.ListGames(requests[-1])
    following = gs.ListGamesRequest(page_size=2, page_token=first.next_page_token)
    pages.append(_listing(await stub.ListGames(following)))
    return tuple(pages)


async def _pages(stub: Stub) -> tuple[dict[str, bytes], ...]:
    """ListGames of every status, of each status, of each game, and two pages of two."""
    requests = [
        gs.ListGamesRequest(page_size=100),
        gs.ListGamesRequest(page_size=100, status=OPEN),
        gs.ListGamesRequest(page_size=100, status=PLAYING),
        gs.ListGamesRequest(page_size=100, kind=gp.GAME_KIND_BLOOD_RAGE),
        gs.ListGamesRequest(page_size=100, kind=gp.GAME_KIND_FIRE_AND_AXE),
    ]
    pages = [_listing(await stub.ListGames(r)) for r in requests]
    first = await stub.ListGames(gs.ListGamesRequest(page_size=2))
    following = gs.ListGamesRequest(page_size=2, page_token=first.next_page_token)
    return (*pages, _listing(first), _listing(await stub.ListGames(following)))


async def _quota_usage(data_dir: Path) -> dict[str, Any]:
    """The quota book of an eager restart (what the lazy one must count alike)."""

    async def usage(running: RunningServer, stub: Stub) -> dict[str, Any]:
        assert running.quotas is not None
        return dict(running.quotas._usage)

    result: dict[str, Any] = await _with_server(data_dir, usage, restore="eager")
    return result


async def _six_games(stub: Stub) -> list[tuple[str, list[str], int]]:
    """Games with a few decisions each (id, tokens, version), and one left OPEN last."""
    out = []
    rng = random.Random(5)
    for seed in range(8):
        game_id = await create_game(stub, 2, seed=20 + seed)
        tokens = await join_all(stub, game_id, 2)
        replies = await play(stub, game_id, tokens, rng, n=3)
        out.append((game_id, tokens, int(replies[-1].state_version)))
    open_id = await create_game(stub, 3, seed=40)
    await stub.JoinGame(gs.JoinGameRequest(game_id=open_id, seat=0, player_name="p0"))
    out.append((open_id, [], 0))
    return out


async def _watch_first(stub: Stub, game_id: str) -> int:
    call = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=1))
    try:
        message = await call.read()
        return int(message.event.sequence)
    finally:
        call.cancel()


async def _session_first(stub: Stub, game_id: str, token: str) -> int:
    session = stub.PlaySession()
    try:
        await session.write(
            gs.PlaySessionRequest(open=gs.PlayOpen(game_id=game_id, seat_token=token))
        )
        prompt = await session.read()
        return int(prompt.state_version)
    finally:
        session.cancel()


async def test_the_first_call_of_each_kind_rebuilds_its_game_once(tmp_path: Path) -> None:
    games = await _with_server(tmp_path, lambda running, stub: _six_games(stub))
    async with _lazily(tmp_path) as (running, stub, rebuilds):
        registry = running.games
        assert not registry.games and len(registry.dormant) == len(games)
        (g0, t0, v0), (g1, _, v1), (g2, _, _), (g3, t3, _), (g4, _, _), (g5, _, _) = games[:6]
        (g6, _, _), (g7, t7, v7), (open_id, _, _) = games[6:]
        view = gs.GetViewRequest(game_id=g0, seat_token=t0[0])
        calls: dict[str, Callable[[], Awaitable[Any]]] = {
            g0: lambda: stub.GetView(view),
            g1: lambda: spectator(stub, g1),
            g2: lambda: _watch_first(stub, g2),
            g3: lambda: _session_first(stub, g3, t3[1]),
            g4: lambda: _refused(stub.GetReplay(gs.GetReplayRequest(game_id=g4))),
            g5: lambda: _refused(stub.GetResult(gs.GetResultRequest(game_id=g5))),
            g6: lambda: _refused(stub.AbortGame(gs.AbortGameRequest(game_id=g6))),
            open_id: lambda: _refused(
                stub.JoinGame(gs.JoinGameRequest(game_id=open_id, seat=1, player_name="x"))
            ),
        }
        for game_id, call in calls.items():
            await asyncio.gather(*(call() for _ in range(10)))  # ten first uses at once
            assert rebuilds[game_id] == 1, game_id
            assert game_id in registry.games and game_id not in registry.dormant
        # A submission (the last kind) on a game nothing has touched since the restart.
        assert g7 in registry.dormant
        request = await _decision(stub, g7, t7)
        replies = await asyncio.gather(*(stub.SubmitAction(request) for _ in range(10)))
        assert rebuilds[g7] == 1
        assert {r.state_version for r in replies} == {v7 + 1}
        assert sum(not r.duplicate for r in replies) == 1  # applied once, nine duplicates
        assert registry.games[g0].version == v0 and registry.games[g1].version == v1
        assert sum(rebuilds.values()) == len(calls) + 1 and not registry.dormant


async def _refused(call: Awaitable[Any]) -> None:
    """A call whose answer may be a refusal (the game was rebuilt to give it either way)."""
    try:
        await call
    except grpc.aio.AioRpcError as e:
        assert e.code() in (
            grpc.StatusCode.FAILED_PRECONDITION,  # a replay or result of a game in play
            grpc.StatusCode.PERMISSION_DENIED,  # an abort by a stranger
            grpc.StatusCode.ALREADY_EXISTS,  # a seat the first of ten joins took
        )


async def _decision(stub: Stub, game_id: str, tokens: list[str]) -> gs.SubmitActionRequest:
    view = await spectator(stub, game_id)
    seat = next(s for s in view.awaiting_seats if s not in view.committed_seats)
    return gs.SubmitActionRequest(
        game_id=game_id,
        seat_token=tokens[seat],
        legal_index=0,
        state_version=view.state_version,
        idempotency_key=f"after-restart-{game_id}",
    )


async def test_nothing_acknowledged_before_the_restart_is_lost(tmp_path: Path) -> None:
    async def decided(running: RunningServer, stub: Stub) -> tuple[str, list[str], Any]:
        game_id = await create_game(stub, 3, seed=31)
        tokens = await join_all(stub, game_id, 3)
        await play(stub, game_id, tokens, random.Random(31), n=6)
        request = await _decision(stub, game_id, tokens)
        return game_id, tokens, (request, await stub.SubmitAction(request))

    game_id, _, (request, acknowledged) = await _with_server(tmp_path, decided)
    async with _lazily(tmp_path) as (running, stub, rebuilds):
        assert game_id in running.games.dormant
        assert running.games.dormant[game_id].version == acknowledged.state_version
        retried = await stub.SubmitAction(request)  # recognised by its idempotency key
        assert retried.duplicate and retried.state_version == acknowledged.state_version
        assert list(retried.events) == list(acknowledged.events)
        assert running.games.games[game_id].version == acknowledged.state_version
        assert rebuilds[game_id] == 1


async def test_a_due_decision_clock_fires_at_its_deadline_after_a_restart(
    tmp_path: Path,
) -> None:
    async def timed(running: RunningServer, stub: Stub) -> tuple[str, int]:
        game_id = await create_game(stub, 2, seed=14, decision_time_limit_ms=5_000)
        await join_all(stub, game_id, 2)
        return game_id, (await spectator(stub, game_id)).state_version

    game_id, version = await _with_server(tmp_path, timed, clock=ManualClock())
    clock = ManualClock()
    async with _lazily(tmp_path, clock=clock) as (running, _, rebuilds):
        registry = running.games
        dormant = registry.dormant[game_id]
        assert dormant.due_unix_ms == clock.wall_ms() + 5_000  # a full turn from the restart
        clock.advance(3.5)  # more than a second before the deadline: nothing happens
        await asyncio.sleep(0.05)
        assert game_id in registry.dormant and not rebuilds
        clock.advance(0.6)  # within a second of it: rebuilt ahead of it
        await until(lambda: game_id in registry.games, "the game was rebuilt before its deadline")
        game = registry.games[game_id]
        assert game.version == version and not any(e.by_timeout for e in game.log)
        assert {game.deadline_unix_ms(s) for s in game.awaiting()} == {dormant.due_unix_ms}
        clock.advance(0.9)  # the deadline: the default decision is applied
        await until(lambda: any(e.by_timeout for e in game.log), "the timeout fired")
        assert game.version > version and rebuilds[game_id] == 1


async def test_the_abandonment_sweep_aborts_a_game_not_rebuilt_yet(tmp_path: Path) -> None:
    async def two(running: RunningServer, stub: Stub) -> tuple[str, str]:
        waiting = await create_game(stub, 2, seed=50)
        playing = await create_game(stub, 2, seed=51)
        await join_all(stub, playing, 2)
        return waiting, playing

    waiting, playing = await _with_server(tmp_path, two)
    async with _lazily(tmp_path, open_game_timeout_s=60, idle_game_timeout_s=0) as (
        running,
        stub,
        rebuilds,
    ):
        abandonment = running.abandonment
        assert abandonment is not None
        now = running.games.clock.wall_ms()
        assert await abandonment.sweep(now) == 0 and not rebuilds  # not abandoned yet
        assert await abandonment.sweep(now + 61_000) == 1
        assert rebuilds == {waiting: 1}  # rebuilt to be aborted; the other one left alone
        assert running.games.games[waiting].status == Status.ABORTED
        assert playing in running.games.dormant
        listed = await stub.ListGames(
            gs.ListGamesRequest(page_size=10, status=gp.GAME_STATUS_ABORTED)
        )
        assert [g.game_id for g in listed.games] == [waiting]


async def test_a_broken_log_fails_its_game_alone_on_use(tmp_path: Path) -> None:
    games = await _with_server(tmp_path, lambda running, stub: _six_games(stub))
    (bad, _, _), (good, tokens, version) = games[0], games[1]
    conn = sqlite3.connect(tmp_path / "games.sqlite3")
    with conn:
        conn.execute("DELETE FROM actions WHERE game_id = ? AND version = 1", (bad,))
    conn.close()
    async with _lazily(tmp_path) as (running, stub, rebuilds):
        assert running.restore is not None and not running.restore.problems  # not read yet
        listed = await stub.ListGames(gs.ListGamesRequest(page_size=100))
        assert bad in {g.game_id for g in listed.games}
        sample = running.metrics.registry.get_sample_value
        assert sample("yggdrasil_games_unrecoverable") == 0
        for _ in range(2):  # the first use finds it; the next one is told the same
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await spectator(stub, bad)
            assert refused.value.code() == grpc.StatusCode.DATA_LOSS
            details = refused.value.details() or ""
            assert "could not be restored and is out of service" in details
            assert "not contiguous" in details and "decisions were lost" in details
        assert rebuilds[bad] == 1
        assert sample("yggdrasil_games_unrecoverable") == 1
        assert sample("yggdrasil_games_hosted") == len(games) - 1
        listed = await stub.ListGames(gs.ListGamesRequest(page_size=100))
        assert bad not in {g.game_id for g in listed.games}  # as an eager restart leaves it
        view = await stub.GetView(gs.GetViewRequest(game_id=good, seat_token=tokens[0]))
        assert view.view.state_version == version  # the others are served


@pytest.mark.parametrize("restore", ["lazy", "eager"])
async def test_the_broken_game_gets_the_same_answer_lazily_and_eagerly(
    tmp_path: Path, restore: str
) -> None:
    games = await _with_server(tmp_path, lambda running, stub: _six_games(stub))
    bad = games[2][0]
    conn = sqlite3.connect(tmp_path / "games.sqlite3")
    with conn:
        conn.execute("UPDATE actions SET code = code + 1 WHERE game_id = ? AND version = 2", (bad,))
    conn.close()

    async def answer(running: RunningServer, stub: Stub) -> tuple[Any, str]:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await spectator(stub, bad)
        return refused.value.code(), refused.value.details() or ""

    code, details = await _with_server(tmp_path, answer, restore=restore)
    assert code == grpc.StatusCode.DATA_LOSS
    assert details.startswith(f"game {bad!r} could not be restored and is out of service: ")
    assert "hash chain" in details or "state hash mismatch" in details
