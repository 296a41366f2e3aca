"""``python -m server`` killed with SIGKILL comes back with its games (the quick version of
the chaos test, run by default)."""

from __future__ import annotations

import random
from pathlib import Path

from durable_support import Server, join_all, next_request, play, spectator

from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


async def test_sigkill_and_restart_keep_games_tokens_and_idempotency(tmp_path: Path) -> None:
    server = Server(tmp_path)
    await server.start()
    try:
        assert (tmp_path / "games.sqlite3").exists()
        created = await server.stub.CreateGame(
            gs.CreateGameRequest(options=gp.GameOptions(player_count=2, seed=77))
        )
        game_id = created.game_id
        tokens = await join_all(server.stub, game_id, 2)
        rng = random.Random(77)
        await play(server.stub, game_id, tokens, rng, 10)
        request = await next_request(server.stub, game_id, tokens, rng, key="last")
        assert request is not None
        first = await server.stub.SubmitAction(request)  # acknowledged: then the crash
        before = await spectator(server.stub, game_id)
        await server.kill()
        await server.start()
        assert await spectator(server.stub, game_id) == before
        again = await server.stub.SubmitAction(request)
        assert again.duplicate and again.state_version == first.state_version
        assert list(again.events) == list(first.events)
        await play(server.stub, game_id, tokens, rng)
        result = await server.stub.GetResult(gs.GetResultRequest(game_id=game_id))
        assert len(result.result.seats) == 2
    finally:
        if server.up.is_set():
            await server.stop()
