"""Issue 26, point 1: our clients give up when an owner node dies behind Envoy. Envoy ends the
open streams with INTERNAL ("RST_STREAM with error code 2"), not UNAVAILABLE, and a decision
whose node died after it was applied loses its answer the same way; `yggdrasil watch` exited 1
in 3 of 3 kills. Every client here must resume a reset stream (the resume contract makes that
safe) and resend a decision with its idempotency key, through a relay that resets as Envoy
does (resetting_proxy.py), and ride out an outage longer than a few quick retries."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from resetting_proxy import ResettingProxy

from clients.bots.base import RandomBot
from clients.cli import amain
from clients.connection import follow, open_channel, stub_for
from clients.sdk import play_seat
from server.main import RunningServer
from tests.cli.cli_support import text_console
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


@pytest.fixture
async def proxy(running: RunningServer) -> AsyncIterator[ResettingProxy]:
    relay = await ResettingProxy(f"127.0.0.1:{running.port}").start()
    try:
        yield relay
    finally:
        await relay.stop()


async def _game(address: str, players: int = 2, seed: int = 5) -> str:
    async with open_channel(address) as channel:
        reply = await stub_for(channel).CreateGame(
            gs.CreateGameRequest(options=gp.GameOptions(player_count=players, seed=seed))
        )
    return str(reply.game_id)


@pytest.mark.parametrize("transport", ["session", "unary"])
async def test_bots_finish_a_game_through_resets(
    running: RunningServer, proxy: ResettingProxy, transport: str
) -> None:
    game_id = await _game(proxy.address)
    results = await asyncio.wait_for(
        asyncio.gather(
            *(
                play_seat(proxy.address, game_id, RandomBot(), seat=s, rng=random.Random(s),
                          transport=transport)
                for s in range(2)
            )
        ),
        240,
    )  # fmt: skip
    assert {r.status for r in results} == {"FINISHED"}
    assert proxy.resets > 0
    if transport == "unary":
        assert proxy.lost_answers > 0
    game = running.games.get(game_id)
    assert sum(r.decisions for r in results) <= game.version  # nothing applied twice


async def test_follow_gets_every_event_once_through_resets(
    running: RunningServer, proxy: ResettingProxy
) -> None:
    game_id = await _game(f"127.0.0.1:{running.port}")
    seen: list[int] = []

    async def watch() -> None:
        async with open_channel(proxy.address) as channel:
            async for message in follow(stub_for(channel), game_id, from_sequence=1):
                if message.HasField("event"):
                    seen.append(message.sequence)

    watcher = asyncio.create_task(watch())
    address = f"127.0.0.1:{running.port}"  # the bots straight to the server
    await asyncio.wait_for(
        asyncio.gather(
            *(
                play_seat(address, game_id, RandomBot(), seat=s, rng=random.Random(s))
                for s in (0, 1)
            )
        ),
        240,
    )
    await asyncio.wait_for(watcher, 60)
    last = running.games.get(game_id).last_sequence
    assert seen == list(range(1, last + 1))
    assert proxy.resets > 0


async def _cli(address: str, *argv: str) -> tuple[int, str, str]:
    out, out_buf = text_console()
    err, err_buf = text_console()
    code = await amain(["--server", address, *argv], out=out, err=err)
    return code, out_buf.getvalue(), err_buf.getvalue()


async def test_the_cli_watch_and_bots_ride_out_resets(
    running: RunningServer, proxy: ResettingProxy, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("YGGDRASIL_TOKEN_FILE", str(tmp_path / "tokens.json"))
    game_id = await _game(proxy.address)
    watch = asyncio.create_task(_cli(proxy.address, "watch", game_id, "--log"))
    bots = [
        _cli(proxy.address, "bot", game_id, "--seat", str(s), "--rng-seed", str(s)) for s in (0, 1)
    ]
    results = await asyncio.wait_for(asyncio.gather(*bots), 240)
    assert [code for code, _, _ in results] == [0, 0], results
    code, out, err = await asyncio.wait_for(watch, 60)
    assert code == 0, err
    assert running.games.get(game_id).status.name == "FINISHED"
    assert "game over" in out.lower() or "winner" in out.lower(), out[-500:]
    assert proxy.resets > 0


async def test_follow_rides_out_an_outage_longer_than_a_few_retries(
    start_server_at: Any, tmp_path: Path
) -> None:
    """A node that dies takes the lease TTL plus a takeover to come back (seconds); five quick
    reconnects (about 4.5 s) gave up before."""
    first: RunningServer = await start_server_at(0, tmp_path)
    port = first.port
    game_id = await _game(f"127.0.0.1:{port}")
    async with open_channel(f"127.0.0.1:{port}") as channel:
        tokens = []
        for seat in range(2):
            reply = await stub_for(channel).JoinGame(gs.JoinGameRequest(game_id=game_id, seat=seat))
            tokens.append(reply.seat_token)
    messages: list[gs.WatchGameResponse] = []

    async def watch() -> None:
        async with open_channel(f"127.0.0.1:{port}") as channel:
            async for message in follow(stub_for(channel), game_id):
                messages.append(message)

    watcher = asyncio.create_task(watch())
    while not messages:
        await asyncio.sleep(0.05)
    await first.shutdown(0)
    await asyncio.sleep(9.0)  # down for longer than five quick reconnects
    assert not watcher.done(), watcher
    second: RunningServer = await start_server_at(port, tmp_path)
    try:
        address = f"127.0.0.1:{port}"
        await asyncio.wait_for(
            asyncio.gather(
                *(play_seat(address, game_id, RandomBot(), token=tokens[s], rng=random.Random(s))
                  for s in (0, 1))
            ),
            240,
        )  # fmt: skip
        await asyncio.wait_for(watcher, 60)
        assert messages[-1].event.WhichOneof("payload") == "game_ended"
    finally:
        await second.shutdown(0)


class _QuietThenReset:
    """A WatchGame stub: the first stream sends a view, stays quiet (a game where nobody moves
    for a while) and is then reset; the next one sends the game's end."""

    def __init__(self, quiet_s: float) -> None:
        self.quiet_s = quiet_s
        self.opened = 0

    def WatchGame(self, request: gs.WatchGameRequest) -> Any:
        self.opened += 1
        return _Call(self.opened, self.quiet_s)


class _Call:
    def __init__(self, n: int, quiet_s: float) -> None:
        self.n = n
        self.quiet_s = quiet_s

    def cancel(self) -> None:
        pass

    async def __aiter__(self) -> AsyncIterator[gs.WatchGameResponse]:
        if self.n == 1:
            yield gs.WatchGameResponse(sequence=3, view=gp.View(last_sequence=3))
            await asyncio.sleep(self.quiet_s)
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.INTERNAL, grpc.aio.Metadata(), grpc.aio.Metadata(),
                "Received RST_STREAM with error code 2",
            )  # fmt: skip
        yield gs.WatchGameResponse(
            sequence=4, event=gp.Event(sequence=4, game_ended=gp.GameEnded())
        )


async def test_a_quiet_game_is_no_failure_to_follow() -> None:
    """Patience runs from the first failure of a streak, not from the last message: a stream
    that was quiet longer than the patience and then reset is resumed."""
    stub = _QuietThenReset(quiet_s=0.3)
    got = [m async for m in follow(stub, "g", patience_s=0.2, backoff_s=0.01)]
    assert [m.sequence for m in got] == [3, 4] and stub.opened == 2
