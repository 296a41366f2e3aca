"""Soak tests of the SDK and the tournament runner: many games at once, to shake out rare
interleaving bugs (such as a WatchGame stream that skipped an event and left a seat waiting
for its turn forever, which showed in about 1 of 8 runs).

- ``test_many_sdk_games_at_once``: SOAK_GAMES (40) seeded four-player games at once against
  ``python -m server`` (memory store) on a free loopback port. Every seat is the SDK's
  ``BotClient``: most over one PlaySession stream per seat (the SDK's default), every fifth
  the frontends' way (WatchGame + GetView + SubmitAction), each with its own reconnects and
  resends of unanswered decisions; bots are random,
  jittery (0-20 ms of thought), heuristic, and in every third game (decision time limit
  SOAK_TIME_LIMIT_MS, 800 ms) one sluggish seat that now and then thinks past the limit, so
  the server applies defaults and the SDK's late answers are refused as stale. Some seats'
  streams (PlaySession or WatchGame) are cut by the test at random (the SDK resumes them from
  its sequence, resending its unanswered decisions); every game
  has a watcher (spectator or seat) that hangs up and resumes from a sequence number again
  and again, sometimes after falling behind, and a recorder (a spectator that never hangs up).
- ``test_sdk_games_survive_server_restarts``: SOAK_RESTART_GAMES (24) such games with the
  SQLite store while the server process is restarted SOAK_RESTARTS (6) times, SIGTERM and
  SIGKILL mixed, on the same port and data directory (the last restart once a few games are
  over); the SDK reconnects by itself.
- ``test_tournament_runner_soak``: the tournament runner (``clients.tournament``) plays
  SOAK_TOURNAMENT_GAMES (12) games per player count (2, 3 and 4) of random vs heuristic bots
  on its own spawned server; the standings must be consistent with the games and replays.

The game soaks fail (never hang) when a game does not move for SOAK_STALL_S (90 s) or the run
takes more than SOAK_DEADLINE_S (600 s), naming every stuck game and seat and what it was
waiting for. After the games: each result (the SDK's, GetResult's) equals an in-process engine
replay of GetReplay's log; every seat's acknowledged submits are its log entries; no seat had
a long run of decisions applied by timeout; every stream the clients read was gapless and
duplicate-free; no seat (nor a spectator) received a card private to another seat, and each
engine state a seat was given is exactly its redacted snapshot. SOAK_SEED fixes the games'
seeds (default: the clock; printed with the summary and in every failure).

Run with ``make soak`` (or ``pytest -m soak -s tests/soak``): a few minutes on 2 cores.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from soak_support import SoakConfig, call_retrying, env_float, env_int, open_channel, run_soak
from soak_support import stub_for as soak_stub

from clients.tournament import (
    BotSpec,
    GameRecord,
    Settings,
    SpawnedServer,
    parse_bot,
    plan,
    run_tournament,
    summarize,
    write_results,
)
from protocol.replay_json import loads, verify_replay
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

SEED = env_int("SOAK_SEED", int(time.time()))
GAMES = env_int("SOAK_GAMES", 40)
RESTART_GAMES = env_int("SOAK_RESTART_GAMES", 24)
RESTARTS = env_int("SOAK_RESTARTS", 6)
TOURNAMENT_GAMES = env_int("SOAK_TOURNAMENT_GAMES", 12)
TIME_LIMIT_MS = env_int("SOAK_TIME_LIMIT_MS", 800)
DEADLINE_S = env_float("SOAK_DEADLINE_S", 600.0)
STALL_S = env_float("SOAK_STALL_S", 90.0)


def _report(name: str, summary: dict[str, Any], seconds: float) -> None:
    print(f"\n{name} ({seconds:.1f} s):", json.dumps(summary, sort_keys=False))


@pytest.mark.soak
async def test_many_sdk_games_at_once(tmp_path: Path) -> None:
    started = time.monotonic()
    config = SoakConfig(
        name="soak (memory store)",
        games=GAMES,
        seed=SEED,
        store="memory",
        time_limit_ms=TIME_LIMIT_MS,
        deadline_s=DEADLINE_S,
        stall_s=STALL_S,
    )
    summary = await run_soak(config, tmp_path)
    _report(config.name, summary, time.monotonic() - started)
    assert summary["games"] == GAMES
    assert summary["actions"] > 100 * GAMES
    assert summary["watcher_resumes"] >= GAMES
    assert summary["streams_cut"] > 0


@pytest.mark.soak
async def test_sdk_games_survive_server_restarts(tmp_path: Path) -> None:
    started = time.monotonic()
    config = SoakConfig(
        name="soak (SQLite store, restarts)",
        games=RESTART_GAMES,
        seed=SEED,
        store="sqlite",
        restarts=RESTARTS,
        time_limit_ms=TIME_LIMIT_MS,
        deadline_s=DEADLINE_S,
        stall_s=STALL_S,
    )
    summary = await run_soak(config, tmp_path / "data")
    _report(config.name, summary, time.monotonic() - started)
    assert summary["games"] == RESTART_GAMES
    assert sum(summary["restarts"].values()) == RESTARTS
    if RESTARTS >= 2:
        assert set(summary["restarts"]) == {"SIGTERM", "SIGKILL"}
    assert summary["sdk_reconnects"] > 0


# ============================================================================================
# The tournament runner
# ============================================================================================


async def _in_progress(address: str) -> list[str]:
    """The unfinished games of a server, with who they wait for."""
    lines = []
    async with open_channel(address) as channel:
        stub = soak_stub(channel)
        listed = await stub.ListGames(gs.ListGamesRequest(page_size=500), timeout=10)
        for game in listed.games:
            if game.status == gp.GAME_STATUS_FINISHED:
                continue
            view = (
                await stub.GetView(
                    gs.GetViewRequest(game_id=game.game_id, spectator=gs.Spectator()), timeout=10
                )
            ).view
            lines.append(
                f"game {game.game_id} ({list(game.options.seat_names)}): "
                f"{gp.GameStatus.Name(view.status)}, version {view.state_version}, last sequence "
                f"{view.last_sequence}, awaiting {list(view.awaiting_seats)}, committed "
                f"{list(view.committed_seats)}"
            )
    return lines


async def _watch_tournament(task: asyncio.Task[list[GameRecord]], address: str) -> None:
    """Wait for the tournament; fail with the server's unfinished games if one of them stops
    moving for STALL_S or the whole run takes more than DEADLINE_S."""
    started = time.monotonic()
    seen: dict[str, tuple[tuple[int, int], float]] = {}
    async with open_channel(address) as channel:
        stub = soak_stub(channel)
        while not task.done():
            await asyncio.wait({task}, timeout=2.0)
            if task.done():
                break
            now = time.monotonic()
            listed = await call_retrying(
                lambda: stub.ListGames(gs.ListGamesRequest(page_size=500), timeout=10)
            )
            stuck = []
            for game in listed.games:
                if game.status == gp.GAME_STATUS_FINISHED:
                    continue
                key = (int(game.state_version), int(game.last_sequence))
                if game.game_id not in seen or seen[game.game_id][0] != key:
                    seen[game.game_id] = (key, now)
                elif now - seen[game.game_id][1] > STALL_S:
                    stuck.append(game.game_id)
            late = now - started > DEADLINE_S
            if stuck or late:
                report = await _in_progress(address)
                task.cancel()
                await asyncio.wait({task}, timeout=20)
                why = f"games {stuck} did not move for {STALL_S:.0f} s" if stuck else "too slow"
                pytest.fail(
                    f"tournament soak (seed {SEED}): {why}; unfinished games:\n" + "\n".join(report)
                )


@pytest.mark.soak
async def test_tournament_runner_soak(tmp_path: Path) -> None:
    started = time.monotonic()
    bots: list[BotSpec] = []
    for spec in ("random", "heuristic", "random"):
        bots.append(parse_bot(spec, [b.label for b in bots]))
    labels = [b.label for b in bots]
    spawned = SpawnedServer()
    address = await spawned.start()
    settings = Settings(
        bots=bots,
        players=[2, 3, 4],
        games=TOURNAMENT_GAMES,
        address=address,
        out=tmp_path / "run",
        time_limit_ms=5000,
        concurrency=8,
        seed=SEED,
    )
    console = Console(file=io.StringIO(), width=120)
    try:
        task = asyncio.create_task(run_tournament(settings, console))
        await _watch_tournament(task, address)
        records = task.result()
    finally:
        await spawned.stop()
    stats = summarize(records, labels)
    path = write_results(settings, records, stats)

    # -- every game was played as planned, and its replay re-plays to its record ---------
    planned = plan(settings)
    assert len(records) == len(planned) == TOURNAMENT_GAMES * len(settings.players)
    errors = [(r.game_id, r.error) for r in records if r.error]
    assert not errors, errors
    seats: Counter[str] = Counter()
    for record, (players, seed, lineup) in zip(records, planned, strict=True):
        assert (record.players, record.seed) == (players, seed)
        assert record.bots == [labels[b] for b in lineup]
        seats.update(record.bots)
        best = max(record.scores)
        assert record.winners == [s for s, g in enumerate(record.scores) if g == best]
        assert record.ranks == [1 + sum(g > mine for g in record.scores) for mine in record.scores]
        document = loads((settings.out / record.replay).read_text(encoding="utf-8"))
        assert document["options"]["seed"] == seed
        assert document["options"]["players"] == players
        check = verify_replay(document)
        assert check.ok, (record.game_id, check.problems)
        assert check.scores == record.scores
        assert document["final_scores"]["winners"] == record.winners
        assert document["final_scores"]["ranks"] == record.ranks

    # -- the standings add up, and results.json holds what the games give ---------------
    by_bot = {s.bot: s for s in stats}
    assert set(by_bot) == set(labels)
    assert sum(s.wins for s in stats) == pytest.approx(len(records))
    for label in labels:
        s = by_bot[label]
        mine = [(r, seat) for r in records for seat, b in enumerate(r.bots) if b == label]
        assert s.games == seats[label] == len(mine)
        wins = sum(1 / len(r.winners) for r, seat in mine if seat in r.winners)
        assert s.wins == pytest.approx(wins)
        assert s.win_rate == pytest.approx(wins / len(mine))
        assert s.mean_score == pytest.approx(sum(r.scores[seat] for r, seat in mine) / len(mine))
        assert s.sigma > 0 and s.ordinal == pytest.approx(s.mu - 3 * s.sigma)
    assert [s.ordinal for s in stats] == sorted((s.ordinal for s in stats), reverse=True)
    document = json.loads(path.read_text(encoding="utf-8"))
    again = summarize([GameRecord(**g) for g in document["games"]], labels)
    assert document["standings"] == [asdict(s) for s in again] == [asdict(s) for s in stats]

    seconds = time.monotonic() - started
    summary = {
        "seed": SEED,
        "games": len(records),
        "actions": sum(
            len(loads((settings.out / r.replay).read_text(encoding="utf-8"))["actions"])
            for r in records
        ),
        "mean_game_s": round(sum(r.seconds for r in records) / len(records), 2),
        "standings": [(s.bot, s.games, round(s.wins, 2), round(s.mean_score, 1)) for s in stats],
    }
    _report("tournament soak", summary, seconds)
