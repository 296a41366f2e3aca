"""The stores the shared store suite runs against, behind one small interface."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import psycopg

from server.stores.contract import LoadProblem, StoredGame, StoredIndex
from server.stores.postgres import PostgresStore
from server.stores.sqlite import SqliteStore

MEMBER = "test-node/1"


class Kit(Protocol):
    name: str

    async def open(self) -> Any: ...

    async def close(self, store: Any) -> None: ...

    def load(self, store: Any) -> tuple[list[StoredGame], list[LoadProblem]]: ...

    async def index(self, store: Any) -> tuple[list[StoredIndex], list[LoadProblem]]: ...


class SqliteKit:
    name = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path

    async def open(self) -> SqliteStore:
        store = SqliteStore(self.path)
        store.open()
        return store

    async def close(self, store: SqliteStore) -> None:
        store.close()

    def load(self, store: SqliteStore) -> tuple[list[StoredGame], list[LoadProblem]]:
        return store.load()

    async def index(self, store: SqliteStore) -> tuple[list[StoredIndex], list[LoadProblem]]:
        """Every unfinished game's index (a lazy restart's read)."""
        return store.load_index()


class PostgresKit:
    """A PostgreSQL store whose node holds a lease for an hour (ownership is tested apart)."""

    name = "postgres"

    def __init__(self, url: str) -> None:
        self.url = url

    async def open(self) -> PostgresStore:
        store = PostgresStore(self.url, member=MEMBER, min_connections=1, max_connections=4)
        await store.open()
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(
                "INSERT INTO nodes (member, node_id, address, lease_until) "
                "VALUES (%s, 'test-node', '127.0.0.1:1', now() + interval '1 hour') "
                "ON CONFLICT (member) DO NOTHING",
                (MEMBER,),
            )
        # A reopened store owns what the first one created (as the same incarnation would).
        with psycopg.connect(self.url) as conn:
            for game_id, epoch, length in conn.execute(
                "SELECT game_id, epoch, log_length FROM games WHERE owner = %s", (MEMBER,)
            ):
                store.fence(game_id, int(epoch), int(length))
        return store

    async def close(self, store: PostgresStore) -> None:
        await store.close()

    def load(self, store: PostgresStore) -> tuple[list[StoredGame], list[LoadProblem]]:
        return store.load()

    async def index(self, store: PostgresStore) -> tuple[list[StoredIndex], list[LoadProblem]]:
        """The index of every unfinished game (as a node taking them back reads it)."""
        with psycopg.connect(self.url) as conn:
            ids = [
                str(g)
                for (g,) in conn.execute(
                    "SELECT game_id FROM games WHERE finished_unix_ms IS NULL ORDER BY list_order"
                )
            ]
        return await store.fetch_index(ids)
