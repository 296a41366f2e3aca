"""Issue 26: what a hostile or unlucky client found in a cluster, kept found (in-process nodes
on one PostgreSQL database; docs/cluster.md). Each test failed before its fix."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import psycopg
import pytest
from cluster_support import (
    Node,
    decision,
    end_lease,
    join_all,
    new_game,
    pause_renewals,
    start_node,
)

from clients.bots import RandomBot
from clients.sdk import play_seat
from server.api.identity import hash_key
from server.cluster.node_auth import ClusterSecretError, ClusterSecrets
from server.cluster.ownership import HERE, Route
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


@pytest.fixture
async def nodes(pg_url: str) -> AsyncIterator[list[Node]]:
    started = [await start_node(pg_url), await start_node(pg_url)]
    try:
        yield started
    finally:
        for node in started:
            await node.stop()


def _row(url: str, sql: str, *args: object) -> tuple[object, ...]:
    with psycopg.connect(url) as conn:
        row = conn.execute(sql, args).fetchone()
    assert row is not None
    return tuple(row)


def _execute(url: str, sql: str, *args: object) -> None:
    with psycopg.connect(url) as conn:
        conn.execute(sql, args)


async def _dies(node: Node) -> None:
    """As if the process were killed: no renewals, nothing served, its lease over."""
    await pause_renewals(node)
    node.ownership._valid_until = 0.0
    await node.running.server.stop(None)
    await end_lease(node)


# -- point 1: a call routed here for a game that moved meanwhile is retried, not refused -------


async def test_a_call_routed_here_for_a_game_that_moved_meanwhile_is_retryable(
    nodes: list[Node], monkeypatch: pytest.MonkeyPatch
) -> None:
    """make cluster-chaos found a `python -m clients.sdk` seat ended by FAILED_PRECONDITION
    "served by another node; send the x-game-id header" although it sent it: its node had
    routed the call here and lost the game before the handler looked for it. Such a call gets
    UNAVAILABLE (retried and routed afresh); only a call without a game id to route by is told
    to send one."""
    a, b = nodes
    game_id = await new_game(a)
    real = b.ownership.route
    routed = 0

    async def stale_then_real(gid: str, *, forwarded: bool = False) -> Route:
        nonlocal routed
        routed += 1
        if routed == 1:
            return HERE  # the moment the call was routed: as if b still owned the game
        return await real(gid, forwarded=forwarded)

    monkeypatch.setattr(b.ownership, "route", stale_then_real)
    spectator = gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
    hint = (("x-game-id", game_id),)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await b.stub.GetView(spectator, metadata=hint)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE, caught.value.details()
    # The retry is routed afresh: forwarded to the owner.
    view = (await b.stub.GetView(spectator, metadata=hint)).view
    assert view.status == gp.GAME_STATUS_OPEN
    # A PlaySession that names no game in its metadata cannot be routed: told to name it.
    tokens = await join_all(a, game_id)
    session = b.stub.PlaySession()
    await session.write(
        gs.PlaySessionRequest(open=gs.PlayOpen(game_id=game_id, seat_token=tokens[0]))
    )
    with pytest.raises(grpc.aio.AioRpcError) as unrouted:
        await asyncio.wait_for(session.read(), 10)
    assert unrouted.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "x-game-id" in (unrouted.value.details() or "")
    assert a.ownership.member not in (unrouted.value.details() or "")  # no internal name


# -- point 6: a game known broken is not taken over again on every call --------------------


async def test_a_broken_game_is_answered_data_loss_without_a_takeover_per_call(
    nodes: list[Node],
) -> None:
    a, b = nodes
    game_id = await new_game(a)
    tokens = await join_all(a, game_id)
    for n in range(2):
        await a.stub.SubmitAction(await decision(a, game_id, tokens, f"k{n}"))
    await _dies(a)
    # The log is damaged: its first row no longer matches its link of the hash chain.
    _execute(b.store.url, "UPDATE actions SET seat = 1 - seat WHERE game_id = %s AND version = 0",
             game_id)  # fmt: skip
    (before,) = _row(b.store.url, "SELECT epoch FROM games WHERE game_id = %s", game_id)
    spectator = gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
    codes = []
    for _ in range(30):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await b.stub.GetView(spectator)
        codes.append(caught.value.code())
    assert set(codes) == {grpc.StatusCode.DATA_LOSS}
    (after,) = _row(b.store.url, "SELECT epoch FROM games WHERE game_id = %s", game_id)
    assert after == before + 1  # one takeover found it broken; none after that
    assert b.value("yggdrasil_takeovers_total") == 0
    # The orphan sweep leaves it alone too.
    await b.ownership._adopt_orphans()
    assert _row(b.store.url, "SELECT epoch FROM games WHERE game_id = %s", game_id) == (after,)
    await asyncio.sleep(0)


# -- point 2: no answer from a stale copy of a game that finished elsewhere ----------------


async def test_a_node_that_lost_a_game_answers_from_the_store_once_it_finished_elsewhere(
    pg_url: str,
) -> None:
    a, b = await start_node(pg_url), await start_node(pg_url)
    c: Node | None = None
    try:
        game_id = await new_game(a, seed=11)
        tokens = await join_all(a, game_id)
        await _dies(a)
        # b takes the game over through a call that names no game in its metadata (a
        # PlaySession without x-game-id): the game is found through the archive path.
        session = b.stub.PlaySession()
        await session.write(
            gs.PlaySessionRequest(open=gs.PlayOpen(game_id=game_id, seat_token=tokens[0]))
        )
        first = await asyncio.wait_for(session.read(), 10)
        assert first.state_version == 0
        session.cancel()
        assert b.store.owns(game_id)
        # b loses its lease (a stall); another node takes the game over and plays it out.
        await pause_renewals(b)
        b.ownership._lose_lease("a stall in the test")
        await end_lease(b)
        c = await start_node(pg_url)
        address = f"127.0.0.1:{c.running.port}"
        results = await asyncio.wait_for(
            asyncio.gather(
                *(
                    play_seat(address, game_id, RandomBot(), token=tokens[s], rng=random.Random(s))
                    for s in range(2)
                )
            ),
            180,
        )
        assert {r.status for r in results} == {"FINISHED"}
        # b serves again (a new incarnation): it answers about the game from the store.
        await b.ownership._register()
        view = (
            await b.stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
        ).view
        assert view.status == gp.GAME_STATUS_FINISHED and view.state_version > 0
        result = (await b.stub.GetResult(gs.GetResultRequest(game_id=game_id))).result
        assert [s.score for s in sorted(result.seats, key=lambda s: s.seat)] == results[0].scores
        replay = await b.stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
        assert len(replay.steps) == view.state_version
        watch = b.stub.WatchGame(gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()))
        messages = [m async for m in watch]
        assert messages and messages[-1].view.status == gp.GAME_STATUS_FINISHED
        assert await watch.code() == grpc.StatusCode.OK
    finally:
        for node in (a, b, c):
            if node is not None:
                await node.stop()


# -- point 7: a seat's token hash copied onto another seat is noticed by a takeover --------


async def test_a_copied_token_hash_is_noticed_by_a_takeover(pg_url: str) -> None:
    a, b = await start_node(pg_url), await start_node(pg_url)
    try:
        game_id = await new_game(a)
        tokens = await join_all(a, game_id)
        await a.stub.SubmitAction(await decision(a, game_id, tokens, "k0"))
        await _dies(a)
        with psycopg.connect(pg_url) as conn:
            conn.execute(
                "UPDATE seats SET token_hash = (SELECT token_hash FROM seats WHERE game_id = %s "
                "AND seat = 0) WHERE game_id = %s AND seat = 1",
                (game_id, game_id),
            )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await b.stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=tokens[0]))
        assert caught.value.code() == grpc.StatusCode.DATA_LOSS
        assert "claim of seat 1" in (caught.value.details() or "")
    finally:
        await a.stop()
        await b.stop()


# -- point 8: node-to-node calls are signed; the secret rotates without a restart ----------


async def test_node_signatures_are_checked_and_the_secret_rotates(
    pg_url: str, tmp_path: Path
) -> None:
    old, new = "old-secret-" + "o" * 40, "new-secret-" + "n" * 40
    files = [tmp_path / "a.secret", tmp_path / "b.secret"]
    for path in files:
        path.write_text(f"{old}\n", encoding="utf-8")
    a = await start_node(pg_url, cluster_secret=None, cluster_secret_file=files[0])
    b = await start_node(pg_url, cluster_secret=None, cluster_secret_file=files[1])
    try:
        game_id = await new_game(a)
        spectator = gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
        method = "/yggdrasil.v1.GameService/GetView"
        await b.stub.GetView(spectator)  # relayed to a, signed with the old secret
        secrets = ClusterSecrets.from_text(old)
        forged = ClusterSecrets.from_text("not-the-secret-" + "x" * 40)
        refused = [
            forged.sign("node9/f00d", method),  # another secret
            secrets.sign("node9/f00d", "/yggdrasil.v1.GameService/SubmitAction"),  # method
            secrets.sign("node9/f00d", method, now=time.time() - 3600),  # an old signature
            ("x-yggdrasil-forwarded", "node9/f00d"),  # unsigned
        ]
        for metadata in refused:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await a.stub.GetView(spectator, metadata=(metadata,))
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        await a.stub.GetView(spectator, metadata=(secrets.sign("node9/f00d", method),))
        # Rotation: the new secret accepted everywhere, then signing, then the old one gone.
        for path in files:
            path.write_text(f"{old}\n{new}\n", encoding="utf-8")
        assert a.running.reload_keys() and b.running.reload_keys()
        files[1].write_text(f"{new}\n{old}\n", encoding="utf-8")
        assert b.running.reload_keys()
        await b.stub.GetView(spectator)  # signed with the new secret, accepted by a
        files[0].write_text(f"{new}\n", encoding="utf-8")
        assert a.running.reload_keys()
        await b.stub.GetView(spectator)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await a.stub.GetView(spectator, metadata=(secrets.sign("node9/f00d", method),))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        # A file that cannot be used keeps the secrets read before.
        files[0].write_text("short\n", encoding="utf-8")
        assert not a.running.reload_keys()
        await b.stub.GetView(spectator)
        assert a.value("yggdrasil_forwarded_calls_total") == 0
        assert b.value("yggdrasil_forwarded_calls_total", method="GetView", code="OK") == 4
    finally:
        await a.stop()
        await b.stop()


async def test_a_cluster_node_does_not_start_without_a_secret(pg_url: str) -> None:
    with pytest.raises(ClusterSecretError, match="cluster-secret"):
        await start_node(pg_url, cluster_secret=None)


# -- point 3: open games and streams are counted cluster-wide ------------------------------

LIMITED_KEY = "ygg_cluster-limited-key-0123456789abcdefgh"


async def test_open_games_and_streams_are_counted_across_three_nodes(
    pg_url: str, tmp_path: Path
) -> None:
    """A key limited to 3 open games and 2 streams created 9 games and held 6 streams on 3
    nodes; now the store counts them for the whole cluster."""
    keys = tmp_path / "keys.toml"
    keys.write_text(
        f'[[keys]]\nname = "limited"\nrole = "player"\nsha256 = "{hash_key(LIMITED_KEY)}"\n'
        "open_games = 3\nstreams = 2\ncreate_burst = 100\n",
        encoding="utf-8",
    )
    nodes = [await start_node(pg_url, api_keys=keys) for _ in range(3)]
    key = (("authorization", f"Bearer {LIMITED_KEY}"),)
    try:
        codes, created = [], []
        for attempt in range(9):
            node = nodes[attempt % 3]
            try:
                reply = await node.stub.CreateGame(
                    gs.CreateGameRequest(options=gp.GameOptions(player_count=2)), metadata=key
                )
                codes.append("OK")
                created.append((node, reply.game_id))
            except grpc.aio.AioRpcError as error:
                codes.append(error.code().name)
                assert "open or in-progress games" in (error.details() or "")
        assert codes.count("OK") == 3, codes
        assert set(codes[3:]) == {"RESOURCE_EXHAUSTED"}
        # Streams: each watch is counted by the node that owns its game (three nodes).
        watches, refused = [], 0
        for node, game_id in created:
            watch = node.stub.WatchGame(
                gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()), metadata=key
            )
            try:
                await asyncio.wait_for(watch.read(), 10)
                watches.append(watch)
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "streams" in (error.details() or "")
                refused += 1
        assert (len(watches), refused) == (2, 1)
        # One ends: its lease goes back to the cluster, and a stream on a third node opens.
        watches.pop().cancel()
        node, game_id = created[-1]
        for _ in range(100):
            again = node.stub.WatchGame(
                gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()), metadata=key
            )
            try:
                await asyncio.wait_for(again.read(), 10)
                break
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("the released stream lease was never given back")
        again.cancel()
        for watch in watches:
            watch.cancel()
        # An aborted game no longer counts: the key creates again.
        node, game_id = created[0]
        await node.stub.AbortGame(gs.AbortGameRequest(game_id=game_id), metadata=key)
        await nodes[1].stub.CreateGame(
            gs.CreateGameRequest(options=gp.GameOptions(player_count=2)), metadata=key
        )
    finally:
        for node in nodes:
            await node.stop()
