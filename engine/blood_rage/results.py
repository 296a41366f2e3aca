"""The outcome of a finished game (blood-rage.md §10): Glory decides, and equal Glory shares the
place — Blood Rage has no tie-breaker, so tied clans share the victory."""

from __future__ import annotations

from engine.blood_rage.ids import Step
from engine.blood_rage.state import GameState
from engine.core.contract import Result, ranks_of

__all__ = ["Result", "result"]


def result(state: GameState) -> Result | None:
    """The result (scores are Glory), or None while the game goes on."""
    if state.step != Step.GAME_OVER:
        return None
    glory = tuple(c.glory for c in state.clans)
    ranks = ranks_of(glory)
    return Result(glory, tuple(s for s, r in enumerate(ranks) if r == 1), ranks)
