"""A restarted server hosts every unfinished game again, exactly as it was."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

import grpc
import grpc.aio
import pytest
from durable_support import (
    create_game,
    join_all,
    next_request,
    play,
    rechain,
    spectator,
    start,
    stub_for,
)

from engine.blood_rage import flow
from engine.blood_rage.setup import new_game
from protocol.blood_rage import actions as br_actions
from server.games.decision_clock import ManualClock
from server.games.record import Status
from server.stores.sqlite import SqliteStore
from yggdrasil.v1 import game_service_pb2 as gs

ZOE_TOKEN = "zoe-chose-this-token-0123456789abcdefghijklmnop"


def _channel(port: int) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(f"127.0.0.1:{port}")


async def _watch_all(stub, game_id: str, from_sequence: int, until: int) -> list:
    """Messages of a WatchGame stream from ``from_sequence`` until sequence ``until``."""
    call = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=from_sequence))
    out = []
    try:
        while True:
            message = await asyncio.wait_for(call.read(), timeout=60)
            out.append(message)
            if message.sequence >= until:
                return out
    finally:
        call.cancel()


async def test_a_restarted_game_continues_with_the_old_tokens(tmp_path: Path) -> None:
    running = await start(tmp_path, snapshot_every=7)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            game_id = await create_game(stub, 3, seed=5)
            open_id = await create_game(stub, 4, seed=6)
            await stub.JoinGame(
                gs.JoinGameRequest(game_id=open_id, seat=2, player_name="zoe", seat_token=ZOE_TOKEN)
            )
            tokens = await join_all(stub, game_id, 3)
            rng = random.Random(1)
            await play(stub, game_id, tokens, rng, 40)
            before = running.games.get(game_id)
            expected = (
                before.state.state_hash(),
                before.version,
                before.last_sequence,
                list(before.log),
                await spectator(stub, game_id),
            )
            open_before = await spectator(stub, open_id)
    finally:
        await running.shutdown(0)

    running = await start(tmp_path, snapshot_every=7)
    try:
        report = running.restore
        assert report is not None and report.restored == 2 and report.problems == []
        assert report.actions_replayed < report.actions_total  # a snapshot shortened it
        game = running.games.get(game_id)
        assert game.status == Status.IN_PROGRESS
        assert (game.state.state_hash(), game.version, game.last_sequence, game.log) == tuple(
            expected[:4]
        )
        assert running.games.get(open_id).status == Status.OPEN
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            assert await spectator(stub, game_id) == expected[4]
            assert await spectator(stub, open_id) == open_before
            # Old tokens still act; the seat already claimed stays claimed.
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.JoinGame(gs.JoinGameRequest(game_id=open_id, seat=2))
            assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS
            # A JoinGame retried with its client-chosen token after the restart gets its seat.
            retried = await stub.JoinGame(
                gs.JoinGameRequest(game_id=open_id, player_name="zoe", seat_token=ZOE_TOKEN)
            )
            assert (retried.seat, retried.duplicate) == (2, True)
            await play(stub, game_id, tokens, rng)
            result = await stub.GetResult(gs.GetResultRequest(game_id=game_id))
            assert len(result.result.seats) == 3
            replay = await stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
    finally:
        await running.shutdown(0)
    # The whole log, across the restart, replays with the engine to the final hash.
    state = new_game(3, 5)
    for step in replay.steps:
        assert step.state_version == state.version
        flow.apply(state, step.seat, br_actions.action_from_pb(step.action))
    assert state.state_hash() == replay.final_state_hash == game.state.state_hash()


async def test_snapshots_every_n_decisions_and_at_phase_ends(tmp_path: Path) -> None:
    running = await start(tmp_path, snapshot_every=1000)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            game_id = await create_game(stub, 2, seed=8)
            tokens = await join_all(stub, game_id, 2)
            rng = random.Random(8)
            phases = []
            for _ in range(30):
                request = await next_request(stub, game_id, tokens, rng)
                assert request is not None
                game = running.games.get(game_id)
                phase = game.state.phase
                await stub.SubmitAction(request)
                if game.state.phase != phase:
                    phases.append(game.version)
            await running.games.idle()
    finally:
        await running.shutdown(0)
    assert phases, "30 decisions of a 2-player game end the first draft"
    stored = SqliteStore(tmp_path / "games.sqlite3").load_game(game_id)
    assert stored is not None and stored.snapshot is not None
    assert stored.snapshot_version == phases[-1]  # only the newest snapshot is kept

    running = await start(tmp_path, snapshot_every=5)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            await play(stub, game_id, tokens, rng, 12)
            version = running.games.get(game_id).version
            await running.games.idle()
    finally:
        await running.shutdown(0)
    stored = SqliteStore(tmp_path / "games.sqlite3").load_game(game_id)
    assert stored is not None
    assert version - 5 < stored.snapshot_version <= version


async def test_a_retry_after_a_restart_applies_once(tmp_path: Path) -> None:
    running = await start(tmp_path)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            game_id = await create_game(stub, 3, seed=9)
            tokens = await join_all(stub, game_id, 3)
            rng = random.Random(9)
            await play(stub, game_id, tokens, rng, 5)
            request = await next_request(stub, game_id, tokens, rng, key="the-key")
            assert request is not None
            request.include_view = True
            first = await stub.SubmitAction(request)
            length = len(running.games.get(game_id).log)
    finally:
        await running.shutdown(0)
    running = await start(tmp_path)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            again = await stub.SubmitAction(request)
            assert again.duplicate and not first.duplicate
            assert again.state_version == first.state_version
            assert list(again.events) == list(first.events)  # rebuilt from the log
            assert again.view == first.view
            assert len(running.games.get(game_id).log) == length
            other = gs.SubmitActionRequest()
            other.CopyFrom(request)
            other.state_version += 1
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.SubmitAction(other)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        await running.shutdown(0)


async def test_watchers_resume_by_sequence_across_a_restart(tmp_path: Path) -> None:
    running = await start(tmp_path, snapshot_every=4)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            game_id = await create_game(stub, 3, seed=10)
            tokens = await join_all(stub, game_id, 3)
            rng = random.Random(10)
            await play(stub, game_id, tokens, rng, 25)
            last = running.games.get(game_id).last_sequence
            seen = await _watch_all(stub, game_id, 1, last)
            seat_seen = []
            call = stub.WatchGame(
                gs.WatchGameRequest(game_id=game_id, seat_token=tokens[1], from_sequence=1)
            )
            while len(seat_seen) < last + 1:  # the view before event 1, then every event
                seat_seen.append(await call.read())
            call.cancel()
    finally:
        await running.shutdown(0)
    assert [m.sequence for m in seen] == list(range(0, last + 1))
    assert not seen[0].HasField("event") and seen[0].view.last_sequence == 0

    running = await start(tmp_path, snapshot_every=4)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            # Resuming from an old sequence: the view before it (replayed), then the same
            # events, same numbers, same content (rebuilt from the log).
            for start_at in (last - 3, 17, 1):
                again = await _watch_all(stub, game_id, start_at, last)
                head = again[0]
                assert not head.HasField("event") and not head.resync
                assert head.sequence == head.view.last_sequence <= start_at - 1
                if head.sequence == 0:
                    assert head.view == seen[0].view
                else:  # the state right after that event's decision
                    assert head.view.state_version == seen[head.sequence].event.state_version
                assert [m.event for m in again[1:]] == [m.event for m in seen[head.sequence + 1 :]]
                assert not any(m.resync for m in again)
            call = stub.WatchGame(
                gs.WatchGameRequest(game_id=game_id, seat_token=tokens[1], from_sequence=1)
            )
            for expected in seat_seen:  # a seat's own secrets come back, filtered alike
                got = await call.read()
                assert got.event == expected.event and got.sequence == expected.sequence
                assert got.view == expected.view
            call.cancel()
            # New events continue the numbering without a gap.
            watch = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=last + 1))
            head = await watch.read()
            assert head.sequence == head.view.last_sequence == last
            await play(stub, game_id, tokens, rng, 1)
            nxt = await asyncio.wait_for(watch.read(), timeout=60)
            assert nxt.sequence == last + 1 and not nxt.resync
            watch.cancel()
    finally:
        await running.shutdown(0)


async def test_events_that_cannot_be_rebuilt_give_an_explicit_resync(tmp_path: Path) -> None:
    running = await start(tmp_path)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            game_id = await create_game(stub, 2, seed=12)
            tokens = await join_all(stub, game_id, 2)
            await play(stub, game_id, tokens, random.Random(12), 6)
            last = running.games.get(game_id).last_sequence
    finally:
        await running.shutdown(0)
    # Pretend an older server numbered the events differently: the rebuilt events no longer
    # match the recorded sequence numbers, so none are served as if they were the originals.
    conn = sqlite3.connect(tmp_path / "games.sqlite3")
    conn.execute("UPDATE actions SET sequence = sequence + 100 WHERE version >= 3")
    conn.execute("UPDATE actions SET sequence = sequence + 50 WHERE version < 3")
    conn.commit()
    conn.close()
    rechain(tmp_path / "games.sqlite3", game_id)  # written so, not tampered with
    running = await start(tmp_path)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            new_last = running.games.get(game_id).last_sequence
            assert new_last == last + 100
            call = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=2))
            first = await call.read()
            assert first.resync and first.sequence == new_last and first.HasField("view")
            await play(stub, game_id, tokens, random.Random(13), 1)
            nxt = await asyncio.wait_for(call.read(), timeout=60)
            assert nxt.sequence == new_last + 1
            call.cancel()
    finally:
        await running.shutdown(0)


async def test_timeout_defaults_are_logged_and_restored(tmp_path: Path) -> None:
    clock = ManualClock()  # the limit runs out when the test says so, not when the machine does
    running = await start(tmp_path, clock=clock)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            game_id = await create_game(stub, 2, seed=14, decision_time_limit_ms=100)
            await join_all(stub, game_id, 2)
            game = running.games.get(game_id)
            assert clock.advance(0.1)
            async with asyncio.timeout(60):  # a guard against a hang: the defaults come at once
                while not any(e.by_timeout for e in game.log):
                    await asyncio.sleep(0.01)
            async with game.lock:
                log = list(game.log)
                last = game.last_sequence
    finally:
        await running.shutdown(0)
    assert any(e.by_timeout for e in log)
    stored = SqliteStore(tmp_path / "games.sqlite3").load_game(game_id)
    assert stored is not None and stored.actions[: len(log)] == log
    running = await start(tmp_path, clock=ManualClock())
    try:
        game = running.games.get(game_id)
        assert game.log[: len(log)] == log
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            seen = await _watch_all(stub, game_id, 1, last)
            assert any(m.event.WhichOneof("payload") == "timed_out" for m in seen)
    finally:
        await running.shutdown(0)


async def test_a_game_whose_end_was_not_recorded_is_finished_on_restore(tmp_path: Path) -> None:
    running = await start(tmp_path)
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            game_id = await create_game(stub, 2, seed=15)
            tokens = await join_all(stub, game_id, 2)
            await play(stub, game_id, tokens, random.Random(15))
            result = await stub.GetResult(gs.GetResultRequest(game_id=game_id))
    finally:
        await running.shutdown(0)
    conn = sqlite3.connect(tmp_path / "games.sqlite3")  # the crash came before `finish`
    conn.execute("UPDATE games SET finished_unix_ms = NULL, result_json = NULL")
    conn.commit()
    conn.close()
    running = await start(tmp_path)
    try:
        assert running.restore is not None and running.restore.repaired_finished == 1
        assert running.games.get(game_id).status == Status.FINISHED
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            again = await stub.GetResult(gs.GetResultRequest(game_id=game_id))
            assert again == result
    finally:
        await running.shutdown(0)
    stored = SqliteStore(tmp_path / "games.sqlite3").load_game(game_id)
    assert stored is not None and stored.finished_unix_ms is not None


class _RefusingStore(SqliteStore):
    refuse_claims = False

    async def claim(self, game_id, seat, name, token_hash, *rest, **named):
        if self.refuse_claims:
            raise OSError("disk full")
        await super().claim(game_id, seat, name, token_hash, *rest, **named)


async def test_a_claim_the_store_refuses_leaves_the_seat_free(tmp_path: Path) -> None:
    from server.config import ServerConfig
    from server.main import start_server
    from server.ops.metrics import Metrics, new_registry

    store = _RefusingStore(tmp_path / "games.sqlite3")
    store.open()
    running = await start_server(
        ServerConfig(port=0, metrics_port=-1),
        metrics=Metrics(new_registry(process_collectors=False)),
        store=store,
        owns_store=True,
    )
    try:
        async with _channel(running.port) as channel:
            stub = stub_for(channel)
            game_id = await create_game(stub, 2, seed=16)
            store.refuse_claims = True
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=0))
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            view = await spectator(stub, game_id)
            assert not view.seats[0].claimed and view.last_sequence == 0
            store.refuse_claims = False
            tokens = await join_all(stub, game_id, 2)
            assert running.games.get(game_id).seat_for_token(tokens[0]) == 0
    finally:
        await running.shutdown(0)
    stored = SqliteStore(tmp_path / "games.sqlite3").load_game(game_id)
    assert stored is not None and stored.seat_sequences == {0: 1, 1: 3}
