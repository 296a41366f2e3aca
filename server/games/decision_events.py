"""What one decision publishes: the API events of an applied decision and, if it ended the
game, its result.

A pure function of the decision (the engine's raw events and the public facts before and
after it), so that a restarted server that replays the log (``server.games.event_recovery``)
rebuilds exactly the events the live game published (``server.games.game.Game``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.blood_rage.results import result as engine_result
from engine.blood_rage.state import GameState
from engine.blood_rage.view import SPECTATOR
from engine.blood_rage.view import view as engine_view
from server import convert_events, convert_views
from server.convert import GameResultPb
from server.convert_events import ConvertedEvent
from server.games.record import Status

__all__ = ["decision_events"]


def decision_events(
    raw: Sequence[tuple[int, dict[str, Any]]] | None,
    before: convert_events.PublicFacts,
    new: GameState,
    seat: int,
    by_timeout: bool,
    names: Sequence[str],
) -> tuple[list[ConvertedEvent], GameResultPb | None, convert_events.PublicFacts]:
    """A decision's API events, the result if it ended the game, and the public facts after
    it (``before`` is those before it; ``names`` the seats' names, for the result)."""
    finished = engine_result(new)
    after = convert_events.public_facts(new)
    # The last decision also needs the whole spectator view (end-game bonuses, result).
    final = engine_view(new, SPECTATOR) if finished is not None else None
    first = [convert_events.timed_out_event(seat)] if by_timeout else []
    events = [*first, *convert_events.convert_events(raw or (), before, after, by_timeout, final)]
    result_pb = None
    if finished is not None:
        assert final is not None
        result_pb = convert_views.result_to_pb(finished, names, final)
        events.append(convert_events.status_changed_event(Status.FINISHED))
        events.append(convert_events.game_ended_event(result_pb))
    return events, result_pb, after
