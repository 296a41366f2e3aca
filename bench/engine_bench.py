"""Engine benchmarks: random 4-player games per second, decisions per second, clone cost.

Every number comes with a baseline measured in the same run, so results from different
machines can be compared as ratios: games and decisions against a calibration loop of plain
Python work, the hand-written ``GameState.copy`` against ``copy.deepcopy``.
"""

from __future__ import annotations

import copy
import random
import time
from dataclasses import dataclass

from engine.blood_rage import Action, awaiting, legal_actions, new_game
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import Step
from engine.blood_rage.state import GameState


@dataclass
class EngineBench:
    games: int
    games_per_s: float
    decisions_per_s: float
    calibration_ops_per_s: float
    clone_us: float
    deepcopy_us: float
    replay_decisions_per_s: float

    def rows(self) -> list[tuple[str, str, str]]:
        return [
            ("random 4p games / s (1 core)", f"{self.games_per_s:,.1f}", "target >= 100"),
            (
                "decisions / s",
                f"{self.decisions_per_s:,.0f}",
                f"{self.decisions_per_s / self.calibration_ops_per_s * 1e3:.2f} per 1k calib ops",
            ),
            (
                "replay (apply only) decisions / s",
                f"{self.replay_decisions_per_s:,.0f}",
                f"{self.replay_decisions_per_s / self.decisions_per_s:.2f}x random play",
            ),
            (
                "state clone (copy) us",
                f"{self.clone_us:.1f}",
                f"deepcopy {self.deepcopy_us:.1f} us"
                f" = {self.deepcopy_us / self.clone_us:.1f}x slower",
            ),
        ]


def _calibrate(seconds: float = 0.3) -> float:
    """Plain-Python work per second: dict/list operations like the engine's."""
    ops = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        d: dict[int, list[int]] = {}
        for i in range(1000):
            d.setdefault(i & 15, []).append(i)
        ops += 1000
    return ops / (time.perf_counter() - started)


def _play(seed: int) -> tuple[GameState, list[tuple[int, Action]]]:
    rng = random.Random(seed)
    state = new_game(4, seed)
    log = []
    while state.step != Step.GAME_OVER:
        seat = awaiting(state)[0]
        actions = legal_actions(state, seat)
        action = actions[rng.randrange(len(actions))]
        apply_unchecked(state, seat, action)
        log.append((seat, action))
    return state, log


def run(games: int = 200) -> EngineBench:
    calibration = _calibrate()
    decisions = 0
    logs = []
    started = time.perf_counter()
    for seed in range(games):
        _, log = _play(seed)
        decisions += len(log)
        logs.append(log)
    elapsed = time.perf_counter() - started
    started = time.perf_counter()
    for seed, log in enumerate(logs):
        state = new_game(4, seed)
        for seat, action in log:
            apply_unchecked(state, seat, action)
    replay_elapsed = time.perf_counter() - started
    # A mid-game state (Age 2 action phase or so) to clone.
    state = new_game(4, 1)
    for seat, action in logs[1][: len(logs[1]) // 2]:
        apply_unchecked(state, seat, action)
    reps = 2000
    started = time.perf_counter()
    for _ in range(reps):
        state.copy()
    clone = (time.perf_counter() - started) / reps
    started = time.perf_counter()
    for _ in range(reps // 10):
        copy.deepcopy(state)
    deep = (time.perf_counter() - started) / (reps // 10)
    return EngineBench(
        games=games,
        games_per_s=games / elapsed,
        decisions_per_s=decisions / elapsed,
        calibration_ops_per_s=calibration,
        clone_us=clone * 1e6,
        deepcopy_us=deep * 1e6,
        replay_decisions_per_s=decisions / replay_elapsed,
    )
