"""``make strength``: how strong the bots are, from in-process games (engine only, no server).

Four matchups of 4-player games, the tested bot's seat rotating over the four seats:

- ``HeuristicBot`` against three ``RandomBot`` (target: wins >= 80%),
- ``IsmctsBot(time_budget_s)`` against three ``HeuristicBot`` (target: wins >= 40%),
- ``DuctBot(time_budget_s)`` against three ``HeuristicBot`` (target: wins >= 60%, and the
  95% interval's lower bound above 50%),
- ``DuctBot(time_budget_s)`` against three ``IsmctsBot`` with the same time per decision
  (target: above par, more than 25% in a 4-player game).

A *win* is finishing first in Glory. Equal Glory shares the victory (blood-rage.md §10), so a
k-way tie for first counts 1/k of a win: the win rates of the four seats of a game always add
up to one game. Games run in parallel worker processes (``--workers``); every decision goes
through the seat's view (``clients.bots.arena``), exactly what the gRPC API would give.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clients.blood_rage.bots.duct import DuctBot
from clients.blood_rage.bots.heuristic import HeuristicBot
from clients.blood_rage.bots.ismcts import IsmctsBot
from clients.bots.arena import play_game
from clients.bots.base import Bot, RandomBot, View

PLAYERS = 4


class _Timed:
    """Wraps the tested bot to record its decision times (and ISMCTS iterations)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.times: list[float] = []
        self.iterations: list[int] = []

    def choose(self, view: View, rng: Any) -> int:
        t0 = time.perf_counter()
        index = self.bot.choose(view, rng)
        self.times.append(time.perf_counter() - t0)
        its = getattr(self.bot, "last_iterations", None)
        if its is not None and len(view["legal_actions"]) > 1:
            self.iterations.append(int(its))
        return index


@dataclass
class GameOutcome:
    win: float  # 1/k for a k-way tie for first, 0 otherwise
    glory: int
    others_glory: float  # mean Glory of the three opponents
    times: list[float] = field(default_factory=list)
    iterations: list[int] = field(default_factory=list)


# What a searching bot's time budget is counted in: ``wall`` (the default, what a player
# waiting for the bot sees) or ``cpu`` (its worker's own CPU time, so that a crowded machine
# gives every searching bot the same work per decision as a quiet one would).
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}


def _make(
    kind: str, budget: float, options: dict[str, Any] | None = None, clock: str = "wall"
) -> Bot:
    if kind == "random":
        return RandomBot()
    if kind == "heuristic":
        return HeuristicBot()
    if kind == "ismcts":
        return IsmctsBot(time_budget_s=budget, clock=CLOCKS[clock], **(options or {}))
    if kind == "duct":
        return DuctBot(time_budget_s=budget, clock=CLOCKS[clock], **(options or {}))
    raise ValueError(kind)


Job = tuple[str, str, float, int, int, dict[str, Any], str]


def _play(job: Job) -> GameOutcome:
    tested, opponent, budget, game, seed, options, clock = job
    seat = game % PLAYERS
    # The options are the tested bot's: opponents of the same kind play its defaults.
    bots: list[Bot] = [_make(opponent, budget, clock=clock) for _ in range(PLAYERS)]
    timed = _Timed(_make(tested, budget, options, clock))
    bots[seat] = timed
    record = play_game(bots, seed)
    win = 1.0 / len(record.winners) if seat in record.winners else 0.0
    others = [g for s, g in enumerate(record.scores) if s != seat]
    return GameOutcome(
        win, record.scores[seat], sum(others) / len(others), timed.times, timed.iterations
    )


@dataclass
class Matchup:
    label: str
    tested: str
    opponent: str
    games: int
    target: float
    seed: int
    lower_bound_above: float | None = None  # also require the interval's lower bound above
    options: dict[str, Any] = field(default_factory=dict)  # the tested bot's keyword arguments
    outcomes: list[GameOutcome] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def wins(self) -> float:
        return sum(o.win for o in self.outcomes)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (fractional wins from shared victories)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def run(matchups: list[Matchup], budget: float, workers: int, clock: str = "wall") -> None:
    """Play every matchup's games (each with its tested bot's ``options``)."""
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    with ctx.Pool(workers) as pool:
        for m in matchups:
            if m.games <= 0:
                continue
            jobs: list[Job] = [
                (m.tested, m.opponent, budget, g, m.seed + g, m.options, clock)
                for g in range(m.games)
            ]
            t0 = time.perf_counter()
            for i, outcome in enumerate(pool.imap(_play, jobs, chunksize=1), 1):
                m.outcomes.append(outcome)
                if i % 25 == 0 or i == m.games:
                    print(
                        f"  {m.label}: {i}/{m.games} games, {m.wins:.1f} wins "
                        f"({time.perf_counter() - t0:.0f} s)",
                        file=sys.stderr,
                        flush=True,
                    )
            m.seconds = time.perf_counter() - t0


