"""One suite every durable store passes (SQLite and PostgreSQL): what a store acknowledges is
there when it is opened again, exactly as written; a refused write changes nothing."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from store_kits import Kit, PostgresKit, SqliteKit

from engine.blood_rage.actions import Action, ActionKind
from server.stores.contract import AbortRecord, StoredAction, StoreError


@pytest.fixture(params=["sqlite", "postgres"])
def kit(request: pytest.FixtureRequest, tmp_path: Path) -> Kit:
    if request.param == "sqlite":
        return SqliteKit(tmp_path / "games.sqlite3")
    return PostgresKit(request.getfixturevalue("pg_url"))


@pytest.fixture
async def store(kit: Kit) -> AsyncIterator[Any]:
    opened = await kit.open()
    try:
        yield opened
    finally:
        await kit.close(opened)


def _entry(version: int, seat: int = 0) -> StoredAction:
    return StoredAction(
        version, seat, Action(ActionKind.DRAFT_PICK, version).code(), False, f"h{version}"
    )


async def test_everything_acknowledged_is_there_after_reopen(kit: Kit) -> None:
    store = await kit.open()
    await store.create("g1", 1000, {"players": 4, "seed": 7}, "")
    await store.create("g2", 2000, {"players": 2, "seed": 9}, "")
    await store.claim("g1", 0, "ada", "hash0")
    for v in range(5):
        await store.append("g1", _entry(v, v % 4))
    await store.snapshot("g1", 3, {"format": 1, "x": 1})
    await store.snapshot("g1", 4, {"format": 1, "x": 2})
    await store.append("g2", _entry(0))
    await store.finish("g2", 3000, {"glory": [10, 20]})
    await kit.close(store)

    reopened = await kit.open()
    try:
        games, problems = kit.load(reopened)
        assert problems == []
        assert [g.game_id for g in games] == ["g1"]  # g2 is finished
        g1 = games[0]
        assert g1.settings == {"players": 4, "seed": 7}
        assert g1.seats == {0: ("ada", "hash0")}
        assert [a.version for a in g1.actions] == [0, 1, 2, 3, 4]
        assert (
            g1.actions[2].code == Action(ActionKind.DRAFT_PICK, 2).code()
            and g1.actions[2].seat == 2
        )
        assert g1.snapshot == {"format": 1, "x": 2} and g1.snapshot_version == 4
        assert g1.log_length == 5 and g1.last_hash == "h4"
        g2 = reopened.load_game("g2")
        assert g2 is not None and g2.result == {"glory": [10, 20]} and g2.finished_unix_ms == 3000
        assert reopened.load_game("nope") is None
    finally:
        await kit.close(reopened)


async def test_a_duplicate_version_is_refused_and_nothing_else_is_lost(
    kit: Kit, store: Any
) -> None:
    await store.create("g", 0, {}, "")
    await store.append("g", _entry(0))
    with pytest.raises(Exception, match=r"(?i)unique|primary key"):
        await store.append("g", _entry(0))
    await store.append("g", _entry(1))
    games, _ = kit.load(store)
    assert [a.version for a in games[0].actions] == [0, 1]
    assert games[0].log_length == 2  # the refused write's count went with it


async def test_sequences_idempotency_keys_and_counts_round_trip(kit: Kit) -> None:
    store = await kit.open()
    await store.create("g", 0, {"players": 2, "seed": 1}, "")
    await store.claim("g", 0, "ada", "h0", 1)
    await store.claim("g", 1, "bo", "h1", 3)
    await store.append(
        "g", StoredAction(0, 0, Action(ActionKind.PASS).code(), False, "x0", 7, "k1", "r1")
    )
    await store.append("g", StoredAction(1, 1, Action(ActionKind.PASS).code(), True, "x1", 9))
    await kit.close(store)
    store = await kit.open()
    try:
        (g,), problems = kit.load(store)
        assert problems == []
        assert g.seat_sequences == {0: 1, 1: 3}
        assert g.actions[0].sequence == 7 and g.actions[0].idempotency_key == "k1"
        assert g.actions[0].request_hash == "r1"
        assert g.actions[1] == StoredAction(
            1, 1, Action(ActionKind.PASS).code(), True, "x1", 9, "", ""
        )
        assert g.log_length == 2 and g.last_hash == "x1"
    finally:
        await kit.close(store)


async def test_a_seat_is_claimed_once(kit: Kit, store: Any) -> None:
    await store.create("g", 0, {"players": 2}, "")
    await store.claim("g", 1, "ada", "h0", 1)
    with pytest.raises(Exception, match=r"(?i)unique|primary key"):
        await store.claim("g", 1, "bo", "h1", 2)
    (g,), _ = kit.load(store)
    assert g.seats == {1: ("ada", "h0")}


async def test_action_codes_round_trip_at_their_widest(kit: Kit, store: Any) -> None:
    await store.create("g", 0, {}, "")
    widest = Action(31, 255, 255, 255)
    await store.append("g", StoredAction(0, 4, widest.code(), False, "h"))
    (g,), _ = kit.load(store)
    assert g.actions[0].code == widest.code() and g.actions[0].seat == 4


async def test_only_the_newest_snapshot_is_kept(kit: Kit, store: Any) -> None:
    await store.create("g", 0, {}, "")
    for v in (2, 9, 5):
        await store.snapshot("g", v, {"v": v})
    (g,), _ = kit.load(store)
    assert g.snapshot_version == 9 and g.snapshot == {"v": 9}


async def test_creator_activity_chain_and_token_key_round_trip(kit: Kit) -> None:
    store = await kit.open()
    key = store.token_key
    assert len(key) == 32
    await store.create("g1", 1000, {"players": 2, "seed": 7}, "", creator="key:runner")
    await store.claim("g1", 0, "ada", "hash0", 1, 5000)
    entry = StoredAction(
        0, 0, Action(ActionKind.DRAFT_PICK, 3).code(), False, "h0", 2, chain="c" * 64
    )
    await store.append("g1", StoredAction(**{**_fields(entry), "unix_ms": 7000}))
    await kit.close(store)
    reopened = await kit.open()
    try:
        assert reopened.token_key == key  # the secret lives with the store
        [game], problems = kit.load(reopened)
        assert problems == []
        assert game.creator == "key:runner" and game.activity_unix_ms == 7000
        assert game.actions[0].chain == "c" * 64 and game.aborted is None
    finally:
        await kit.close(reopened)


async def test_an_abort_is_kept_and_the_game_is_over(kit: Kit) -> None:
    store = await kit.open()
    await store.create("g1", 1000, {"players": 2, "seed": 7}, "")
    await store.create("g2", 1000, {"players": 2, "seed": 8}, "")
    await store.claim("g1", 0, "ada", "hash0", 1)
    await store.abort("g1", AbortRecord(9000, 3, "aborted by its creator (x): rain", 3))
    # A second abort changes nothing (PostgreSQL refuses it as a fenced write would be).
    with contextlib.suppress(StoreError):
        await store.abort("g1", AbortRecord(9900, 1, "again", 9))
    await kit.close(store)
    reopened = await kit.open()
    try:
        games, problems = kit.load(reopened)
        assert problems == []
        assert [g.game_id for g in games] == ["g2"]  # an aborted game is not restored
        stored = reopened.load_game("g1")
        assert stored is not None and stored.aborted == AbortRecord(
            9000, 3, "aborted by its creator (x): rain", 3
        )
        assert stored.result is None
    finally:
        await kit.close(reopened)


def _fields(entry: StoredAction) -> dict[str, Any]:
    return {name: getattr(entry, name) for name in entry.__dataclass_fields__}


async def test_the_index_of_the_unfinished_games_agrees_with_a_full_read(kit: Kit) -> None:
    """A lazy restart reads only the index (server.games.dormant): each game's version, last
    event sequence number, claims and times must be what the full read of its log gives."""
    store = await kit.open()
    await store.create("g1", 1000, {"players": 2, "seed": 7}, "", creator="key:a")
    await store.claim("g1", 0, "ada", "hash0", 1, 1500)
    await store.claim("g1", 1, "bob", "hash1", 2, 1600)
    for v in range(4):
        await store.append("g1", StoredAction(**{**_fields(_entry(v, v % 2)), "sequence": 3 + v}))
    await store.create("g2", 2000, {"players": 3, "seed": 9}, "")  # nobody yet
    await store.claim("g2", 2, "cy", "hash2", 4, 2500)  # a claim is its newest event
    await store.create("g3", 3000, {"players": 2, "seed": 1}, "{}")  # a scenario, no decision
    await store.create("g4", 4000, {"players": 2, "seed": 2}, "")
    await store.append("g4", _entry(0))
    await store.finish("g4", 5000, {"glory": [1, 2]})  # over: not indexed
    await kit.close(store)
    reopened = await kit.open()
    try:
        indexed, problems = await kit.index(reopened)
        assert problems == []
        by_id = {i.game_id: i for i in indexed}
        assert list(by_id) == ["g1", "g2", "g3"]  # in creation order
        full = {g.game_id: g for g in kit.load(reopened)[0]}
        g1 = by_id["g1"]
        assert (g1.version, g1.log_length, g1.last_sequence) == (4, 4, 6)
        assert g1.version == full["g1"].actions[-1].version + 1
        assert g1.seat_names == {0: "ada", 1: "bob"} and g1.creator == "key:a"
        assert g1.activity_unix_ms == full["g1"].activity_unix_ms
        assert g1.settings == {"players": 2, "seed": 7} and not g1.from_scenario
        g2 = by_id["g2"]
        assert (g2.version, g2.last_sequence, g2.seat_names) == (0, 4, {2: "cy"})
        assert g2.activity_unix_ms == 2500
        assert by_id["g3"].version is None and by_id["g3"].from_scenario  # only the engine knows
        assert g1.order < g2.order < by_id["g3"].order
    finally:
        await kit.close(reopened)
