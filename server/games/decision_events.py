"""What one decision publishes: the API events of an applied decision and, if it ended the
game, its result.

A pure function of the decision (the rules' raw events and the public facts before and after
it), so that a restarted server that replays the log (``server.games.event_recovery``)
rebuilds exactly the events the live game published (``server.games.game.Game``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core.contract import SPECTATOR, Event, State
from protocol import envelopes
from protocol.envelopes import GameResultPb
from protocol.wire import ConvertedEvent, Wire
from server.games.record import Status

__all__ = ["decision_events"]


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
