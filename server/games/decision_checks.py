"""Whether a seat's decision may apply to a game now, and why not: the checks a decision
passes, under the game's lock, before anything is logged.

The order of the checks is part of the API (``tests/api/test_api_refusal_order.py``): a
game not in progress, then a stale state version, then a seat that is not awaited (each a
FAILED_PRECONDITION with a :class:`~server.games.refusal.Mismatch`), then an index out of range or
an action that is not legal (INVALID_ARGUMENT, with the engine's explanation). A refusal
changes nothing.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.core.contract import SPECTATOR, Action, Rules, State
from engine.core.errors import EngineError
from protocol.envelopes import awaiting_and_committed
from server.games.record import Status
from server.games.refusal import NOT_AWAITED, NOT_IN_PROGRESS, STALE_VERSION, Mismatch, Refusal

__all__ = ["Position", "checked_action", "refusal_outcome"]

# The outcome label a refused decision is counted under (yggdrasil_actions_total).
_OUTCOMES = {STALE_VERSION: "stale", NOT_AWAITED: "not_awaited", NOT_IN_PROGRESS: "not_in_progress"}


class Position(NamedTuple):
    """What a decision is checked against: a game's rules, its state, its status, its newest
    event, and the version at which the deciding seat's decision began
    (``Game.decision_start``)."""

    rules: Rules
    state: State
    status: Status
    last_sequence: int
    decision_start: int


def checked_action(
    position: Position,
    seat: int,
    action: Action | None,
    legal_index: int | None,
    submitted: int,
) -> Action:
    """The action ``seat`` decides (``action``, or the one at ``legal_index`` in its legal
    list) once checked against ``position`` for a request made at state version
    ``submitted``; Refusal if it cannot apply."""
    _refuse_if_cannot_decide(position, seat, submitted)
    rules = position.rules
    legal = rules.legal_actions(position.state, seat)
    if action is None:
        index = -1 if legal_index is None else legal_index
        if not 0 <= index < len(legal):
            raise Refusal(
                "INVALID_ARGUMENT",
                f"legal_index {index} is out of range: {len(legal)} legal action(s) now",
            )
        return legal[index]
    if action not in legal:
        raise Refusal("INVALID_ARGUMENT", _why_illegal(rules, position.state, seat, action))
    return action


def refusal_outcome(refusal: Refusal) -> str:
    """How a refused decision is counted: its mismatch's reason, else ``rejected``."""
    return _OUTCOMES.get(refusal.mismatch.reason if refusal.mismatch else 0, "rejected")


def _refuse_if_cannot_decide(position: Position, seat: int, submitted: int) -> None:
    rules, state, status = position.rules, position.state, position.status
    if status != Status.IN_PROGRESS:
        raise Refusal(
            "FAILED_PRECONDITION",
            f"the game is {status.name.lower().replace('_', ' ')}",
            _mismatch(position, NOT_IN_PROGRESS, submitted),
        )
    waiting = rules.awaiting(state)
    if submitted != state.version and not (
        rules.is_simultaneous(state)
        and seat in waiting
        and position.decision_start <= submitted < state.version
    ):
        raise Refusal(
            "FAILED_PRECONDITION",
            f"state_version {submitted} is stale; the game is at version {state.version}",
            _mismatch(position, STALE_VERSION, submitted),
        )
    if seat not in waiting:
        raise Refusal(
            "FAILED_PRECONDITION",
            f"seat {seat} has no decision to take now; waiting for seat(s) {waiting}",
            _mismatch(position, NOT_AWAITED, submitted),
        )


def _mismatch(position: Position, reason: int, submitted: int) -> Mismatch:
    """The refusal's detail; who is awaited is read off the spectator's view as a View shows
    it, so that a refusal and a view of the same state list the same seats in the same
    order."""
    awaiting, committed = awaiting_and_committed(position.rules.view(position.state, SPECTATOR))
    return Mismatch(
        reason,
        submitted,
        position.state.version,
        position.last_sequence,
        awaiting,
        committed,
    )


def _why_illegal(rules: Rules, state: State, seat: int, action: Action) -> str:
    """The rules' explanation, obtained on a copy so nothing can change."""
    probe = state.copy()
    try:
        rules.apply(probe, seat, action)
    except EngineError as exc:
        return str(exc)
    return f"{rules.describe(action)} is not a legal choice now"
