"""Events a game no longer keeps, rebuilt from its action log for a watcher that asks for them.

A restarted game keeps no events in memory, and a game that is over drops those it published
(``server.games.compact``). They are a deterministic function of the log, so they are rebuilt here
(from the seats' claims and a replay of the log with the engine's events on) the first time a
watcher asks for them, and put back in front of the events the game keeps
(``server.games.event_log.EventLog``). Each decision's rebuilt events must number exactly what its
log entry recorded, or nothing is added (the watcher then gets a resync).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from structlog.typing import FilteringBoundLogger

from engine.core.contract import State
from protocol import envelopes
from protocol.wire import Wire
from server.games.decision import decision_events
from server.games.event_log import EventLog, StoredEvent, numbered
from server.games.record import Status
from server.stores.contract import AbortRecord, StoredAction

__all__ = ["LoggedGame", "recover_events"]


class LoggedGame(Protocol):
    """What recovering events reads of a hosted game (``server.games.game.Game``)."""

    id: str
    wire: Wire
    events: EventLog

    @property
    def log(self) -> Sequence[StoredAction]: ...
    names: list[str]
    state: State
    aborted: AbortRecord | None
    logger: FilteringBoundLogger

    def state_at(self, version: int) -> State: ...


def recover_events(game: LoggedGame, sequence: int) -> bool:
    """Make ``game``'s events from ``sequence`` on available again, if they can be; returns
    whether ``sequence`` is now kept."""
    events = game.events
    floor = events.first_kept_sequence
    if sequence >= floor:
        return True
    if sequence < 1 or floor > events.restored_sequence + 1 or events.unrebuildable:
        return False  # nothing published before the restart is missing (or cap trimmed)
    claims = max(
        (q for q in events.claim_sequences.values() if q <= events.restored_sequence), default=0
    )
    log = game.log
    # Whole decisions: those whose events end below `floor`, from the one holding
    # `sequence` (or from the first one, if the claims are wanted too).
    end = 0
    while end < len(log) and log[end].sequence < floor:
        end += 1
    start = end
    while start > 0 and log[start - 1].sequence >= sequence:
        start -= 1
    rebuilt: list[StoredEvent] = []
    if sequence <= claims:
        start = 0
        if claims < floor:
            made = _claim_events(events, game.names, game.state.players)
            if made is None:
                events.unrebuildable = True
                return False
            rebuilt.extend(made)
    if start < end:
        state = game.state_at(log[start].version)
        wire = game.wire
        rules = wire.rules
        before = wire.public_facts(state)
        previous = log[start - 1].sequence if start > 0 else claims
        for entry in log[start:end]:
            state.events = []
            rules.apply_unchecked(state, entry.seat, rules.action_from_code(entry.code))
            raw = state.events
            state.events = None
            converted, _, before = decision_events(
                wire, raw, before, state, entry.seat, entry.by_timeout, game.names
            )
            if len(converted) != entry.sequence - previous:
                events.unrebuildable = True  # do not replay again for the next watcher
                game.logger.warning(
                    "events_not_rebuilt",
                    game_id=game.id,
                    version=entry.version,
                    expected=entry.sequence - previous,
                    rebuilt=len(converted),
                )
                return False
            rebuilt.extend(numbered(converted, state.version, previous + 1))
            previous = entry.sequence
    aborted = game.aborted
    if aborted is not None and end == len(log) and aborted.sequence < floor:
        previous = log[-1].sequence if log else claims
        closing = [
            envelopes.status_changed_event(Status.ABORTED),
            envelopes.game_aborted_event(aborted.cause, aborted.reason),
        ]
        if len(closing) != aborted.sequence - previous:
            events.unrebuildable = True
            return False
        rebuilt.extend(numbered(closing, game.state.version, previous + 1))
    if not rebuilt or not events.prepend(rebuilt):
        return False
    return sequence >= events.first_kept_sequence


def _claim_events(events: EventLog, names: list[str], players: int) -> list[StoredEvent] | None:
    """The claims' events as published before the restart (None if they do not match
    the recorded sequence numbers)."""
    out: list[StoredEvent] = []
    previous = 0
    order = sorted(
        ((s, q) for s, q in events.claim_sequences.items() if q <= events.restored_sequence),
        key=lambda sq: sq[1],
    )
    complete = len(order) == players
    for i, (seat, sequence) in enumerate(order):
        claimed = [envelopes.seat_claimed_event(seat, names[seat])]
        if complete and i == len(order) - 1:
            claimed.append(envelopes.status_changed_event(Status.IN_PROGRESS))
        if len(claimed) != sequence - previous:
            return None
        out.extend(numbered(claimed, events.base_version, previous + 1))
        previous = sequence
    return out
