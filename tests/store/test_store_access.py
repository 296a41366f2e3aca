"""Who may see and join a game, as the durable stores keep it (issue 27, point 2): the access
written with a game reads back exactly after a reopen, a game written without one (or by an
older server) has none, and the stores' listing queries show an unlisted game only to the
viewers ListViewer names."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from store_kits import Kit, PostgresKit, SqliteKit

from server.stores.contract import (
    NO_ACCESS,
    GameAccess,
    ListViewer,
    SeatReservation,
)
from server.stores.sqlite import SqliteStore

PRIVATE = GameAccess(
    unlisted=True,
    reservations=(SeatReservation(0, key_name="bob"), SeatReservation(2, code_hash="c" * 64)),
)
RESERVED_ONLY = GameAccess(reservations=(SeatReservation(1, key_name="carol"),))


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


async def test_the_access_reads_back_after_a_reopen(kit: Kit) -> None:
    store = await kit.open()
    await store.create("private", 1000, {"players": 3, "seed": 1}, "", creator="key:alice",
                       access=PRIVATE)  # fmt: skip
    await store.create("reserved", 1001, {"players": 2, "seed": 2}, "", access=RESERVED_ONLY)
    await store.create("open", 1002, {"players": 2, "seed": 3}, "")
    await kit.close(store)
    store = await kit.open()
    try:
        games, problems = kit.load(store)
        assert problems == []
        access = {g.game_id: g.access for g in games}
        assert access == {"private": PRIVATE, "reserved": RESERVED_ONLY, "open": NO_ACCESS}
    finally:
        await kit.close(store)


async def test_listing_shows_an_unlisted_game_only_to_its_own(store: Any, kit: Kit) -> None:
    await store.create("private", 1000, {"players": 3, "seed": 1}, "", order=1,
                       creator="key:alice", access=PRIVATE)  # fmt: skip
    await store.create("open", 1001, {"players": 2, "seed": 3}, "", order=2, creator="key:x")
    for game_id in ("private", "open"):  # SQLite lists the games that are over
        await store.finish(game_id, 2000, {"scores": []})
    viewers = {
        "anyone": (None, {"private", "open"}),
        "alice": (ListViewer("key:alice", "alice"), {"private", "open"}),
        "bob": (ListViewer("key:bob", "bob"), {"private", "open"}),
        "admin": (ListViewer("key:lead", "lead", sees_all=True), {"private", "open"}),
        "mallory": (ListViewer("key:mallory", "mallory"), {"open"}),
        "anonymous": (ListViewer(), {"open"}),
    }
    for who, (viewer, expected) in viewers.items():
        rows = await store.list_games(0, None, 10, viewer)
        assert {row.game_id for row, _ in rows} == expected, who
    (row,) = [r for r, _ in await store.list_games(0, None, 10, None) if r.game_id == "private"]
    assert row.access == PRIVATE


async def test_a_store_written_before_access_existed_loads_with_none(tmp_path: Path) -> None:
    fixture = Path(__file__).with_name("fixtures") / "v2_store" / "games.sqlite3"
    path = tmp_path / "games.sqlite3"
    shutil.copy(fixture, path)
    store = SqliteStore(path)
    store.open()
    try:
        games, problems = store.load(unfinished_only=False)
        assert games and problems == []
        assert all(g.access == NO_ACCESS for g in games)
        listed = store.list_finished(None, 100, viewer=ListViewer())
        assert len(listed) == len(store.list_finished(None, 100))
    finally:
        store.close()
