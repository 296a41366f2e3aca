"""Private games across a cluster (issue 27, point 2): a game made unlisted, with seats reserved
for an API key and behind a join code, on one node. On another node, a stranger neither sees it
in ListGames (the cluster lists from the store) nor takes a reserved seat (the join is relayed
to the owner, which refuses it); the players it is for do both. After the owner stops and
another node takes the game over, its access holds: it comes from the store."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import grpc
from cluster_support import start_node

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "api"))
from private_support import (
    Caller,
    keys_file,
    listed_ids,
    private_request,
    refused,
)

from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


async def test_strangers_neither_see_nor_join_a_private_game_on_any_node(
    pg_url: str, tmp_path: Path
) -> None:
    keys = keys_file(tmp_path / "keys.toml")
    settings = {"api_keys": keys, "anonymous_quota": "unlimited"}
    a = await start_node(pg_url, **settings)
    b = await start_node(pg_url, **settings)
    on_a = {who: Caller(f"127.0.0.1:{a.running.port}", who) for who in ("alice", "bob")}
    on_b = {
        who: Caller(f"127.0.0.1:{b.running.port}", who) for who in ("bob", "mallory", "lead", None)
    }
    stopped: list[object] = []
    try:
        created = await on_a["alice"].stub.CreateGame(private_request(keys={0: "bob"}, codes=(2,)))
        game_id, code = created.game_id, created.join_codes[0].join_code
        assert game_id in a.running.games.games  # a owns it; b only knows the store
        for who, sees in {"bob": True, "lead": True, "mallory": False, None: False}.items():
            assert (game_id in await listed_ids(on_b[who])) is sees, who
        # a stranger on b: every way into a reserved seat is refused by the owner
        mallory = on_b["mallory"].stub
        for request in (
            gs.JoinGameRequest(game_id=game_id, seat=0),
            gs.JoinGameRequest(game_id=game_id, seat=2),
            gs.JoinGameRequest(game_id=game_id, join_code="z" * 22),
        ):
            error = await refused(mallory.JoinGame, request)
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED, request
        assert a.running.games.games[game_id].claimed() == [False, False, False]
        taken = await mallory.JoinGame(gs.JoinGameRequest(game_id=game_id))
        assert taken.seat == 1  # the one seat nobody reserved

        # the owner stops; b takes the game over from the store, access and all
        for caller in on_a.values():
            await caller.close()
        await a.stop()
        stopped.append(a)
        # (the first call may find the old owner gone: UNAVAILABLE, retried as clients do)
        for _ in range(50):
            error = await refused(mallory.JoinGame, gs.JoinGameRequest(game_id=game_id, seat=0))
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                break
            await asyncio.sleep(0.1)
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        assert game_id in b.running.games.games
        assert game_id not in await listed_ids(on_b["mallory"])
        friend = await on_b[None].stub.JoinGame(
            gs.JoinGameRequest(game_id=game_id, join_code=code)
        )
        assert friend.seat == 2
        bob = await on_b["bob"].stub.JoinGame(gs.JoinGameRequest(game_id=game_id))
        assert bob.seat == 0 and bob.game.status == gp.GAME_STATUS_IN_PROGRESS
        assert [s.reserved for s in bob.game.seats] == [True, False, True]
    finally:
        for caller in (*on_a.values(), *on_b.values()):
            await caller.close()
        await b.stop()
        if a not in stopped:
            await a.stop()
