"""What a seat is paid at the end of a game: the reward schemes every environment offers.

Rewards come once, when the game ends (every step before pays 0). Three schemes:

* ``win`` (default): 1 for first place, shared by a tie — a k-way tie for first pays 1/k to
  each (Blood Rage has no tie-breaker: tied clans share the victory); the seats' rewards add
  up to 1.
* ``rank``: from 1 for first place down to 0 for last, evenly spaced,
  ``(players - rank) / (players - 1)``; tied seats share the better rank (competition ranks:
  1, 1, 3 …).
* ``score``: the seat's score (Blood Rage: Glory) minus the mean score of the other seats;
  the seats' rewards add up to 0.
"""

from __future__ import annotations

from engine.core.contract import Result

__all__ = ["SCHEMES", "bounds", "final_rewards"]

SCHEMES: tuple[str, ...] = ("win", "rank", "score")


def check(scheme: str) -> str:
    """``scheme`` if it is one of :data:`SCHEMES` (``ValueError`` naming them if not)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown reward {scheme!r}; one of {', '.join(SCHEMES)}")
    return scheme


def final_rewards(result: Result, scheme: str) -> list[float]:
    """Every seat's reward for a finished game, in seat order."""
    players = len(result.scores)
    if scheme == "win":
        share = 1.0 / len(result.winners)
        return [share if seat in result.winners else 0.0 for seat in range(players)]
    if scheme == "rank":
        return [(players - rank) / (players - 1) for rank in result.ranks]
    if scheme == "score":
        total = sum(result.scores)
        return [float(score) - (total - score) / (players - 1) for score in result.scores]
    raise ValueError(f"unknown reward {scheme!r}; one of {', '.join(SCHEMES)}")


def bounds(scheme: str, max_score: int) -> tuple[float, float]:
    """The least and the most one seat can be paid (``max_score`` bounds a score's size)."""
    if scheme == "score":
        return -2.0 * max_score, 2.0 * max_score
    check(scheme)
    return 0.0, 1.0
