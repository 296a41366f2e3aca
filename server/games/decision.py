"""One decision, worked out on a copy of the game's state before anything is logged: what the
rules make of it, the API events it publishes, the result if it ends the game, and what the
host must know to install it (who is awaited next, whether a simultaneous round goes on,
whether a phase ended, the state's hash for the log).

All of it is a pure function of the decision and the state it was taken in, so a restarted
server that replays the log (``server.games.event_recovery``) rebuilds exactly the events the
live game published (``server.games.game.Game``), and the hosted game's own path reads
top-down: check (``decision_checks``), work out (here), log (the store), install and publish.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from engine.core.contract import SPECTATOR, Action, Event, Rules, State
from protocol import envelopes
from protocol.envelopes import GameResultPb
from protocol.wire import ConvertedEvent, Wire
from server.games.record import Status

__all__ = ["WorkedOut", "decision_events", "simultaneous_step", "step_goes_on", "work_out"]


class WorkedOut(NamedTuple):
    """What one checked decision does, before it is logged."""

    state: State  # the state after it (installed once the log has the decision)
    events: list[ConvertedEvent]  # the API events it publishes, in order
    result: GameResultPb | None  # the result, if it ended the game
    facts: Any  # the wire's public facts after it (the next decision's events compare them)
    awaiting: list[int]  # the seats awaited after it
    round_goes_on: bool  # taken in a simultaneous round that still waits (step_goes_on)
    phase_changed: bool  # the game moved on to its next phase (a snapshot is due)
    state_hash: str  # the state's hash after it ("" unless asked: only durable logs keep it)


def work_out(
    wire: Wire,
    state: State,
    facts: Any,
    seat: int,
    action: Action,
    by_timeout: bool,
    names: Sequence[str],
    *,
    hashed: bool,
) -> WorkedOut:
    """Apply ``action`` (taken from ``seat``'s legal list of ``state``) to a copy and work out
    everything it does; ``facts`` are the wire's public facts of ``state``. ``state`` itself
    is not changed."""
    rules = wire.rules
    new = state.copy()
    new.events = []
    # The caller took ``action`` from the seat's legal list under the game's lock, so the
    # rules' unchecked path applies it (the checked one would list it again).
    rules.apply_unchecked(new, seat, action)
    raw = new.events
    new.events = None
    events, result, after = decision_events(wire, raw, facts, new, seat, by_timeout, names)
    return WorkedOut(
        new,
        events,
        result,
        after,
        rules.awaiting(new),
        step_goes_on(rules, simultaneous_step(rules, state), new),
        rules.phase(new) != rules.phase(state),
        new.state_hash() if hashed else "",
    )


def decision_events(
    wire: Wire,
    raw: Sequence[Event] | None,
    before: Any,
    new: State,
    seat: int,
    by_timeout: bool,
    names: Sequence[str],
) -> tuple[list[ConvertedEvent], GameResultPb | None, Any]:
    """A decision's API events, the result if it ended the game, and the public facts after
    it (``before`` is those before it; ``names`` the seats' names, for the result)."""
    rules = wire.rules
    finished = rules.result(new)
    after = wire.public_facts(new)
    # The last decision also needs the whole spectator view (end-game bonuses, result).
    final = rules.view(new, SPECTATOR) if finished is not None else None
    first = [envelopes.timed_out_event(seat)] if by_timeout else []
    events = [*first, *wire.convert_events(raw or (), before, after, by_timeout, final)]
    result_pb = None
    if finished is not None:
        assert final is not None
        result_pb = envelopes.result_to_pb(wire, finished, names, final)
        events.append(envelopes.status_changed_event(Status.FINISHED))
        events.append(envelopes.game_ended_event(result_pb))
    return events, result_pb, after


def simultaneous_step(rules: Rules, state: State) -> tuple[int, frozenset[int]] | None:
    """The simultaneous step ``state`` is in (its phase, ``Rules.phase``) and the seats it
    awaits (None outside one)."""
    if not rules.is_simultaneous(state):
        return None
    return rules.phase(state), frozenset(rules.awaiting(state))


def step_goes_on(rules: Rules, before: tuple[int, frozenset[int]] | None, after: State) -> bool:
    """Whether a decision taken in the simultaneous step ``before`` (``simultaneous_step`` of
    the state it was taken in) left the game in that same step: the same step, awaiting no
    seat it did not await already (the decider may still be awaited: a 2-player draft round
    takes two picks of each seat). While it goes on, a seat's choices are what they were when
    the step began or when the seat last chose in it: the others choose in secret."""
    now = simultaneous_step(rules, after)
    return before is not None and now is not None and now[0] == before[0] and now[1] <= before[1]
