"""Group commit in the PostgreSQL store (server.stores.postgres_batch): appends of many games
share a transaction, each is still fenced per game, a batch refused by a constraint fails only
its offending row, and a batch that fails (the connection lost) fails exactly its rows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import psycopg
import pytest
from store_kits import MEMBER, PostgresKit

from server.stores.contract import StoredAction
from server.stores.postgres import Fenced, PostgresStore
from server.stores.postgres_batch import BatchSettings
from tests.waiting import until


class _Kit(PostgresKit):
    def __init__(self, url: str, batch: BatchSettings) -> None:
        super().__init__(url)
        self.batch = batch

    async def open(self) -> PostgresStore:
        store = PostgresStore(
            self.url, member=MEMBER, min_connections=1, max_connections=4, batch=self.batch
        )
        await store.open()
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(
                "INSERT INTO nodes (member, node_id, address, lease_until) "
                "VALUES (%s, 'test-node', '127.0.0.1:1', now() + interval '1 hour')",
                (MEMBER,),
            )
        return store


# A delay far longer than it takes to queue a test's appends, one batch at a time: they all
# land in one batch.
GATHERED = BatchSettings(max_batch=256, delay_s=0.2, in_flight=1)


@pytest.fixture
async def store(pg_url: str) -> AsyncIterator[PostgresStore]:
    opened = await _Kit(pg_url, GATHERED).open()
    try:
        yield opened
    finally:
        await opened.close()


def _entry(version: int, key: str = "") -> StoredAction:
    return StoredAction(version, 0, 1, False, f"h{version}", version + 1, key)


def _rows(url: str, sql: str, *args: object) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        return [tuple(r) for r in conn.execute(sql, args).fetchall()]


async def _games(store: PostgresStore, count: int) -> list[str]:
    ids = [f"g{i}" for i in range(count)]
    for game_id in ids:
        await store.create(game_id, 0, {"players": 2, "seed": 1}, "")
    return ids


async def test_appends_of_many_games_are_committed_in_one_transaction(
    store: PostgresStore,
) -> None:
    ids = await _games(store, 40)
    await asyncio.gather(*(store.append(g, _entry(0, f"{g}/k")) for g in ids))
    assert (store.batcher.batches, store.batcher.rows, store.batcher.largest) == (1, 40, 40)
    rows = _rows(store.url, "SELECT game_id, version, epoch FROM actions ORDER BY game_id")
    assert sorted(rows) == sorted((g, 0, 1) for g in ids)
    lengths = _rows(store.url, "SELECT DISTINCT log_length, last_hash FROM games")
    assert lengths == [(1, "h0")]
    # Each game's fence moved on: its next append is written after the first.
    await asyncio.gather(*(store.append(g, _entry(1)) for g in ids))
    assert store.batcher.batches == 2
    games, problems = store.load()
    assert not problems
    assert all([a.version for a in g.actions] == [0, 1] for g in games)


async def test_the_queue_is_shared_between_the_free_batch_slots(pg_url: str) -> None:
    store = await _Kit(pg_url, BatchSettings(max_batch=256, delay_s=0.2, in_flight=2)).open()
    try:
        ids = await _games(store, 40)
        await asyncio.gather(*(store.append(g, _entry(0)) for g in ids))
        # Two batches side by side, half the queue each, rather than one of forty.
        assert sorted(rows for rows, _ in store.batcher.recent) == [20, 20]
        assert _rows(store.url, "SELECT count(*) FROM actions") == [(40,)]
    finally:
        await store.close()


async def test_a_full_batch_leaves_without_waiting_for_its_delay(pg_url: str) -> None:
    slow = BatchSettings(max_batch=8, delay_s=1.0, in_flight=1)
    store = await _Kit(pg_url, slow).open()
    try:
        ids = await _games(store, 8)
        started = asyncio.get_running_loop().time()
        await asyncio.gather(*(store.append(g, _entry(0)) for g in ids))
        # A full batch goes at once; waiting for the delay would have taken a second.
        assert asyncio.get_running_loop().time() - started < slow.delay_s
        assert store.batcher.largest == 8
        # Nine rows with room for eight: two batches, the second of one row.
        more = [f"m{i}" for i in range(9)]
        for game_id in more:
            await store.create(game_id, 0, {"players": 2, "seed": 1}, "")
        await asyncio.gather(*(store.append(g, _entry(0)) for g in more))
        assert [rows for rows, _ in store.batcher.recent] == [8, 8, 1]
    finally:
        await store.close()


async def test_a_stale_epoch_is_refused_for_its_game_alone_in_a_mixed_batch(
    store: PostgresStore,
) -> None:
    ids = await _games(store, 10)
    await asyncio.gather(*(store.append(g, _entry(0)) for g in ids))
    fenced: list[str] = []
    store.on_fenced = fenced.append
    # Another node took g3 over (a new epoch) and g7's log grew there (a stale length).
    with psycopg.connect(store.url, autocommit=True) as conn:
        conn.execute("UPDATE games SET owner = 'other/1', epoch = 2 WHERE game_id = 'g3'")
        conn.execute("UPDATE games SET log_length = 2 WHERE game_id = 'g7'")
    outcomes = await asyncio.gather(
        *(store.append(g, _entry(1)) for g in ids), return_exceptions=True
    )
    by_game = dict(zip(ids, outcomes, strict=True))
    assert isinstance(by_game.pop("g3"), Fenced)
    assert isinstance(by_game.pop("g7"), Fenced)
    assert all(outcome is None for outcome in by_game.values()), by_game
    assert store.batcher.recent[-1][0] == 10  # the ten were one batch
    assert sorted(fenced) == ["g3", "g7"]
    assert not store.owns("g3") and not store.owns("g7") and store.owns("g0")
    written = _rows(store.url, "SELECT game_id FROM actions WHERE version = 1 ORDER BY game_id")
    assert [g for (g,) in written] == sorted(set(ids) - {"g3", "g7"})
    assert _rows(store.url, "SELECT log_length FROM games WHERE game_id = 'g3'") == [(1,)]


async def test_a_lost_lease_fences_every_game_of_the_batch(store: PostgresStore) -> None:
    ids = await _games(store, 4)
    with psycopg.connect(store.url, autocommit=True) as conn:
        conn.execute("UPDATE nodes SET lease_until = now() WHERE member = %s", (MEMBER,))
    outcomes = await asyncio.gather(
        *(store.append(g, _entry(0)) for g in ids), return_exceptions=True
    )
    assert all(isinstance(o, Fenced) for o in outcomes), outcomes
    assert _rows(store.url, "SELECT count(*) FROM actions") == [(0,)]


async def test_a_row_refused_by_a_constraint_fails_alone(store: PostgresStore) -> None:
    ids = await _games(store, 6)
    await asyncio.gather(*(store.append(g, _entry(0, "k0")) for g in ids))
    # g2 repeats its idempotency key: the batch statement is refused whole, then redone row by
    # row, and only g2's row fails (with the constraint's error: nothing of it was written).
    outcomes = await asyncio.gather(
        *(store.append(g, _entry(1, "k0" if g == "g2" else "k1")) for g in ids),
        return_exceptions=True,
    )
    by_game = dict(zip(ids, outcomes, strict=True))
    assert isinstance(by_game.pop("g2"), psycopg.errors.UniqueViolation)
    assert all(o is None for o in by_game.values()), by_game
    assert store.owns("g2")  # a refusal whose outcome is known: the game is not in doubt
    assert _rows(store.url, "SELECT count(*) FROM actions WHERE version = 1") == [(5,)]
    await store.append("g2", _entry(1, "k1"))  # its fence did not move: the retry goes on
    assert _rows(store.url, "SELECT log_length FROM games WHERE game_id = 'g2'") == [(2,)]


async def _stall_inserts(url: str, key: str) -> None:
    """Make an insert of an action with idempotency key ``key`` sleep inside its statement
    (the batch is then in flight long enough to cut its connection)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF NEW.idem_key = '{key}' THEN PERFORM pg_sleep(30); END IF; RETURN NEW; END $$"
        )
        conn.execute(
            "CREATE TRIGGER stall BEFORE INSERT ON actions FOR EACH ROW EXECUTE FUNCTION stall()"
        )


