"""Reading a SQLite game store: the games a restart hosts again, finished games' records
for results, replays and ListGames, and the damage found on the way.

``server.stores.sqlite.SqliteStore`` opens a read-only connection on the caller's thread for each
read and hands it to these functions; its writer thread is never involved. The log is the
truth, so a read tells damage apart precisely: a game whose rows are unreadable is reported
(a :class:`~server.stores.contract.LoadProblem`) and the others load; a snapshot that cannot
be read only costs a longer recovery; claims without a game row and games that look finished
but are not whole are reported too, so that no game vanishes without a word.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from server.stores.contract import (
    AbortRecord,
    ListViewer,
    LoadProblem,
    StoredGame,
    StoredIndex,
    StoredListing,
    StoreError,
    attach_access,
    attach_index_rows,
    attach_rows,
    index_entry,
)

__all__ = [
    "READ_ERRORS",
    "UNFINISHED",
    "read_finished",
    "read_games",
    "read_index",
    "read_last_order",
]

# Games a restart hosts again: neither finished nor aborted.
UNFINISHED = "finished_unix_ms IS NULL AND aborted_unix_ms IS NULL"

# What reading a damaged file raises: SQLite's errors, and UnicodeDecodeError when the damage
# reaches text SQLite returns (even its own error messages about a damaged schema).
READ_ERRORS = (sqlite3.DatabaseError, UnicodeDecodeError)


def read_games(
    conn: sqlite3.Connection, path: Path, unfinished_only: bool, game_id: str | None
) -> tuple[list[StoredGame], list[LoadProblem]]:
    """Read games (by default the unfinished ones) with their seats, log and snapshot.

    A game whose rows are unreadable is reported in the problems and skipped; every
    other game still loads. If reading everything at once fails (a damaged page), the
    games are read one by one so that the damage is pinned on the games it hits.
    StoreError if not even the list of games can be read.
    """
    try:
        loaded, found = _read(conn, unfinished_only, game_id)
        if game_id is None:
            found.extend(_orphans(conn))
            if unfinished_only:
                found.extend(_misfiled(conn))
        return loaded, found
    except READ_ERRORS as bulk_error:
        if game_id is not None:
            return [], [LoadProblem(game_id, f"unreadable rows: {bulk_error}")]
    try:
        where = f"WHERE {UNFINISHED}" if unfinished_only else ""
        ids = [row[0] for row in conn.execute(f"SELECT game_id FROM games {where}")]
    except READ_ERRORS as e:
        raise StoreError(
            f"{path}: the game store is damaged (the list of games cannot be "
            f"read: {e}); restore the file from a backup or move it aside"
        ) from None
    games: list[StoredGame] = []
    problems: list[LoadProblem] = []
    for gid in ids:
        try:
            one, bad = _read(conn, unfinished_only, str(gid))
        except READ_ERRORS as e:
            problems.append(LoadProblem(str(gid), f"unreadable rows: {e}"))
            continue
        games.extend(one)
        problems.extend(bad)
    with contextlib.suppress(*READ_ERRORS):
        problems.extend(_orphans(conn))
    if unfinished_only:
        with contextlib.suppress(*READ_ERRORS):
            problems.extend(_misfiled(conn))
    return games, problems


def _misfiled(conn: sqlite3.Connection) -> list[LoadProblem]:
    """Games that look finished but whose record is damaged: a damaged record could
    otherwise pass an unfinished game off as finished, and it would not be restored."""
    return [
        LoadProblem(str(gid), "the game record is damaged (it looks finished but is not whole)")
        for (gid,) in conn.execute(
            "SELECT game_id FROM games WHERE finished_unix_ms IS NOT NULL AND ("
            "typeof(finished_unix_ms) != 'integer' OR typeof(created_unix_ms) != 'integer' "
            "OR typeof(log_length) != 'integer' OR typeof(last_hash) != 'text' "
            "OR typeof(settings_json) != 'text' OR typeof(scenario_json) != 'text' "
            "OR typeof(result_json) != 'text' OR NOT json_valid(result_json) "
            "OR NOT json_valid(settings_json)) "
            "OR aborted_unix_ms IS NOT NULL AND (typeof(aborted_unix_ms) != 'integer' "
            "OR typeof(abort_sequence) != 'integer' OR typeof(abort_cause) != 'integer' "
            "OR typeof(created_unix_ms) != 'integer' OR typeof(log_length) != 'integer' "
            "OR NOT json_valid(settings_json))"
        )
    ]


def _orphans(conn: sqlite3.Connection) -> list[LoadProblem]:
    """Games known only by their claims: the game row is gone (a damaged file), so the
    game would otherwise vanish without a word."""
    return [
        LoadProblem(str(gid), "seat claims exist but the game record is missing")
        for (gid,) in conn.execute(
            "SELECT DISTINCT game_id FROM seats WHERE game_id NOT IN (SELECT game_id FROM games)"
        )
    ]


def _read(
    conn: sqlite3.Connection, unfinished_only: bool, game_id: str | None
) -> tuple[list[StoredGame], list[LoadProblem]]:
    clauses = [UNFINISHED] if unfinished_only else []
    args: tuple[str, ...] = ()
    if game_id is not None:
        clauses.append("game_id = ?")
        args = (game_id,)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = conn.execute(
        "SELECT game_id, created_unix_ms, settings_json, scenario_json, finished_unix_ms, "
        "result_json, log_length, last_hash, rowid, creator, activity_unix_ms, "
        "aborted_unix_ms, abort_cause, abort_reason, abort_sequence, genesis, creator_token_hash "
        f"FROM games {where} ORDER BY rowid",
        args,
    ).fetchall()
    games: dict[str, StoredGame] = {}
    problems: list[LoadProblem] = []
    one = "WHERE game_id = ?" if game_id is not None else ""
    for (
        gid,
        created,
        settings,
        scenario,
        finished,
        result,
        length,
        last,
        order,
        creator,
        activity,
        aborted,
        cause,
        reason,
        abort_sequence,
        genesis,
        creator_token_hash,
    ) in rows:
        try:
            parsed = json.loads(settings)
            if not isinstance(parsed, dict):
                raise ValueError("the settings are not a JSON object")
            games[gid] = StoredGame(
                game_id=gid,
                created_unix_ms=int(created),
                settings=parsed,
                scenario_json=str(scenario),
                finished_unix_ms=finished,
                result=json.loads(result) if result else None,
                log_length=int(length),
                last_hash=str(last),
                order=int(order),
                creator=str(creator or ""),
                genesis=str(genesis or ""),
                creator_token_hash=str(creator_token_hash or ""),
                activity_unix_ms=int(activity if activity is not None else created),
                aborted=None
                if aborted is None
                else AbortRecord(int(aborted), int(cause), str(reason), int(abort_sequence)),
            )
        except (ValueError, TypeError) as e:
            problems.append(LoadProblem(gid, f"unreadable game record: {e}"))
    seat_rows = conn.execute(  # cursors, read row by row as before
        f"SELECT game_id, seat, name, token_hash, sequence, chain FROM seats {one}", args
    )
    action_rows = conn.execute(  # no epochs in a single node's store: 0, as StoredAction's
        "SELECT game_id, version, seat, code, by_timeout, state_hash, sequence, idem_key, "
        f"idem_hash, 0, chain FROM actions {one} ORDER BY game_id, version",
        args,
    )
    try:
        snapshots = conn.execute(
            f"SELECT game_id, version, data_json FROM snapshots {one}", args
        ).fetchall()
    except READ_ERRORS as e:
        if game_id is None or game_id not in games:
            raise
        # Reading one game: a damaged snapshot only costs a longer recovery.
        games[game_id].snapshot_problem = f"unreadable snapshot: {e}"
        snapshots = []
    attach_rows(games, seat_rows, action_rows, snapshots)
    attach_access(
        games,
        conn.execute(f"SELECT game_id, unlisted FROM game_access {one}", args),
        conn.execute(
            f"SELECT game_id, seat, key_name, code_hash FROM seat_reservations {one}", args
        ),
    )
    return list(games.values()), problems


def read_index(conn: sqlite3.Connection, path: Path) -> tuple[list[StoredIndex], list[LoadProblem]]:
    """The index of every unfinished game (a lazy restart's read: ``StoredIndex``), in
    creation order: the game rows, their last log entry's version and sequence (an index
    seek each on the log's primary key, not a read of the log), the claims' names and the
    access rows. A game whose record cannot be read is reported (it is put out of service,
    as a full read would); StoreError if the list of games cannot be read at all."""
    try:
        rows = conn.execute(
            "SELECT g.game_id, g.rowid, g.created_unix_ms, g.settings_json, "
            "g.scenario_json <> '', g.log_length, "
            "(SELECT a.version FROM actions a WHERE a.game_id = g.game_id "
            "ORDER BY a.version DESC LIMIT 1), "
            "(SELECT a.sequence FROM actions a WHERE a.game_id = g.game_id "
            "ORDER BY a.version DESC LIMIT 1), "
            f"g.creator, g.activity_unix_ms, NULL FROM games g WHERE {UNFINISHED} "
            "ORDER BY g.rowid"
        ).fetchall()
    except READ_ERRORS as e:
        raise StoreError(
            f"{path}: the game store is damaged (the list of games cannot be "
            f"read: {e}); restore the file from a backup or move it aside"
        ) from None
    games: dict[str, StoredIndex] = {}
    problems: list[LoadProblem] = []
    for row in rows:
        try:
            entry = index_entry(row)
        except (ValueError, TypeError) as e:
            problems.append(LoadProblem(str(row[0]), f"unreadable game record: {e}"))
            continue
        games[entry.game_id] = entry
    try:
        open_games = f"WHERE game_id IN (SELECT game_id FROM games WHERE {UNFINISHED})"
        attach_index_rows(
            games,
            conn.execute(  # (a join: twice as fast as the IN list on 100,000 games)
                "SELECT s.game_id, s.seat, s.name, s.sequence FROM games g "
                "JOIN seats s ON s.game_id = g.game_id "
                "WHERE g.finished_unix_ms IS NULL AND g.aborted_unix_ms IS NULL"
            ),
            conn.execute(f"SELECT game_id, unlisted FROM game_access {open_games}"),
            conn.execute(
                f"SELECT game_id, seat, key_name, code_hash FROM seat_reservations {open_games}"
            ),
        )
        problems.extend(_orphans(conn))
        problems.extend(_misfiled(conn))
    except READ_ERRORS as e:
        raise StoreError(
            f"{path}: the game store is damaged (the seats of the games cannot be "
            f"read: {e}); restore the file from a backup or move it aside"
        ) from None
    return list(games.values()), problems


def read_last_order(conn: sqlite3.Connection) -> int:
    """The highest creation order (row id) given so far; 0 for an empty store."""
    (last,) = conn.execute("SELECT coalesce(max(rowid), 0) FROM games").fetchone()
    return int(last)


# The games a ListViewer may see (its parameters: visible_params).
VISIBLE = (
    "(NOT EXISTS (SELECT 1 FROM game_access x WHERE x.game_id = g.game_id AND x.unlisted) "
    "OR ? OR (? <> '' AND g.creator = ?) OR (? <> '' AND EXISTS (SELECT 1 FROM "
    "seat_reservations r WHERE r.game_id = g.game_id AND r.key_name = ?)))"
)


def visible_params(viewer: ListViewer | None) -> tuple[object, ...]:
    """The parameters of VISIBLE (no viewer: every game)."""
    if viewer is None:
        return (1, "", "", "", "")
    who, name = viewer.creator, viewer.key_name
    return (int(viewer.sees_all), who, who, name, name)


def read_finished(
    conn: sqlite3.Connection,
    before: int | None,
    limit: int,
    finished: bool,
    aborted: bool,
    viewer: ListViewer | None = None,
) -> list[StoredListing]:
    """Finished (and/or aborted) games, newest first (by creation order), created before
    ``before``, that ``viewer`` may see; at most ``limit``; those whose record cannot be read
    left out."""
    over = [
        *(["g.finished_unix_ms IS NOT NULL"] if finished else []),
        *(["g.aborted_unix_ms IS NOT NULL"] if aborted else []),
    ]
    if not over:
        return []
    rows = conn.execute(
        "SELECT g.rowid, g.game_id, g.created_unix_ms, g.settings_json, g.scenario_json, "
        "(SELECT max(version) + 1 FROM actions a WHERE a.game_id = g.game_id), "
        "coalesce(g.abort_sequence, "
        "(SELECT max(sequence) FROM actions a WHERE a.game_id = g.game_id)), "
        "g.aborted_unix_ms IS NOT NULL "
        f"FROM games g WHERE ({' OR '.join(over)}) AND g.rowid < ? AND {VISIBLE} "
        "ORDER BY g.rowid DESC LIMIT ?",
        (before if before is not None else 2**63 - 1, *visible_params(viewer), limit),
    ).fetchall()
    names: dict[str, dict[int, str]] = {str(row[1]): {} for row in rows}
    if names:
        marks = ",".join("?" * len(names))
        for gid, seat, name in conn.execute(
            f"SELECT game_id, seat, name FROM seats WHERE game_id IN ({marks})", tuple(names)
        ):
            names[str(gid)][int(seat)] = str(name)
    access = _listed_access(conn, list(names))
    out: list[StoredListing] = []
    for order, gid, created, settings, scenario, version, sequence, was_aborted in rows:
        listing = StoredListing.from_row(
            (order, gid, created, settings, scenario, version, sequence), names[str(gid)]
        )
        if listing is not None:
            out.append(replace(listing, aborted=bool(was_aborted), access=access[str(gid)].access))
    return out


def _listed_access(conn: sqlite3.Connection, ids: list[str]) -> dict[str, StoredGame]:
    """The access of the games ``ids`` (as stand-in StoredGames that carry only it)."""
    holders = {gid: StoredGame(gid, 0, {}, "") for gid in ids}
    if ids:
        marks = ",".join("?" * len(ids))
        attach_access(
            holders,
            conn.execute(
                f"SELECT game_id, unlisted FROM game_access WHERE game_id IN ({marks})", ids
            ),
            conn.execute(
                "SELECT game_id, seat, key_name, code_hash FROM seat_reservations "
                f"WHERE game_id IN ({marks})",
                ids,
            ),
        )
    return holders
