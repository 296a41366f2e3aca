"""On PostgreSQL too, a caller cancelled while its game's row is being written changes
nothing of what the write does: the decision is applied on the node that logged it (no doubt,
no reload), and a takeover one caller gave up on goes on for the others.

A row lock taken by the test (``SELECT ... FOR UPDATE`` in an open transaction) holds the
node's statement in the database until the test commits: the cancellation comes exactly
while it is in flight."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import psycopg
import pytest
from cluster_support import Node, join_all, new_game, start_node

from server.games.game import Game


@pytest.fixture
async def node(pg_url: str) -> AsyncIterator[Node]:
    started = await start_node(pg_url)
    try:
        yield started
    finally:
        await started.stop()


async def _lock_row(url: str, game_id: str) -> psycopg.AsyncConnection:
    """A transaction holding the game's row: the node's writes to it wait until it ends."""
    conn = await psycopg.AsyncConnection.connect(url)
    await conn.execute("SELECT 1 FROM games WHERE game_id = %s FOR UPDATE", (game_id,))
    return conn


async def _until_waiting(url: str, statement: str) -> None:
    """Return once a statement containing ``statement`` waits for a lock."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        async with asyncio.timeout(20):
            while True:
                cur = await conn.execute(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE wait_event_type = 'Lock' AND position(%s in query) > 0",
                    (statement,),
                )
                row = await cur.fetchone()
                if row is not None and row[0]:
                    return
                await asyncio.sleep(0.01)


async def _count(url: str, sql: str, *args: object) -> int:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        row = await (await conn.execute(sql, args)).fetchone()
    assert row is not None
    return int(row[0])


async def test_a_decision_cancelled_while_it_is_logged_is_applied_on_its_node(node: Node) -> None:
    game_id = await new_game(node)
    await join_all(node, game_id)
    game = node.running.games.get(game_id)
    seat = game.awaiting()[0]
    holder = await _lock_row(node.store.url, game_id)
    try:
        task = asyncio.create_task(game.submit(seat, None, 0, 0, "pg-1", b"pg-1"))
        await _until_waiting(node.store.url, "INSERT INTO actions")
        task.cancel()
        for _ in range(20):
            await asyncio.sleep(0)
        assert not task.done() and game.lock.locked()
    finally:
        await holder.commit()
        await holder.close()
    with pytest.raises(asyncio.CancelledError):
        await task
    # Applied where it was logged: the node never doubted the write, so the game was not
    # dropped to be read back from the database.
    assert node.running.games.games.get(game_id) is game and node.store.owns(game_id)
    assert node.value("yggdrasil_takeovers_total") == 0
    assert game.version == 1
    length = "SELECT log_length FROM games WHERE game_id = %s"
    assert await _count(node.store.url, length, game_id) == 1
    retry = await game.submit(seat, None, 0, 0, "pg-1", b"pg-1")
    assert retry.duplicate and retry.state_version == 1
    following = game.awaiting()[0]
    assert (await game.submit(following, None, 0, 1, "pg-2", b"pg-2")).state_version == 2


async def test_a_takeover_one_caller_gives_up_on_goes_on_for_the_others(pg_url: str) -> None:
    a = await start_node(pg_url)
    b = await start_node(pg_url)
    try:
        # b takes games over only when asked here (not as orphans, from its renewal ticks).
        b.ownership.settings = replace(b.ownership.settings, adopt_per_tick=0)
        game_id = await new_game(a)
        await join_all(a, game_id)
        await a.stop()  # releases the game: b may take it over at once
        holder = await _lock_row(pg_url, game_id)
        try:
            first = asyncio.create_task(b.ownership.take_over(game_id))
            second = asyncio.create_task(b.ownership.take_over(game_id))
            await _until_waiting(pg_url, "epoch = epoch + 1")
            first.cancel()
            for _ in range(20):
                await asyncio.sleep(0)
        finally:
            await holder.commit()
            await holder.close()
        with pytest.raises(asyncio.CancelledError):
            await first
        taken = await asyncio.wait_for(second, 20)
        assert isinstance(taken, Game) and taken.id == game_id
        assert b.running.games.games.get(game_id) is taken and b.store.owns(game_id)
        epoch = await _count(pg_url, "SELECT epoch FROM games WHERE game_id = %s", game_id)
        assert epoch == b.store.epoch_of(game_id) == 2  # one takeover, not one per caller
        assert b.value("yggdrasil_takeovers_total") == 1
    finally:
        await b.stop()