async def _cut_the_stalled_batch(url: str) -> None:
    """Terminate the backend running the stalled batch (as a lost connection would)."""
    found: list[tuple[object, ...]] = []

    def stalled() -> bool:
        found[:] = _rows(
            url,
            "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' "
            "AND pid <> pg_backend_pid()",
        )
        return bool(found)

    await until(stalled, "the batch stalled in its insert")
    _rows(url, "SELECT pg_terminate_backend(%s)", found[0][0])


async def test_a_failed_batch_fails_exactly_its_rows_and_their_retries_apply_once(
    store: PostgresStore,
) -> None:
    ids = await _games(store, 6)
    doubted: list[str] = []
    store.on_doubt = doubted.append
    await _stall_inserts(store.url, "g4/k0")
    cut = asyncio.create_task(_cut_the_stalled_batch(store.url))
    outcomes = await asyncio.gather(
        *(store.append(g, _entry(0, f"{g}/k0")) for g in ids[:5]), return_exceptions=True
    )
    await cut
    assert all(isinstance(o, psycopg.OperationalError) for o in outcomes), outcomes
    assert sorted(doubted) == ids[:5]  # every game of the batch, and no other
    assert store.batcher.failed_batches == 1
    assert _rows(store.url, "SELECT count(*) FROM actions") == [(0,)]  # rolled back whole
    # A game outside the failed batch goes on, and so do the retries (the same keys): each
    # is written once.
    with psycopg.connect(store.url, autocommit=True) as conn:
        conn.execute("DROP TRIGGER stall ON actions")
    await asyncio.gather(*(store.append(g, _entry(0, f"{g}/k0")) for g in ids))
    keys = _rows(store.url, "SELECT idem_key, count(*) FROM actions GROUP BY 1 ORDER BY 1")
    assert keys == [(f"{g}/k0", 1) for g in ids]


