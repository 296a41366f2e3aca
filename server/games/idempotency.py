"""A game's answers to decisions that carried an idempotency key, kept so that a retry gets
the first answer again instead of a second decision.

A client that lost the answer to a decision (a dropped connection, a deadline) resends it with
the same idempotency key; the game recognises it (the same seat, key and request digest) and
answers it as a duplicate, even after a restart: the key and digest are logged with the
decision (``server.stores.contract.StoredAction``). Only the state version after each decision
is kept; a retry's events and view are made again from the events kept or rebuilt from the
log (``server.games.event_recovery``), since keeping a view per decision cost megabytes a game.
The same key with another request is refused (INVALID_ARGUMENT).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol

from protocol.envelopes import EventPb, ViewPb
from server.games.event_log import EventLog, StoredEvent
from server.games.refusal import Refusal
from server.stores.contract import StoredAction

__all__ = [
    "IDEMPOTENCY_KEYS_PER_GAME",
    "AnswerBook",
    "AnsweredGame",
    "SubmitOutcome",
    "first_answer",
    "request_digest",
]

IDEMPOTENCY_KEYS_PER_GAME = 1024


class SubmitOutcome(NamedTuple):
    """The answer to an applied decision (kept for idempotent retries)."""

    state_version: int
    events: tuple[EventPb, ...]
    view: ViewPb | None = None
    duplicate: bool = False
    restored: bool = False  # rebuilt from the log after a restart: events and view are lazy


def request_digest(fingerprint: bytes) -> str:
    """What is kept (in memory and in the log) of a request that carried an idempotency key."""
    return hashlib.sha256(fingerprint).hexdigest()[:32]


class AnswerBook:
    """The answers of one game's newest decisions, by (seat, idempotency key)."""

    def __init__(self) -> None:
        # (seat, key) -> (request digest, answer), oldest first.
        self.kept: OrderedDict[tuple[int, str], tuple[str, SubmitOutcome]] = OrderedDict()

    def __len__(self) -> int:
        return len(self.kept)

    def lookup(self, seat: int, key: str, digest: str) -> SubmitOutcome | None:
        """The answer already given to this seat's decision with ``key`` (None if there was
        none); Refusal(INVALID_ARGUMENT) if ``key`` came with another request."""
        hit = self.kept.get((seat, key))
        if hit is None:
            return None
        if hit[0] != digest:
            raise Refusal(
                "INVALID_ARGUMENT", "idempotency_key was already used with a different request"
            )
        return hit[1]

    def remember(self, seat: int, key: str, digest: str, state_version: int) -> None:
        """Keep the answer to a decision just applied (only its version: see the module doc)."""
        self.kept[(seat, key)] = (digest, SubmitOutcome(state_version, (), restored=True))
        while len(self.kept) > IDEMPOTENCY_KEYS_PER_GAME:
            self.kept.popitem(last=False)

    def restore(self, log: Iterable[StoredAction]) -> None:
        """Recognise retries of the newest logged decisions (a game rebuilt from its log)."""
        recent = [e for e in log if e.idempotency_key][-IDEMPOTENCY_KEYS_PER_GAME:]
        for e in recent:
            outcome = SubmitOutcome(e.version + 1, (), restored=True)
            self.kept[(e.seat, e.idempotency_key)] = (e.request_hash, outcome)

    def keep(self, newest: int) -> None:
        """Keep the idempotency answers of the ``newest`` decisions and of each seat's newest
        decision: a seat whose answer was lost retries its own last decision, which may be
        older than the others' last ``newest`` (they played the game out meanwhile)."""
        keys = list(self.kept)
        kept = set(keys[-newest:]) if newest > 0 else set()
        kept.update({seat: (seat, key) for seat, key in keys}.values())
        for dropped in [k for k in keys if k not in kept]:
            del self.kept[dropped]


class AnsweredGame(Protocol):
    """What making a first answer again reads of a hosted game (``server.games.game.Game``)."""


    @property
    def log(self) -> Sequence[StoredAction]: ...
    events: EventLog

    def recover_events(self, sequence: int) -> bool: ...

    def events_from(self, sequence: int) -> list[StoredEvent]: ...

    def view_at(self, viewer: int, version: int) -> ViewPb: ...


def first_answer(
    game: AnsweredGame, seat: int, answer: SubmitOutcome, include_view: bool
) -> SubmitOutcome:
    """The first answer to a decision of ``game`` whose answer kept only its version, made
    again: its events for this seat (if they are kept or can be rebuilt from the log) and, if
    asked, the view after it."""
    applied = answer.state_version - 1
    entry = next((e for e in reversed(game.log) if e.version == applied), None)
    events: tuple[EventPb, ...] = ()
    if entry is not None:
        index = applied - game.events.base_version
        first = game.events.seq_at_version[index] + 1 if index >= 0 else entry.sequence + 1
        if game.recover_events(first):
            events = tuple(
                e.for_viewer(seat) for e in game.events_from(first) if e.sequence <= entry.sequence
            )
    view = game.view_at(seat, answer.state_version) if include_view else None
    return answer._replace(events=events, view=view)
