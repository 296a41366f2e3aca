"""A node that starts takes back, in bulk, every game no live node owns (server.cluster.ownership
``_take_back_all``): those released by a graceful stop at once, those of a crashed earlier
incarnation as soon as its lease is over; each game hosted dormant (from the store's index) and
rebuilt on its first use exactly as it was."""

from __future__ import annotations

import asyncio
import time

import psycopg
from cluster_support import (
    TOLERANT_LEASE,
    Node,
    decision,
    join_all,
    new_game,
    pause_renewals,
    start_node,
)

from server.games.dormant import Dormant
from server.games.game import Game
from tests.waiting import until
from yggdrasil.v1 import game_service_pb2 as gs


async def _games_with_a_decision(node: Node, count: int) -> list[tuple[str, list[str], int]]:
    """``count`` games, each with one decision applied (game id, tokens, its version)."""
    out = []
    for i in range(count):
        game_id = await new_game(node, seed=100 + i)
        tokens = await join_all(node, game_id)
        reply = await node.stub.SubmitAction(await decision(node, game_id, tokens, f"{game_id}/1"))
        out.append((game_id, tokens, int(reply.state_version)))
    return out


def _owners(url: str, ids: list[str]) -> dict[str, tuple[str, int]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT game_id, owner, epoch FROM games WHERE game_id = ANY(%s)", (ids,)
        ).fetchall()
    return {str(g): (str(o), int(e)) for g, o, e in rows}


async def test_a_node_takes_back_every_released_game_at_start(pg_url: str) -> None:
    a = await start_node(pg_url, node_id="n1")
    games = await _games_with_a_decision(a, 12)
    await a.stop()  # a graceful stop releases them (owner NULL)
    b = await start_node(pg_url, node_id="n1")
    try:
        ids = [g for g, _, _ in games]
        await until(lambda: all(b.store.owns(g) for g in ids), "the released games were taken back")
        # No call about them was needed: they came back in bulk, each at a new epoch.
        assert b.value("yggdrasil_forwarded_calls_total", method="SubmitAction", code="OK") == 0
        assert set(_owners(b.store.url, ids).values()) == {(b.ownership.member, 2)}
        assert b.value("yggdrasil_takeovers_total") == len(ids)
        registry = b.running.games
        # Taken back lazily: owned, fenced, listed and counted, none rebuilt before its use.
        assert set(registry.dormant) == set(ids) and not set(registry.games) & set(ids)
        assert b.value("yggdrasil_games_hosted") == len(ids)
        woken: list[str] = []
        waker = registry.waker
        assert waker is not None

        async def counting(dormant: Dormant) -> Game:
            woken.append(dormant.id)
            return await waker(dormant)

        registry.waker = counting
        for game_id, tokens, version in games:
            assert registry.dormant[game_id].version == version
            # Ten first calls at once rebuild it once.
            views = await asyncio.gather(
                *(
                    b.stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=tokens[0]))
                    for _ in range(10)
                )
            )
            assert {v.view.state_version for v in views} == {version}
            assert woken.count(game_id) == 1
            hosted = registry.games[game_id]
            assert hosted.version == version
            # A retry of the decision made before the restart gets its first answer.
            first = await decision(b, game_id, tokens, f"{game_id}/1")
            first.state_version = version - 1
            retried = await b.stub.SubmitAction(first)
            assert retried.duplicate and retried.state_version == version
            moved = await b.stub.SubmitAction(await decision(b, game_id, tokens, f"{game_id}/2"))
            assert moved.state_version == version + 1
    finally:
        await b.stop()


async def test_a_restarted_node_takes_back_its_crashed_incarnations_games(pg_url: str) -> None:
    a = await start_node(pg_url, node_id="n1", **TOLERANT_LEASE)
    games = await _games_with_a_decision(a, 6)
    await pause_renewals(a)  # as if it had crashed: no renewal, no release
    again = await start_node(pg_url, node_id="n1", **TOLERANT_LEASE)
    try:
        ids = [g for g, _, _ in games]
        # Once the dead incarnation's lease is over (by the database's clock), the new one
        # takes its games back without any call about them.
        await until(
            lambda: all(again.store.owns(g) for g in ids), "the crashed node's games came back"
        )
        # (The adoption of a few orphans each lease tick may take one of them first, at the same
        # or a later epoch: each game has one owner either way.)
        owners = _owners(again.store.url, ids)
        assert {o for o, _ in owners.values()} == {again.ownership.member}
        assert min(e for _, e in owners.values()) == 2
        game_id, tokens, version = games[0]
        view = await again.stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=tokens[0]))
        assert view.view.state_version == version
    finally:
        await again.stop()
        a.ownership.stopping = True  # the "crashed" one releases nothing on its way out
        await asyncio.wait_for(a.stop(), 30)


async def test_a_game_taken_back_dormant_times_out_at_its_deadline(pg_url: str) -> None:
    """Nobody calls about it: its decision clock alone rebuilds it (a second ahead) and the
    default decision is applied when the time runs out, with the stored deadline kept."""
    a = await start_node(pg_url, node_id="n1")
    game_id = await new_game(a, seed=7, limit_ms=60_000)
    tokens = await join_all(a, game_id)
    # A decision stores the deadlines of the seats awaited after it (the new owner's clocks).
    await a.stub.SubmitAction(await decision(a, game_id, tokens, "before-stop"))
    await a.stop()
    with psycopg.connect(pg_url) as conn:  # as if the turn had begun 58.5 s ago
        conn.execute(
            "UPDATE games SET deadlines_json = %s WHERE game_id = %s",
            (f'{{"0": {int(time.time() * 1000) + 1500}, "1": {int(time.time() * 1000) + 1500}}}',
             game_id),
        )  # fmt: skip
    b = await start_node(pg_url, node_id="n1")
    try:
        registry = b.running.games
        await until(lambda: game_id in registry.dormant, "the game was taken back dormant")
        version = registry.dormant[game_id].version
        await until(lambda: game_id in registry.games, "its clock rebuilt it before the deadline")
        game = registry.games[game_id]
        await until(lambda: game.version > version, "the default decision was applied")
        assert any(e.by_timeout for e in game.log)
        assert b.value("yggdrasil_forwarded_calls_total", method="GetView", code="OK") == 0
    finally:
        await b.stop()


async def test_an_eager_node_rebuilds_every_game_it_takes_back(pg_url: str) -> None:
    """``--restore eager``: the games come back rebuilt (read in bulk), none left dormant."""
    a = await start_node(pg_url, node_id="n1")
    games = await _games_with_a_decision(a, 5)
    await a.stop()
    b = await start_node(pg_url, node_id="n1", restore="eager")
    try:
        registry = b.running.games
        ids = [g for g, _, _ in games]
        await until(lambda: all(g in registry.games for g in ids), "every game was rebuilt")
        assert not registry.dormant
        for game_id, _, version in games:
            assert registry.games[game_id].version == version
    finally:
        await b.stop()
