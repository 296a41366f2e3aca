"""A store written by the server of schema 3 (tests/store/fixtures/v3_store, made by
fixtures/make_v3_store.py with that server) opens with today's (issue 26, point 7): upgraded
in place to schema 4, its seat claims become links of the hash chain and its log is relinked
from them; every seat keeps its token and every game its state. The PostgreSQL store's
migration 3 does the same."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

from server.config import ServerConfig
from server.games.recovery import ChainBroken, rebuild
from server.main import start_server
from server.ops.metrics import Metrics, new_registry
from server.stores.sqlite import SCHEMA_VERSION, SqliteStore
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

FIXTURE = Path(__file__).with_name("fixtures") / "v3_store"


@pytest.fixture
def old_store(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    path = tmp_path / "games.sqlite3"
    shutil.copy(FIXTURE / "games.sqlite3", path)
    return path, json.loads((FIXTURE / "tokens.json").read_text())


def _schema(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])
    finally:
        conn.close()


def _sql(path: Path, sql: str, *args: object) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, args)
    conn.commit()
    conn.close()


def test_the_upgrade_links_the_claims_and_relinks_the_log(
    old_store: tuple[Path, dict[str, Any]],
) -> None:
    path, facts = old_store
    assert _schema(path) == "3"
    store = SqliteStore(path)
    store.open()
    try:
        assert store.migrated_from == 3 and _schema(path) == str(SCHEMA_VERSION) == "4"
        games, problems = store.load(unfinished_only=False)
    finally:
        store.close()
    assert problems == []
    assert _schema(path.with_name("games.sqlite3.v3.bak")) == "3"
    by_id = {g.game_id: g for g in games}
    for fact in facts.values():
        game = by_id[fact["game_id"]]
        assert len(game.genesis) == 64
        assert sorted(game.seat_chains) == sorted(int(s) for s in fact["tokens"])
        assert all(len(link) == 64 for link in game.seat_chains.values())
        rebuilt = rebuild(game)  # record, claims and log verify, the replay reaches its hash
        assert rebuilt.state.state_hash() == fact["state_hash"]
    again = SqliteStore(path)
    again.open()
    again.close()
    assert again.migrated_from is None


async def test_a_server_continues_every_game_of_a_v3_store(
    old_store: tuple[Path, dict[str, Any]],
) -> None:
    path, facts = old_store
    store = SqliteStore(path)
    store.open()
    running = await start_server(
        ServerConfig(port=0, metrics_port=-1, data_dir=path.parent),
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
            seat = game.awaiting()[0]
            await stub.SubmitAction(
                gs.SubmitActionRequest(
                    game_id=playing["game_id"],
                    seat_token=playing["tokens"][str(seat)],
                    legal_index=0,
                    state_version=game.version,
                )
            )
            opened = facts["open"]
            for seat_number in (1, 3):  # claimed after the upgrade, linked after the old ones
                await stub.JoinGame(gs.JoinGameRequest(game_id=opened["game_id"], seat=seat_number))
            view = (
                await stub.GetView(
                    gs.GetViewRequest(game_id=opened["game_id"], seat_token=opened["tokens"]["2"])
                )
            ).view
            assert view.status == gp.GAME_STATUS_IN_PROGRESS and view.viewer_seat == 2
            result = await stub.GetResult(gs.GetResultRequest(game_id=facts["finished"]["game_id"]))
            assert len(result.result.seats) == 2
    finally:
        await running.shutdown(0)
    # What the upgraded server wrote since verifies on the next start too.
    store = SqliteStore(path)
    store.open()
    try:
        games, problems = store.load()
    finally:
        store.close()
    assert problems == [] and {g.game_id for g in games} == {
        facts["playing"]["game_id"],
        facts["open"]["game_id"],
    }
    for game in games:
        rebuild(game)


def test_after_the_upgrade_a_copied_token_hash_breaks_the_chain(
    old_store: tuple[Path, dict[str, Any]],
) -> None:
    path, facts = old_store
    upgraded = SqliteStore(path)
    upgraded.open()
    upgraded.close()
    playing = facts["playing"]["game_id"]
    _sql(
        path,
        "UPDATE seats SET token_hash = (SELECT token_hash FROM seats WHERE game_id = ? "
        "AND seat = 0) WHERE game_id = ? AND seat = 1",
        playing,
        playing,
    )
    store = SqliteStore(path)
    store.open()
    try:
        stored = store.load_game(playing)
    finally:
        store.close()
    assert stored is not None
    with pytest.raises(ChainBroken, match="claim of seat 1"):
        rebuild(stored)


def test_a_log_already_broken_before_the_upgrade_stays_reported(
    old_store: tuple[Path, dict[str, Any]],
) -> None:
    path, facts = old_store
    playing = facts["playing"]["game_id"]
    _sql(path, "UPDATE actions SET seat = (seat + 1) % 3 WHERE game_id = ? AND version = 5",
         playing)  # fmt: skip
    store = SqliteStore(path)
    store.open()
    try:
        stored = store.load_game(playing)
    finally:
        store.close()
    assert stored is not None
    with pytest.raises(ChainBroken, match="version"):
        rebuild(stored)


async def test_a_postgres_store_of_schema_2_gets_its_claims_linked(pg_url: str) -> None:
    """The cluster's store: migration 3 links the claims and relinks the log; a copied token
    hash is noticed afterwards."""
    import psycopg

    from engine.blood_rage import flow
    from engine.blood_rage.setup import new_game
    from server.stores import chain
    from server.stores.postgres import PostgresStore
    from server.stores.postgres_migrations import AFTER_MIGRATION, MIGRATIONS

    state = new_game(2, 5)
    settings = {"players": 2, "seed": 5, "draft_mode": 0, "first_player": None,
                "decision_time_limit_ms": 0, "seat_names": []}  # fmt: skip
    rows = []
    head = chain.genesis("old", 1000, settings, "")  # as the server of schema 2 linked it
    for n in range(6):
        seat = flow.awaiting(state)[0]
        version = state.version
        action = flow.legal_actions(state, seat)[0]
        flow.apply_unchecked(state, seat, action)
        head = chain.link(head, version, seat, action.code(), False, state.state_hash(),
                          3 + n, "", "")  # fmt: skip
        rows.append((version, seat, action.code(), state.state_hash(), 3 + n, head))
    async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
        await conn.execute(
            "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        for migration in MIGRATIONS[:2]:  # what the server of schema 2 had
            await conn.execute(migration.sql.encode())
            if migration.version in AFTER_MIGRATION:
                await AFTER_MIGRATION[migration.version](conn)
            await conn.execute(
                "INSERT INTO schema_version (version, name) VALUES (%s, %s)",
                (migration.version, migration.name),
            )
        await conn.execute(
            "INSERT INTO games (game_id, created_unix_ms, settings_json, scenario_json, "
            "log_length, last_hash, epoch) VALUES ('old', 1000, %s, '', %s, %s, 1)",
            (json.dumps(settings, sort_keys=True), len(rows), rows[-1][3]),
        )
        for seat in (0, 1):
            await conn.execute(
                "INSERT INTO seats (game_id, seat, name, token_hash, sequence) "
                "VALUES ('old', %s, 'p', %s, %s)",
                (seat, f"{seat:064x}", seat + 1),
            )
        for version, seat, code, state_hash, sequence, link in rows:
            await conn.execute(
                "INSERT INTO actions (game_id, version, seat, code, by_timeout, state_hash, "
                "sequence, epoch, chain) VALUES ('old', %s, %s, %s, false, %s, %s, 1, %s)",
                (version, seat, code, state_hash, sequence, link),
            )
    store = PostgresStore(pg_url, member="m", min_connections=1, max_connections=2)
    await store.open()
    try:
        stored = store.load_game("old")
        assert stored is not None and len(stored.genesis) == 64
        assert all(len(link) == 64 for link in stored.seat_chains.values())
        assert rebuild(stored).state.state_hash() == state.state_hash()
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            await conn.execute(
                "UPDATE seats SET token_hash = %s WHERE game_id = 'old' AND seat = 1",
                (f"{0:064x}",),
            )
        copied = store.load_game("old")
        assert copied is not None
        with pytest.raises(ChainBroken, match="claim of seat 1"):
            rebuild(copied)
    finally:
        await store.close()
