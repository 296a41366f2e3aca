"""Issue 26, point 7: the seats' token hashes and the game's settings are in the hash chain.

Copying seat 0's token hash onto seat 1 went unnoticed after a restart (SQLite) and a takeover
(PostgreSQL: tests/cluster/test_cluster_attack.py): token 0 then acted as seat 1. Now the
claim rows are links of the chain (and the game row keeps its genesis hash), so such a game
is kept out of service (DATA_LOSS) and no token acts for a seat it was not given."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import grpc
import grpc.aio
import pytest
from durable_support import create_game, join_all, play, start, stub_for

from yggdrasil.v1 import game_service_pb2 as gs


def _sql(path: Path, sql: str, *args: object) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, args)
    conn.commit()
    conn.close()


async def _refused(stub: object, game_id: str, token: str) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=token))  # type: ignore[attr-defined]
    return caught.value


async def test_a_seat_token_hash_copied_to_another_seat_is_noticed_after_a_restart(
    tmp_path: Path,
) -> None:
    running = await start(tmp_path)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            playing = await create_game(stub, 2, 5)
            tokens = await join_all(stub, playing, 2)
            await play(stub, playing, tokens, random.Random(1), 6)
            opened = await create_game(stub, 3, 6)  # seats 0 and 1 claimed, no decision yet
            open_tokens = []
            for seat in (0, 1):
                reply = await stub.JoinGame(gs.JoinGameRequest(game_id=opened, seat=seat))
                open_tokens.append(str(reply.seat_token))
            untouched = await create_game(stub, 2, 7)
            kept = await join_all(stub, untouched, 2)
    finally:
        await running.shutdown(0)
    path = tmp_path / "games.sqlite3"
    for game_id in (playing, opened):
        _sql(
            path,
            "UPDATE seats SET token_hash = (SELECT token_hash FROM seats WHERE game_id = ? "
            "AND seat = 0) WHERE game_id = ? AND seat = 1",
            game_id,
            game_id,
        )
    running = await start(tmp_path)
    try:
        problems = {p.game_id: p.problem for p in running.restore.problems}
        assert set(problems) == {playing, opened}
        assert all("claim of seat 1" in text for text in problems.values())
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            for game_id, token in ((playing, tokens[0]), (opened, open_tokens[0])):
                refused = await _refused(stub, game_id, token)
                assert refused.code() == grpc.StatusCode.DATA_LOSS
            view = await stub.GetView(gs.GetViewRequest(game_id=untouched, seat_token=kept[1]))
            assert view.view.viewer_seat == 1
    finally:
        await running.shutdown(0)


async def test_changed_settings_are_noticed_before_any_seat_is_claimed(tmp_path: Path) -> None:
    running = await start(tmp_path)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            game_id = await create_game(stub_for(channel), 3, 9)
    finally:
        await running.shutdown(0)
    path = tmp_path / "games.sqlite3"
    conn = sqlite3.connect(path)
    (text,) = conn.execute(
        "SELECT settings_json FROM games WHERE game_id = ?", (game_id,)
    ).fetchone()
    conn.close()
    settings = json.loads(text)
    settings["seed"] = 12345  # a seed whose deals the tamperer knows
    _sql(
        path, "UPDATE games SET settings_json = ? WHERE game_id = ?", json.dumps(settings), game_id
    )
    running = await start(tmp_path)
    try:
        (problem,) = running.restore.problems
        assert problem.game_id == game_id and "genesis" in problem.problem
    finally:
        await running.shutdown(0)
