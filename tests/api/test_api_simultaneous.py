"""A simultaneous step: the others' secret choices never make a seat's decision stale; the
seat's own choice does (its options changed)."""

from __future__ import annotations

import grpc
import grpc.aio
import pytest
from api_support import Stub, create_game, join_all, seat_view, version_mismatch

from protocol.blood_rage import actions as br_actions
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


def _pick(game_id: str, token: str, index: int, version: int) -> gs.SubmitActionRequest:
    return gs.SubmitActionRequest(
        game_id=game_id, seat_token=token, legal_index=index, state_version=version
    )


async def test_a_two_player_draft_pick_is_not_stale_after_the_other_seats_pick(
    running: RunningServer, stub: Stub
) -> None:
    """A 2-player draft round takes two picks of each seat, in secret: seat 0 staying awaited
    after its first pick used to end the round for seat 1, whose pick made on the same view
    was refused as stale (three times a round in every 2-player game)."""
    game_id = await create_game(stub, 2, seed=5)
    tokens = await join_all(stub, game_id, 2)
    views = [await seat_view(stub, game_id, token) for token in tokens]
    start = views[0].state_version
    assert views[1].state_version == start
    assert all(v.legal_actions for v in views)
    last = len(views[1].legal_actions) - 1

    first = await stub.SubmitAction(_pick(game_id, tokens[0], 0, start))
    assert first.state_version == start + 1
    # Seat 0 is still awaited (its second pick), and so is seat 1, on the view it had.
    picked = await stub.SubmitAction(_pick(game_id, tokens[1], last, start))
    assert picked.state_version == start + 2
    entry = running.games.get(game_id).log[-1]  # the card its view offered at that index
    assert entry.seat == 1
    assert entry.code == br_actions.action_from_pb(views[1].legal_actions[last].action).code()

    # A seat's own choice changes its options: its decisions from before it are stale.
    for seat in (0, 1):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.SubmitAction(_pick(game_id, tokens[seat], 0, start))
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        mismatch = version_mismatch(refused.value)
        assert mismatch is not None and mismatch.current_state_version == start + 2
    # From its own last choice on, the others' choices do not make it stale either.
    second = await stub.SubmitAction(_pick(game_id, tokens[0], 0, start + 1))
    assert second.state_version == start + 3
    again = await stub.SubmitAction(_pick(game_id, tokens[1], 0, start + 2))
    assert again.state_version == start + 4
    view = await seat_view(stub, game_id, tokens[0])
    assert view.status == gp.GAME_STATUS_IN_PROGRESS
    assert view.state_version == start + 4
