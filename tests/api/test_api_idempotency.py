"""Idempotent SubmitAction: concurrent duplicates apply once; a reused key must match."""

from __future__ import annotations

import asyncio

import grpc
import grpc.aio
import pytest
from api_support import Stub, create_game, join_all, seat_view

from server.api.service import MAX_IDEMPOTENCY_KEY_LENGTH
from server.main import RunningServer
from yggdrasil.v1 import game_service_pb2 as gs


async def test_concurrent_duplicates_apply_once(running: RunningServer, stub: Stub) -> None:
    game_id = await create_game(stub, 3, seed=21)
    tokens = await join_all(stub, game_id, 3)
    view = await seat_view(stub, game_id, tokens[0])
    request = gs.SubmitActionRequest(
        game_id=game_id,
        seat_token=tokens[0],
        action=view.legal_actions[2].action,
        state_version=view.state_version,
        idempotency_key="same-key",
    )
    replies = await asyncio.gather(*(stub.SubmitAction(request) for _ in range(12)))
    game = running.games.get(game_id)
    assert len(game.log) == 1 and game.version == view.state_version + 1
    assert sorted(r.duplicate for r in replies) == [False] + [True] * 11
    first = next(r for r in replies if not r.duplicate)
    for reply in replies:
        assert reply.state_version == first.state_version
        assert list(reply.events) == list(first.events)
    # The pick is in the hand once.
    picked = view.legal_actions[2].action.blood_rage.draft_pick.card
    hand = (await seat_view(stub, game_id, tokens[0])).blood_rage.own.hand
    assert [c.instance for c in hand] == [picked]

    # A later retry still gets the first answer, even with the game moved on.
    other = await seat_view(stub, game_id, tokens[1])
    await stub.SubmitAction(
        gs.SubmitActionRequest(
            game_id=game_id, seat_token=tokens[1], legal_index=0, state_version=other.state_version
        )
    )
    late = await stub.SubmitAction(request)
    assert late.duplicate and late.state_version == first.state_version
    assert len(running.games.get(game_id).log) == 2


async def test_reused_key_with_another_request_is_refused(
    running: RunningServer, stub: Stub
) -> None:
    game_id = await create_game(stub, 2, seed=22)
    tokens = await join_all(stub, game_id, 2)
    view = await seat_view(stub, game_id, tokens[0])
    base = gs.SubmitActionRequest(
        game_id=game_id, seat_token=tokens[0], legal_index=0, state_version=0, idempotency_key="k"
    )
    await stub.SubmitAction(base)
    changed = gs.SubmitActionRequest()
    changed.CopyFrom(base)
    changed.legal_index = 1
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.SubmitAction(changed)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert len(running.games.get(game_id).log) == 1
    # Keys are per seat: the other seat may use the same key for its own decision.
    other = gs.SubmitActionRequest(
        game_id=game_id, seat_token=tokens[1], legal_index=0, state_version=1, idempotency_key="k"
    )
    reply = await stub.SubmitAction(other)
    assert not reply.duplicate
    assert view.legal_actions  # (the first view was a real decision)


async def test_an_overlong_key_is_refused_and_changes_nothing(
    running: RunningServer, stub: Stub
) -> None:
    game_id = await create_game(stub, 2, seed=23)
    tokens = await join_all(stub, game_id, 2)
    request = gs.SubmitActionRequest(
        game_id=game_id,
        seat_token=tokens[0],
        legal_index=0,
        state_version=0,
        idempotency_key="k" * (MAX_IDEMPOTENCY_KEY_LENGTH + 1),
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.SubmitAction(request)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "idempotency_key is at most 128 characters" in (caught.value.details() or "")
    assert not running.games.get(game_id).log
    request.idempotency_key = "k" * MAX_IDEMPOTENCY_KEY_LENGTH
    reply = await stub.SubmitAction(request)
    assert reply.state_version == 1 and not reply.duplicate


async def test_answers_keep_no_view_and_a_retry_gets_the_same_view_again(
    running: RunningServer, stub: Stub
) -> None:
    # A view per kept answer cost megabytes a game: only the version is kept, and a retry's
    # view is made again, equal to the first answer's.
    game_id = await create_game(stub, 2, seed=22)
    tokens = await join_all(stub, game_id, 2)
    view = await seat_view(stub, game_id, tokens[0])
    request = gs.SubmitActionRequest(
        game_id=game_id,
        seat_token=tokens[0],
        legal_index=0,
        state_version=view.state_version,
        idempotency_key="with-view",
        include_view=True,
    )
    first = await stub.SubmitAction(request)
    assert first.HasField("view") and not first.duplicate
    other = await seat_view(stub, game_id, tokens[1])
    await stub.SubmitAction(
        gs.SubmitActionRequest(
            game_id=game_id, seat_token=tokens[1], legal_index=0, state_version=other.state_version
        )
    )
    kept = running.games.get(game_id).answers.kept
    assert kept and all(a.view is None and a.events == () for _, a in kept.values())
    again = await stub.SubmitAction(request)
    assert again.duplicate and again.view == first.view
    assert list(again.events) == list(first.events)
