"""A change whose caller is cancelled while the store writes it is finished all the same.

A decision (or a seat claim, or a game's end) is written to the store first and applied in
memory after. The task waiting for the write may be cancelled meanwhile: a client that
cancels its call or whose deadline passes (grpc.aio cancels the handler's task), a shutdown
that stops waiting. The store may still commit the write (SQLite's writer thread has it), so
the change must then be applied in memory too: otherwise the next decision is logged at a
version the log already has (refused for ever), a retry is not recognised, and a restart
restores a state nobody was shown. Only the answer is lost; a retry gets it.

The store here (``held_store.HeldStore``) holds the writer thread before it commits, so the
cancellation comes exactly while the write is in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from durable_support import create_game, join_all, next_request, spectator, start, stub_for
from held_store import ABORT, APPEND, CLAIM, FINISH, HeldStore, stored_log

from engine.blood_rage import flow
from engine.blood_rage.results import result as engine_result
from server.api.service import GameService
from server.config import ServerConfig
from server.games.abandon import REQUESTED
from server.games.decision_clock import ManualClock
from server.games.game import Game
from server.games.record import GameSettings, Status
from server.games.recovery import restore_games
from server.games.refusal import Refusal
from server.games.registry import GameRegistry
from server.main import RunningServer, start_server
from server.ops.metrics import Metrics, new_registry
from server.stores.sqlite import SqliteStore
from yggdrasil.v1 import game_service_pb2 as gs

TOKEN = "ann-chose-this-token-0123456789abcdefghijklmnopq"


def _metrics() -> Metrics:
    return Metrics(new_registry(process_collectors=False))


def _path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@asynccontextmanager
async def _hosting(
    tmp_path: Path, clock: ManualClock | None = None
) -> AsyncIterator[tuple[GameRegistry, HeldStore]]:
    """A registry on a HeldStore (no server), stopped as a shutdown would at the end."""
    store = HeldStore(_path(tmp_path), fsync=False)
    store.open()
    registry = GameRegistry(store, _metrics(), **({"clock": clock} if clock else {}))
    try:
        yield registry, store
    finally:
        store.release()
        await _stop(registry, store)


async def _stop(registry: GameRegistry, store: SqliteStore) -> None:
    registry.close()
    await registry.idle()
    store.close()


@asynccontextmanager
async def _restarted(tmp_path: Path) -> AsyncIterator[GameRegistry]:
    """What a restarted server hosts (``server.games.recovery``, as at start-up)."""
    store = SqliteStore(_path(tmp_path))
    store.open()
    registry = GameRegistry(store, _metrics())
    try:
        report = await restore_games(store, registry)
        assert report.problems == []
        yield registry
    finally:
        await _stop(registry, store)


async def _cancelled_while_held(task: asyncio.Task[object], store: HeldStore) -> None:
    """Cancel ``task`` while its write is held, then let the write commit: the task ends
    cancelled (its answer is lost)."""
    await store.held()
    task.cancel()
    for _ in range(20):
        await asyncio.sleep(0)
    store.release()
    with pytest.raises(asyncio.CancelledError):
        await task


def _published(game: Game, version: int, seat: int) -> tuple[object, ...]:
    """The events the decision that reached ``version`` published, as ``seat`` saw them."""
    return tuple(e.for_viewer(seat) for e in game.events_from(1) if e.version == version)


async def _two_seats(registry: GameRegistry, seed: int, **settings: int) -> Game:
    game = await registry.create(GameSettings(players=2, seed=seed, **settings))  # type: ignore[arg-type]
    for seat in range(2):
        await game.join(seat, f"p{seat}")
    assert game.status == Status.IN_PROGRESS
    return game


async def test_a_decision_cancelled_while_it_is_logged_is_applied_and_its_retry_is_a_duplicate(
    tmp_path: Path,
) -> None:
    async with _hosting(tmp_path) as (registry, store):
        game = await _two_seats(registry, seed=61)
        first_seat, other_seat = game.awaiting()  # a simultaneous draft pick: both decide
        store.hold(APPEND)
        first = asyncio.create_task(game.submit(first_seat, None, 0, 0, "key-1", b"request-1"))
        await store.held()
        first.cancel()
        # The cancelled call keeps the game until its write is done: the next decision (the
        # other seat's, made on the state after the held one) waits for it.
        other = asyncio.create_task(game.submit(other_seat, None, 0, 1, "key-2", b"request-2"))
        for _ in range(20):
            await asyncio.sleep(0)
        assert not first.done() and not other.done()
        assert game.lock.locked()
        store.release()
        with pytest.raises(asyncio.CancelledError):
            await first
        second = await other
        assert second.state_version == 2 and not second.duplicate
        assert game.version == 2
        assert stored_log(_path(tmp_path), game.id) == game.log
        assert [(e.seat, e.idempotency_key) for e in game.log] == [
            (first_seat, "key-1"),
            (other_seat, "key-2"),
        ]

        retry = await game.submit(first_seat, None, 0, 0, "key-1", b"request-1")
        assert retry.duplicate and retry.state_version == 1
        assert retry.events == _published(game, 1, first_seat) != ()
        hash_before = game.state.state_hash()
        log_before = list(game.log)

    async with _restarted(tmp_path) as restarted:
        game = restarted.get(game.id)
        assert game.state.state_hash() == hash_before and game.log == log_before
        again = await game.submit(first_seat, None, 0, 0, "key-1", b"request-1")
        assert (again.duplicate, again.state_version, again.events) == (True, 1, retry.events)


async def test_a_seat_claim_cancelled_while_it_is_logged_holds_the_seat_and_a_retry_finds_it(
    tmp_path: Path,
) -> None:
    async with _hosting(tmp_path) as (registry, store):
        game = await registry.create(GameSettings(players=2, seed=62))
        store.hold(CLAIM)
        await _cancelled_while_held(asyncio.create_task(game.join(0, "ann", TOKEN)), store)
        assert game.seat_for_token(TOKEN) == 0 and game.names[0] == "ann"
        assert await game.join(None, "ann", TOKEN) == (0, TOKEN, True)
        await game.join(None, "bob")
        assert game.status == Status.IN_PROGRESS and game.last_sequence == 3

    async with _restarted(tmp_path) as restarted:
        game = restarted.get(game.id)
        assert game.seat_for_token(TOKEN) == 0 and game.status == Status.IN_PROGRESS


async def test_the_last_decision_cancelled_while_the_end_is_logged_is_answered_on_retry(
    tmp_path: Path,
) -> None:
    async with _hosting(tmp_path) as (registry, store):
        game = await _two_seats(registry, seed=63)
        rng = random.Random(63)
        while True:  # play up to the decision that ends the game
            seat = game.awaiting()[0]
            action = rng.choice(flow.legal_actions(game.state, seat))
            probe = game.state.copy()
            flow.apply_unchecked(probe, seat, action)
            if engine_result(probe) is not None:
                break
            await game.submit(seat, action, None, game.version)
        version = game.version
        store.hold(FINISH)
        last = asyncio.create_task(game.submit(seat, action, None, version, "last", b"last"))
        await _cancelled_while_held(last, store)
        assert game.status == Status.FINISHED and game.version == version + 1
        retry = await game.submit(seat, action, None, version, "last", b"last")
        assert retry.duplicate and retry.state_version == version + 1
        # The game is over: its log in memory is compact (server.games.compact), without hashes.
        assert _kept(stored_log(_path(tmp_path), game.id)) == _kept(game.log)
    stored = SqliteStore(_path(tmp_path)).load_game(game.id)
    assert stored is not None and stored.finished_unix_ms is not None and stored.result


def _kept(log: Any) -> list[tuple[int, int, Any, bool, int]]:
    """What the log of a game that is over keeps of each entry (server.games.compact.CompactLog)."""
    return [(e.version, e.seat, e.code, e.by_timeout, e.sequence) for e in log]


async def test_an_abort_cancelled_while_it_is_logged_ends_the_game_in_memory_too(
    tmp_path: Path,
) -> None:
    async with _hosting(tmp_path) as (registry, store):
        game = await _two_seats(registry, seed=68)
        seat = game.awaiting()[0]
        store.hold(ABORT)
        aborting = asyncio.create_task(game.abort(REQUESTED, "the table broke up"))
        await _cancelled_while_held(aborting, store)
        assert game.status == Status.ABORTED and game.aborted is not None
        assert game.last_sequence == game.aborted.sequence  # its watchers were told
        # No decision is logged after the abort the store has.
        with pytest.raises(Refusal) as refused:
            await game.submit(seat, None, 0, 0, "after", b"after")
        assert refused.value.code == "FAILED_PRECONDITION"
        assert stored_log(_path(tmp_path), game.id) == list(game.log) == []
    stored = SqliteStore(_path(tmp_path)).load_game(game.id)
    assert stored is not None and stored.aborted == game.aborted


async def test_a_timeout_default_being_logged_when_a_shutdown_stops_waiting_is_applied(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    async with _hosting(tmp_path, clock) as (registry, store):
        game = await _two_seats(registry, seed=64, decision_time_limit_ms=1000)
        store.hold(APPEND)
        assert clock.advance(1.0) == 1  # both seats' deadlines: the defaults are applied
        await store.held()
        registry.close()
        with contextlib.suppress(TimeoutError):  # a shutdown's grace runs out
            await asyncio.wait_for(registry.idle(), 0.05)
        store.release()
        await asyncio.wait_for(registry.idle(), 10)
        assert [(e.by_timeout, e.version) for e in game.log] == [(True, 0)]
        assert stored_log(_path(tmp_path), game.id) == game.log


# -- through the API ----------------------------------------------------------------------


@dataclass
class _Served:
    running: RunningServer
    store: HeldStore
    stub: Any
    game_id: str
    tokens: list[str]

    @property
    def game(self) -> Game:
        return self.running.games.get(self.game_id)

    async def shut_down_while_held(self) -> None:
        """Shut the server down while a write is held: its grace runs out, the store is
        closed, and the held write commits then."""
        shutdown = asyncio.create_task(self.running.shutdown(0))
        await self.store.closed_soon()
        self.store.release()
        await asyncio.wait_for(shutdown, 30)


@asynccontextmanager
async def _served_game(tmp_path: Path, seed: int) -> AsyncIterator[_Served]:
    """A server on a HeldStore, and a two-player game on it with both seats claimed."""
    store = HeldStore(_path(tmp_path))
    store.open()
    running = await start_server(
        ServerConfig(port=0, metrics_port=-1),
        metrics=_metrics(),
        store=store,
        owns_store=True,
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            game_id = await create_game(stub, 2, seed=seed)
            tokens = await join_all(stub, game_id, 2)
            yield _Served(running, store, stub, game_id, tokens)
    finally:
        store.release()
        await running.shutdown(0)


async def test_a_submit_whose_deadline_passes_while_it_is_logged_is_applied_and_answered_on_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handlers: list[asyncio.Task[object]] = []
    submit = GameService.SubmitAction

    async def recorded(self: GameService, request: object, context: object) -> object:
        task = asyncio.current_task()
        assert task is not None
        handlers.append(task)  # type: ignore[arg-type]
        return await submit(self, request, context)  # type: ignore[arg-type]

    monkeypatch.setattr(GameService, "SubmitAction", recorded)
    async with _served_game(tmp_path, seed=65) as served:
        stub, game_id, tokens, store = served.stub, served.game_id, served.tokens, served.store
        rng = random.Random(65)
        request = await next_request(stub, game_id, tokens, rng, key="short-deadline")
        assert request is not None
        store.hold(APPEND)
        call = asyncio.ensure_future(stub.SubmitAction(request, timeout=2.0))
        await store.held()
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call
        assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        async with asyncio.timeout(10):  # grpc.aio cancels the handler's task
            while not handlers[-1].done() and not handlers[-1].cancelling():
                await asyncio.sleep(0.01)
        store.release()

        retry = await stub.SubmitAction(request)
        assert retry.duplicate and retry.state_version == request.state_version + 1
        assert retry.events
        view = await spectator(stub, game_id)
        assert view.state_version == retry.state_version
        following = await next_request(stub, game_id, tokens, rng, key="next")
        assert following is not None
        reply = await stub.SubmitAction(following)
        assert reply.state_version == retry.state_version + 1
        assert stored_log(_path(tmp_path), game_id) == served.game.log
        before = (served.game.state.state_hash(), await spectator(stub, game_id))

    running = await start(tmp_path)
    try:
        assert running.games.get(game_id).state.state_hash() == before[0]
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            assert await spectator(stub, game_id) == before[1]
            again = await stub.SubmitAction(request)
            assert (again.duplicate, again.state_version) == (True, retry.state_version)
            assert list(again.events) == list(retry.events)
    finally:
        await running.shutdown(0)


async def test_a_play_session_decision_being_logged_at_shutdown_is_applied_before_it_ends(
    tmp_path: Path,
) -> None:
    async with _served_game(tmp_path, seed=66) as served:
        session = served.stub.PlaySession()
        opened = gs.PlayOpen(game_id=served.game_id, seat_token=served.tokens[0])
        await session.write(gs.PlaySessionRequest(open=opened))
        prompt = await session.read()
        served.store.hold(APPEND)
        choice = gs.PlayDecision(
            legal_index=0, state_version=prompt.state_version, idempotency_key="session-1"
        )
        await session.write(gs.PlaySessionRequest(decision=choice))
        await served.store.held()
        session.cancel()
        registry = served.running.metrics.registry
        async with asyncio.timeout(10):
            while registry.get_sample_value("yggdrasil_play_sessions_active"):
                await asyncio.sleep(0.01)  # the stream's handler has ended
        game = served.game
        await served.shut_down_while_held()
        await asyncio.wait_for(game.idle(), 10)
        assert [(e.seat, e.idempotency_key) for e in game.log] == [(0, "session-1")]
        assert stored_log(_path(tmp_path), served.game_id) == game.log


async def test_a_shutdown_during_a_decision_being_logged_completes_and_applies_it(
    tmp_path: Path,
) -> None:
    async with _served_game(tmp_path, seed=67) as served:
        request = await next_request(
            served.stub, served.game_id, served.tokens, random.Random(67), key="last-one"
        )
        assert request is not None
        served.store.hold(APPEND)
        call = asyncio.ensure_future(served.stub.SubmitAction(request))
        await served.store.held()
        game = served.game
        await served.shut_down_while_held()
        with contextlib.suppress(grpc.aio.AioRpcError):
            await call  # answered, or cut by the shutdown: either way it was logged
        assert [e.idempotency_key for e in game.log] == ["last-one"]
        assert stored_log(_path(tmp_path), served.game_id) == game.log
