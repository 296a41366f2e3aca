"""Ownership on PostgreSQL: leases by database time, epochs, fenced writes, takeover, forwarding
(in-process nodes with long leases, ended by the tests that need them over; docs/cluster.md)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator

import grpc
import psycopg
import pytest
from cluster_support import (
    TOLERANT_LEASE,
    Node,
    database_says,
    decision,
    end_lease,
    join_all,
    new_game,
    node_signature,
    pause_renewals,
    start_node,
)

from clients.bots import RandomBot
from clients.sdk import play_seat
from server.cluster.forwarding import OWNER_TRAILER
from server.stores.contract import StoreError
from server.stores.postgres import PostgresStore
from server.stores.postgres_migrations import MIGRATIONS
from tests.waiting import until
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


async def test_a_call_to_another_node_is_forwarded_and_names_the_owner_to_nodes(
    nodes: list[Node],
) -> None:
    a, b = nodes
    game_id = await new_game(a)
    call = b.stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=1, player_name="bo"))
    reply = await call
    assert reply.seat == 1
    assert OWNER_TRAILER not in dict(await call.trailing_metadata())  # clients are not told
    assert game_id in a.running.games.games and game_id not in b.running.games.games
    assert b.value("yggdrasil_forwarded_calls_total", method="JoinGame", code="OK") == 1
    # A caller that signs as a node (an operator's diagnostics) is told the owner, on errors
    # too; an error is relayed with its code and message.
    signed = (node_signature("tools/1", "/yggdrasil.v1.GameService/JoinGame"),)
    call = b.stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=0), metadata=signed)
    await call
    trailers = dict(await call.trailing_metadata())
    assert trailers[OWNER_TRAILER] == f"{a.ownership.member}@{a.ownership.address}"
    bad = b.stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=1), metadata=signed)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await bad
    assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert "seat 1 is already claimed" in (caught.value.details() or "")
    assert dict(caught.value.trailing_metadata())[OWNER_TRAILER].startswith(a.ownership.member)


async def test_a_version_mismatch_detail_survives_forwarding(nodes: list[Node]) -> None:
    a, b = nodes
    game_id = await new_game(a)
    tokens = await join_all(a, game_id)
    request = await decision(a, game_id, tokens, "k1")
    request.state_version += 5
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await b.stub.SubmitAction(request)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    keys = [k for k, _ in caught.value.trailing_metadata()]
    assert "grpc-status-details-bin" in keys and OWNER_TRAILER not in keys


async def test_a_watch_stream_is_relayed_live(nodes: list[Node]) -> None:
    a, b = nodes
    game_id = await new_game(a)
    tokens = await join_all(a, game_id)
    stream = b.stub.WatchGame(gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()))
    first = await stream.read()
    assert first.view.status == gp.GAME_STATUS_IN_PROGRESS
    reply = await a.stub.SubmitAction(await decision(a, game_id, tokens, "k1"))
    seen = await asyncio.wait_for(stream.read(), 5)
    assert seen.event.state_version == reply.state_version
    stream.cancel()


async def test_no_takeover_while_the_owner_lives(pg_url: str) -> None:
    a = await start_node(pg_url, **TOLERANT_LEASE)
    b = await start_node(pg_url, **TOLERANT_LEASE)
    try:
        game_id = await new_game(a)
        (first_end,) = _row(
            a.store.url, "SELECT lease_until FROM nodes WHERE member = %s", a.ownership.member
        )
        # Past the end of the lease the owner had when it created the game, by the
        # database's clock: only its renewals keep the game from the other node now.
        await database_says(
            b.store.url, "SELECT now() > %s", (first_end,), "the first lease never ran out"
        )
        await b.stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
        owner, epoch = _row(
            b.store.url, "SELECT owner, epoch FROM games WHERE game_id = %s", game_id
        )
        assert (owner, epoch) == (a.ownership.member, 1)
        assert b.value("yggdrasil_takeovers_total") == 0
        assert b.value("yggdrasil_forwarded_calls_total", method="GetView", code="OK") == 1
    finally:
        await b.stop()
        await a.stop()


async def test_a_paused_owner_is_taken_over_and_its_appends_are_fenced(
    nodes: list[Node],
) -> None:
    a, b = nodes
    game_id = await new_game(a)
    tokens = await join_all(a, game_id)
    first = await decision(a, game_id, tokens, "k1")
    applied = await a.stub.SubmitAction(first)
    await pause_renewals(a)
    await end_lease(a)  # its lease runs out by the database's clock
    # The other node takes the game over (epoch 2) from snapshot + log, hash-checked: seat
    # tokens work there, and a retry of the first decision gets its first answer.
    retried = await b.stub.SubmitAction(first)
    assert retried.duplicate and retried.state_version == applied.state_version
    assert b.value("yggdrasil_takeovers_total") == 1
    owner, epoch = _row(b.store.url, "SELECT owner, epoch FROM games WHERE game_id = %s", game_id)
    assert (owner, epoch) == (b.ownership.member, 2)
    moved = await b.stub.SubmitAction(await decision(b, game_id, tokens, "k2"))
    # The paused owner wakes up believing it owns the game: its decision is refused by the
    # store and nothing is acknowledged.
    stale = await decision(a, game_id, tokens, "k3")
    assert stale.state_version == applied.state_version  # it still has its old state
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await a.stub.SubmitAction(stale)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert a.value("yggdrasil_fencing_rejections_total") == 1
    assert game_id not in a.running.games.games  # dropped from the stale node
    (length,) = _row(a.store.url, "SELECT log_length FROM games WHERE game_id = %s", game_id)
    assert length == moved.state_version  # from version 0: one entry per acknowledged decision
    epochs = [
        e
        for (e,) in psycopg.connect(a.store.url)
        .execute("SELECT epoch FROM actions WHERE game_id = %s ORDER BY version", (game_id,))
        .fetchall()
    ]
    assert epochs == sorted(epochs) and epochs[0] == 1 and epochs[-1] == 2


@pytest.fixture
async def short_leased(pg_url: str) -> AsyncIterator[Node]:
    """A node whose lease ends 3 s after its last renewal (it stops serving 1 s before)."""
    node = await start_node(pg_url, **TOLERANT_LEASE)
    try:
        yield node
    finally:
        await node.stop()


async def test_a_node_that_cannot_renew_stops_serving_before_its_lease_ends(
    short_leased: Node,
) -> None:
    a = short_leased
    game_id = await new_game(a)
    broken = asyncio.Event()

    async def refuse() -> bool:
        broken.set()
        raise psycopg.OperationalError("the database is unreachable")

    a.ownership._renew = refuse  # type: ignore[method-assign]
    await broken.wait()
    # Nothing extends the lease any more: the node serves until the end it worked out from
    # its last renewal, on its own (monotonic) clock. That end must come before the lease's
    # end by the database's clock: both are this machine's clocks, so the monotonic time
    # converts to wall time by their offset. (Reading the database's clock once the node was
    # seen to stop would measure how fast this test runs, not the node.)
    loop = asyncio.get_running_loop()
    serves_until = a.ownership._valid_until
    wall_offset = time.time() - loop.time()
    (lease_end,) = _row(
        a.store.url, "SELECT lease_until FROM nodes WHERE member = %s", a.ownership.member
    )
    assert serves_until + wall_offset < lease_end.timestamp()
    assert lease_end.timestamp() - (serves_until + wall_offset) >= TOLERANT_LEASE["lease_margin_s"]
    await until(
        lambda: not a.ownership.serving and game_id not in a.running.games.games,
        "the node that cannot renew still serves its game",
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await a.stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert a.value("yggdrasil_lease_losses_total") == 1


async def test_a_graceful_stop_releases_games_for_an_immediate_takeover(pg_url: str) -> None:
    a = await start_node(pg_url, lease_ttl_s=30.0, lease_renew_s=1.0, lease_margin_s=2.0)
    b = await start_node(pg_url, lease_ttl_s=30.0, lease_renew_s=1.0, lease_margin_s=2.0)
    try:
        game_id = await new_game(a)
        await join_all(a, game_id)
        await a.stop()
        view = await asyncio.wait_for(
            b.stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())), 5
        )
        assert view.view.status == gp.GAME_STATUS_IN_PROGRESS  # long before a 30 s TTL
    finally:
        await b.stop()


async def test_decision_clocks_keep_counting_across_a_takeover(nodes: list[Node]) -> None:
    a, b = nodes
    game_id = await new_game(a, limit_ms=60_000)
    tokens = await join_all(a, game_id)
    await a.stub.SubmitAction(await decision(a, game_id, tokens, "k1"))
    before = (
        await a.stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=tokens[0]))
    ).view.decision_deadline_unix_ms
    assert before > 0
    await pause_renewals(a)
    await end_lease(a)
    after = (
        await b.stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=tokens[0]))
    ).view.decision_deadline_unix_ms
    assert after == before  # not a fresh minute from the takeover


async def test_migrations_are_recorded_and_a_newer_schema_is_refused(pg_url: str) -> None:
    store = PostgresStore(pg_url, min_connections=1)
    await store.open()
    await store.close()
    rows = psycopg.connect(pg_url).execute("SELECT version FROM schema_version").fetchall()
    assert [v for (v,) in rows] == [m.version for m in MIGRATIONS]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_version (version, name) VALUES (99, 'future')")
    again = PostgresStore(pg_url, min_connections=1)
    with pytest.raises(StoreError, match="schema version 99"):
        await again.open()


async def test_an_unreachable_database_is_a_clear_error() -> None:
    store = PostgresStore(
        "postgresql://nobody@127.0.0.1:1/none", min_connections=1, open_timeout_s=1.0
    )
    with pytest.raises(StoreError, match=r"127\.0\.0\.1:1/none"):
        await store.open()


async def test_list_games_is_cluster_wide_from_the_store(nodes: list[Node]) -> None:
    a, b = nodes
    made = [await new_game(a), await new_game(b), await new_game(a), await new_game(b)]
    await join_all(a, made[2])  # in progress
    pages, token = [], ""
    while True:
        reply = await b.stub.ListGames(gs.ListGamesRequest(page_size=3, page_token=token))
        pages.append([g.game_id for g in reply.games])
        token = reply.next_page_token
        if not token:
            break
    assert pages == [made[::-1][:3], made[::-1][3:]]  # newest first, from both nodes
    playing = await a.stub.ListGames(gs.ListGamesRequest(status=gp.GAME_STATUS_IN_PROGRESS))
    assert [g.game_id for g in playing.games] == [made[2]]
    assert [s.claimed for s in playing.games[0].seats] == [True, True]
    opened = await a.stub.ListGames(gs.ListGamesRequest(status=gp.GAME_STATUS_OPEN))
    assert {g.game_id for g in opened.games} == {made[0], made[1], made[3]}


async def test_play_sessions_are_relayed_to_the_owner(nodes: list[Node]) -> None:
    a, b = nodes
    game_id = await new_game(a, seed=11)
    address = f"127.0.0.1:{b.running.port}"  # not the owner: every session is relayed
    results = await asyncio.wait_for(
        asyncio.gather(
            *(
                play_seat(address, game_id, RandomBot(), seat=s, rng=random.Random(s))
                for s in range(2)
            )
        ),
        120,
    )
    assert sorted(r.seat for r in results) == [0, 1]
    assert b.value("yggdrasil_forwarded_calls_total", method="PlaySession", code="OK") == 2
    assert game_id not in b.running.games.games
    reply = await b.stub.GetResult(gs.GetResultRequest(game_id=game_id))
    assert results[0].status == "FINISHED" and results[0].scores == results[1].scores
    assert [s.score for s in reply.result.seats] == results[0].scores


async def _dies(node: Node) -> None:
    """As if the process were killed: no renewals, no release, its connections cut."""
    await pause_renewals(node)
    node.ownership._valid_until = 0.0  # nothing more is served by it
    await node.running.server.stop(None)


async def test_a_watch_cut_by_the_owners_death_resumes_on_another_node(nodes: list[Node]) -> None:
    a, b = nodes
    game_id = await new_game(a)
    tokens = await join_all(a, game_id)
    for n in range(3):
        await a.stub.SubmitAction(await decision(a, game_id, tokens, f"k{n}"))
    watch = a.stub.WatchGame(gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()))
    first = await watch.read()
    seen = first.sequence
    await _dies(a)
    with pytest.raises(grpc.aio.AioRpcError) as cut:
        while True:
            message = await watch.read()
            assert message is not grpc.aio.EOF
    assert cut.value.code() == grpc.StatusCode.UNAVAILABLE
    # Resume on the other node from the next sequence number: it takes the game over once
    # the dead owner's lease has expired, then serves the stream from the log.
    await end_lease(a)
    resumed = None
    for _ in range(50):
        stream = b.stub.WatchGame(
            gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator(), from_sequence=seen + 1)
        )
        try:
            resumed = await asyncio.wait_for(stream.read(), 5)
            break
        except grpc.aio.AioRpcError as e:
            assert e.code() == grpc.StatusCode.UNAVAILABLE
            await asyncio.sleep(0.2)
    assert resumed is not None
    reply = await b.stub.SubmitAction(await decision(b, game_id, tokens, "k-after"))
    # The stream goes on without a gap from where the watcher stopped: the resumed stream's
    # first message is the next event (or a full view if nothing happened in between).
    next_message = (
        resumed if resumed.HasField("event") else await asyncio.wait_for(stream.read(), 5)
    )
    assert next_message.sequence == seen + 1
    assert next_message.event.state_version == reply.state_version
    stream.cancel()


async def test_a_relayed_call_counts_the_anonymous_caller_by_its_own_address(
    pg_url: str,
) -> None:
    # The nodes trust each other (and Envoy, here the test itself at 127.0.0.1): node b
    # relays a watch of a's game and appends the address it got it from, so a counts the
    # stream for the client Envoy named, not for b.
    a = await start_node(pg_url, trusted_proxies="127.0.0.1")
    b = await start_node(pg_url, trusted_proxies="127.0.0.1")
    try:
        game_id = await new_game(a)
        watch = b.stub.WatchGame(
            gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()),
            metadata=(("x-game-id", game_id), ("x-forwarded-for", "198.51.100.7")),
        )
        first = await watch.read()
        assert first.view.game_id == game_id
        quotas = a.running.quotas
        assert quotas is not None
        assert quotas.streams("anon:ipv4:198.51.100.7") == 1
        assert quotas.streams("anon:ipv4:127.0.0.1") == 0
        watch.cancel()
    finally:
        await b.stop()
        await a.stop()
