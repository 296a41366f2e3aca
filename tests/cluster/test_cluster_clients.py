"""Every client sends ``x-game-id`` with each call about a game (what Envoy hashes to pick the
game's node): the CLI, the SDK (through the CLI's bots) and the tournament runner, against a
cluster node that counts calls about a game without a matching header."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from cluster_support import start_node

from clients.cli import amain


async def test_the_cli_sdk_and_tournament_runner_send_the_game_header(
    pg_url: str, tmp_path: Path, monkeypatch
) -> None:
    node = await start_node(pg_url, lease_ttl_s=30.0, lease_renew_s=1.0, lease_margin_s=5.0)
    address = f"127.0.0.1:{node.running.port}"
    monkeypatch.setenv("YGGDRASIL_TOKEN_FILE", str(tmp_path / "tokens.json"))
    try:
        code = await amain(["--server", address, "create", "--players", "2", "--seed", "5"])
        assert code == 0
        listed = node.running.games.games
        (game_id,) = listed
        bots = [
            amain(["--server", address, "bot", game_id, "--seat", str(s), "--rng-seed", str(s)])
            for s in range(2)
        ]
        assert await asyncio.wait_for(asyncio.gather(*bots), 240) == [0, 0]
        for command in (["result", game_id], ["watch", game_id, "--once"]):
            assert await amain(["--server", address, *command]) == 0
        runner = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "clients.tournament", "random", "random", "--games", "1",
            "--players", "2", "--server", address, "--seed", "2", "--out", str(tmp_path / "t"),
            stdout=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        assert await asyncio.wait_for(runner.wait(), 240) == 0
        registry = node.running.metrics.registry
        calls = {
            (s.labels["method"], s.value)
            for m in registry.collect()
            if m.name == "yggdrasil_rpc_duration_seconds"
            for s in m.samples
            if s.name.endswith("_count")
        }
        methods = {method for method, count in calls if count}
        assert {"PlaySession", "GetView", "GetResult", "GetReplay"} <= methods
        unhinted = {
            s.labels["method"]: s.value
            for m in registry.collect()
            if m.name == "yggdrasil_unhinted_calls"
            for s in m.samples
            if s.name.endswith("_total")
        }
        assert all(v == 0 for v in unhinted.values()), unhinted
    finally:
        await node.stop()
