"""Tournaments end to end: complete four-player games per second between random bots.

The server runs as its own process (``python -m server --store memory``); the tournament
runner (``clients.tournament.run_tournament``) runs here, with every seat an in-process SDK
client, as ``make tournament`` plays. Each game is created, joined, played to the end, and its
result and replay fetched and saved. The same tournaments are played over the unary calls
(WatchGame, GetView, SubmitAction: how the SDK played before PlaySession) and over PlaySession
(one stream per seat), alternating in rounds on the same server so that other load on the
machine weighs on both alike; the ratio is the figure to read.

    .venv/bin/python -m bench.tournament_bench [--games 16] [--concurrency 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from bench.server_bench import PLAYERS, ServerProcess
from clients.sdk import TRANSPORTS
from clients.tournament import Settings, parse_bot, run_tournament

BEFORE, AFTER = "unary", "session"


@dataclass
class TournamentBench:
    games_per_round: int
    concurrency: int
    rounds: int
    games: dict[str, int] = field(default_factory=dict)  # complete games, by transport
    seconds: dict[str, float] = field(default_factory=dict)
    failed: int = 0

    def per_s(self, transport: str) -> float:
        seconds = self.seconds.get(transport, 0.0)
        return self.games.get(transport, 0) / seconds if seconds else 0.0

    def rows(self) -> list[tuple[str, str, str]]:
        before, after = self.per_s(BEFORE), self.per_s(AFTER)
        note = (
            f"{self.rounds} x {self.games_per_round} games, {self.concurrency} at once, "
            f"server and bots in separate processes"
        )
        rows = [
            (f"{PLAYERS}-player random games / s, unary calls", f"{before:.2f}", note),
            (f"{PLAYERS}-player random games / s, PlaySession", f"{after:.2f}", "same, alternated"),
            (
                "PlaySession / unary games per second",
                f"{after / before:.2f}x" if before else "-",
                "the SDK before (unary) and after (PlaySession)",
            ),
        ]
        if self.failed:
            rows.append(("games that failed", str(self.failed), "see the runner's errors"))
        return rows


async def _tournament(
    address: str, out: Path, transport: str, games: int, concurrency: int, seed: int
) -> tuple[int, float, int]:
    labels: list[str] = []
    bots = []
    for _ in range(PLAYERS):
        bot = parse_bot("random", labels)
        labels.append(bot.label)
        bots.append(bot)
    settings = Settings(
        bots=bots,
        players=[PLAYERS],
        games=games,
        address=address,
        out=out,
        concurrency=concurrency,
        seed=seed,
        transport=transport,
    )
    quiet = Console(file=io.StringIO())
    records = await run_tournament(settings, quiet)
    failed = sum(1 for r in records if r.error)
    return len(records) - failed, settings.seconds, failed


def run(games: int = 16, concurrency: int = 8, rounds: int = 2) -> TournamentBench:
    result = TournamentBench(games, concurrency, rounds)
    server = ServerProcess(["--store", "memory"])
    try:
        address = f"127.0.0.1:{server.port}"
        with tempfile.TemporaryDirectory(prefix="ygg-tournament-bench-") as tmp:
            # Warm up both paths (imports, caches, the server's first games).
            for transport in TRANSPORTS:
                asyncio.run(_tournament(address, Path(tmp, "warm"), transport, 2, 2, 0))
            for r in range(rounds):
                for transport in (BEFORE, AFTER):
                    out = Path(tmp, f"{transport}-{r}")
                    done, seconds, failed = asyncio.run(
                        _tournament(address, out, transport, games, concurrency, 1000 * (r + 1))
                    )
                    result.games[transport] = result.games.get(transport, 0) + done
                    result.seconds[transport] = result.seconds.get(transport, 0.0) + seconds
                    result.failed += failed
    finally:
        server.stop()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.tournament_bench")
    parser.add_argument("--games", type=int, default=16, help="games per tournament")
    parser.add_argument("--concurrency", type=int, default=8, help="games at once")
    parser.add_argument("--rounds", type=int, default=2, help="tournaments per transport")
    args = parser.parse_args()
    for name, value, note in run(args.games, args.concurrency, args.rounds).rows():
        print(f"  {name:<40} {value:>12}   {note}")


if __name__ == "__main__":
    main()
