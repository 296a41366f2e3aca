"""End to end: four clients play a whole game concurrently through the API.

Each seat watches the game (with a view on every event) and answers with a random legal
decision — by legal index or by the full action — whenever its view has legal actions;
simultaneous steps (draft, battle cards, keep) are answered by several seats at once. A
spectator watches too. At the end:

- the final scores and state hash equal an in-process engine replay of GetReplay's log;
- no message a seat received (views, events, submit answers, errors) named a card that was
  private to another seat at that state version, and the spectator saw no private card at
  all — unless the card had been shown to everyone by a reveal.
"""

from __future__ import annotations

import asyncio
import random

import grpc
import grpc.aio
import pytest
from api_support import (
    OthersSecrets,
    Stub,
    card_instances,
    create_game,
    join_all,
    message_version,
    publicly_shown,
    random_step,
    replay_states,
    spectator_view,
    text_instances,
    version_mismatch,
)
from google.protobuf.message import Message

from engine.blood_rage.results import result as engine_result
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

PLAYERS = 4
SEED = 20261130

Received = list[tuple[int, Message]]
Errors = list[tuple[int, str]]


async def _play_seat(
    stub: Stub,
    game_id: str,
    seat: int,
    token: str,
    rng: random.Random,
    received: Received,
    errors: Errors,
    stats: dict[str, int],
) -> None:
    call = stub.WatchGame(
        gs.WatchGameRequest(game_id=game_id, seat_token=token, from_sequence=1, include_views=True)
    )
    view: gp.View | None = None
    next_allowed = 0
    decisions = 0
    async for message in call:
        received.append((message_version(message), message))
        if message.HasField("view"):
            view = message.view
        if view is None or view.status != gp.GAME_STATUS_IN_PROGRESS or not view.legal_actions:
            continue
        if view.state_version < next_allowed:
            continue
        decisions += 1
        reply = await _submit(stub, game_id, seat, token, view, decisions, rng, errors, stats)
        if reply is None:
            next_allowed = view.state_version + 1
            continue
        stats["applied"] += 1
        received.append((message_version(reply), reply))
        if view.state_version != reply.state_version - 1:
            stats["same_round_stale_accepted"] += 1
        next_allowed = reply.state_version
        if rng.random() < 0.05:
            fresh = await stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=token))
            received.append((message_version(fresh), fresh))


async def _submit(
    stub: Stub,
    game_id: str,
    seat: int,
    token: str,
    view: gp.View,
    decision: int,
    rng: random.Random,
    errors: Errors,
    stats: dict[str, int],
) -> gs.SubmitActionResponse | None:
    """One decision; None if the game refused it as stale or not awaited."""
    request = gs.SubmitActionRequest(
        game_id=game_id,
        seat_token=token,
        state_version=view.state_version,
        idempotency_key=f"seat{seat}-{decision}",
        include_view=rng.random() < 0.3,
    )
    if rng.random() < 0.03:
        # A deliberate mistake first: refused, changes nothing; its message is checked too.
        bad = gs.SubmitActionRequest()
        bad.CopyFrom(request)
        bad.idempotency_key = ""
        bad.legal_index = len(view.legal_actions) + 3
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.SubmitAction(bad)
        error = caught.value
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "out of range" in (error.details() or "")
        errors.append((view.state_version, error.details() or ""))
        stats["invalid"] += 1
    index = rng.randrange(len(view.legal_actions))
    if rng.random() < 0.5:
        request.legal_index = index
    else:
        request.action.CopyFrom(view.legal_actions[index].action)
    try:
        return await stub.SubmitAction(request)  # type: ignore[no-any-return]
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
        mismatch = version_mismatch(error)
        assert mismatch is not None
        errors.append((view.state_version, f"{error.details()} {mismatch}"))
        stats["refused"] += 1
        return None


async def _spectate(stub: Stub, game_id: str, received: Received) -> None:
    call = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=1))
    async for message in call:
        received.append((message_version(message), message))


