"""A store written by the server of schema 2 (tests/store/fixtures/v2_store, made by
fixtures/make_v2_store.py with that server) opens with today's: it is upgraded in place,
every seat keeps its token, every game its state, and the log gets its hash chain."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

from server.config import ServerConfig
from server.main import start_server
from server.ops.metrics import Metrics, new_registry
from server.stores import sqlite_migration as store_migration
from server.stores.contract import StoreError
from server.stores.sqlite import SCHEMA_VERSION, SqliteStore
from server.stores.token_hashes import TokenHasher
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

FIXTURE = Path(__file__).with_name("fixtures") / "v2_store"


@pytest.fixture
def old_store(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    path = tmp_path / "games.sqlite3"
    shutil.copy(FIXTURE / "games.sqlite3", path)
    facts = json.loads((FIXTURE / "tokens.json").read_text())
    return path, facts


def _schema(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])
    finally:
        conn.close()


def test_the_upgrade_rekeys_tokens_chains_the_log_and_keeps_a_copy(
    old_store: tuple[Path, dict[str, Any]],
) -> None:
    path, facts = old_store
    assert _schema(path) == "2"
    store = SqliteStore(path)
    store.open()
    try:
        assert store.migrated_from == 2 and _schema(path) == str(SCHEMA_VERSION) == "4"
        assert len(store.token_key) == 32
        games, problems = store.load(unfinished_only=False)
    finally:
        store.close()
    assert problems == []
    backup = path.with_name("games.sqlite3.v2.bak")
    assert _schema(backup) == "2"
    by_id = {g.game_id: g for g in games}
    for fact in facts.values():
        game = by_id[fact["game_id"]]
        assert game.creator == "" and game.aborted is None and game.activity_unix_ms > 0
        hasher = TokenHasher(store.token_key, game.game_id)
        for seat, token in fact["tokens"].items():
            stored = game.seats[int(seat)][1]
            assert stored == hasher(token)
            assert stored != hashlib.sha256(token.encode()).hexdigest()  # no plain hash left
        assert all(len(a.chain) == 64 for a in game.actions)
    # A second start finds nothing to do.
    again = SqliteStore(path)
    again.open()
    again.close()
    assert again.migrated_from is None


async def test_a_server_continues_every_game_of_an_old_store_with_the_old_tokens(
    old_store: tuple[Path, dict[str, Any]],
) -> None:
    path, facts = old_store
    store = SqliteStore(path)
    store.open()
    config = ServerConfig(port=0, metrics_port=-1, data_dir=path.parent)
    running = await start_server(
        config,
        metrics=Metrics(new_registry(process_collectors=False)),
        store=store,
        owns_store=True,
    )
    try:
        assert running.restore is not None
        assert running.restore.restored == 2 and running.restore.problems == []
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            playing = facts["playing"]
            game = await running.games.wake(playing["game_id"])  # lazily, from the index
            assert game.version == playing["version"]
            assert game.state.state_hash() == playing["state_hash"]
            assert game.last_sequence == playing["last_sequence"]
            for seat, token in playing["tokens"].items():
                view = (
                    await stub.GetView(
                        gs.GetViewRequest(game_id=playing["game_id"], seat_token=token)
                    )
                ).view
                assert view.viewer_seat == int(seat)
            seat = game.awaiting()[0]
            await stub.SubmitAction(
                gs.SubmitActionRequest(
                    game_id=playing["game_id"],
                    seat_token=playing["tokens"][str(seat)],
                    legal_index=0,
                    state_version=game.version,
                )
            )
            assert game.version == playing["version"] + 1
            # The open game takes its last seats; the finished one answers from the store.
            opened = facts["open"]
            for seat_number in (1, 3):
                await stub.JoinGame(gs.JoinGameRequest(game_id=opened["game_id"], seat=seat_number))
            view = (
                await stub.GetView(
                    gs.GetViewRequest(game_id=opened["game_id"], seat_token=opened["tokens"]["2"])
                )
            ).view
            assert view.status == gp.GAME_STATUS_IN_PROGRESS and view.viewer_seat == 2
            finished = facts["finished"]
            result = await stub.GetResult(gs.GetResultRequest(game_id=finished["game_id"]))
            assert len(result.result.seats) == 2
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetView(
                    gs.GetViewRequest(game_id=opened["game_id"], seat_token="x" * 43)
                )
            assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        await running.shutdown(0)


def test_a_failed_upgrade_leaves_the_file_as_it_was(
    old_store: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = old_store

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("ALTER TABLE games ADD COLUMN creator TEXT")
        raise ValueError("the disk went away")

    monkeypatch.setattr(store_migration, "_to_v3", broken)
    store = SqliteStore(path)
    with pytest.raises(StoreError, match="cannot upgrade the game store from schema 2"):
        store.open()
    assert _schema(path) == "2"
    conn = sqlite3.connect(path)
    try:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(games)")]
    finally:
        conn.close()
    assert "creator" not in columns


async def test_a_postgres_store_of_schema_1_is_upgraded_too(pg_url: str) -> None:
    """The cluster's store: its migration 2 keys the seat tokens' hashes and links the log."""
    import psycopg

    from engine.blood_rage import flow
    from engine.blood_rage.setup import new_game
    from server.games.recovery import rebuild
    from server.stores.postgres import PostgresStore
    from server.stores.postgres_migrations import MIGRATIONS

    token = "an-old-seat-token-0123456789abcdefghij"
    state = new_game(2, 5)
    rows = []
    for n in range(6):
        seat = flow.awaiting(state)[0]
        version = state.version
        action = flow.legal_actions(state, seat)[0]
        flow.apply_unchecked(state, seat, action)
        rows.append((version, seat, action.code(), state.state_hash(), 3 + n))
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what the server of schema 1 wrote
        conn.execute(MIGRATIONS[0].sql.encode())
        conn.execute(
            "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        conn.execute("INSERT INTO schema_version (version, name) VALUES (1, 'games')")
        settings = json.dumps(
            {"players": 2, "seed": 5, "draft_mode": 0, "first_player": None,
             "decision_time_limit_ms": 0, "seat_names": []},
            sort_keys=True,
        )  # fmt: skip
        conn.execute(
            "INSERT INTO games (game_id, created_unix_ms, settings_json, scenario_json, "
            "log_length, last_hash, epoch) VALUES ('old', 1000, %s, '', %s, %s, 1)",
            (settings, len(rows), rows[-1][3]),
        )
        for seat in (0, 1):
            plain = hashlib.sha256(f"{token}{seat}".encode()).hexdigest()
            conn.execute(
                "INSERT INTO seats (game_id, seat, name, token_hash, sequence) "
                "VALUES ('old', %s, 'p', %s, %s)",
                (seat, plain, seat + 1),
            )
        for version, seat, code, state_hash, sequence in rows:
            conn.execute(
                "INSERT INTO actions (game_id, version, seat, code, by_timeout, state_hash, "
                "sequence, epoch) VALUES ('old', %s, %s, %s, false, %s, %s, 1)",
                (version, seat, code, state_hash, sequence),
            )
    store = PostgresStore(pg_url, member="m", min_connections=1, max_connections=2)
    await store.open()
    try:
        stored = store.load_game("old")
        assert stored is not None
        hasher = TokenHasher(store.token_key, "old")
        assert stored.seats[1][1] == hasher(f"{token}1")
        assert all(len(a.chain) == 64 for a in stored.actions)
        assert rebuild(stored).state.state_hash() == state.state_hash()  # chain and replay
        assert await store.migrate() == len(MIGRATIONS)
    finally:
        await store.close()
