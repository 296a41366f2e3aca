"""A game that is over keeps little in memory, and answers exactly as before."""

from __future__ import annotations

import asyncio
import random

from api_support import Stub, create_game, join_all, seat_view, spectator_view

from server.games.compact import KEPT_ANSWERS, CompactLog
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


async def _play_out(
    stub: Stub, game_id: str, tokens: list[str]
) -> list[tuple[gs.SubmitActionRequest, gs.SubmitActionResponse]]:
    rng = random.Random(3)
    sent = []
    while True:
        spectator = await spectator_view(stub, game_id)
        if spectator.status == gp.GAME_STATUS_FINISHED:
            return sent
        seat = next(s for s in spectator.awaiting_seats if s not in spectator.committed_seats)
        view = await seat_view(stub, game_id, tokens[seat])
        request = gs.SubmitActionRequest(
            game_id=game_id,
            seat_token=tokens[seat],
            legal_index=rng.randrange(len(view.legal_actions)),
            state_version=view.state_version,
            idempotency_key=f"k{len(sent)}",
            include_view=True,
        )
        sent.append((request, await stub.SubmitAction(request)))


async def test_a_finished_game_is_compacted_and_answers_as_before(
    running: RunningServer, stub: Stub
) -> None:
    game_id = await create_game(stub, 2, seed=81)
    tokens = await join_all(stub, game_id, 2)
    watch = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=1))
    sent = await _play_out(stub, game_id, tokens)
    live = [m async for m in watch]  # ends with GameEnded
    game = running.games.get(game_id)
    streams = running.streams
    assert streams is not None
    while streams.total:  # the watcher's stream has just ended
        await asyncio.sleep(0.01)
    assert game.compacted and isinstance(game.log, CompactLog)
    assert game.first_kept_sequence == game.last_sequence + 1  # no event kept
    assert len(game.messages) == 0
    # Watching from the start again gives the very same messages (rebuilt from the log).
    again = [m async for m in stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=1))]
    assert [m.SerializeToString() for m in again] == [m.SerializeToString() for m in live]
    # The replay and the views are unchanged; a retried last decision gets its first answer.
    replay = await stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
    assert len(replay.steps) == len(sent) == len(game.log)
    last, first_answer = sent[-1]
    retried = await stub.SubmitAction(last)
    assert retried.duplicate and retried.state_version == first_answer.state_version
    assert list(retried.events) == list(first_answer.events)  # rebuilt from the log
    assert retried.view == first_answer.view
    # So does each seat's last decision, however many decisions of the others came after it
    # (a seat's stream may break on its last answer while the others play the game out).
    seat_of = {token: seat for seat, token in enumerate(tokens)}
    last_of_seat = {seat_of[request.seat_token]: (request, reply) for request, reply in sent}
    oldest = min(sent.index(pair) for pair in last_of_seat.values())
    assert len(sent) - oldest > KEPT_ANSWERS  # older than the newest answers kept
    for request, first in last_of_seat.values():
        retried = await stub.SubmitAction(request)
        assert retried.duplicate and retried.state_version == first.state_version
        assert list(retried.events) == list(first.events)
    assert len(game.answers) <= KEPT_ANSWERS + len(tokens)


def test_a_compact_log_reads_back_what_went_in() -> None:
    from engine.blood_rage.actions import Action
    from server.stores.contract import StoredAction

    entries = [
        StoredAction(0, 3, Action(2, 4, 5, 6).code(), False, "h", 7, "k", "r"),
        StoredAction(1, 0, Action(1).code(), True, "h", 9),
    ]
    log = CompactLog(entries)
    assert len(log) == 2
    assert [(e.version, e.seat, e.code, e.by_timeout, e.sequence) for e in log] == [
        (0, 3, Action(2, 4, 5, 6).code(), False, 7),
        (1, 0, Action(1).code(), True, 9),
    ]
    assert log[-1].seat == 0 and log[0:1][0].version == 0
