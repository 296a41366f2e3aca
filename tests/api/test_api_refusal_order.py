"""What a refused SubmitAction says when several things are wrong at once (the order the
SubmitAction comment in proto/yggdrasil/v1/game_service.proto documents), and that its
VersionMismatch lists the awaited seats exactly as the views do."""

from __future__ import annotations

import random
from typing import Any

import grpc
import grpc.aio
from api_support import Stub, create_game, join_all, seat_view, spectator_view, version_mismatch

from engine.blood_rage import flow
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

SC = grpc.StatusCode
Reason = gp.VersionMismatch


async def _refusal(call: Any) -> grpc.aio.AioRpcError:
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error
    raise AssertionError("the call was not refused")


async def _reason(call: Any) -> int:
    error = await _refusal(call)
    assert error.code() == SC.FAILED_PRECONDITION, error
    mismatch = version_mismatch(error)
    assert mismatch is not None
    return int(mismatch.reason)


async def test_the_first_applicable_refusal_wins(stub: Stub) -> None:
    game_id = await create_game(stub, 3, seed=5)
    # A game still OPEN: NOT_IN_PROGRESS beats a stale version and an impossible index.
    token = (await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=0))).seat_token
    request = gs.SubmitActionRequest(
        game_id=game_id, seat_token=token, legal_index=999, state_version=7
    )
    assert await _reason(stub.SubmitAction(request)) == Reason.REASON_NOT_IN_PROGRESS
    tokens = [token]
    for seat in (1, 2):
        reply = await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=seat))
        tokens.append(reply.seat_token)

    def submit(seat: int, **fields: Any) -> Any:
        token = tokens[seat] if seat >= 0 else "no-such-token"
        return stub.SubmitAction(
            gs.SubmitActionRequest(
                game_id=fields.pop("game_id", game_id), seat_token=token, **fields
            )
        )

    # Draft: every seat picks at version 0; seat 0 picks once (with an idempotency key).
    first = await submit(0, legal_index=0, state_version=0, idempotency_key="pick-1")
    version = int(first.state_version)
    await submit(1, legal_index=0, state_version=version)
    await submit(2, legal_index=0, state_version=version + 1)  # the round ends: packs pass
    version = int((await spectator_view(stub, game_id)).state_version)
    assert version == 3

    # NOT_FOUND beats a wrong token; PERMISSION_DENIED beats a request with no choice.
    assert (await _refusal(submit(-1, game_id="nope"))).code() == SC.NOT_FOUND
    assert (await _refusal(submit(-1))).code() == SC.PERMISSION_DENIED
    # The request's shape beats the game's state: no choice, a key too long, a bad action.
    assert (await _refusal(submit(0, state_version=0))).code() == SC.INVALID_ARGUMENT
    long_key = "k" * 129
    error = await _refusal(submit(0, legal_index=0, state_version=0, idempotency_key=long_key))
    assert error.code() == SC.INVALID_ARGUMENT and "idempotency_key" in (error.details() or "")
    # A known idempotency key beats staleness: the first answer again, nothing applied...
    again = await submit(0, legal_index=0, state_version=0, idempotency_key="pick-1")
    assert again.duplicate and again.state_version == first.state_version
    # ... unless the request differs.
    error = await _refusal(submit(0, legal_index=1, state_version=0, idempotency_key="pick-1"))
    assert error.code() == SC.INVALID_ARGUMENT
    # STALE_VERSION beats NOT_AWAITED and a legal_index out of range: a version from before
    # this round (the round started at 3).
    for seat in range(3):
        request = {"legal_index": 999, "state_version": 1}
        assert await _reason(submit(seat, **request)) == Reason.REASON_STALE_VERSION
    # Seat 0 commits; then NOT_AWAITED beats its legal_index out of range.
    await submit(0, legal_index=0, state_version=version)
    assert await _reason(submit(0, legal_index=999, state_version=version + 1)) == (
        Reason.REASON_NOT_AWAITED
    )
    # Only then is the choice itself judged.
    error = await _refusal(submit(1, legal_index=999, state_version=version + 1))
    assert error.code() == SC.INVALID_ARGUMENT and "out of range" in (error.details() or "")
    assert (await spectator_view(stub, game_id)).state_version == version + 1


async def test_refusals_list_the_awaited_seats_as_the_views_do(
    running: RunningServer, stub: Stub
) -> None:
    """In a battle the engine awaits the participants in the battle's order (e.g. [2, 0, 1]);
    the views list them by seat, and so must a refusal's VersionMismatch."""
    rng = random.Random(3)
    game_id = await create_game(stub, 4, seed=3)
    tokens = await join_all(stub, game_id, 4)
    game = running.games.get(game_id)
    unordered = 0
    compared = 0
    while game.status.name == "IN_PROGRESS" and unordered < 3:
        waiting = flow.awaiting(game.state)
        view = await spectator_view(stub, game_id)
        # A seat that is not awaited, or a stale version: either way a VersionMismatch.
        idle = [s for s in range(4) if s not in waiting]
        seat = idle[0] if idle else waiting[0]
        version = int(view.state_version) if idle else int(view.state_version) + 1
        error = await _refusal(
            stub.SubmitAction(
                gs.SubmitActionRequest(
                    game_id=game_id, seat_token=tokens[seat], legal_index=0, state_version=version
                )
            )
        )
        mismatch = version_mismatch(error)
        assert mismatch is not None
        assert list(mismatch.awaiting_seats) == list(view.awaiting_seats)
        assert list(mismatch.committed_seats) == list(view.committed_seats)
        assert list(view.awaiting_seats) == sorted(view.awaiting_seats)
        compared += 1
        if waiting != sorted(waiting):
            unordered += 1
        actor = rng.choice([s for s in waiting if s not in view.committed_seats])
        own = await seat_view(stub, game_id, tokens[actor])
        await stub.SubmitAction(
            gs.SubmitActionRequest(
                game_id=game_id,
                seat_token=tokens[actor],
                legal_index=rng.randrange(len(own.legal_actions)),
                state_version=own.state_version,
            )
        )
    assert unordered == 3, f"no step awaited seats out of seat order in {compared} steps"
