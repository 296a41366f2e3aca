"""Games a lazy restart hosts without their state: stored, not yet rebuilt.

A restart that rebuilt every unfinished game before serving spent about a millisecond of
engine work on each (setting up from the seed, replaying the log, checking hashes): 80 s for
100,000 games, every one of them paid for before the first call, most of them idle. A lazy
restart reads only the store's index of those games (``StoredIndex``: settings, claims, the
last log entry's version and sequence, access, the clock's deadlines) and hosts each as a
:class:`Dormant`: enough for ListGames, quotas, the games-hosted count, the abandonment sweep
and the decision clock, without the engine. The registry (``server.games.registry``) rebuilds
a dormant game from its log the first time anything needs more (a call about it, its clock
falling due, the abandonment sweep), through the same rebuild and checks as an eager restart
(``server.games.recovery``); a game whose log is broken is found then, and fails alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.games.record import GameSettings, Status, settings_from_record
from server.stores.contract import GameAccess, StoredIndex

__all__ = ["Dormant", "dormant_from"]


@dataclass(slots=True, eq=False)
class Dormant:
    """An unfinished game known from the store's index, not rebuilt yet. Its attributes are
    named as a hosted ``Game``'s that ListGames and the abandonment sweep read."""

    id: str
    order: int  # its place in the creation order
    settings: GameSettings
    created_unix_ms: int
    from_scenario: bool
    creator: str
    access: GameAccess
    status: Status  # OPEN until every seat is claimed, then IN_PROGRESS
    names: list[str]
    claimed_seats: tuple[bool, ...]
    version: int
    last_sequence: int
    activity_unix_ms: int
    log_length: int  # what the rebuilt log must hold (the cluster fences with it)
    epoch: int = 0  # the cluster's epoch it was taken at (0: a single node)
    # When its awaited seats' time runs out (Unix ms; 0: no clock): the deadlines a cluster's
    # store kept, or for a single node's store (which keeps none) a full turn from the restart,
    # as an eager restart gives every awaited seat.
    due_unix_ms: int = 0
    deadlines_ms: dict[int, int] | None = None  # seat -> Unix ms, as the cluster's store kept

    over = False  # unfinished by definition: a finished game is never dormant

    def claimed(self) -> list[bool]:
        return list(self.claimed_seats)

    def clock_deadlines(self) -> dict[int, int] | None:
        """The deadlines its clock starts with once rebuilt (seat -> Unix ms; None: a full
        turn from then), so that rebuilding later does not move them."""
        if self.deadlines_ms:
            return self.deadlines_ms
        if self.due_unix_ms:
            return dict.fromkeys(range(self.settings.players), self.due_unix_ms)
        return None


def dormant_from(index: StoredIndex, now_unix_ms: int) -> Dormant:
    """A dormant game from its index row, at wall time ``now_unix_ms``. ValueError, TypeError
    or KeyError if its settings cannot be read (an eager restart puts such a game out of
    service too). An index without a version (a scenario's game with no decision yet) gives
    version 0: the caller rebuilds such a game before it serves."""
    settings = settings_from_record(index.settings)
    players = settings.players
    names = list(settings.seat_names) + [""] * (players - len(settings.seat_names))
    for seat, name in index.seat_names.items():
        if 0 <= seat < players:
            names[seat] = name
    claimed = tuple(seat in index.seat_names for seat in range(players))
    status = Status.IN_PROGRESS if all(claimed) else Status.OPEN
    due = 0
    deadlines = dict(index.deadlines_ms) or None
    if deadlines:
        due = min(deadlines.values())
    elif status == Status.IN_PROGRESS and settings.decision_time_limit_ms > 0:
        due = now_unix_ms + settings.decision_time_limit_ms
    return Dormant(
        id=index.game_id,
        order=index.order,
        settings=settings,
        created_unix_ms=index.created_unix_ms,
        from_scenario=index.from_scenario,
        creator=index.creator,
        access=index.access,
        status=status,
        names=names,
        claimed_seats=claimed,
        version=index.version if index.version is not None else 0,  # (rebuilt at once)
        last_sequence=index.last_sequence,
        activity_unix_ms=index.activity_unix_ms,
        log_length=index.log_length,
        epoch=index.epoch,
        due_unix_ms=due,
        deadlines_ms=deadlines,
    )
