"""The events one game has published, and how they are numbered.

Every event of a game has a sequence number (1, 2, ... in publication order) and the state
version it was published at. Events are published in groups: a claim's, or one decision's
(what it did, Glory, the next phase, ...). A state exists only between groups, so a view can
only be shown at the end of one: :class:`EventLog` keeps, per state version, the last
sequence number it had (and per seat the sequence its claim ended at), which is how a watcher
resuming at any sequence is given a view that matches the events it has (``WatchGame``).

Only the newest ``cap`` events are kept in memory. Those an earlier process published (after
a restart), or that a game which is over dropped (``server.games.compact``), are rebuilt from the
action log on demand (``server.games.event_recovery``) and put back in front of those kept.

Events are stored once per game with their audience; what a viewer gets is picked per event
(:meth:`StoredEvent.for_viewer`), so a watcher never sees another seat's secrets.
"""

from __future__ import annotations

import asyncio
from array import array
from bisect import bisect_right
from collections.abc import MutableSequence, Sequence
from typing import NamedTuple

from protocol.envelopes import EventPb
from protocol.wire import ConvertedEvent

__all__ = ["DEFAULT_EVENT_CAP", "EventLog", "StoredEvent", "numbered"]

DEFAULT_EVENT_CAP = 100_000


class StoredEvent(NamedTuple):
    """One event of a game's log, in its full and its filtered form (a named tuple: one is
    made per event published, and a frozen dataclass costs a setattr call per field)."""

    sequence: int
    version: int
    audience: int  # -1: everyone sees `full`; else only that seat does
    full: EventPb
    public: EventPb

    def for_viewer(self, viewer: int) -> EventPb:
        """What ``viewer`` (a seat, or SPECTATOR) may see of this event."""
        if self.audience < 0 or self.audience == viewer:
            return self.full
        return self.public


def numbered(
    events: Sequence[ConvertedEvent], version: int, first_sequence: int
) -> list[StoredEvent]:
    """Give converted events their sequence numbers and state version."""
    out = []
    sequence = first_sequence - 1
    for converted in events:
        sequence += 1
        full = converted.full
        full.sequence = sequence
        full.state_version = version
        if converted.audience < 0:
            public = full
        else:
            public = converted.public if converted.public is not None else EventPb()
            public.sequence = sequence
            public.state_version = version
        out.append(StoredEvent(sequence, version, converted.audience, full, public))
    return out


class EventLog:
    """A game's published events (the newest ``cap`` of them) and their numbering."""

    def __init__(self, base_version: int, cap: int = DEFAULT_EVENT_CAP) -> None:
        self.kept: list[StoredEvent] = []
        self.cap = max(1, cap)
        self.last_sequence = 0
        # The state version the game started at (or its log was restored from): index 0 of
        # `seq_at_version`, which holds per state version the last sequence it had.
        self.base_version = base_version
        self.seq_at_version: MutableSequence[int] = [0]
        self.claim_sequences: dict[int, int] = {}  # seat -> the sequence its claim ended at
        # After a restart: events up to `restored_sequence` were published by an earlier
        # process; they are rebuilt from the log on demand (server.games.event_recovery).
        self.restored_sequence = 0
        self.unrebuildable = False  # a rebuild did not match: do not replay again
        self.changed = asyncio.Event()  # set (and replaced) at every publication

    @property
    def first_kept_sequence(self) -> int:
        return self.kept[0].sequence if self.kept else self.last_sequence + 1

    def restore(
        self,
        claim_sequences: dict[int, int],
        entry_sequences: Sequence[int],
        abort_sequence: int | None,
    ) -> None:
        """Continue the numbering of a game restored from its log: each seat's claim
        sequence, each logged decision's last sequence, an abort's last sequence (if it was
        aborted)."""
        claims = max(claim_sequences.values(), default=0)
        self.claim_sequences = dict(claim_sequences)
        self.seq_at_version = [claims, *entry_sequences]
        if abort_sequence is not None:  # its events close the last version's group
            self.seq_at_version[-1] = abort_sequence
        self.last_sequence = self.seq_at_version[-1]
        self.restored_sequence = self.last_sequence

    def publish(self, events: Sequence[ConvertedEvent], version: int) -> list[StoredEvent]:
        """Number ``events`` after the last one, at state ``version``, and keep them."""
        before = self.last_sequence
        out = numbered(events, version, before + 1)
        self.kept.extend(out)
        self.last_sequence = before + len(out)
        ends = self.seq_at_version
        index = version - self.base_version
        while len(ends) < index:
            ends.append(before)
        if len(ends) == index:
            ends.append(self.last_sequence)
        else:
            ends[index] = self.last_sequence
        overflow = len(self.kept) - self.cap
        if overflow > 0:
            del self.kept[:overflow]
        return out

    def wake(self) -> None:
        """Wake everyone waiting for an event (a publication, or the game closing)."""
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    def events_from(self, sequence: int) -> list[StoredEvent]:
        """Stored events with sequence >= ``sequence`` (those still kept)."""
        if not self.kept:
            return []
        start = max(0, sequence - self.kept[0].sequence)
        return self.kept[start:]

    # -- the stream's resume points ----------------------------------------------------------

    def last_at(self, version: int) -> int:
        """The last sequence once state ``version`` was reached (clamped to those known)."""
        ends = self.seq_at_version
        return ends[min(max(0, version - self.base_version), len(ends) - 1)]

    def version_at(self, sequence: int) -> int:
        """The state version the game was at once event ``sequence`` was published."""
        return self.base_version + max(0, bisect_right(self.seq_at_version, sequence) - 1)

    def group_end_at_or_before(self, sequence: int) -> int:
        """The last sequence of the newest group of events that ends at or before
        ``sequence`` (0: before the first one)."""
        ends = self.seq_at_version  # per state version: the last sequence it had
        i = bisect_right(ends, sequence) - 1
        if i >= 0:
            return ends[i]
        return max((q for q in self.claim_sequences.values() if q <= sequence), default=0)

    def ends_group(self, sequence: int) -> bool:
        """Whether event ``sequence`` is the last of its group (a view may follow it)."""
        if not 0 < sequence <= self.last_sequence:
            return False
        return self.group_end_at_or_before(sequence) == sequence

    def claimed_by(self, seats: int, sequence: int) -> list[bool]:
        """Which of ``seats`` seats had been claimed once event ``sequence`` was published."""
        claims = self.claim_sequences
        return [claims.get(s, sequence + 1) <= sequence for s in range(seats)]

    # -- a game that is over keeps little (server.games.compact) -----------------------------------

    def drop_published(self) -> None:
        """Forget the published events: they are rebuilt from the log if a watcher asks for
        them (as after a restart, see server.games.event_recovery)."""
        self.kept = []
        self.restored_sequence = self.last_sequence
        self.seq_at_version = array("q", self.seq_at_version)

    def prepend(self, rebuilt: list[StoredEvent]) -> bool:
        """Put events rebuilt from the log back in front of those kept, as many as the cap
        leaves room for (the newest of them); False if there is no room."""
        room = self.cap - len(self.kept)
        if room <= 0:
            return False
        self.kept[:0] = rebuilt[-room:]
        return True
