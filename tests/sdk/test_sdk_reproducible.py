"""Two seeded bots over PlaySession play the same game every time: no decision is refused as
stale and no seat is asked twice for one decision (a 2-player draft used to refuse a pick made
while the other seat picked, and the bot chose again with its random generator)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc.aio

from clients.bots.base import RandomBot
from clients.sdk import play_seat
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc


class _CountingBot(RandomBot):
    def __init__(self) -> None:
        self.asked = 0

    def choose(self, view: dict[str, Any], rng: random.Random) -> int:
        self.asked += 1
        return super().choose(view, rng)


async def _play(running: RunningServer) -> tuple[list[list[int]], list[int]]:
    """Each seat's decisions, in order, and the final scores, of one seeded 2-player game."""
    address = f"127.0.0.1:{running.port}"
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        options = gp.GameOptions(player_count=2, seed=17)
        game_id = (await stub.CreateGame(gs.CreateGameRequest(options=options))).game_id
    bots = [_CountingBot(), _CountingBot()]
    results = await asyncio.gather(
        *(play_seat(address, game_id, bots[s], seat=s, rng=random.Random(s)) for s in range(2))
    )
    log = running.games.get(game_id).log  # a list, or a compact one once the game is over
    by_seat: list[list[int]] = [[], []]
    for entry in log[: len(log)]:
        assert not entry.by_timeout
        by_seat[entry.seat].append(entry.code)
    for seat, result in enumerate(results):
        assert result.status == "FINISHED"
        assert result.stale == 0
        assert bots[seat].asked == result.decisions == len(by_seat[seat])
    return by_seat, list(results[0].scores)


async def test_a_seeded_two_player_game_over_sessions_is_the_same_game_every_time(
    running: RunningServer,
) -> None:
    first = await _play(running)
    second = await _play(running)
    assert first == second
