"""The compiled engine against the interpreted one: complete random 4-player games per second
of each, measured in the same run.

The two cannot share a process (the compiled modules replace the sources under the same
names), so two worker processes run ``bench.random_games --serve``, one interpreted, one with
the mypyc build (``scripts/accel.py``, which fails if the build is missing or stale), and
play the same batches of games in turn, batch after batch. Games per second are per CPU second
of each worker, and the figure is the ratio of the totals: load from other processes weighs
on both alike, batch by batch. ``make bench`` builds the compiled engine first (make accel).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class AccelBench:
    games: int
    rounds: int
    # games per CPU second per round, by (driver, compiled)
    per_s: dict[tuple[str, bool], list[float]] = field(default_factory=dict)

    def median(self, driver: str, compiled: bool) -> float:
        return statistics.median(self.per_s[driver, compiled])

    def ratio(self, driver: str = "engine") -> float:
        return self.median(driver, True) / self.median(driver, False)

    def rows(self) -> list[tuple[str, str, str]]:
        return [
            (
                "random 4p games / CPU s, interpreted",
                f"{self.median('engine', False):,.1f}",
                f"the whole game in the engine (playout.play_random), {self.rounds}x{self.games}",
            ),
            (
                "random 4p games / CPU s, compiled",
                f"{self.median('engine', True):,.1f}",
                f"{self.ratio('engine'):.2f}x interpreted (target >= 4x)",
            ),
            (
                "  the same, bench's Python loop",
                f"{self.median('bench', True):,.1f}",
                f"{self.ratio('bench'):.2f}x its interpreted "
                f"{self.median('bench', False):,.1f} (engine_bench's driver, random.Random)",
            ),
        ]


class _Worker:
    """A ``bench.random_games --serve`` process."""

    def __init__(self, compiled: bool) -> None:
        prefix = [sys.executable, "scripts/accel.py", "-m"] if compiled else [sys.executable, "-m"]
        self.compiled = compiled
        self.proc = subprocess.Popen(
            [*prefix, "bench.random_games", "--serve"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def play(self, games: int, first_seed: int, driver: str) -> tuple[float, float]:
        """(games, CPU seconds) of one batch."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{games} {first_seed} {driver}\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                build = "compiled" if self.compiled else "interpreted"
                raise RuntimeError(f"the {build} bench.random_games worker died")
            if line.startswith("{"):
                answer = json.loads(line)
                return float(answer["games"]), float(answer["cpu_seconds"])

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def run(games: int = 100, rounds: int = 3, batch: int = 10) -> AccelBench:
    """``rounds`` rounds of ``games`` games per build and driver, in batches of ``batch``."""
    out = AccelBench(games, rounds)
    workers = {False: _Worker(False), True: _Worker(True)}
    try:
        for r in range(rounds):
            for driver in ("engine", "bench"):
                played = {False: 0.0, True: 0.0}
                cpu = {False: 0.0, True: 0.0}
                for first in range(0, games, batch):
                    size = min(batch, games - first)
                    for compiled in (first // batch % 2 == 0, first // batch % 2 == 1):
                        g, seconds = workers[compiled].play(size, 1000 * r + first, driver)
                        played[compiled] += g
                        cpu[compiled] += seconds
                for compiled in (False, True):
                    out.per_s.setdefault((driver, compiled), []).append(
                        played[compiled] / cpu[compiled]
                    )
    finally:
        for worker in workers.values():
            worker.close()
    return out


if __name__ == "__main__":
    result = run(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
    for name, value, note in result.rows():
        print(f"  {name:<40} {value:>12}   {note}")