async def test_close_commits_what_is_queued(pg_url: str) -> None:
    store = await _Kit(pg_url, BatchSettings(max_batch=64, delay_s=0.5, in_flight=1)).open()
    ids = await _games(store, 5)
    appends = [asyncio.create_task(store.append(g, _entry(0))) for g in ids]
    await asyncio.sleep(0)  # queued, waiting for their delay
    await store.close()
    await asyncio.gather(*appends)
    assert _rows(pg_url, "SELECT count(*) FROM actions") == [(5,)]


async def test_queued_appends_fail_if_the_batcher_stops(pg_url: str) -> None:
    store = await _Kit(pg_url, BatchSettings(max_batch=64, delay_s=0.5, in_flight=1)).open()
    try:
        ids = await _games(store, 3)
        appends = [asyncio.create_task(store.append(g, _entry(0))) for g in ids]
        await until(lambda: len(store.batcher._queue) == 3, "the appends queued")
        collector = store.batcher._collector
        assert collector is not None
        collector.cancel()  # as if the loop were torn down under it
        outcomes = await asyncio.gather(*appends, return_exceptions=True)
        assert all(isinstance(o, psycopg.OperationalError) for o in outcomes), outcomes
        assert _rows(store.url, "SELECT count(*) FROM actions") == [(0,)]
        await store.append("g0", _entry(0))  # the next append starts a new collector
        assert _rows(store.url, "SELECT count(*) FROM actions") == [(1,)]
    finally:
        await store.close()


def test_batch_settings_are_checked() -> None:
    for bad in ({"max_batch": 0}, {"delay_s": -0.001}, {"delay_s": 2.0}, {"in_flight": 0}):
        with pytest.raises(ValueError):
            BatchSettings(**bad)  # type: ignore[arg-type]
