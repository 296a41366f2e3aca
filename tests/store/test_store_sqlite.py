"""What only the SQLite store does: group commit, its file and schema checks, damaged rows
(the suite every store passes is test_store_contract.py)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from engine.blood_rage.actions import Action, ActionKind
from server.stores.contract import StoredAction, StoreError
from server.stores.sqlite import SqliteStore


def _entry(version: int, seat: int = 0) -> StoredAction:
    return StoredAction(
        version, seat, Action(ActionKind.DRAFT_PICK, version).code(), False, f"h{version}"
    )


async def test_concurrent_appends_share_commits(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "g.sqlite3")
    store.open()
    for i in range(20):
        await store.create(f"g{i}", i, {}, "")
    before = store.commits
    await asyncio.gather(*(store.append(f"g{i}", _entry(v)) for i in range(20) for v in range(10)))
    commits = store.commits - before
    assert store.writes >= 220
    assert commits < 200  # group commit: many decisions per fsync
    games, _ = store.load()
    assert sum(len(g.actions) for g in games) == 200
    store.close()


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match=r"games\.sqlite3"):
        SqliteStore(path).open()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    store = SqliteStore(path)
    store.open()
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="schema version 99"):
        SqliteStore(path).open()


async def test_one_bad_game_is_reported_and_the_others_load(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    store = SqliteStore(path)
    store.open()
    await store.create("good", 0, {"players": 3}, "")
    await store.create("bad", 1, {"players": 3}, "")
    await store.create("bad-snap", 2, {"players": 3}, "")
    await store.snapshot("bad-snap", 5, {"format": 1})
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE games SET settings_json = '{broken' WHERE game_id = 'bad'")
    conn.execute("UPDATE snapshots SET data_json = 'nope' WHERE game_id = 'bad-snap'")
    conn.commit()
    conn.close()
    store = SqliteStore(path)
    store.open()
    games, problems = store.load()
    # An unreadable snapshot does not lose the game: its log is the truth (recovery replays
    # it whole and reports the snapshot); an unreadable game record does.
    assert sorted(g.game_id for g in games) == ["bad-snap", "good"]
    assert {p.game_id for p in problems} == {"bad"}
    bad_snap = next(g for g in games if g.game_id == "bad-snap")
    assert bad_snap.snapshot is None and bad_snap.snapshot_version == 5
    assert bad_snap.snapshot_problem is not None and "snapshot" in bad_snap.snapshot_problem
    store.close()


async def test_a_refused_write_fails_alone_in_its_group_commit(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "g.sqlite3")
    store.open()
    await store.create("g", 0, {}, "")
    await store.append("g", _entry(0))
    results = await asyncio.gather(
        *(store.append("g", _entry(v)) for v in (1, 0, 2, 3)), return_exceptions=True
    )
    assert [isinstance(r, sqlite3.IntegrityError) for r in results] == [False, True, False, False]
    (g,), _ = store.load()
    assert [a.version for a in g.actions] == [0, 1, 2, 3]
    assert g.log_length == 4  # the refused write's count update was rolled back with it
    store.close()


def test_an_old_schema_is_refused_with_its_version(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    store = SqliteStore(path)
    store.open()
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="schema version 1 is not the 4"):
        SqliteStore(path).open()


async def test_finished_games_are_listed_by_creation_order_in_pages(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "games.sqlite3")
    store.open()
    assert store.last_order() == 0
    # Orders given out of creation time (the registry's numbers win) and with a gap.
    for order, gid in ((1, "a"), (2, "b"), (4, "c"), (5, "d"), (7, "e")):
        await store.create(gid, 1000 - order, {"players": 2, "seed": order}, "", order=order)
        await store.claim(gid, 0, f"{gid}0", "h0", 1)
        await store.claim(gid, 1, "", "h1", 2)
    # Row ids are what create() was given, whatever SQLite would have picked.
    await store.create("late", 0, {"players": 2, "seed": 0}, "", order=9)
    store.close()
    store = SqliteStore(tmp_path / "games.sqlite3")
    store.open()
    assert store.last_order() == 9
    for gid in ("a", "b", "d", "e"):
        await store.append(gid, _entry(0))
        await store.append(gid, StoredAction(1, 1, Action(ActionKind.PASS).code(), False, "h", 17))
        await store.finish(gid, 5000, {"glory": [1, 2]})
    assert [(g.game_id, g.order) for g in store.load(unfinished_only=False)[0]] == [
        ("a", 1), ("b", 2), ("c", 4), ("d", 5), ("e", 7), ("late", 9)
    ]  # fmt: skip
    first = store.list_finished(None, 2)
    assert [(row.order, row.game_id) for row in first] == [(7, "e"), (5, "d")]
    assert first[0].seat_names == {0: "e0", 1: ""}
    assert (first[0].state_version, first[0].last_sequence) == (2, 17)
    assert first[0].settings == {"players": 2, "seed": 7} and not first[0].from_scenario
    rest = store.list_finished(first[-1].order, 10)
    assert [row.game_id for row in rest] == ["b", "a"]  # c is not finished
    assert store.list_finished(1, 10) == []
    store.close()


async def test_create_orders_rows_by_the_number_given(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "games.sqlite3")
    store.open()
    await store.create("x", 0, {}, "", order=3)
    with pytest.raises(sqlite3.IntegrityError):  # a number is given once
        await store.create("y", 0, {}, "", order=3)
    await store.create("z", 0, {}, "")  # no number: the next one
    assert [(g.game_id, g.order) for g in store.load()[0]] == [("x", 3), ("z", 4)]
    store.close()
