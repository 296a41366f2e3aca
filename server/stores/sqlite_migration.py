"""Upgrading a SQLite game store written by an older server, in place, at start-up.

Every upgrade runs in one transaction, after a copy of the old file is kept beside it (as
``games.sqlite3.v2.bak``, ``.v3.bak``, until the operator deletes it). A store of schema 2
goes through 3 to 4 in that one transaction.

Schema 2 -> 3:

* a secret for the seat tokens' keyed hashes is drawn and kept in ``meta`` (``token_key``);
  every stored plain SHA-256 of a seat token becomes its keyed hash
  (``server.stores.token_hashes.TokenHasher.rekey``: the token itself is not needed, so every seat
  keeps its token);
* every action row gets its link of the hash chain (``server.stores.chain``), computed from the rows
  as they are now: the old rows are trusted once, at the upgrade, and checked ever after;
* the game row gets its creator (unknown: empty; such a game counts against nobody's quota
  and only an admin can abort it), its abort columns (empty) and its last activity, set to
  the time of the upgrade: the abandonment clocks of old games start at the upgrade, so no
  game is aborted by the upgrade itself.

Schema 3 -> 4 (issue 26: a seat's token hash copied onto another seat went unnoticed):

* the game row keeps its chain's genesis hash, every seat claim row its link of the chain
  (``server.stores.chain.seat_link``), and the action rows are relinked from the last claim
  (``server.stores.chain.relink``): the claims are trusted once, at the upgrade, and the
  actions only if their links as written verify (a game whose log was already damaged keeps
  its old links, and is reported as before);
* the game row gets a column for the keyed hash of its creator token (empty for the old
  games: only an API key that created one, or an admin, may abort it).

A failure leaves the file as it was (the transaction is rolled back) and stops the start with
a StoreError naming the file.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from server.stores import chain
from server.stores.contract import StoreError
from server.stores.token_hashes import TokenHasher, new_token_key

__all__ = ["MIGRATABLE", "migrate"]

# Schema versions this module upgrades (as stored in meta).
MIGRATABLE = ("2", "3")

_V3_COLUMNS = (
    "ALTER TABLE games ADD COLUMN creator TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE games ADD COLUMN activity_unix_ms INTEGER",
    "ALTER TABLE games ADD COLUMN aborted_unix_ms INTEGER",
    "ALTER TABLE games ADD COLUMN abort_cause INTEGER",
    "ALTER TABLE games ADD COLUMN abort_reason TEXT",
    "ALTER TABLE games ADD COLUMN abort_sequence INTEGER",
    "ALTER TABLE actions ADD COLUMN chain TEXT NOT NULL DEFAULT ''",
)


def migrate(conn: sqlite3.Connection, path: Path, version: int) -> None:
    """Bring the open store ``conn`` (file ``path``, schema ``version``) to the current schema.
    StoreError if that fails (nothing is changed then)."""
    if version not in (2, 3):
        raise StoreError(f"{path}: no upgrade from store schema {version}")
    backup = path.with_name(path.name + f".v{version}.bak")
    try:
        with sqlite3.connect(backup) as copy:
            conn.backup(copy)
        copy.close()
        conn.execute("BEGIN IMMEDIATE")
        try:
            if version == 2:
                _to_v3(conn)
            _to_v4(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    except (sqlite3.Error, OSError, ValueError) as exc:
        raise StoreError(
            f"{path}: cannot upgrade the game store from schema {version}: {exc} (the file is "
            "unchanged)"
        ) from None


def _to_v3(conn: sqlite3.Connection) -> None:
    for statement in _V3_COLUMNS:
        conn.execute(statement)
    key = new_token_key()
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('token_key', ?)", (key.hex(),))
    seats = conn.execute("SELECT game_id, seat, token_hash FROM seats").fetchall()
    conn.executemany(
        "UPDATE seats SET token_hash = ? WHERE game_id = ? AND seat = ?",
        [(TokenHasher(key, str(gid)).rekey(str(old)), gid, seat) for gid, seat, old in seats],
    )
    games = conn.execute(
        "SELECT game_id, created_unix_ms, settings_json, scenario_json FROM games"
    ).fetchall()
    for gid, created, settings_json, scenario in games:
        rows = conn.execute(
            "SELECT version, seat, code, by_timeout, state_hash, sequence, idem_key, idem_hash "
            "FROM actions WHERE game_id = ? ORDER BY version",
            (gid,),
        ).fetchall()
        try:
            conn.executemany(
                "UPDATE actions SET chain = ? WHERE game_id = ? AND version = ?",
                _links(str(gid), int(created), json.loads(settings_json), str(scenario), rows),
            )
        except (TypeError, ValueError):
            # A damaged record: its rows keep no chain, and restore reports the game (out
            # of service) while every other game loads.
            continue
    conn.execute("UPDATE games SET activity_unix_ms = ?", (int(time.time() * 1000),))
    conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")


def _links(
    game_id: str,
    created: int,
    settings: dict[str, Any],
    scenario: str,
    rows: list[tuple[Any, ...]],
) -> list[tuple[str, str, Any]]:
    """(chain, game id, version) of each action row of a game, in version order."""
    head = chain.genesis(game_id, created, settings, scenario)
    out = []
    for version, seat, code, by_timeout, state_hash, sequence, key_text, key_hash in rows:
        head = chain.link(
            head,
            int(version),
            int(seat),
            int(code),
            bool(by_timeout),
            str(state_hash),
            int(sequence),
            str(key_text or ""),
            str(key_hash or ""),
        )
        out.append((head, game_id, version))
    return out


_V4_COLUMNS = (
    "ALTER TABLE games ADD COLUMN genesis TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE games ADD COLUMN creator_token_hash TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE seats ADD COLUMN chain TEXT NOT NULL DEFAULT ''",
)


def _to_v4(conn: sqlite3.Connection) -> None:
    for statement in _V4_COLUMNS:
        conn.execute(statement)
    games = conn.execute(
        "SELECT game_id, created_unix_ms, settings_json, scenario_json FROM games"
    ).fetchall()
    for gid, created, settings_json, scenario in games:
        claims = [
            chain.Claim(int(seat), str(name), str(token_hash), int(sequence))
            for seat, name, token_hash, sequence in conn.execute(
                "SELECT seat, name, token_hash, sequence FROM seats WHERE game_id = ?", (gid,)
            )
        ]
        rows = conn.execute(
            "SELECT version, seat, code, by_timeout, state_hash, sequence, idem_key, idem_hash, "
            "chain FROM actions WHERE game_id = ? ORDER BY version",
            (gid,),
        ).fetchall()
        try:
            first, seat_links, links = chain.relink(
                str(gid), int(created), json.loads(settings_json), str(scenario), claims, rows
            )
        except (TypeError, ValueError):
            continue  # a damaged record: loading reports the game, as before
        conn.execute("UPDATE games SET genesis = ? WHERE game_id = ?", (first, gid))
        conn.executemany(
            "UPDATE seats SET chain = ? WHERE game_id = ? AND seat = ?",
            [(link, gid, seat) for seat, link in seat_links.items()],
        )
        if links is not None:
            conn.executemany(
                "UPDATE actions SET chain = ? WHERE game_id = ? AND version = ?",
                [(link, gid, row[0]) for link, row in zip(links, rows, strict=True)],
            )
    conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
