"""ListGames lists finished games after they leave memory and after a restart, paged from the
store in one creation order with the hosted games; a page token stays good across a restart."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import grpc.aio
from durable_support import Stub, create_game, join_all, play, start, stub_for
from rich.console import Console

from clients.cli import amain
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

FINISHED = gp.GAME_STATUS_FINISHED
_TOKEN = re.compile(r"p[0-9]{1,18}")


async def _walk(stub: Stub, status: int = 0, size: int = 2) -> tuple[list[str], list[str]]:
    """Every page in turn: (game ids listed, page tokens handed out)."""
    ids: list[str] = []
    tokens: list[str] = []
    token = ""
    for _ in range(100):
        page = await stub.ListGames(
            gs.ListGamesRequest(status=status, page_size=size, page_token=token)  # type: ignore[arg-type]
        )
        assert len(page.games) <= size
        ids += [g.game_id for g in page.games]
        token = page.next_page_token
        if not token:
            return ids, tokens
        assert _TOKEN.fullmatch(token), token
        tokens.append(token)
    raise AssertionError("ListGames never ends")


async def _cli(address: str, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = await amain(
        ["--server", address, *argv],
        out=Console(file=out, width=120, color_system=None),
        err=Console(file=err, width=120, color_system=None),
    )
    return code, out.getvalue(), err.getvalue()


async def _summaries(stub: Stub) -> dict[str, gp.GameSummary]:
    page = await stub.ListGames(gs.ListGamesRequest(page_size=500))
    return {g.game_id: g for g in page.games}


async def test_finished_games_are_listed_from_memory_store_and_after_a_restart(
    tmp_path: Path,
) -> None:
    running: RunningServer = await start(tmp_path)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            ids: list[str] = []  # in creation order
            tokens: dict[str, list[str]] = {}
            for i in range(7):
                ids.append(await create_game(stub, 2, seed=60 + i))
                if i in (0, 2, 3, 4, 5):
                    tokens[ids[i]] = await join_all(stub, ids[i], 2)  # 1 and 6 stay open
            finished = [ids[i] for i in (0, 2, 3, 5)]
            for game_id in finished[:2]:
                await play(stub, game_id, tokens[game_id], random.Random(game_id))
            evicted_summaries = await _summaries(stub)
            assert running.games.sweep(now=float("inf")) == 2  # 0 and 2 leave memory
            for game_id in finished[2:]:  # 3 and 5 finish later: still hosted
                await play(stub, game_id, tokens[game_id], random.Random(game_id))
            assert set(running.games.games) == set(ids) - set(finished[:2])
            listed, _ = await _walk(stub)
            assert listed == ids[::-1]
            assert (await _walk(stub, FINISHED))[0] == finished[::-1]
            hosted_summaries = await _summaries(stub)
            for game_id in finished[:2]:  # the store says what memory said
                assert hosted_summaries[game_id] == evicted_summaries[game_id]
            _, before_restart = await _walk(stub, size=3)
    finally:
        await running.shutdown(0)

    running = await start(tmp_path)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            assert set(running.games.games) == {ids[1], ids[4], ids[6]}  # unfinished only
            assert (await _walk(stub))[0] == ids[::-1]
            assert (await _walk(stub, FINISHED, size=1))[0] == finished[::-1]
            assert await _summaries(stub) == hosted_summaries
            # A token handed out before the restart goes on where it was.
            page = await stub.ListGames(
                gs.ListGamesRequest(page_size=3, page_token=before_restart[0])
            )
            assert [g.game_id for g in page.games] == ids[::-1][3:6]
            # New games are numbered after the stored ones: listed first.
            newest = await create_game(stub, 2, seed=99)
            assert (await _walk(stub, size=4))[0] == [newest, *ids[::-1]]
            in_progress = await stub.ListGames(
                gs.ListGamesRequest(status=gp.GAME_STATUS_IN_PROGRESS)
            )
            assert [g.game_id for g in in_progress.games] == [ids[4]]
            summary = (await _summaries(stub))[finished[0]]
            assert summary.status == FINISHED and summary.options.seed == 60
            assert [(s.name, s.claimed) for s in summary.seats] == [("p0", True), ("p1", True)]
            # What a person types: `yggdrasil list --status finished`.
            code, out, err = await _cli(f"127.0.0.1:{running.port}", "list", "--status", "finished")
            assert code == 0, err
            rows = [line.split()[0] for line in out.splitlines() if "finished" in line]
            assert rows == finished[::-1]
    finally:
        await running.shutdown(0)
