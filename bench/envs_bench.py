"""The learning environments against the raw engine: steps per second of PettingZoo's AEC and
Parallel environments against decisions per second of the engine driven through the rules
contract, the same random 4-player games, measured in the same run.

Both loops choose uniformly among the legal actions: the raw one indexes the rules' legal list
(``legal[randrange(len(legal))]``), the environment ones read the action mask the
observation comes with (the mask's ones found by ``ndarray.nonzero`` of the mask read as
booleans: numpy finds the ones of a boolean array three times faster than of an int8 one, and
``np.flatnonzero`` adds 2 us of Python around the same call) and so pay for everything a learner
gets at each step: the observation tensor, the mask, the agent bookkeeping (a fourth kind,
the AEC loop with a tensor made beforehand, says how much of a step the tensor is). A Parallel step
moves every seat whose decision is awaited (several during the secret choices) and observes
all of them, so it is counted per decision, like the others. Rates are per second of this
process's CPU time (wall time on a shared machine measures the other work too); the kinds
alternate in rounds, and the figure is the ratio of the medians (target: the AEC environment
costs at most twice the raw engine per decision).
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine import registry
from envs.aec import GameEnv, env
from envs.parallel import ParallelGameEnv, parallel_env

PLAYERS = 4


def _raw(game: str, seed: int) -> int:
    rules = registry.rules(game)
    state = rules.new_game(rules.options(PLAYERS, seed, {}))
    rng = random.Random(seed)
    decisions = 0
    while True:
        waiting = rules.awaiting(state)
        if not waiting:
            return decisions
        seat = waiting[0]
        legal = rules.legal_actions(state, seat)
        rules.apply_unchecked(state, seat, legal[rng.randrange(len(legal))])
        decisions += 1


@functools.cache
def _aec_env(game: str) -> GameEnv:
    return env(game, PLAYERS)


class _NoTensorEnv(GameEnv):
    """The AEC environment with every observation tensor replaced by one made beforehand
    (the mask is still computed): what a step costs besides encoding the observation."""

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        seat = self._s.seat_of[agent]
        return {"observation": self._blank, "action_mask": self.table.mask(seat)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed, options)
        self._blank = np.zeros(self.table.layout.size, np.float32)


@functools.cache
def _no_tensor_env(game: str) -> _NoTensorEnv:
    return _NoTensorEnv(game, PLAYERS)


@functools.cache
def _parallel_env(game: str) -> ParallelGameEnv:
    return parallel_env(game, PLAYERS)


def _aec(game: str, seed: int) -> int:
    return _aec_loop(_aec_env(game), seed)  # made once, reset for every game, as training does


def _aec_no_tensor(game: str, seed: int) -> int:
    return _aec_loop(_no_tensor_env(game), seed)


def _aec_loop(e: GameEnv, seed: int) -> int:
    e.reset(seed=seed)
    rng = random.Random(seed)
    for _agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        legal = obs["action_mask"].view(np.bool_).nonzero()[0]
        e.step(int(legal[rng.randrange(len(legal))]))
    return e.table.decisions


def _parallel(game: str, seed: int) -> int:
    e = _parallel_env(game)
    observations, _ = e.reset(seed=seed)
    rng = random.Random(seed)
    while e.agents:
        actions = {}
        for agent, obs in observations.items():
            legal = obs["action_mask"].view(np.bool_).nonzero()[0]
            actions[agent] = int(legal[rng.randrange(len(legal))])
        observations, *_ = e.step(actions)
    return e.table.decisions


KINDS: dict[str, Callable[[str, int], int]] = {
    "raw": _raw,
    "aec": _aec,
    "aec_no_tensor": _aec_no_tensor,
    "parallel": _parallel,
}


@dataclass
class EnvsBench:
    game: str
    games: int
    rounds: int
    per_s: dict[str, list[float]] = field(default_factory=dict)  # decisions/s per round

    def median(self, kind: str) -> float:
        return statistics.median(self.per_s[kind])

    def cost(self, kind: str) -> float:
        """Time per decision of ``kind`` over the raw engine's."""
        return self.median("raw") / self.median(kind)

    def share(self, kind: str) -> float:
        """What the AEC step spends on the part ``kind`` leaves out, as a fraction of it."""
        return 1.0 - self.median("aec") / self.median(kind)

    def rows(self) -> list[tuple[str, str, str]]:
        return [
            (
                "raw engine decisions / CPU s",
                f"{self.median('raw'):,.0f}",
                f"{self.game}, {PLAYERS}p random games, through the rules contract",
            ),
            (
                "AEC env steps / CPU s",
                f"{self.median('aec'):,.0f}",
                f"costs {self.cost('aec'):.2f}x the raw engine per decision (target <= 2x)",
            ),
            (
                "  the same without the tensor",
                f"{self.median('aec_no_tensor'):,.0f}",
                f"costs {self.cost('aec_no_tensor'):.2f}x: the observation tensor is "
                f"{self.share('aec_no_tensor'):.0%} of an AEC step",
            ),
            (
                "Parallel env decisions / CPU s",
                f"{self.median('parallel'):,.0f}",
                f"costs {self.cost('parallel'):.2f}x (every seat observed at every step)",
            ),
        ]


def run(games: int = 20, rounds: int = 3, game: str = registry.DEFAULT) -> EnvsBench:
    """``rounds`` rounds of ``games`` seeds; each seed is played by every kind in turn (the
    order rotating), so the kinds share the machine's ups and downs game by game."""
    out = EnvsBench(game, games, rounds, {kind: [] for kind in KINDS})
    order = list(KINDS)
    for r in range(rounds):
        decisions = dict.fromkeys(KINDS, 0)
        seconds = dict.fromkeys(KINDS, 0.0)
        for seed in range(games):
            turn = (r * games + seed) % len(order)
            for kind in order[turn:] + order[:turn]:
                started = time.process_time()
                decisions[kind] += KINDS[kind](game, 1000 * r + seed)
                seconds[kind] += time.process_time() - started
        for kind in KINDS:
            out.per_s[kind].append(decisions[kind] / seconds[kind])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.envs_bench", description=__doc__)
    parser.add_argument("--games", type=int, default=20, help="games per kind per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game", default=registry.DEFAULT)
    args = parser.parse_args(argv)
    result = run(args.games, args.rounds, args.game)
    for name, value, note in result.rows():
        print(f"  {name:<40} {value:>12}   {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
