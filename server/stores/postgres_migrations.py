"""The PostgreSQL store's schema changes: the numbered SQL files in ``server/stores/migrations/``
(``NNNN_name.sql``), applied in order when a node opens the store, each recorded in
``schema_version``, with the Python steps some of them need run in the same transaction.

Nodes that start together serialise on a transaction-scoped advisory lock, so a migration is
applied once; a database with a newer schema than this server's is refused rather than used.
(The SQLite store's upgrades are ``server.stores.sqlite_migration``.)
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources

import psycopg
from psycopg.rows import TupleRow

from server.stores import chain
from server.stores.contract import StoreError
from server.stores.token_hashes import TokenHasher, new_token_key

__all__ = ["MIGRATIONS", "Migration", "apply_migrations", "migrations"]

# Serialises migrations across nodes that start together (any constant of our own).
MIGRATION_LOCK = 0x79676764  # "yggd"


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """The numbered migrations shipped in ``server/migrations`` (``NNNN_name.sql``), in order."""
    found = []
    for entry in resources.files("server.stores.migrations").iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append(Migration(int(name[:4]), name[5:-4], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise StoreError(f"server/migrations is not numbered 1..n without gaps: {versions}")
    return found


MIGRATIONS = migrations()


async def apply_migrations(conn: psycopg.AsyncConnection[TupleRow], where: str) -> int:
    """Apply the migrations not yet recorded in ``schema_version``, in order, inside the
    caller's transaction (under an advisory lock: nodes starting together do not race);
    returns the schema version. StoreError (naming ``where``) if the database is newer."""
    await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
        "name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )
    cur = await conn.execute("SELECT coalesce(max(version), 0) FROM schema_version")
    row = await cur.fetchone()
    current = int(row[0]) if row else 0
    newest = MIGRATIONS[-1].version if MIGRATIONS else 0
    if current > newest:
        raise StoreError(
            f"{where}: the database has schema version {current}, newer than "
            f"this server's {newest}; run a newer server"
        )
    for migration in MIGRATIONS:
        if migration.version > current:
            await conn.execute(migration.sql.encode())
            step = AFTER_MIGRATION.get(migration.version)
            if step is not None:
                await step(conn)
            await conn.execute(
                "INSERT INTO schema_version (version, name) VALUES (%s, %s)",
                (migration.version, migration.name),
            )
    return max(current, newest)


async def _hardening(conn: psycopg.AsyncConnection[TupleRow]) -> None:
    """After migration 2 (in its transaction): draw the token key, key the existing seat
    tokens' plain hashes and link the existing action rows into the hash chain."""
    key = new_token_key()
    await conn.execute(
        "INSERT INTO meta (key, value) VALUES ('token_key', %s) ON CONFLICT DO NOTHING",
        (key.hex(),),
    )
    cur = await conn.execute("SELECT game_id, seat, token_hash FROM seats")
    for gid, seat, plain in await cur.fetchall():
        await conn.execute(
            "UPDATE seats SET token_hash = %s WHERE game_id = %s AND seat = %s",
            (TokenHasher(key, str(gid)).rekey(str(plain)), gid, seat),
        )
    cur = await conn.execute(
        "SELECT game_id, created_unix_ms, settings_json, scenario_json FROM games"
    )
    for gid, created, settings_json, scenario in await cur.fetchall():
        try:
            head = chain.genesis(str(gid), int(created), json.loads(settings_json), scenario)
        except (TypeError, ValueError):
            continue  # an unreadable record: loading it reports it
        rows = await (
            await conn.execute(
                "SELECT version, seat, code, by_timeout, state_hash, sequence, idem_key, "
                "idem_hash FROM actions WHERE game_id = %s ORDER BY version",
                (gid,),
            )
        ).fetchall()
        for version, seat, code, by_timeout, state_hash, sequence, idem, idem_hash in rows:
            head = chain.link(
                head, int(version), int(seat), int(code), bool(by_timeout), str(state_hash),
                int(sequence), idem or "", idem_hash or "",
            )  # fmt: skip
            await conn.execute(
                "UPDATE actions SET chain = %s WHERE game_id = %s AND version = %s",
                (head, gid, version),
            )


async def _seat_chain(conn: psycopg.AsyncConnection[TupleRow]) -> None:
    """After migration 3 (in its transaction): each game row gets its genesis hash, each seat
    claim its link, and the action rows are relinked from the last claim (if their links as
    written verify; ``server.stores.chain.relink``)."""
    cur = await conn.execute(
        "SELECT game_id, created_unix_ms, settings_json, scenario_json FROM games"
    )
    for gid, created, settings_json, scenario in await cur.fetchall():
        seats = await (
            await conn.execute(
                "SELECT seat, name, token_hash, sequence FROM seats WHERE game_id = %s", (gid,)
            )
        ).fetchall()
        claims = [chain.Claim(int(s), str(n), str(h), int(q)) for s, n, h, q in seats]
        rows = await (
            await conn.execute(
                "SELECT version, seat, code, by_timeout, state_hash, sequence, idem_key, "
                "idem_hash, chain FROM actions WHERE game_id = %s ORDER BY version",
                (gid,),
            )
        ).fetchall()
        try:
            first, seat_links, links = chain.relink(
                str(gid), int(created), json.loads(settings_json), str(scenario), claims, rows
            )
        except (TypeError, ValueError):
            continue  # an unreadable record: loading it reports it
        await conn.execute("UPDATE games SET genesis = %s WHERE game_id = %s", (first, gid))
        for seat, link in seat_links.items():
            await conn.execute(
                "UPDATE seats SET chain = %s WHERE game_id = %s AND seat = %s", (link, gid, seat)
            )
        for link, row in zip(links or (), rows, strict=False):
            await conn.execute(
                "UPDATE actions SET chain = %s WHERE game_id = %s AND version = %s",
                (link, gid, row[0]),
            )


# Python steps run right after a migration's SQL, in the same transaction.
AFTER_MIGRATION: dict[int, Callable[[psycopg.AsyncConnection[TupleRow]], Awaitable[None]]] = {
    2: _hardening,
    3: _seat_chain,
}
