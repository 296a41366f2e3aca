"""Issue 26: what a hostile or unlucky client found in a cluster, kept found (in-process nodes
on one PostgreSQL database; docs/cluster.md). Each test failed before its fix."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import psycopg
import pytest
from cluster_support import Node, decision, end_lease, join_all, new_game, pause_renewals, start_node

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
