"""The disk fills up under load: every decision that cannot be logged is refused with
UNAVAILABLE and changes nothing; the SDK's seats retry, and once there is room again every
game finishes. After a SIGKILL and a restart, each game's log holds exactly the decisions its
seats were told succeeded, and replays to the recorded result.

A real full disk, not a store told to fail: the data directory is a tmpfs mounted small and
grown while the games wait (mounting needs root, as `make chaos` has on the project's
machines).
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from durable_support import Server

from clients.bots.base import RandomBot
from clients.sdk import play_seat
from protocol.replay_json import replay_from_response, verify_replay
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

pytestmark = pytest.mark.chaos

GAMES = 8
PLAYERS = 3
SMALL_KIB = 600  # full a few seconds into the games
LARGE_KIB = 64 * 1024


@contextmanager
def small_tmpfs(path: Path, kib: int) -> Iterator[None]:
    path.mkdir()
    try:
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", str(path)],
            check=True,
            capture_output=True,
            text=True,
        )
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        pytest.fail(f"this test mounts a small tmpfs, which needs root: {e}")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _free_bytes(path: Path) -> int:
    stats = os.statvfs(path)
    return stats.f_bavail * stats.f_frsize


async def _fill_then_grow(data: Path, full_for_s: float) -> float:
    """Wait until the disk is full, keep it full for ``full_for_s``, then grow it. Returns
    how long the games ran before the disk filled."""
    started = asyncio.get_running_loop().time()
    while _free_bytes(data) > 8 * 1024:
        if asyncio.get_running_loop().time() - started > 60:
            raise AssertionError("the games never filled the disk: make it smaller")
        await asyncio.sleep(0.05)
    filled_after = asyncio.get_running_loop().time() - started
    await asyncio.sleep(full_for_s)
    subprocess.run(["mount", "-o", f"remount,size={LARGE_KIB}k", str(data)], check=True)
    return filled_after


async def test_a_full_disk_refuses_decisions_and_loses_none(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with small_tmpfs(data, SMALL_KIB):
        server = Server(data)
        await server.start()
        try:
            ids = []
            for seed in range(GAMES):
                options = gp.GameOptions(player_count=PLAYERS, seed=seed)
                reply = await server.stub.CreateGame(gs.CreateGameRequest(options=options))
                ids.append(reply.game_id)
            filled_after, *results = await asyncio.wait_for(
                asyncio.gather(
                    _fill_then_grow(data, full_for_s=2.0),
                    *(
                        play_seat(server.address, g, RandomBot(), seat=s, rng=random.Random(s))
                        for g in ids
                        for s in range(PLAYERS)
                    ),
                ),
                timeout=180,
            )
            assert filled_after > 0
            # The seats met refusals while the disk was full, and took their decisions again
            # (in-band on their PlaySession streams).
            assert sum(r.retried for r in results) > 0
            assert all(r.status == "FINISHED" for r in results)

            await server.kill()
            await server.start()
            told = Counter((r.game_id, r.seat) for r in results for _ in range(r.decisions))
            for game_id in ids:
                replay = await server.stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
                check = verify_replay(replay_from_response(replay, game_id))
                assert check.ok, (game_id, check.problems)
                logged = Counter((game_id, step.seat) for step in replay.steps)
                assert all(not step.by_timeout for step in replay.steps)
                for seat in range(PLAYERS):
                    assert logged[(game_id, seat)] == told[(game_id, seat)], (game_id, seat)
        finally:
            await server.stop()
