"""The store seam: what every game store (memory, SQLite, PostgreSQL) is, and the records
they read and write.

:class:`GameStore` is the protocol a hosted game (``server.games.game.Game``) writes its log
through; ``server.stores.memory.MemoryStore`` (no durability: tests and benchmarks),
``server.stores.sqlite.SqliteStore`` (one node, durable) and
``server.stores.postgres.PostgresStore`` (a cluster) implement it. The records here are shared by
all of them, so that a game, its recovery (``server.games.recovery``) and the store contract
tests (``tests/store``) depend on this module rather than on one store in particular."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "NO_ACCESS",
    "AbortRecord",
    "GameAccess",
    "GameStore",
    "ListViewer",
    "LoadProblem",
    "SeatReservation",
    "StoreError",
    "StoredAction",
    "StoredGame",
    "StoredIndex",
    "StoredListing",
    "attach_index_rows",
    "attach_rows",
    "index_entry",
]


class OpenGamesFull(Exception):
    """A creator already has as many open games as its quota allows, counted by a store that
    several nodes share (``GameStore.create``'s ``open_limit``): nothing was created."""


class StoreError(Exception):
    """The store file cannot be used at all (not a database, newer schema, …)."""


@dataclass(frozen=True, slots=True)
class StoredAction:
    version: int  # the state version the action was applied on
    seat: int
    code: int  # the action's code (the game's rules decode it: Rules.action_from_code)
    by_timeout: bool
    state_hash: str  # the state's hash right after it ("" in a store that is not durable)
    sequence: int = 0  # the game's last event sequence number once its events are published
    idempotency_key: str = ""  # the SubmitAction's key ("" for none / by timeout)
    request_hash: str = ""  # hash of the request the key came with (same key, other request?)
    # Seat -> wall-clock deadline (ms) of each decision awaited after this one: a cluster's
    # store keeps the newest so that a new owner's clocks go on counting (SQLite: not kept).
    deadlines_ms: tuple[tuple[int, int], ...] = field(default=(), compare=False)
    epoch: int = field(default=0, compare=False)  # the owner's epoch that wrote it (cluster)
    chain: str = ""  # its link of the log's hash chain (server.stores.chain; "" if not durable)
    # When it was applied (the game's abandonment clock; the store keeps only the latest,
    # on the game row): not part of what the entry is.
    unix_ms: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class SeatReservation:
    """A seat only its holder may claim: the API key named ``key_name``, or whoever presents
    the join code whose keyed hash is ``code_hash`` (``server.games.access``)."""

    seat: int
    key_name: str = ""
    code_hash: str = ""


@dataclass(frozen=True, slots=True)
class GameAccess:
    """Who may see and join a game (issue 27): fixed at creation, stored with the game."""

    unlisted: bool = False
    reservations: tuple[SeatReservation, ...] = ()

    @property
    def restricted(self) -> bool:
        """Whether there is anything to store (an open, listed game has no access row)."""
        return self.unlisted or bool(self.reservations)

    def reservation(self, seat: int) -> SeatReservation | None:
        for reservation in self.reservations:
            if reservation.seat == seat:
                return reservation
        return None

    def key_names(self) -> frozenset[str]:
        return frozenset(r.key_name for r in self.reservations if r.key_name)


NO_ACCESS = GameAccess()


@dataclass(frozen=True, slots=True)
class ListViewer:
    """Who asks ListGames, as far as unlisted games go: they see those ``creator`` (a quota
    key; "" for an anonymous caller, whose address proves nothing) created, those with a seat
    reserved for the API key ``key_name`` ("" anonymous), or all of them (``sees_all``: admin
    keys)."""

    creator: str = ""
    key_name: str = ""
    sees_all: bool = False

    def sees(self, access: GameAccess, creator: str) -> bool:
        if not access.unlisted or self.sees_all:
            return True
        if self.creator and creator == self.creator:
            return True
        return bool(self.key_name) and self.key_name in access.key_names()


@dataclass(frozen=True, slots=True)
class AbortRecord:
    """How a game was aborted (kept with the game; see server.games.abandon)."""

    unix_ms: int
    cause: int  # GameAborted.Cause number
    reason: str
    sequence: int  # the game's last event sequence number after the abort's events


@dataclass
class StoredGame:
    """Everything the store holds about one game, as read at start-up."""

    game_id: str
    created_unix_ms: int
    settings: dict[str, Any]
    scenario_json: str
    seats: dict[int, tuple[str, str]] = field(default_factory=dict)  # seat -> (name, hash)
    seat_sequences: dict[int, int] = field(default_factory=dict)  # seat -> sequence after claim
    seat_chains: dict[int, str] = field(default_factory=dict)  # seat -> its claim's chain link
    actions: list[StoredAction] = field(default_factory=list)
    snapshot: dict[str, Any] | None = None  # the latest one
    snapshot_version: int = -1
    snapshot_problem: str | None = None  # the latest snapshot exists but cannot be read
    finished_unix_ms: int | None = None
    result: dict[str, Any] | None = None
    log_length: int = 0  # how many actions the game row says were appended
    last_hash: str = ""  # the state hash the game row says the last action left
    order: int = 0  # the row id: the game's place in the creation order
    epoch: int = 0  # the owner's epoch (cluster stores only)
    deadlines_ms: dict[int, int] = field(default_factory=dict)  # seat -> wall ms (cluster)

    def take_snapshot(self, version: int, data: str) -> None:
        """Keep a stored snapshot if it is the newest seen; an unreadable one is noted, not
        fatal (the log is the truth: the game can be rebuilt without it)."""
        if version < self.snapshot_version:
            return
        self.snapshot_version = version
        try:
            snapshot = json.loads(data)
            if not isinstance(snapshot, dict):
                raise ValueError("not a JSON object")
            self.snapshot = snapshot
            self.snapshot_problem = None
        except ValueError as e:
            self.snapshot = None
            self.snapshot_problem = f"unreadable snapshot at version {version}: {e}"

    genesis: str = ""  # the chain's genesis hash as written with the record ("" if none)
    creator: str = ""  # the quota key of the identity that created it ("" if unknown)
    creator_token_hash: str = ""  # the keyed hash of its creator token ("" if none)
    activity_unix_ms: int = 0  # when it was created, or a seat claimed, or last decided
    aborted: AbortRecord | None = None
    access: GameAccess = NO_ACCESS  # unlisted, reserved seats (issue 27)


@dataclass(slots=True)
class StoredIndex:
    """What a lazy restart reads of an unfinished game (``server.games.dormant``): enough to
    list it, count it under quotas, sweep it for abandonment and run its decision clock,
    without its log, snapshot or engine state (those are read when it is first used).

    ``version`` and ``last_sequence`` come from the log's last entry (an index seek, not a
    read of the log); ``version`` is None when it cannot be told without the engine (a game
    set up from a scenario that has no decision yet: its start version is the scenario's)."""

    game_id: str
    order: int
    created_unix_ms: int
    settings: dict[str, Any]
    from_scenario: bool
    log_length: int
    version: int | None
    last_sequence: int
    seat_names: dict[int, str] = field(default_factory=dict)  # the claimed seats' names
    creator: str = ""
    activity_unix_ms: int = 0
    access: GameAccess = NO_ACCESS
    deadlines_ms: dict[int, int] = field(default_factory=dict)  # seat -> wall ms (cluster)
    epoch: int = 0


def index_entry(row: Sequence[Any]) -> StoredIndex:
    """A StoredIndex from a row every durable store selects alike: ``(game_id, order,
    created_unix_ms, settings_json, from_scenario, log_length, last_version, last_action_sequence,
    creator, activity_unix_ms, deadlines_json)``. ValueError/TypeError if the record cannot
    be read."""
    gid, order, created, settings, scenario, length, last_version, last_seq = row[:8]
    creator, activity, deadlines = row[8:11]
    parsed = json.loads(settings)
    if not isinstance(parsed, dict):
        raise ValueError("the settings are not a JSON object")
    length = int(length)
    version = int(last_version) + 1 if last_version is not None else None
    if version is None and not scenario:
        version = 0  # a game dealt from its seed starts at version 0
    return StoredIndex(
        game_id=str(gid),
        order=int(order),
        created_unix_ms=int(created),
        settings=parsed,
        from_scenario=bool(scenario),
        log_length=length,
        version=version,
        last_sequence=int(last_seq or 0),
        creator=str(creator or ""),
        activity_unix_ms=int(activity if activity is not None else created),
        deadlines_ms=(
            {int(s): int(d) for s, d in json.loads(deadlines).items()}
            if deadlines and deadlines != "{}"
            else {}
        ),
    )


def attach_index_rows(
    games: dict[str, StoredIndex],
    seat_rows: Iterable[Sequence[Any]],
    access_rows: Iterable[Sequence[Any]],
    reservation_rows: Iterable[Sequence[Any]],
) -> None:
    """Give each indexed game its claimed seats ``(game_id, seat, name, sequence)`` (the last
    event sequence is a claim's when it is newer than the last decision's) and its access
    (as :func:`attach_access` reads it)."""
    for gid, seat, name, sequence in seat_rows:
        g = games.get(gid)
        if g is not None:
            g.seat_names[int(seat)] = str(name)
            if sequence > g.last_sequence:
                g.last_sequence = int(sequence)
    # Only the few games with access rows get a stand-in (a hundred thousand would cost).
    access = list(access_rows)
    reservations = list(reservation_rows)
    holders = {
        str(row[0]): StoredGame(str(row[0]), 0, {}, "")
        for row in (*access, *reservations)
        if row[0] in games
    }
    attach_access(holders, access, reservations)
    for gid, holder in holders.items():
        games[gid].access = holder.access


@dataclass(frozen=True, slots=True)
class StoredListing:
    """What ListGames shows of a finished game that is only in the store."""

    order: int
    game_id: str
    created_unix_ms: int
    settings: dict[str, Any]
    from_scenario: bool
    seat_names: dict[int, str]
    state_version: int  # after the last decision
    last_sequence: int
    aborted: bool = False  # aborted rather than finished
    access: GameAccess = NO_ACCESS

    @classmethod
    def from_row(cls, row: Sequence[Any], seat_names: dict[int, str]) -> StoredListing | None:
        """A listing from a store's row (order, game id, created, settings JSON, scenario,
        version, sequence), or None if its record cannot be read (it is reported when someone
        asks for the game by id)."""
        order, game_id, created, settings, scenario, version, sequence = row
        try:
            parsed = json.loads(settings)
            if not isinstance(parsed, dict):
                return None
            return cls(
                order=int(order),
                game_id=str(game_id),
                created_unix_ms=int(created),
                settings=parsed,
                from_scenario=bool(scenario),
                seat_names=seat_names,
                state_version=int(version or 0),
                last_sequence=int(sequence or 0),
            )
        except (ValueError, TypeError):
            return None


@dataclass(frozen=True, slots=True)
class LoadProblem:
    """A game that could not be read; the others load regardless."""

    game_id: str
    problem: str


class GameStore(Protocol):
    """Where games' logs go (``server.stores.sqlite.SqliteStore`` is the durable one on one node,
    ``server.stores.postgres.PostgresStore`` the cluster's, ``server.stores.memory.MemoryStore``
    keeps nothing).

    Every write returns once it is safe: a decision is acknowledged only after ``append``.
    ``durable`` stores get snapshots and keep finished games queryable after they leave
    memory.
    """

    @property
    def durable(self) -> bool: ...

    @property
    def token_key(self) -> bytes: ...  # the secret of the seat tokens' keyed hashes

    @property
    def lists_every_game(self) -> bool:
        """True for a store shared by a cluster: it lists every game, hosted here or not. Else
        it lists only the games that are over (the host lists those it holds itself)."""
        ...

    async def list_games(
        self, status: int, before: int | None, limit: int, viewer: ListViewer | None = None
    ) -> list[tuple[StoredListing, int]]:
        """Games of ``status`` (0: any; Status numbers) created before ``before`` in the
        creation order, newest first, each with its status; at most ``limit`` (see
        ``lists_every_game`` for which); with a ``viewer``, only the games it may see
        (unlisted ones: :meth:`ListViewer.sees`). StoreError if they cannot be read."""
        ...

    async def create(
        self,
        game_id: str,
        created_unix_ms: int,
        settings: dict[str, Any],
        scenario_json: str,
        order: int | None = None,
        creator: str = "",
        creator_token_hash: str = "",
        open_limit: float | None = None,
        access: GameAccess = NO_ACCESS,
    ) -> None:
        """Record a new game, and its ``access`` with it. ``open_limit``: refuse it
        (OpenGamesFull) if ``creator`` has that many open games already. A store that several
        nodes share counts them (the nodes' memories each see only their own); a single node's
        store may ignore it (the server counts in memory: ``server.api.quotas``)."""
        ...

    async def claim(
        self,
        game_id: str,
        seat: int,
        name: str,
        token_hash: str,
        sequence: int = 0,
        unix_ms: int = 0,
        chain: str = "",
    ) -> None:
        """Record a seat's claim; ``chain`` is its link of the game's hash chain
        (``server.stores.chain.seat_link``; empty for a store that keeps no chain)."""
        ...

    async def append(self, game_id: str, entry: StoredAction) -> None: ...

    async def snapshot(self, game_id: str, version: int, data: dict[str, Any]) -> None: ...

    async def finish(self, game_id: str, finished_unix_ms: int, result: dict[str, Any]) -> None: ...

    async def abort(self, game_id: str, record: AbortRecord) -> None: ...


def attach_rows(
    games: dict[str, StoredGame],
    seat_rows: Iterable[Sequence[Any]],
    action_rows: Iterable[Sequence[Any]],
    snapshot_rows: Iterable[Sequence[Any]],
) -> None:
    """Give each game read from a store its seats, its log and its snapshot, from rows that
    every durable store selects alike: ``(game_id, seat, name, token_hash, sequence, chain)``;
    ``(game_id, version, seat, code, by_timeout, state_hash, sequence, idem_key, idem_hash,
    epoch, chain)`` in version order; ``(game_id, version, data_json)``. Rows of a game not in
    ``games`` (its record was unreadable) are skipped."""
    for gid, seat, name, token_hash, sequence, link in seat_rows:
        g = games.get(gid)
        if g is not None:
            g.seats[int(seat)] = (str(name), str(token_hash))
            g.seat_sequences[int(seat)] = int(sequence)
            g.seat_chains[int(seat)] = str(link or "")
    for (
        gid,
        version,
        seat,
        code,
        by_timeout,
        state_hash,
        seq,
        key,
        key_hash,
        epoch,
        chain,
    ) in action_rows:
        g = games.get(gid)
        if g is not None:
            g.actions.append(
                StoredAction(
                    int(version),
                    int(seat),
                    int(code),
                    bool(by_timeout),
                    str(state_hash),
                    int(seq),
                    key or "",
                    key_hash or "",
                    epoch=int(epoch),
                    chain=str(chain),
                )
            )
    for gid, version, data in snapshot_rows:
        g = games.get(gid)
        if g is not None:
            g.take_snapshot(int(version), data)


def attach_access(
    games: dict[str, StoredGame],
    access_rows: Iterable[Sequence[Any]],
    reservation_rows: Iterable[Sequence[Any]],
) -> None:
    """Give each game read from a store its access (issue 27), from rows every durable store
    selects alike: ``(game_id, unlisted)`` and ``(game_id, seat, key_name, code_hash)``. A
    game with no row is listed and has no reserved seat."""
    unlisted = {str(gid): bool(flag) for gid, flag in access_rows}
    reserved: dict[str, list[SeatReservation]] = {}
    for gid, seat, key_name, code_hash in reservation_rows:
        reserved.setdefault(str(gid), []).append(
            SeatReservation(int(seat), str(key_name or ""), str(code_hash or ""))
        )
    for gid, game in games.items():
        if gid in unlisted or gid in reserved:
            game.access = GameAccess(
                unlisted.get(gid, False),
                tuple(sorted(reserved.get(gid, ()), key=lambda r: r.seat)),
            )