def report(
    matchups: list[Matchup], budget: float, workers: int, total_s: float, clock: str = "wall"
) -> str:
    lines = [
        f"== bot strength: {PLAYERS}-player games, tested seat rotating, engine in process "
        f"({workers} workers, {total_s:.0f} s; search budgets in {clock} time) ==",
        "A win = first place in Glory; a k-way tie for first counts 1/k of a win (shared victory).",
        "",
        f"{'matchup':<36}{'games':>6}{'wins':>8}{'win rate':>10}  {'95% CI':<16}"
        f"{'mean Glory':>11}{'opp. mean':>10}  target",
    ]
    for m in matchups:
        n = len(m.outcomes)
        if n == 0:
            continue
        rate = m.wins / n
        lo, hi = wilson(m.wins, n)
        glory = statistics.fmean(o.glory for o in m.outcomes)
        opp = statistics.fmean(o.others_glory for o in m.outcomes)
        met = rate >= m.target and (m.lower_bound_above is None or lo > m.lower_bound_above)
        verdict = "met" if met else "MISSED"
        if m.lower_bound_above is not None:
            verdict = f"(low > {m.lower_bound_above:.0%}) {verdict}"
        lines.append(
            f"{m.label:<36}{n:>6}{m.wins:>8.1f}{rate:>9.1%}  "
            f"[{lo:5.1%}, {hi:5.1%}]  {glory:>10.1f}{opp:>10.1f}  "
            f">= {m.target:.0%} {verdict}"
        )
    lines.append("")
    for m in matchups:
        times = [t for o in m.outcomes for t in o.times]
        if not times:
            continue
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        line = (
            f"{m.tested} decision time: median {statistics.median(times) * 1e3:.2f} ms, "
            f"mean {statistics.fmean(times) * 1e3:.2f} ms, p95 {p95 * 1e3:.2f} ms, "
            f"max {times[-1] * 1e3:.1f} ms over {len(times)} decisions"
        )
        its = [i for o in m.outcomes for i in o.iterations]
        if its:
            line += (
                f" (budget {budget * 1e3:.0f} ms; iterations per searched decision: "
                f"median {statistics.median(its):.0f})"
            )
        lines.append(line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.strength", description=__doc__)
    parser.add_argument(
        "--games-heuristic",
        type=int,
        default=200,
        help="games of HeuristicBot vs 3 RandomBots (default 200)",
    )
    parser.add_argument(
        "--games-ismcts",
        type=int,
        default=200,
        help="games of IsmctsBot vs 3 HeuristicBots (default 200)",
    )
    parser.add_argument(
        "--games-duct",
        type=int,
        default=400,
        help="games of DuctBot vs 3 HeuristicBots (default 400)",
    )
    parser.add_argument(
        "--games-duct-ismcts",
        type=int,
        default=400,
        help="games of DuctBot vs 3 IsmctsBots, the same budget (default 400)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=0.05,
        help="IsmctsBot and DuctBot time budget per decision, seconds (default 0.05)",
    )
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="what the budget counts: wall time (default) or the worker's CPU time "
        "(for a crowded machine)",
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="first game seed (default 1)")
    parser.add_argument(
        "--ismcts-options",
        type=json.loads,
        default={},
        help="extra IsmctsBot keyword arguments as JSON, e.g. '{\"root_width\": 4}' "
        "(for experiments; default: none)",
    )
    parser.add_argument(
        "--duct-options",
        type=json.loads,
        default={},
        help="extra DuctBot keyword arguments as JSON, for the tested DuctBot only "
        "(for experiments; default: none)",
    )
    args = parser.parse_args(argv)
    matchups = [
        Matchup(
            "HeuristicBot vs 3 RandomBot",
            "heuristic",
            "random",
            args.games_heuristic,
            0.80,
            args.seed,
        ),
        Matchup(
            f"IsmctsBot({args.budget:g}s) vs 3 HeuristicBot",
            "ismcts",
            "heuristic",
            args.games_ismcts,
            0.40,
            args.seed + 100_000,
            options=args.ismcts_options,
        ),
        Matchup(
            f"DuctBot({args.budget:g}s) vs 3 HeuristicBot",
            "duct",
            "heuristic",
            args.games_duct,
            0.60,
            args.seed + 200_000,
            lower_bound_above=0.50,
            options=args.duct_options,
        ),
        Matchup(
            f"DuctBot({args.budget:g}s) vs 3 IsmctsBot({args.budget:g}s)",
            "duct",
            "ismcts",
            args.games_duct_ismcts,
            0.25,
            args.seed + 300_000,
            options=args.duct_options,
        ),
    ]
    t0 = time.perf_counter()
    run(matchups, args.budget, max(1, args.workers), args.clock)
    print(report(matchups, args.budget, max(1, args.workers), time.perf_counter() - t0, args.clock))
    return 0


if __name__ == "__main__":
    sys.exit(main())
