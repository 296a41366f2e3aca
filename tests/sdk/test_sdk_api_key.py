"""The clients send an API key: the SDK, the CLI and the tournament runner, from a flag or from
$YGGDRASIL_API_KEY, to a server that refuses callers without one."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from rich.console import Console

from clients.bots.base import RandomBot
from clients.cli import amain
from clients.connection import open_channel, stub_for
from clients.sdk import play_seat
from clients.tournament import Settings, parse_bot, run_tournament
from server.api.identity import hash_key
from server.config import ServerConfig
from server.main import RunningServer, start_server
from server.ops.metrics import Metrics, new_registry
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

KEY = "ygg_sdk-test-key-0123456789abcdefghij"


@pytest.fixture
async def keyed(tmp_path: Path) -> AsyncIterator[RunningServer]:
    keys = tmp_path / "keys.toml"
    keys.write_text(f'[[keys]]\nname = "sdk-tests"\nsha256 = "{hash_key(KEY)}"\n', encoding="utf-8")
    server = await start_server(
        ServerConfig(port=0, metrics_port=-1, store="memory", api_keys=keys, require_api_key=True),
        metrics=Metrics(new_registry(process_collectors=False)),
    )
    try:
        yield server
    finally:
        await server.shutdown(0)


async def test_sdk_seats_send_the_key_from_the_argument_or_the_environment(
    keyed: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    address = f"127.0.0.1:{keyed.port}"
    async with open_channel(address, api_key=KEY) as channel:
        created = await stub_for(channel).CreateGame(
            gs.CreateGameRequest(options=gp.GameOptions(player_count=2, seed=4))
        )
    monkeypatch.setenv("YGGDRASIL_API_KEY", KEY)
    results = await asyncio.gather(
        play_seat(address, created.game_id, RandomBot(), seat=0, api_key=KEY),
        play_seat(address, created.game_id, RandomBot(), seat=1, rng=random.Random(2)),
    )
    assert [r.status for r in results] == ["FINISHED", "FINISHED"]


async def _cli(address: str, *argv: str) -> tuple[int, str]:
    err_buffer = io.StringIO()
    out = Console(file=io.StringIO(), color_system=None, force_terminal=False)
    err = Console(file=err_buffer, color_system=None, force_terminal=False, width=200)
    code = await amain(["--server", address, *argv], out=out, err=err)
    return code, err_buffer.getvalue()


async def test_the_cli_sends_the_key(
    keyed: RunningServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    address = f"127.0.0.1:{keyed.port}"
    monkeypatch.setenv("YGGDRASIL_TOKEN_FILE", str(tmp_path / "tokens.json"))
    monkeypatch.delenv("YGGDRASIL_API_KEY", raising=False)
    code, err = await _cli(address, "list")
    assert code == 1 and "UNAUTHENTICATED" in err
    assert (await _cli(address, "--api-key", KEY, "list"))[0] == 0
    assert (await _cli(address, "list", "--api-key", KEY))[0] == 0
    monkeypatch.setenv("YGGDRASIL_API_KEY", KEY)
    assert (await _cli(address, "list"))[0] == 0


async def test_the_tournament_runner_sends_the_key(keyed: RunningServer, tmp_path: Path) -> None:
    settings = Settings(
        bots=[parse_bot("random"), parse_bot("random", ["random"])],
        players=[2],
        games=1,
        address=f"127.0.0.1:{keyed.port}",
        out=tmp_path / "out",
        seed=3,
        api_key=KEY,
    )
    records = await run_tournament(settings, Console(file=io.StringIO()))
    assert [r.error for r in records] == [""]
