"""Every error class of the API; a refused request changes nothing."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import grpc.aio
import pytest
from api_support import (
    ADMIN_TOKEN,
    Stub,
    create_game,
    join_all,
    seat_view,
    spectator_view,
    version_mismatch,
)

from server.main import RunningServer
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

SC = grpc.StatusCode

# Seat 0 to act with 1 Rage and a Troll on its clan sheet (the Troll invades for 2 Rage).
POOR_TROLL = {
    "players": 2,
    "phase": "action",
    "turn": 0,
    "clans": [{"rage": 1, "upgrades": ["troll"], "hand": ["tyrs_smash"]}, {"hand": ["alfheim"]}],
}


async def _code(call: Awaitable[Any]) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


def _action(**kind: Any) -> gp.Action:
    return gp.Action(blood_rage=br.BloodRageAction(**kind))


class Snapshot:
    """Everything observable about a game, to prove a refusal changed nothing."""

    def __init__(self, running: RunningServer, stub: Stub, game_id: str) -> None:
        self.running, self.stub, self.game_id = running, stub, game_id

    async def take(self) -> tuple[object, ...]:
        game = self.running.games.get(self.game_id)
        view = await spectator_view(self.stub, self.game_id)
        return (game.state.state_hash(), game.version, game.last_sequence, len(game.log), view)


async def test_unknown_game_is_not_found(stub: Stub) -> None:
    calls: list[Callable[[], Awaitable[Any]]] = [
        lambda: stub.JoinGame(gs.JoinGameRequest(game_id="nope")),
        lambda: stub.GetView(gs.GetViewRequest(game_id="nope", spectator=gs.Spectator())),
        lambda: stub.SubmitAction(gs.SubmitActionRequest(game_id="nope", legal_index=0)),
        lambda: stub.GetResult(gs.GetResultRequest(game_id="nope")),
        lambda: stub.GetReplay(gs.GetReplayRequest(game_id="nope")),
    ]
    for call in calls:
        assert (await _code(call())).code() == SC.NOT_FOUND
    stream = stub.WatchGame(gs.WatchGameRequest(game_id="nope"))
    assert (await _code(stream.read())).code() == SC.NOT_FOUND


async def test_create_game_validation(stub: Stub) -> None:
    bad_options = [
        gp.GameOptions(player_count=6),
        gp.GameOptions(player_count=1),
        gp.GameOptions(player_count=3, seat_names=["a", "b"]),
        gp.GameOptions(player_count=3, decision_time_limit_ms=-5),
        gp.GameOptions(player_count=3, blood_rage=br.BloodRageOptions(first_player=3)),
        gp.GameOptions(player_count=3, blood_rage=br.BloodRageOptions(draft_mode=9)),  # type: ignore[arg-type]
    ]
    for options in bad_options:
        error = await _code(stub.CreateGame(gs.CreateGameRequest(options=options)))
        assert error.code() == SC.INVALID_ARGUMENT, options
    error = await _code(
        stub.CreateGame(gs.CreateGameRequest(options=gp.GameOptions(player_count=6)))
    )
    assert "2 to 5 players" in (error.details() or "")
    reply = await stub.CreateGame(gs.CreateGameRequest(options=gp.GameOptions(player_count=3)))
    assert reply.game.status == gp.GAME_STATUS_OPEN
    assert not reply.game.options.HasField("seed")  # drawn by the server, kept secret


async def test_join_errors(stub: Stub) -> None:
    game_id = await create_game(stub, 2)
    assert (await _code(stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=2)))).code() == (
        SC.INVALID_ARGUMENT
    )
    await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=1))
    error = await _code(stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=1)))
    assert error.code() == SC.ALREADY_EXISTS
    joined = await stub.JoinGame(gs.JoinGameRequest(game_id=game_id))
    assert joined.seat == 0 and joined.game.status == gp.GAME_STATUS_IN_PROGRESS
    error = await _code(stub.JoinGame(gs.JoinGameRequest(game_id=game_id)))
    assert error.code() == SC.FAILED_PRECONDITION


async def test_tokens_are_checked(stub: Stub) -> None:
    game_id = await create_game(stub, 2)
    other_id = await create_game(stub, 2)
    tokens = await join_all(stub, game_id, 2)
    other_tokens = await join_all(stub, other_id, 2)
    for token in ("", "garbage", other_tokens[0], tokens[0] + "x"):
        error = await _code(stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=token)))
        assert error.code() == SC.PERMISSION_DENIED, token
        error = await _code(
            stub.SubmitAction(
                gs.SubmitActionRequest(game_id=game_id, seat_token=token, legal_index=0)
            )
        )
        assert error.code() == SC.PERMISSION_DENIED
        stream = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, seat_token=token))
        assert (await _code(stream.read())).code() == SC.PERMISSION_DENIED
    # No viewer set: a spectator, as on WatchGame.
    neither = (await stub.GetView(gs.GetViewRequest(game_id=game_id))).view
    assert not neither.HasField("viewer_seat") and not neither.legal_actions
    assert neither == (await spectator_view(stub, game_id))
    stream = stub.WatchGame(gs.WatchGameRequest(game_id=game_id))
    assert (await stream.read()).view == neither
    stream.cancel()


async def test_refused_decisions_change_nothing(running: RunningServer, stub: Stub) -> None:
    game_id = await create_game(stub, 3, seed=3)
    snapshot = Snapshot(running, stub, game_id)

    # Not in progress yet (seat 2 unclaimed): FAILED_PRECONDITION / NOT_IN_PROGRESS.
    tokens = [
        (await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=s))).seat_token
        for s in (0, 1)
    ]
    before = await snapshot.take()
    error = await _code(
        stub.SubmitAction(
            gs.SubmitActionRequest(game_id=game_id, seat_token=tokens[0], legal_index=0)
        )
    )
    assert error.code() == SC.FAILED_PRECONDITION
    mismatch = version_mismatch(error)
    assert mismatch is not None
    assert mismatch.reason == gp.VersionMismatch.REASON_NOT_IN_PROGRESS
    assert await snapshot.take() == before
    waiting_room = await seat_view(stub, game_id, tokens[0])
    assert waiting_room.status == gp.GAME_STATUS_OPEN
    assert not waiting_room.legal_actions and not waiting_room.awaiting_seats
    tokens.append((await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=2))).seat_token)

    other_card = (await seat_view(stub, game_id, tokens[1])).blood_rage.own.draft_pack[0].instance
    # Move the game on once so that version 0 is stale.
    await stub.SubmitAction(
        gs.SubmitActionRequest(
            game_id=game_id, seat_token=tokens[0], legal_index=0, state_version=0
        )
    )
    await stub.SubmitAction(
        gs.SubmitActionRequest(
            game_id=game_id, seat_token=tokens[1], legal_index=0, state_version=1
        )
    )
    before = await snapshot.take()
    version = before[1]
    assert version == 2

    async def refused(request: gs.SubmitActionRequest) -> grpc.aio.AioRpcError:
        error = await _code(stub.SubmitAction(request))
        assert await snapshot.take() == before, request
        return error

    def submit(seat: int, **fields: Any) -> gs.SubmitActionRequest:
        return gs.SubmitActionRequest(game_id=game_id, seat_token=tokens[seat], **fields)

    # Already committed this round: not awaited.
    error = await refused(submit(0, legal_index=0, state_version=version))
    assert error.code() == SC.FAILED_PRECONDITION
    mismatch = version_mismatch(error)
    assert mismatch is not None
    assert mismatch.reason == gp.VersionMismatch.REASON_NOT_AWAITED
    assert mismatch.current_state_version == version
    # Who is awaited: as the views say, in seat order, the committed seats included.
    assert list(mismatch.awaiting_seats) == [0, 1, 2]
    assert list(mismatch.committed_seats) == [0, 1]
    now = await spectator_view(stub, game_id)
    assert list(now.awaiting_seats) == [0, 1, 2] and list(now.committed_seats) == [0, 1]

    # Stale: version 0 is from before the round's first commit... and the game moved on.
    seat2 = await seat_view(stub, game_id, tokens[2])
    stale_action = seat2.legal_actions[0].action
    error = await refused(submit(2, action=stale_action, state_version=version + 5))
    assert error.code() == SC.FAILED_PRECONDITION
    mismatch = version_mismatch(error)
    assert mismatch is not None
    assert mismatch.reason == gp.VersionMismatch.REASON_STALE_VERSION
    assert mismatch.submitted_state_version == version + 5
    assert mismatch.current_state_version == version
    assert "stale" in (error.details() or "")

    # Malformed and illegal: INVALID_ARGUMENT with the engine's words.
    error = await refused(submit(2, state_version=version))
    assert error.code() == SC.INVALID_ARGUMENT
    error = await refused(submit(2, action=_action(invade=br.Invade()), state_version=version))
    assert error.code() == SC.INVALID_ARGUMENT
    error = await refused(submit(2, legal_index=99, state_version=version))
    assert error.code() == SC.INVALID_ARGUMENT and "out of range" in (error.details() or "")
    error = await refused(
        submit(
            2,
            action=_action(invade=br.Invade(unit=br.UNIT_WARRIOR, area=br.AREA_GIMLE)),
            state_version=version,
        )
    )
    assert error.code() == SC.INVALID_ARGUMENT
    assert "invade is not possible now" in (error.details() or "")
    # Picking another seat's card: refused without saying where that card is.
    error = await refused(
        submit(2, action=_action(draft_pick=br.DraftPick(card=other_card)), state_version=version)
    )
    assert error.code() == SC.INVALID_ARGUMENT
    assert "not in your pack" in (error.details() or "")
    assert "seat" not in (error.details() or "")

    # Replays and results of an unfinished game are refused.
    error = await _code(stub.GetReplay(gs.GetReplayRequest(game_id=game_id)))
    assert error.code() == SC.FAILED_PRECONDITION
    error = await _code(stub.GetResult(gs.GetResultRequest(game_id=game_id)))
    assert error.code() == SC.FAILED_PRECONDITION
    assert await snapshot.take() == before


async def test_illegal_action_message_comes_from_the_engine(
    running: RunningServer, stub: Stub
) -> None:
    reply = await stub.CreateGame(
        gs.CreateGameRequest(scenario_json=json.dumps(POOR_TROLL), admin_token=ADMIN_TOKEN)
    )
    game_id = reply.game_id
    assert reply.game.from_scenario
    tokens = await join_all(stub, game_id, 2)
    snapshot = Snapshot(running, stub, game_id)
    before = await snapshot.take()
    request = gs.SubmitActionRequest(
        game_id=game_id,
        seat_token=tokens[0],
        action=_action(invade=br.Invade(unit=br.UNIT_TROLL, area=br.AREA_GIMLE)),
        state_version=0,
    )
    error = await _code(stub.SubmitAction(request))
    assert error.code() == SC.INVALID_ARGUMENT
    assert error.details() == "Invade with a troll needs 2 Rage, you have 1"
    assert await snapshot.take() == before


async def test_watch_and_list_argument_errors(stub: Stub) -> None:
    game_id = await create_game(stub, 2)
    stream = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=50))
    assert (await _code(stream.read())).code() == SC.OUT_OF_RANGE
    for request in (
        gs.ListGamesRequest(page_size=501),
        gs.ListGamesRequest(page_size=-1),
        gs.ListGamesRequest(page_token="not-a-token"),
    ):
        assert (await _code(stub.ListGames(request))).code() == SC.INVALID_ARGUMENT
    error = await _code(stub.GetCatalog(gs.GetCatalogRequest(kind=7)))  # type: ignore[arg-type]
    assert error.code() == SC.INVALID_ARGUMENT
