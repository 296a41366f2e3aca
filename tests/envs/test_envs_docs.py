"""docs/bots.md works as written: its example runs the environment loop, its layout table is
the code's, and its way into a tournament (a policy as a ``cmd:`` bot) plays whole games."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from clients.tournament import main as tournament
from protocol.replay_json import loads, verify_replay

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")


def _example() -> str:
    found = re.search(r"<!-- bots-example[^>]*-->\n```python\n(.*?)```", DOC, re.S)
    assert found, "docs/bots.md has no marked example"
    return found.group(1)


def test_the_example_is_about_thirty_lines_and_runs_the_environment_loop() -> None:
    code = _example()
    lines = [line for line in code.splitlines() if line.strip()]
    assert 20 <= len(lines) <= 35, len(lines)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    rewards = json.loads(done.stdout.strip().replace("'", '"'))
    assert set(rewards) == {"player_0", "player_1", "player_2", "player_3"}
    # rank rewards: 1 for first down to 0 for last, every game paying out
    assert all(0.0 <= r <= 1.0 for r in rewards.values()) and sum(rewards.values()) > 0


def test_the_layout_table_is_the_codes() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/bots_doc.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_policy_enters_a_tournament_as_a_command_bot(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    code = tournament(
        ["cmd:python -m envs.remote --policy random", "heuristic", "--games", "2",
         "--players", "2", "--spawn-server", "--seed", "3", "--concurrency", "1",
         "--time-limit-ms", "20000", "--out", str(out)]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    results = json.loads((out / "results.json").read_text())
    assert len(results["games"]) == 2 and all(not g["error"] for g in results["games"])
    assert all(not g.get("failed_seats") for g in results["games"])
    labels = sorted(s["bot"] for s in results["standings"])
    assert labels[0].startswith("cmd:python -m envs.remote") and labels[1] == "heuristic"
    for game in results["games"]:
        assert verify_replay(loads((out / game["replay"]).read_text())).ok
