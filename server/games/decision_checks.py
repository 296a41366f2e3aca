"""Whether a seat's decision may apply to a game now, and why not: the checks a decision
passes, under the game's lock, before anything is logged.

The order of the checks is part of the API (``tests/api/test_api_refusal_order.py``): a
game not in progress, then a stale state version, then a seat that is not awaited (each a
FAILED_PRECONDITION with a :class:`~server.games.refusal.Mismatch`), then an index out of range or
an action that is not legal (INVALID_ARGUMENT, with the engine's explanation). A refusal
changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.blood_rage import flow
from engine.blood_rage.actions import Action
from engine.blood_rage.state import GameState
from engine.blood_rage.view import SPECTATOR
from engine.core.errors import EngineError
from server import convert
from server.games.record import Status
from server.games.refusal import NOT_AWAITED, NOT_IN_PROGRESS, STALE_VERSION, Mismatch, Refusal

if TYPE_CHECKING:
    from server.games.game import Game

__all__ = ["checked_action", "refusal_outcome", "simultaneous_step", "step_goes_on"]

# The outcome label a refused decision is counted under (yggdrasil_actions_total).
_OUTCOMES = {STALE_VERSION: "stale", NOT_AWAITED: "not_awaited", NOT_IN_PROGRESS: "not_in_progress"}


def checked_action(
    game: Game, seat: int, action: Action | None, legal_index: int | None, submitted: int
) -> Action:
    """The action ``seat`` decides (``action``, or the one at ``legal_index`` in its legal
    list) once checked against the current state of ``game`` for a request made at state
    version ``submitted``; Refusal if it cannot apply."""
    _refuse_if_cannot_decide(game, seat, submitted)
    legal = flow.legal_actions(game.state, seat)
    if action is None:
        index = -1 if legal_index is None else legal_index
        if not 0 <= index < len(legal):
            raise Refusal(
                "INVALID_ARGUMENT",
                f"legal_index {index} is out of range: {len(legal)} legal action(s) now",
            )
        return legal[index]
    if action not in legal:
        raise Refusal("INVALID_ARGUMENT", _why_illegal(game.state, seat, action))
    return action


def simultaneous_step(state: GameState) -> tuple[int, frozenset[int]] | None:
    """The simultaneous step ``state`` is in and the seats it awaits (None outside one)."""
    if not flow.is_simultaneous(state):
        return None
    return int(state.step), frozenset(flow.awaiting(state))


def step_goes_on(before: tuple[int, frozenset[int]] | None, after: GameState) -> bool:
    """Whether a decision taken in the simultaneous step ``before`` (``simultaneous_step`` of
    the state it was taken in) left the game in that same step: the same step, awaiting no
    seat it did not await already (the decider may still be awaited: a 2-player draft round
    takes two picks of each seat). While it goes on, a seat's choices are what they were when
    the step began or when the seat last chose in it: the others choose in secret."""
    now = simultaneous_step(after)
    return before is not None and now is not None and now[0] == before[0] and now[1] <= before[1]


def refusal_outcome(refusal: Refusal) -> str:
    """How a refused decision is counted: its mismatch's reason, else ``rejected``."""
    return _OUTCOMES.get(refusal.mismatch.reason if refusal.mismatch else 0, "rejected")


def _refuse_if_cannot_decide(game: Game, seat: int, submitted: int) -> None:
    state = game.state
    if game.status != Status.IN_PROGRESS:
        raise Refusal(
            "FAILED_PRECONDITION",
            f"the game is {game.status.name.lower().replace('_', ' ')}",
            _mismatch(game, NOT_IN_PROGRESS, submitted),
        )
    waiting = flow.awaiting(state)
    if submitted != state.version and not (
        flow.is_simultaneous(state)
        and seat in waiting
        and game.decision_start(seat) <= submitted < state.version
    ):
        raise Refusal(
            "FAILED_PRECONDITION",
            f"state_version {submitted} is stale; the game is at version {state.version}",
            _mismatch(game, STALE_VERSION, submitted),
        )
    if seat not in waiting:
        raise Refusal(
            "FAILED_PRECONDITION",
            f"seat {seat} has no decision to take now; waiting for seat(s) {waiting}",
            _mismatch(game, NOT_AWAITED, submitted),
        )


def _mismatch(game: Game, reason: int, submitted: int) -> Mismatch:
    """The refusal's detail; who is awaited is read off the view, so that a refusal and
    a view of the same state list the same seats in the same order."""
    now = game.view(SPECTATOR)
    return Mismatch(
        reason,
        submitted,
        game.state.version,
        game.last_sequence,
        tuple(now.awaiting_seats),
        tuple(now.committed_seats),
    )


def _why_illegal(state: GameState, seat: int, action: Action) -> str:
    """The engine's explanation, obtained on a copy so nothing can change."""
    probe = state.copy()
    try:
        flow.apply(probe, seat, action)
    except EngineError as exc:
        return str(exc)
    return f"{convert.action_label(action)} is not a legal choice now"