def _revealed_by_rule(spectator: Received) -> dict[int, set[int]]:
    """Cards shown to everyone (battle reveals, quest reveals, public plays), by version."""
    shown: dict[int, set[int]] = {}
    for version, message in spectator:
        assert isinstance(message, gs.WatchGameResponse)
        if message.HasField("event"):
            shown.setdefault(version, set()).update(publicly_shown(message.event))
    return shown


async def test_four_clients_play_a_whole_game(running: RunningServer, stub: Stub) -> None:
    game_id = await create_game(stub, PLAYERS, SEED, decision_time_limit_ms=0)
    tokens = await join_all(stub, game_id, PLAYERS)
    received: list[Received] = [[] for _ in range(PLAYERS)]
    errors: list[Errors] = [[] for _ in range(PLAYERS)]
    spectator: Received = []
    stats: dict[str, int] = {
        "applied": 0,
        "refused": 0,
        "invalid": 0,
        "same_round_stale_accepted": 0,
    }
    rngs = [random.Random(SEED * 10 + s) for s in range(PLAYERS)]
    await asyncio.wait_for(
        asyncio.gather(
            _spectate(stub, game_id, spectator),
            *(
                _play_seat(stub, game_id, s, tokens[s], rngs[s], received[s], errors[s], stats)
                for s in range(PLAYERS)
            ),
        ),
        timeout=50,
    )

    result = (await stub.GetResult(gs.GetResultRequest(game_id=game_id))).result
    replay = await stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
    assert replay.options.seed == SEED
    assert len(replay.steps) == stats["applied"]
    states = replay_states(replay)
    final = states[-1]
    assert final.state_hash() == replay.final_state_hash
    engine_outcome = engine_result(final)
    assert engine_outcome is not None
    assert [s.score for s in result.seats] == list(engine_outcome.scores)
    assert list(result.winners) == list(engine_outcome.winners)
    assert [s.rank for s in result.seats] == list(engine_outcome.ranks)
    assert stats["applied"] > 100
    # Simultaneous steps were answered concurrently: some answers chosen on a version that
    # other seats' secret commits had moved on were still accepted (same round).
    assert stats["same_round_stale_accepted"] > 0

    # -- nobody saw what they may not see ------------------------------------------------
    secrets_of_others = OthersSecrets(states, _revealed_by_rule(spectator)).hidden_from

    checked = 0
    for seat in range(PLAYERS):
        for version, message in received[seat]:
            leaked = card_instances(message) & secrets_of_others(seat, version)
            assert not leaked, (seat, version, leaked, message)
            checked += 1
        for version, text in errors[seat]:
            assert not text_instances(text) & secrets_of_others(seat, version), text
    for version, message in spectator:
        leaked = card_instances(message) & secrets_of_others(None, version)
        assert not leaked, ("spectator", version, leaked, message)
    assert checked > 1000

    # The stream of every watcher was gap-free and ended with GameEnded.
    for log in [*received, spectator]:
        events = [
            m.event.sequence
            for _, m in log
            if isinstance(m, gs.WatchGameResponse) and m.HasField("event")
        ]
        assert events == list(range(1, len(events) + 1))
        last = [m for _, m in log if isinstance(m, gs.WatchGameResponse)][-1]
        assert last.event.WhichOneof("payload") == "game_ended"


@pytest.mark.parametrize("players", [2, 5])
async def test_other_player_counts_finish(stub: Stub, players: int) -> None:
    """Quick whole games through the API by legal index, one decision at a time."""
    game_id = await create_game(stub, players, 5 + players)
    tokens = await join_all(stub, game_id, players)
    rng = random.Random(players)
    while await random_step(stub, game_id, tokens, rng):
        pass
    spectator = await spectator_view(stub, game_id)
    assert spectator.HasField("result")
    assert len(spectator.result.seats) == players
    replay = await stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
    assert replay_states(replay)[-1].state_hash() == replay.final_state_hash
