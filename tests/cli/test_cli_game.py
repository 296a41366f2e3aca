"""End to end through the command line: `create`, four `bot`s playing a whole 4-player game
concurrently, then `result`, `list`, `replay` and `watch --once`; plus `join` and `create` as
real subprocesses (`python -m clients.cli`)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from cli_support import text_console

from clients.cli import amain
from yggdrasil.v1 import game_service_pb2 as gs


@pytest.fixture
def seed_choice() -> str:
    """The server's default: an anonymous creator's --seed is mixed (issue 26)."""
    return "keys"


async def run_cli(address: str, *argv: str) -> tuple[int, str, str]:
    out, out_buf = text_console()
    err, err_buf = text_console()
    code = await amain(["--server", address, *argv], out=out, err=err)
    return code, out_buf.getvalue(), err_buf.getvalue()


async def test_create_four_bots_play_to_the_end_then_result(address, stub, token_file, tmp_path):
    code, out, err = await run_cli(
        address, "create", "--players", "4", "--seed", "2024", "--names", "ann,bob,cid,dee"
    )
    assert code == 0 and "mixed --seed with its own randomness" in err
    game = out.strip()
    assert len(game) >= 8 and "\n" not in game

    # `result` before the end is refused with the server's reason.
    code, _, err = await run_cli(address, "result", game)
    assert code == 1 and "FAILED_PRECONDITION" in err

    bots = [
        run_cli(address, "bot", game, "--seat", str(seat), "--rng-seed", str(seat))
        for seat in range(4)
    ]
    results = await asyncio.wait_for(asyncio.gather(*bots), timeout=240)
    for code, out, err in results:
        assert code == 0, err
        assert "game over: rank" in out
    saved = json.loads(token_file.read_text())["games"][game]
    assert sorted(saved) == ["0", "1", "2", "3"]  # each bot joined and saved its token
    assert {entry["role"] for entry in saved.values()} == {"bot"}
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"

    truth = (await stub.GetResult(gs.GetResultRequest(game_id=game))).result
    code, out, _ = await run_cli(address, "result", game)
    assert code == 0
    names = {0: "ann", 1: "bob", 2: "cid", 3: "dee"}
    clans = {0: "Wolf", 1: "Raven", 2: "Serpent", 3: "Bear"}
    winners = ", ".join(f"{clans[s]} ({names[s]})" for s in truth.winners)
    assert f"Winner(s): {winners}" in out
    assert out.count("WINNER") == len(truth.winners)
    for seat in truth.seats:
        assert str(seat.score) in out

    code, out, _ = await run_cli(address, "list", "--status", "finished")
    assert code == 0 and game in out and "finished" in out

    replay_file = tmp_path / "replay.json"
    code, _, err = await run_cli(address, "replay", game, "--out", str(replay_file), "--verify")
    assert code == 0 and "written to" in err and "replay verified" in err
    replay = json.loads(replay_file.read_text())
    assert replay["format"] == "yggdrasil-replay"
    # Anonymous: --seed was mixed with the server's randomness (issue 26); the replay carries
    # the seed the game played with, and verified above.
    assert replay["options"]["seed"] != 2024 and replay["options"]["players"] == 4
    assert len(replay["actions"]) > 100
    assert replay["final_scores"]["winners"] == list(truth.winners)

    code, out, _ = await run_cli(address, "watch", game, "--once")
    assert code == 0 and "finished" in out and "WINNER" in out

    # Watching a finished game from its first event replays the log as lines, then the end.
    code, out, _ = await run_cli(address, "watch", game, "--from-sequence", "1", "--log")
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("#")]
    assert lines[0].startswith("#1 ") and "took seat" in lines[0]
    assert any(": pick a card" in line for line in lines)  # others' picks stay secret
    assert any("Battle in" in line for line in lines)
    assert "Game over. Winner(s):" in out


async def test_errors_are_reported_not_raised(address, token_file):
    code, _, err = await run_cli(address, "result", "no-such-game")
    assert code == 1 and "NOT_FOUND" in err
    code, _, err = await run_cli(address, "create", "--players", "6")
    assert code == 1 and "INVALID_ARGUMENT" in err
    code, _, err = await run_cli("127.0.0.1:1", "list")
    assert code == 1 and "cannot reach the server" in err
    # --server may also follow the command (and then wins).
    out, buffer = text_console()
    assert await amain(["--server", "127.0.0.1:1", "list", "--server", address], out=out) == 0
    assert "No games." in buffer.getvalue()
    code, _, err = await run_cli(address, "bot", "unknown-game", "--token", "x")
    assert code == 1 and ("NOT_FOUND" in err or "PERMISSION_DENIED" in err)


async def _subprocess(address: str, token_file: Path, *argv: str) -> tuple[int, str, str]:
    env = {**os.environ, "YGGDRASIL_SERVER": address, "YGGDRASIL_TOKEN_FILE": str(token_file)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "clients.cli",
        *argv,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_subprocess_create_join_and_token_reuse(address, token_file):
    code, out, err = await _subprocess(address, token_file, "create", "--players", "2")
    assert code == 0, err
    game = out.strip()
    code, out, err = await _subprocess(address, token_file, "join", game, "--name", "zoe")
    assert code == 0, err
    assert "seat: 0 (Wolf)" in out
    token = out.split("token: ")[1].split()[0]
    assert json.loads(token_file.read_text())["games"][game]["0"]["token"] == token
    assert "token saved to" in err
    # The seat is taken now: joining it again is refused.
    code, _, err = await _subprocess(address, token_file, "join", game, "--seat", "0")
    assert code == 1 and "ALREADY_EXISTS" in err


async def test_bot_strategies_play_a_game(address, stub, token_file, capsys):
    """`yggdrasil bot --strategy heuristic|ismcts:MS` plays the SDK's bots; a strategy the
    SDK does not know is refused before anything is joined."""
    code, out, _ = await run_cli(address, "create", "--players", "2", "--seed", "7")
    assert code == 0
    game = out.strip()
    heuristic = run_cli(
        address, "bot", game, "--seat", "0", "--strategy", "heuristic", "--rng-seed", "1", "-v"
    )
    ismcts = run_cli(
        address, "bot", game, "--seat", "1", "--strategy", "ismcts:5", "--rng-seed", "2"
    )
    (code0, out0, err0), (code1, out1, err1) = await asyncio.wait_for(
        asyncio.gather(heuristic, ismcts), timeout=240
    )
    assert (code0, code1) == (0, 0), err0 + err1
    assert out0.startswith("bot Wolf (heuristic) made ") and "game over: rank" in out0
    assert out1.startswith("bot Raven (ismcts) made ") and "game over: rank" in out1
    decisions = int(out0.split(" made ")[1].split()[0])
    # -v tells each choice (one refused as stale is chosen again, and told again).
    told = [line for line in err0.splitlines() if line.startswith("Wolf v")]
    assert decisions > 20 and len(told) >= decisions
    result = (await stub.GetResult(gs.GetResultRequest(game_id=game))).result
    glory = {s.seat: s.score for s in result.seats}
    assert f"{glory[0]} Glory" in out0 and f"{glory[1]} Glory" in out1
    assert glory[0] > 0 and glory[1] > 0  # neither passes its way to 0 as a random bot may

    for strategy, why in (
        ("genius", "unknown bot 'genius'"),
        ("heuristic:5", "unknown bot 'heuristic:5'"),
        ("ismcts:0", "ismcts budget must be a positive number of ms"),
    ):
        with pytest.raises(SystemExit) as exited:  # argparse's usage error
            await run_cli(address, "bot", game, "--strategy", strategy)
        assert exited.value.code == 2
        assert f"argument --strategy: {why}" in capsys.readouterr().err


async def test_create_keeps_the_creator_token_that_abort_proves_the_creator_with(
    address, token_file, tmp_path, monkeypatch
):
    """Issue 26: an anonymous creator's address is no proof that it created a game; `create`
    keeps the creator token the server gave, and `abort` sends it."""
    code, out, _ = await run_cli(address, "create", "--players", "2")
    assert code == 0
    game = out.strip()
    saved = json.loads(token_file.read_text())["created"][game]
    assert len(saved) >= 32
    other = tmp_path / "someone-else.json"  # the same address, without the token
    monkeypatch.setenv("YGGDRASIL_TOKEN_FILE", str(other))
    code, _, err = await run_cli(address, "abort", game)
    assert code == 1 and "PERMISSION_DENIED" in err
    monkeypatch.setenv("YGGDRASIL_TOKEN_FILE", str(token_file))
    code, out, _ = await run_cli(address, "abort", game, "--reason", "done")
    assert code == 0 and f"game {game} aborted" in out
