"""Group commit seen from the API (server.stores.postgres_batch behind a node): the decisions of a
batch that fails get UNAVAILABLE, and their retries with the same idempotency keys apply once,
whether the batch had committed (its answer lost) or not (its connection cut)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import psycopg
import pytest
from cluster_support import Node, decision, join_all, new_game, start_node

from server.stores.postgres_batch import AppendBatcher, BatchSettings, _Pending
from tests.waiting import until
from yggdrasil.v1 import game_service_pb2 as gs


@pytest.fixture
async def node(pg_url: str) -> AsyncIterator[Node]:
    # One batch at a time: decisions queued together leave together.
    started = await start_node(pg_url, batch=BatchSettings(in_flight=1))
    try:
        yield started
    finally:
        await started.stop()


async def _requests(node: Node, count: int) -> list[gs.SubmitActionRequest]:
    out = []
    for i in range(count):
        game_id = await new_game(node, seed=40 + i)
        tokens = await join_all(node, game_id)
        out.append(await decision(node, game_id, tokens, f"{game_id}/first"))
    return out


async def _one_batch(node: Node, requests: list[gs.SubmitActionRequest]) -> list[object]:
    """Send ``requests`` at once, their decisions committed in one batch: no batch may leave
    (every batch slot held here) until all of them are queued."""
    batcher = node.store.batcher
    for _ in range(batcher.settings.in_flight):
        await batcher._slots.acquire()
    calls = asyncio.ensure_future(
        asyncio.gather(*(node.stub.SubmitAction(r) for r in requests), return_exceptions=True)
    )
    try:
        await until(lambda: len(batcher._queue) == len(requests), "every decision queued")
    finally:
        for _ in range(batcher.settings.in_flight):
            batcher._slots.release()
    outcomes: list[object] = await calls
    return outcomes


def _keys(url: str) -> list[tuple[str, int]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT idem_key, count(*) FROM actions GROUP BY idem_key ORDER BY idem_key"
        ).fetchall()
    return [(str(k), int(n)) for k, n in rows]


def _unavailable(outcome: object) -> bool:
    return (
        isinstance(outcome, grpc.aio.AioRpcError) and outcome.code() == grpc.StatusCode.UNAVAILABLE
    )


async def test_a_batch_whose_answer_is_lost_is_answered_once_on_retry(node: Node) -> None:
    requests = await _requests(node, 4)
    batcher: AppendBatcher = node.store.batcher
    commit = batcher._commit
    loop = asyncio.get_running_loop()

    async def commit_then_lose(batch: list[_Pending]) -> None:
        # The batch commits, and then its answer never arrives (as when the connection drops
        # between PostgreSQL's commit and its reply).
        batcher._commit = commit  # type: ignore[method-assign]
        await commit([_Pending(p.row, loop.create_future(), p.queued) for p in batch])
        for p in batch:
            p.future.set_exception(psycopg.OperationalError("server closed the connection"))

    batcher._commit = commit_then_lose  # type: ignore[method-assign]
    first = await _one_batch(node, requests)
    assert all(_unavailable(o) for o in first), first
    # Each retry, with its idempotency key, finds its decision in the log (the game is read
    # back from the store) and gets the first answer: nothing is applied twice.
    for request in requests:
        retried = await node.stub.SubmitAction(request)
        assert retried.duplicate and retried.state_version == request.state_version + 1
    assert _keys(node.store.url) == sorted((r.idempotency_key, 1) for r in requests)


async def test_a_batch_cut_off_is_applied_once_on_retry(node: Node) -> None:
    requests = await _requests(node, 4)
    url = node.store.url
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "PERFORM pg_sleep(30); RETURN NEW; END $$"
        )
        conn.execute(
            "CREATE TRIGGER stall BEFORE INSERT ON actions FOR EACH ROW EXECUTE FUNCTION stall()"
        )
    submitted = asyncio.ensure_future(_one_batch(node, requests))
    stalled: list[tuple[object, ...]] = []

    def in_flight() -> bool:
        with psycopg.connect(url) as conn:
            stalled[:] = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep'"
            ).fetchall()
        return bool(stalled)

    await until(in_flight, "a batch stalled in its insert")
    with psycopg.connect(url, autocommit=True) as conn:
        for (pid,) in stalled:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
    first = await submitted
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TRIGGER stall ON actions")
    assert all(_unavailable(o) for o in first), first
    assert node.store.batcher.failed_batches == 1
    assert _keys(url) == []  # the batch was rolled back whole
    for request in requests:
        retried = await node.stub.SubmitAction(request)
        assert not retried.duplicate and retried.state_version == request.state_version + 1
        again = await node.stub.SubmitAction(request)
        assert again.duplicate and again.state_version == retried.state_version
    assert _keys(url) == sorted((r.idempotency_key, 1) for r in requests)
