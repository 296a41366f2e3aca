"""JoinGame with a client-chosen seat token: a retried join after a lost reply is safe."""

from __future__ import annotations

import secrets

import grpc
import grpc.aio
import pytest
from api_support import Stub, create_game, seat_view

from server.main import RunningServer
from yggdrasil.v1 import game_service_pb2 as gs


async def test_a_retried_join_gets_the_same_seat_back(running: RunningServer, stub: Stub) -> None:
    game_id = await create_game(stub, 3, seed=8)
    token = secrets.token_urlsafe(32)
    request = gs.JoinGameRequest(game_id=game_id, seat_token=token, player_name="ann")
    first = await stub.JoinGame(request)
    again = await stub.JoinGame(request)  # as if the first reply had been lost
    assert (first.seat, first.seat_token, first.duplicate) == (0, token, False)
    assert (again.seat, again.seat_token, again.duplicate) == (0, token, True)
    # Nothing was claimed twice: seats 1 and 2 are still free, and the token works.
    assert [s.claimed for s in again.game.seats] == [True, False, False]
    assert (await seat_view(stub, game_id, token)).viewer_seat == 0
    game = running.games.get(game_id)
    assert game.last_sequence == 1  # one SeatClaimed event, not two
    # With the seat named explicitly the retry is answered the same way.
    named = await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=0, seat_token=token))
    assert named.duplicate and named.seat == 0


async def test_a_token_holds_one_seat_only(stub: Stub) -> None:
    game_id = await create_game(stub, 3, seed=9)
    token = secrets.token_urlsafe(32)
    await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=1, seat_token=token))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=2, seat_token=token))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "already holds seat 1" in (err.value.details() or "")
    other = await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=2))
    assert other.seat == 2 and other.seat_token != token and not other.duplicate


@pytest.mark.parametrize(
    "token",
    ["short", "x" * 31, "x" * 257, "has space" + "x" * 30, "ünïcode" + "x" * 30, "a/b" + "x" * 30],
)
async def test_malformed_client_tokens_are_refused(
    running: RunningServer, stub: Stub, token: str
) -> None:
    game_id = await create_game(stub, 3, seed=10)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat_token=token))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "seat_token must be 32 to 256 characters" in (err.value.details() or "")
    assert not any(running.games.get(game_id).claimed())


async def test_a_claimed_seat_refuses_another_token(stub: Stub) -> None:
    game_id = await create_game(stub, 3, seed=11)
    await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=0))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.JoinGame(
            gs.JoinGameRequest(game_id=game_id, seat=0, seat_token=secrets.token_urlsafe(32))
        )
    assert err.value.code() == grpc.StatusCode.ALREADY_EXISTS
