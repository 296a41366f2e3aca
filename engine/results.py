"""The outcome of a finished game, as data."""

from __future__ import annotations

from dataclasses import dataclass

from engine.ids import Step
from engine.state import GameState


@dataclass(frozen=True, slots=True)
class Result:
    glory: tuple[int, ...]
    winners: tuple[int, ...]  # equal Glory shares the victory
    ranks: tuple[int, ...]  # 1 = best; equal Glory, equal rank


def result(state: GameState) -> Result | None:
    """The result, or None while the game goes on."""
    if state.step != Step.GAME_OVER:
        return None
    glory = tuple(c.glory for c in state.clans)
    best = max(glory)
    ranks = tuple(1 + sum(1 for g in glory if g > mine) for mine in glory)
    return Result(glory, tuple(s for s, g in enumerate(glory) if g == best), ranks)
