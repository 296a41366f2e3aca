"""``make strength --clock cpu``: every searching bot counts its budget in its own CPU time.

On a crowded machine a wall-clock budget gives a searching bot whatever CPU the others leave
it, while the heuristic bots it is measured against need none; counting CPU time keeps the
work per decision what a quiet machine gives. Both the tested bot and its searching
opponents must count the same clock, or the same-budget matchup is not the same budget.
"""

from __future__ import annotations

import time

import pytest

from bench import strength
from clients.blood_rage.bots.ismcts import IsmctsBot


@pytest.mark.parametrize("kind", ["ismcts", "duct"])
@pytest.mark.parametrize(
    ("clock", "expected"), [("wall", time.perf_counter), ("cpu", time.thread_time)]
)
def test_searching_bots_count_the_chosen_clock(kind: str, clock: str, expected: object) -> None:
    bot = strength._make(kind, 0.05, clock=clock)
    assert isinstance(bot, IsmctsBot)  # DuctBot is one too
    assert bot.clock is expected


def test_the_clock_reaches_every_seat_of_a_game() -> None:
    job: strength.Job = ("duct", "ismcts", 0.001, 0, 1, {"max_iterations": 1}, "cpu")
    made: list[object] = []
    real = strength._make

    def spy(*args: object, **kwargs: object) -> object:
        bot = real(*args, **kwargs)  # type: ignore[arg-type]
        made.append(getattr(bot, "clock", None))
        return bot

    strength._make = spy  # type: ignore[assignment]
    try:
        strength._play(job)
    finally:
        strength._make = real  # type: ignore[assignment]
    assert made == [time.thread_time] * 5
