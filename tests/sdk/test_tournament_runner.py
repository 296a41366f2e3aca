"""The tournament runner: seating, statistics, and a small run against a spawned server."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from clocked_server import ClockedServer
from quitting_bot import DECISIONS_BEFORE_THE_CRASH

from clients import tournament
from clients.tournament import GameRecord, lineups, main, parse_bot, summarize
from protocol.replay_json import loads, verify_replay


def test_every_bot_plays_every_seat_equally_often() -> None:
    for bots, players in ((2, 2), (3, 2), (2, 4), (3, 5), (5, 3)):
        games = lineups(bots, players, 2 * bots)
        per_seat = Counter((seat, bot) for game in games for seat, bot in enumerate(game))
        assert set(per_seat.values()) == {2}
        assert all(len(game) == players for game in games)


def test_parse_bot_labels_are_unique() -> None:
    a = parse_bot("random")
    b = parse_bot("random", [a.label])
    c = parse_bot("cmd:python -m clients.sdk --bot heuristic", [a.label, b.label])
    assert (a.label, b.label) == ("random", "random#2")
    assert c.command == "python -m clients.sdk --bot heuristic" and c.label.startswith("cmd:")
    assert parse_bot("ismcts:30").spec == "ismcts:30"
    with pytest.raises(ValueError):
        parse_bot("alphazero")


def _record(bots: list[str], scores: list[int], ranks: list[int], winners: list[int]) -> GameRecord:
    return GameRecord("g", len(bots), 1, bots, scores, ranks, winners, 0.1)


def test_summarize_counts_shared_wins_and_rates() -> None:
    records = [
        _record(["a", "b"], [50, 30], [1, 2], [0]),
        _record(["b", "a"], [40, 40], [1, 1], [0, 1]),
        _record(["a", "b"], [60, 10], [1, 2], [0]),
        GameRecord("x", 2, 1, ["a", "b"], [], [], [], 0.1, error="boom"),
    ]
    stats = {s.bot: s for s in summarize(records, ["a", "b"])}
    assert stats["a"].games == stats["b"].games == 3
    assert stats["a"].wins == pytest.approx(2.5)
    assert stats["b"].wins == pytest.approx(0.5)
    assert stats["a"].win_rate == pytest.approx(2.5 / 3)
    assert stats["a"].mean_score == pytest.approx(50.0)
    assert stats["a"].mu > 25 > stats["b"].mu
    assert stats["a"].ordinal == pytest.approx(stats["a"].mu - 3 * stats["a"].sigma)
    assert [s.bot for s in summarize(records, ["b", "a"])] == ["a", "b"]


@pytest.mark.parametrize("transport", ["session", "unary"])
def test_a_small_tournament_on_a_spawned_server(tmp_path: Path, capsys, transport: str) -> None:
    out = tmp_path / "run"
    code = main(
        ["random", "heuristic", "--games", "4", "--players", "2", "--spawn-server",
         "--seed", "3", "--concurrency", "2", "--out", str(out), "--transport", transport]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "heuristic" in printed and "random" in printed and "±" in printed
    assert "4 games in " in printed and f"{transport} transport" in printed
    results = json.loads((out / "results.json").read_text())
    assert len(results["games"]) == 4
    assert results["transport"] == transport
    assert results["games_per_second"] == pytest.approx(4 / results["seconds"], rel=0.01)
    assert {s["bot"] for s in results["standings"]} == {"random", "heuristic"}
    for s in results["standings"]:
        assert s["games"] == 4 and s["sigma"] > 0
    assert sum(s["wins"] for s in results["standings"]) == pytest.approx(4)
    seats = Counter((g["bots"][0]) for g in results["games"])
    assert seats == {"random": 2, "heuristic": 2}
    for game in results["games"]:
        assert not game["error"]
        document = loads((out / game["replay"]).read_text())
        check = verify_replay(document)
        assert check.ok, check.problems
        assert check.scores == game["scores"]


def test_an_external_command_bot_plays_through_the_api(tmp_path: Path, capsys) -> None:
    """A ``cmd:`` bot is a separate process that gets --server/--game/--seat and plays its
    seat through the public API (here the SDK's own command line with the random bot)."""
    out = tmp_path / "run"
    code = main(
        ["heuristic", "cmd:python -m clients.sdk --bot random", "--games", "2", "--players", "2",
         "--spawn-server", "--seed", "5", "--concurrency", "1", "--out", str(out)]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    results = json.loads((out / "results.json").read_text())
    assert len(results["games"]) == 2
    assert all(not g["error"] for g in results["games"])
    bots = sorted(s["bot"] for s in results["standings"])
    assert bots[0].startswith("cmd:python -m clients.sdk") and bots[1] == "heuristic"
    assert all(s["games"] == 2 for s in results["standings"])
    for game in results["games"]:
        assert verify_replay(loads((out / game["replay"]).read_text())).ok


def test_bots_that_fail_forfeit_their_decisions_and_the_game_counts(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a decision time limit, a bot that exits before it joins and one that crashes
    mid-game do not void the game: the server decides for them, the game ends and counts.

    The server's decision clock moves only when every seat it waits for belongs to a bot
    whose process has exited (tests/sdk/clocked_server.py), so the live bots never run out
    of time and the gone ones always do, whatever the load."""
    out = tmp_path / "run"
    never = "cmd:python -c 'raise SystemExit(3)'"
    crashes = f"cmd:python {Path(__file__).with_name('quitting_bot.py')}"
    with ClockedServer() as server:
        run_seat = tournament._external_seat

        async def noting_exit(
            command: str, address: str, game_id: str, seat: int, *rest: str | None
        ) -> None:
            try:
                await run_seat(command, address, game_id, seat, *rest)
            finally:
                server.gone.add(seat)

        monkeypatch.setattr(tournament, "_external_seat", noting_exit)
        code = main(
            ["heuristic", never, crashes, "--games", "1", "--players", "3",
             "--server", server.address, "--seed", "9", "--concurrency", "1",
             "--time-limit-ms", "60000", "--out", str(out)]
        )  # fmt: skip
    printed = capsys.readouterr()
    assert not server.stalled, server.stalled
    assert code == 0, printed
    (game,) = json.loads((out / "results.json").read_text())["games"]
    assert not game["error"]
    assert len(game["scores"]) == 3
    failed = sorted(game["failed_seats"])
    assert len(failed) == 2, failed
    assert any("external bot exited with 3" in f for f in failed)
    assert any("external bot exited with 1" in f for f in failed)
    assert "the server decided for it" in printed.out + printed.err
    replay = loads((out / game["replay"]).read_text())
    assert verify_replay(replay).ok
    by_seat = {
        seat: [step["by_timeout"] for step in replay["actions"] if step["seat"] == seat]
        for seat in range(3)
    }
    assert server.expiries > 0
    heuristic_seat = game["bots"].index("heuristic")
    assert by_seat[heuristic_seat] and not any(by_seat[heuristic_seat])
    never_seat = int(next(f for f in failed if "exited with 3" in f).split()[1])
    assert by_seat[never_seat] and all(by_seat[never_seat])
    crash_seat = 3 - heuristic_seat - never_seat
    crash = by_seat[crash_seat]
    assert crash[:DECISIONS_BEFORE_THE_CRASH] == [False] * DECISIONS_BEFORE_THE_CRASH
    assert len(crash) > DECISIONS_BEFORE_THE_CRASH and all(crash[DECISIONS_BEFORE_THE_CRASH:])


class _ServerProcess:
    """``python -m server`` with ``flags``, its only clients the test's (issue 26, point 11)."""

    def __init__(self, *flags: str) -> None:
        import re
        import subprocess
        import sys

        self.process = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", "0", "--metrics-port", "-1",
             "--store", "memory", "--log-level", "WARNING", "--anonymous-quota", "unlimited",
             "--seed-choice", "anyone", *flags],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.process.stderr is not None
        line = self.process.stderr.readline()
        found = re.search(r"gRPC on ([\d.]+):(\d+)", line)
        assert found, line
        self.address = f"{found[1]}:{found[2]}"

    def __enter__(self) -> _ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(30)


def _runner(*argv: str) -> tuple[int, str]:
    """``python -m clients.tournament`` with ``argv``: its exit status and output (a hung run
    fails the test after 300 s instead of hanging it)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "clients.tournament", *argv],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def test_many_games_at_once_stay_within_the_servers_stream_limit(tmp_path: Path) -> None:
    """Many more games at once than the server lets one connection carry calls (its
    --max-streams-per-connection, 256 by default, here 4): 1,000 games at once stopped at
    0/1,000 with UNAVAILABLE RST_STREAM error code 7 (REFUSED_STREAM). The runner spreads its
    calls and its seats' streams over connections that each carry at most
    --calls-per-channel, retries a refused stream, and plays every game."""
    out = tmp_path / "run"
    with _ServerProcess("--max-streams-per-connection", "4") as server:
        code, printed = _runner(
            "random", "random", "--games", "24", "--players", "2", "--server", server.address,
            "--seed", "11", "--concurrency", "24", "--calls-per-channel", "4", "--out", str(out),
        )  # fmt: skip
    assert code == 0, printed
    results = json.loads((out / "results.json").read_text())
    assert len(results["games"]) == 24
    assert [g["error"] for g in results["games"]] == [""] * 24


def test_a_game_that_fails_is_reported_and_the_others_are_played(tmp_path: Path) -> None:
    """One game's failure (here the server refuses two of the games: it hosts at most 3 at
    once) ends neither the run nor the other games: each failed game is a record with its
    error in results.json, and the exit status says some failed."""
    out = tmp_path / "run"
    with _ServerProcess("--max-games", "3") as server:
        code, printed = _runner(
            "random", "random", "--games", "5", "--players", "2", "--server", server.address,
            "--seed", "12", "--concurrency", "5", "--out", str(out),
        )  # fmt: skip
    assert code == 1, printed
    results = json.loads((out / "results.json").read_text())
    games = results["games"]
    assert len(games) == 5
    failed = [g for g in games if g["error"]]
    assert len(failed) >= 2 and all("RESOURCE_EXHAUSTED" in g["error"] for g in failed)
    played = [g for g in games if not g["error"]]
    assert played and all(verify_replay(loads((out / g["replay"]).read_text())).ok for g in played)
    assert "failed: RESOURCE_EXHAUSTED" in printed


async def test_the_pool_keeps_each_channel_within_its_calls() -> None:
    from clients.connection import ChannelPool

    pool = ChannelPool("127.0.0.1:1", per_channel=3)
    slots = [pool.take() for _ in range(7)]
    assert pool.channels == 3  # 3 + 3 + 1
    for slot in slots[:3]:
        slot.release()
        slot.release()  # (idempotent)
    again = [pool.take() for _ in range(3)]
    assert pool.channels == 3  # room again on the first channel: no new one
    calls = Counter(id(s.stub) for s in [*slots[3:], *again])
    assert sum(calls.values()) == 7 and max(calls.values()) == 3  # none past 3
    await pool.close()
