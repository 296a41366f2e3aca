"""The remote seat plays over PlaySession against a live server and sees what the local
environments show: at every one of its decisions, its observation and mask equal those of
the same position replayed locally from the server's log (so its mask is the server's legal
list), and a policy bot plays whole games through the SDK and the command line."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc.aio
import numpy as np
import pytest

from clients.bots.base import RandomBot
from clients.sdk import play_seat
from envs.games import spec
from envs.remote import PolicyBot, RemoteSeat, main, random_policy
from envs.table import Table
from protocol.replay_json import replay_from_response
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc


async def _create(address: str, players: int, seed: int) -> str:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        reply = await stub.CreateGame(
            gs.CreateGameRequest(options=gp.GameOptions(player_count=players, seed=seed))
        )
        return str(reply.game_id)


async def _replay(address: str, game_id: str) -> list[tuple[int, int]]:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        reply = await stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
    document = replay_from_response(reply, game_id)
    return [(int(step["seat"]), int(step["code"])) for step in document["actions"]]


def _play_remotely(
    address: str, game_id: str
) -> tuple[list[dict[str, Any]], float, dict[str, Any]]:
    """Seat 0 through RemoteSeat with a random policy; every decision's version, obs, mask."""
    seat = RemoteSeat(address, game_id, seat=0, reward="rank", timeout_s=120)
    policy = random_policy(0)
    seen = []
    obs, info = seat.reset()
    try:
        while True:
            seen.append({"version": info["state_version"], **obs})
            obs, reward, terminated, truncated, info = seat.step(policy(obs))
            assert not truncated
            if terminated:
                return seen, reward, info
    finally:
        seat.close()


async def test_the_remote_seat_sees_what_the_local_environment_shows(
    running: RunningServer,
) -> None:
    address = f"127.0.0.1:{running.port}"
    game_id = await _create(address, 4, seed=17)
    remote = asyncio.create_task(asyncio.to_thread(_play_remotely, address, game_id))
    others = [
        play_seat(address, game_id, RandomBot(), seat=s, rng=random.Random(s)) for s in (1, 2, 3)
    ]
    results = await asyncio.wait_for(asyncio.gather(*others), timeout=300)
    seen, reward, info = await asyncio.wait_for(remote, timeout=60)
    assert info["status"] == "FINISHED" and info["scores"] == results[0].scores
    assert reward == pytest.approx((4 - results[0].ranks[0]) / 3)
    assert len(seen) > 20

    # The same game, replayed locally from the server's log.
    g = spec("blood_rage")
    table = Table(g, 4)
    table.start(17)
    by_version = {entry["version"]: entry for entry in seen}
    compared = 0
    for seat, code in await _replay(address, game_id):
        entry = by_version.get(table.state.version)
        if entry is not None and 0 in table.awaiting():
            assert np.array_equal(entry["observation"], table.observe(0))
            assert np.array_equal(entry["action_mask"], table.mask(0))
            compared += 1
        table.play(seat, g.encoding.action_index(g.rules.action_from_code(code)))
    assert table.result() is not None
    assert compared == len(seen)


async def test_a_policy_bot_plays_a_seat_through_the_sdk(running: RunningServer) -> None:
    address = f"127.0.0.1:{running.port}"
    game_id = await _create(address, 3, seed=8)
    chosen: list[int] = []

    def policy(obs: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        assert obs["observation"].shape == (spec().encoding.layout(3).size,)
        chosen.append(int(legal[-1]))
        return int(legal[-1])

    seats = [
        play_seat(address, game_id, PolicyBot(policy), seat=0),
        play_seat(address, game_id, RandomBot(), seat=1, rng=random.Random(1)),
        play_seat(address, game_id, RandomBot(), seat=2, rng=random.Random(2)),
    ]
    results = await asyncio.wait_for(asyncio.gather(*seats), timeout=300)
    assert results[0].status == "FINISHED" and results[0].decisions == len(chosen) > 10


async def test_the_command_line_plays_a_seat_with_a_policy(running: RunningServer) -> None:
    address = f"127.0.0.1:{running.port}"
    game_id = await _create(address, 2, seed=4)
    other = play_seat(address, game_id, RandomBot(), seat=1, rng=random.Random(1))
    mine = asyncio.to_thread(
        main, ["--server", address, "--game", game_id, "--seat", "0", "--policy", "random"]
    )
    code, result = await asyncio.wait_for(asyncio.gather(mine, other), timeout=300)
    assert code == 0 and result.status == "FINISHED"


def test_a_policy_that_leaves_the_mask_is_refused() -> None:
    bot = PolicyBot(lambda obs: int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    g = spec()
    state = g.rules.new_game(g.rules.options(2, 1, {}))
    view = g.rules.view(state, 0, include_state=True)
    with pytest.raises(ValueError, match="not in the seat's mask"):
        bot.choose(view, random.Random(0))
