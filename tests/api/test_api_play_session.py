"""PlaySession: a seat played over one bidirectional stream (see GameService.PlaySession)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable

import grpc
import grpc.aio
import pytest
from api_support import (
    OthersSecrets,
    Stub,
    card_instances,
    create_game,
    join_all,
    publicly_shown,
    random_step,
    replay_states,
    seat_view,
    version_mismatch,
)
from google.protobuf.any_pb2 import Any as AnyPb
from play_support import OVER, Session, decision, play_out

from server.config import ServerConfig
from server.games.decision_clock import ManualClock
from server.main import RunningServer, start_server
from server.ops.metrics import Metrics, new_registry
from server.stores.contract import StoredAction
from server.stores.memory import MemoryStore
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc


def _applied(events: list[gp.Event]) -> list[gp.Event]:
    return [
        e
        for e in events
        if e.WhichOneof("payload") == "blood_rage"
        and e.blood_rage.WhichOneof("kind") == "action_applied"
    ]


def _mismatch_of(details: list[AnyPb]) -> gp.VersionMismatch | None:
    for detail in details:
        mismatch = gp.VersionMismatch()
        if detail.Unpack(mismatch):
            return mismatch
    return None


async def _refused_by_submit(
    stub: Stub, game_id: str, token: str, choice: gs.PlayDecision
) -> grpc.aio.AioRpcError:
    """What SubmitAction answers to the same decision (with another key)."""
    request = gs.SubmitActionRequest(
        game_id=game_id,
        seat_token=token,
        state_version=choice.state_version,
        idempotency_key="unary-" + choice.idempotency_key,
    )
    if choice.WhichOneof("choice") == "action":
        request.action.CopyFrom(choice.action)
    else:
        request.legal_index = choice.legal_index
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.SubmitAction(request)
    return caught.value


async def _two_seats(stub: Stub, seed: int, **options: object) -> tuple[str, list[str]]:
    """A two-player game with both seats claimed: (game id, seat tokens)."""
    game_id = await create_game(stub, 2, seed=seed, **options)
    return game_id, await join_all(stub, game_id, 2)


# -- whole games ---------------------------------------------------------------------------


async def test_four_sessions_play_a_game_and_see_only_their_own_secrets(
    running: RunningServer, stub: Stub
) -> None:
    game_id = await create_game(stub, 4, seed=41)
    tokens = await join_all(stub, game_id, 3)  # seat 3 joins from its session
    sessions = [await Session.open(stub, game_id, seat_token=t) for t in tokens]
    sessions.append(await Session.open(stub, game_id, join=gs.PlayJoin(seat=3, player_name="d")))
    lasts = await asyncio.gather(
        *(play_out(s, random.Random(seat)) for seat, s in enumerate(sessions))
    )
    for session in sessions:
        assert await session.end() == grpc.StatusCode.OK

    result = (await stub.GetResult(gs.GetResultRequest(game_id=game_id))).result
    replay = await stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
    game = running.games.get(game_id)
    for seat, (session, last) in enumerate(zip(sessions, lasts, strict=True)):
        first = session.received[0]
        assert first.seat == seat and first.HasField("view")
        assert first.view.viewer_seat == seat
        assert bool(first.seat_token) == (seat == 3)
        assert last.status == gp.GAME_STATUS_FINISHED and last.result == result
        assert last.sequence == game.last_sequence
        # Every decision the session sent was answered, accepted, once; the log holds them.
        answers = [a for m in session.received for a in m.answers]
        assert answers and all(a.code == 0 and not a.duplicate for a in answers)
        assert len({a.idempotency_key for a in answers}) == len(answers)
        assert len(answers) == sum(1 for s in replay.steps if s.seat == seat)
        # Events gapless across the session's messages, from the first one sent after open.
        sequences = [e.sequence for m in session.received for e in m.events]
        assert sequences == list(range(first.sequence + 1, game.last_sequence + 1))
        # The seat is asked once per decision (every request answered, every answer taken).
        prompts = [m for m in session.received if m.legal_actions]
        assert len(prompts) == len(answers)
        for message in prompts:
            if message.HasField("view"):
                assert seat in message.view.awaiting_seats

    # Nobody saw what only another seat may see.
    states = replay_states(replay)
    all_events = [e for m in sessions[0].received for e in m.events]
    shown: dict[int, set[int]] = {}
    for event in all_events:
        shown.setdefault(event.state_version, set()).update(publicly_shown(event))
    secrets = OthersSecrets(states, shown)
    checked = 0
    for seat, session in enumerate(sessions):
        for message in session.received:
            for event in message.events:
                hidden = secrets.hidden_from(seat, event.state_version)
                assert not card_instances(event) & hidden, (seat, event)
                checked += 1
            if message.status in OVER:
                continue
            hidden = secrets.hidden_from(seat, message.state_version)
            for legal in message.legal_actions:
                assert not card_instances(legal) & hidden
            if message.HasField("view"):
                assert not card_instances(message.view) & hidden
    assert checked > 400


async def test_a_seat_other_than_0_plays_through_a_session_beside_unary_seats(
    running: RunningServer, stub: Stub
) -> None:
    game_id = await create_game(stub, 3, seed=42)
    tokens = await join_all(stub, game_id, 3)
    session = await Session.open(stub, game_id, seat_token=tokens[2])
    rng = random.Random(2)

    async def unary_seats() -> None:
        others = random.Random(9)
        while True:
            spectator = (
                await stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
            ).view
            if spectator.status == gp.GAME_STATUS_FINISHED:
                return
            due = [s for s in spectator.awaiting_seats if s != 2]
            due = [s for s in due if s not in spectator.committed_seats]
            if not due:
                await asyncio.sleep(0.002)
                continue
            view = await seat_view(stub, game_id, tokens[due[0]])
            if not view.legal_actions:
                continue
            try:
                await stub.SubmitAction(
                    gs.SubmitActionRequest(
                        game_id=game_id,
                        seat_token=tokens[due[0]],
                        legal_index=others.randrange(len(view.legal_actions)),
                        state_version=view.state_version,
                    )
                )
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION

    last, _ = await asyncio.wait_for(
        asyncio.gather(play_out(session, rng), unary_seats()), timeout=60
    )
    assert last.status == gp.GAME_STATUS_FINISHED and last.seat == 2
    log = running.games.get(game_id).log
    answers = [a for m in session.received for a in m.answers]
    assert len(answers) == sum(1 for e in log if e.seat == 2) > 10
    prompts = [m for m in session.received if m.legal_actions]
    for message in prompts:
        assert message.seat == 2
        assert [a.index for a in message.legal_actions] == list(range(len(message.legal_actions)))


# -- refusals --------------------------------------------------------------------------------


async def test_refused_decisions_are_answered_in_band_as_submit_action_would(
    running: RunningServer, stub: Stub
) -> None:
    game_id, tokens = await _two_seats(stub, seed=43)
    session = await Session.open(stub, game_id, seat_token=tokens[0])
    prompt = await session.read()
    assert prompt.legal_actions and prompt.HasField("view")
    game = running.games.get(game_id)

    async def refused(choice: gs.PlayDecision) -> gs.PlaySessionResponse:
        await session.send(choice)
        message = await session.read()
        assert [a.idempotency_key for a in message.answers] == [choice.idempotency_key]
        return message

    # An index out of range: INVALID_ARGUMENT with SubmitAction's message; asked again.
    out_of_range = decision(prompt, 99)
    message = await refused(out_of_range)
    answer = message.answers[0]
    unary = await _refused_by_submit(stub, game_id, tokens[0], out_of_range)
    assert answer.code == grpc.StatusCode.INVALID_ARGUMENT.value[0] == unary.code().value[0]
    assert answer.message == unary.details() and "out of range" in answer.message
    assert not answer.details
    assert [a.code for a in message.legal_actions] == [a.code for a in prompt.legal_actions]

    # A state version from the future: FAILED_PRECONDITION with the same VersionMismatch.
    future = decision(prompt, 0)
    future.state_version = prompt.state_version + 5
    message = await refused(future)
    answer = message.answers[0]
    unary = await _refused_by_submit(stub, game_id, tokens[0], future)
    assert answer.code == grpc.StatusCode.FAILED_PRECONDITION.value[0] == unary.code().value[0]
    assert answer.message == unary.details()
    assert _mismatch_of(list(answer.details)) == version_mismatch(unary)
    mismatch = _mismatch_of(list(answer.details))
    assert mismatch is not None and mismatch.reason == gp.VersionMismatch.REASON_STALE_VERSION
    assert message.legal_actions  # asked again: it answered the current request

    # An action that is not legal: the engine's explanation, as SubmitAction gives it.
    illegal = decision(prompt)
    illegal.action.blood_rage.draft_pick.card = 999
    message = await refused(illegal)
    unary = await _refused_by_submit(stub, game_id, tokens[0], illegal)
    assert message.answers[0].code == unary.code().value[0]
    assert message.answers[0].message == unary.details()

    # No idempotency key: refused here (answers are matched by it).
    keyless = decision(prompt, 0, key="")
    message = await refused(keyless)
    assert message.answers[0].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "idempotency_key" in message.answers[0].message
    assert len(game.log) == 0  # nothing changed

    # The stream is still open: a good decision is applied, and answered in the next
    # message (here seat 0 picks twice in a row: it is asked again at once).
    good = decision(prompt, 1)
    await session.send(good)
    message = await session.read()
    assert [(a.idempotency_key, a.code, a.duplicate) for a in message.answers] == [
        (good.idempotency_key, 0, False)
    ]
    assert message.legal_actions and message.state_version == 1 and len(game.log) == 1
    picks = _applied(list(message.events))
    assert [e.blood_rage.action_applied.seat for e in picks] == [0]
    session.cancel()


async def test_protocol_errors_end_the_stream(running: RunningServer, stub: Stub) -> None:
    game_id, tokens = await _two_seats(stub, seed=44)

    async def status_of(*requests: gs.PlaySessionRequest) -> tuple[grpc.StatusCode, str]:
        call = stub.PlaySession()
        for request in requests:
            await call.write(request)
        await call.done_writing()
        # (the status comes after every message the server sent has been read)
        with contextlib.suppress(grpc.aio.AioRpcError):
            while await asyncio.wait_for(call.read(), 10) is not grpc.aio.EOF:
                pass
        code = await asyncio.wait_for(call.code(), 10)
        return code, await call.details()

    def opening(**fields: object) -> gs.PlaySessionRequest:
        return gs.PlaySessionRequest(open=gs.PlayOpen(**fields))  # type: ignore[arg-type]

    view_request = gs.PlaySessionRequest(view_request=gs.PlayViewRequest())
    code, text = await status_of(view_request)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "must be open" in text
    code, _ = await status_of(opening(game_id="nope", seat_token=tokens[0]))
    assert code == grpc.StatusCode.NOT_FOUND
    code, _ = await status_of(opening(game_id=game_id, seat_token="wrong"))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    code, text = await status_of(opening(game_id=game_id))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "seat_token or join" in text
    code, _ = await status_of(opening(game_id=game_id, join=gs.PlayJoin(seat=0)))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    code, _ = await status_of(opening(game_id=game_id, join=gs.PlayJoin(seat_token="short")))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    code, _ = await status_of(opening(game_id=game_id, seat_token=tokens[0], from_sequence=999))
    assert code == grpc.StatusCode.OUT_OF_RANGE
    # After a good open: a second open, or a message with nothing set.
    good = opening(game_id=game_id, seat_token=tokens[0])
    code, text = await status_of(good, good)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "only the first" in text
    code, _ = await status_of(good, gs.PlaySessionRequest())
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert running.games.get(game_id).version == 0


# -- resuming --------------------------------------------------------------------------------


async def test_a_decision_applied_before_the_stream_broke_is_answered_once_on_resume(
    running: RunningServer, stub: Stub
) -> None:
    game_id, tokens = await _two_seats(stub, seed=45)
    game = running.games.get(game_id)
    session = await Session.open(stub, game_id, seat_token=tokens[1])
    prompt = await session.read()
    pending = decision(prompt, 2)
    await session.send(pending)
    while len(game.log) < 1:  # applied; its answer would ride on the next message
        await asyncio.sleep(0.005)
    session.cancel()  # ... which never comes: the stream breaks in the middle
    # The other seat moves on meanwhile.
    other = await seat_view(stub, game_id, tokens[0])
    await stub.SubmitAction(
        gs.SubmitActionRequest(
            game_id=game_id, seat_token=tokens[0], legal_index=0, state_version=other.state_version
        )
    )
    resumed = await Session.open(
        stub,
        game_id,
        seat_token=tokens[1],
        from_sequence=prompt.sequence + 1,
        resend=[pending],
    )
    first = await resumed.read()
    assert [(a.idempotency_key, a.code, a.duplicate) for a in first.answers] == [
        (pending.idempotency_key, 0, True)
    ]
    assert [e.sequence for e in first.events] == list(
        range(prompt.sequence + 1, game.last_sequence + 1)
    )
    picks = _applied(list(first.events))
    assert sorted(e.blood_rage.action_applied.seat for e in picks) == [0, 1]
    assert len(game.log) == 2 and [e.seat for e in game.log].count(1) == 1
    assert first.legal_actions and first.state_version == 2  # the next pick
    resumed.cancel()


async def test_a_decision_lost_before_the_server_saw_it_is_applied_on_resume(
    running: RunningServer, stub: Stub
) -> None:
    game_id, tokens = await _two_seats(stub, seed=46)
    game = running.games.get(game_id)
    session = await Session.open(stub, game_id, seat_token=tokens[0])
    prompt = await session.read()
    session.cancel()  # the decision below was never written on this stream
    pending = decision(prompt, 1)
    resumed = await Session.open(
        stub, game_id, seat_token=tokens[0], from_sequence=prompt.sequence + 1, resend=[pending]
    )
    # Applied now, once, before the first message, which answers it (and asks for the
    # seat's next pick: in a two-player draft a seat picks twice in a row).
    first = await resumed.read()
    assert [(a.idempotency_key, a.code, a.duplicate) for a in first.answers] == [
        (pending.idempotency_key, 0, False)
    ]
    assert len(game.log) == 1 and first.state_version == 1
    assert first.HasField("view") and first.legal_actions
    resumed.cancel()
    # Resent once more (its answer lost again): a duplicate, nothing applied.
    again = await Session.open(
        stub, game_id, seat_token=tokens[0], from_sequence=first.sequence + 1, resend=[pending]
    )
    message = await again.read()
    assert [(a.code, a.duplicate) for a in message.answers] == [(0, True)]
    assert len(game.log) == 1 and not message.events
    # The same key with another choice is refused, as SubmitAction refuses it.
    other_choice = decision(prompt, 0, key=pending.idempotency_key)
    await again.send(other_choice)
    message = await again.read()
    assert message.answers[0].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "already used" in message.answers[0].message
    assert len(game.log) == 1
    again.cancel()


async def test_a_resume_inside_a_group_of_events_gets_the_whole_group(
    running: RunningServer, stub: Stub
) -> None:
    game_id, tokens = await _two_seats(stub, seed=54)
    game = running.games.get(game_id)
    # The last claim published two events at once (seat claimed, game started): one group.
    assert game.last_sequence == 3 and game.group_end_at_or_before(2) == 1
    session = await Session.open(stub, game_id, seat_token=tokens[0], from_sequence=3)
    first = await session.read()
    assert [e.sequence for e in first.events] == [2, 3]
    assert [e.WhichOneof("payload") for e in first.events] == ["seat_claimed", "status_changed"]
    assert first.sequence == 3 and not first.resync
    session.cancel()
    # The next event after the latest (or 0): no event, the current view only.
    for start in (0, 4):
        session = await Session.open(stub, game_id, seat_token=tokens[0], from_sequence=start)
        first = await session.read()
        assert not first.events and first.sequence == 3 and first.HasField("view")
        session.cancel()


async def test_a_resume_from_an_unknown_point_gets_every_event_or_a_resync(
    server_factory: object, stub: Stub
) -> None:
    del stub
    server = await server_factory(event_cap=5)  # type: ignore[operator]
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            from yggdrasil.v1 import game_service_pb2_grpc

            stub2 = game_service_pb2_grpc.GameServiceStub(channel)
            game_id = await create_game(stub2, 2, seed=47)
            tokens = await join_all(stub2, game_id, 2)
            rng = random.Random(4)
            for _ in range(6):
                assert await random_step(stub2, game_id, tokens, rng)
            game = server.games.get(game_id)
            assert game.first_kept_sequence > 1
            session = await Session.open(stub2, game_id, seat_token=tokens[0], from_sequence=1)
            first = await session.read()
            assert first.resync and first.HasField("view") and not first.events
            assert first.sequence == game.last_sequence
            session.cancel()
            kept = game.first_kept_sequence
            session = await Session.open(stub2, game_id, seat_token=tokens[0], from_sequence=kept)
            first = await session.read()
            assert not first.resync
            assert [e.sequence for e in first.events] == list(range(kept, game.last_sequence + 1))
            session.cancel()
    finally:
        await server.shutdown(0)


# -- time limits -----------------------------------------------------------------------------


async def test_the_clock_decides_for_a_silent_session_and_a_late_answer_is_refused(
    server_factory: Callable[..., Awaitable[RunningServer]],
) -> None:
    # The decision clock moves only when the test moves it: the prompt is read before any
    # deadline runs out, however slowly the machine runs.
    clock = ManualClock()
    running = await server_factory(clock=clock)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            await _the_clock_decides_for_a_silent_session(running, stub, clock)
    finally:
        await running.shutdown(0)


async def _the_clock_decides_for_a_silent_session(
    running: RunningServer, stub: Stub, clock: ManualClock
) -> None:
    game_id = await create_game(stub, 2, seed=48, decision_time_limit_ms=300)
    tokens = await join_all(stub, game_id, 2)
    game = running.games.get(game_id)
    session = await Session.open(stub, game_id, seat_token=tokens[0])
    prompt = await session.read()
    assert prompt.legal_actions
    assert prompt.decision_deadline_unix_ms == clock.wall_ms() + 300
    # Neither seat answers: the server picks for both, and the next pick is asked for.
    assert clock.advance(0.3)
    following = await session.read(timeout=10)
    assert following.legal_actions and following.state_version == 2
    timed_out = [e.timed_out.seat for e in following.events if e.HasField("timed_out")]
    assert sorted(timed_out) == [0, 1]
    assert all(e.blood_rage.action_applied.by_timeout for e in _applied(list(following.events)))
    assert following.decision_deadline_unix_ms == prompt.decision_deadline_unix_ms + 300
    # The answer to the first request comes too late: refused as stale, not asked again.
    late = decision(prompt, 0)
    await session.send(late)
    message = await session.read()
    assert message.answers[0].code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    mismatch = _mismatch_of(list(message.answers[0].details))
    assert mismatch is not None and mismatch.reason == gp.VersionMismatch.REASON_STALE_VERSION
    assert not message.legal_actions
    # The current request is still answerable in time.
    on_time = decision(following, 0)
    await session.send(on_time)
    async with asyncio.timeout(60):  # a guard against a hang: the decision comes at once
        while len(game.log) < 3:
            await asyncio.sleep(0.005)
    assert game.log[2].seat == 0 and not game.log[2].by_timeout
    session.cancel()


# -- views, joins, the end -------------------------------------------------------------------


async def test_views_on_request_and_with_engine_state(running: RunningServer, stub: Stub) -> None:
    game_id, tokens = await _two_seats(stub, seed=49)
    session = await Session.open(
        stub, game_id, seat_token=tokens[1], include_views=True, include_engine_state=True
    )
    first = await session.read()
    assert first.view.blood_rage.engine_state_json
    assert [a.code for a in first.view.legal_actions] == [a.code for a in first.legal_actions]
    await session.ask_view()
    asked = await session.read()
    assert asked.HasField("view") and not asked.legal_actions  # asked once already
    assert asked.view.blood_rage.engine_state_json
    await session.send(decision(first, 0))
    other = await seat_view(stub, game_id, tokens[0])
    await stub.SubmitAction(
        gs.SubmitActionRequest(
            game_id=game_id, seat_token=tokens[0], legal_index=0, state_version=other.state_version
        )
    )
    following = await session.read()
    assert following.legal_actions and following.HasField("view")  # include_views
    assert following.view.state_version == following.state_version
    session.cancel()
    plain = await Session.open(stub, game_id, seat_token=tokens[0])
    first = await plain.read()
    assert first.HasField("view") and not first.view.blood_rage.engine_state_json
    plain.cancel()


async def test_a_session_that_joins_gets_its_token_and_can_open_again(
    running: RunningServer, stub: Stub
) -> None:
    game_id = await create_game(stub, 2, seed=50)
    token = "t" * 40
    join = gs.PlayJoin(seat=1, player_name="bee", seat_token=token)
    session = await Session.open(stub, game_id, join=join)
    first = await session.read()
    assert first.seat == 1 and first.seat_token == token
    assert first.status == gp.GAME_STATUS_OPEN and not first.legal_actions
    # The other seat joins: the game starts and this seat is asked to pick.
    await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=0))
    prompt = await session.read()
    assert prompt.status == gp.GAME_STATUS_IN_PROGRESS and prompt.legal_actions
    kinds = [e.WhichOneof("payload") for e in prompt.events]
    assert kinds == ["seat_claimed", "status_changed"]
    session.cancel()
    # Opening again with the same join is safe: the same seat, nothing claimed anew.
    again = await Session.open(stub, game_id, join=join)
    first = await again.read()
    assert first.seat == 1 and first.seat_token == token and first.legal_actions
    again.cancel()
    assert running.games.get(game_id).names[1] == "bee"


async def test_a_finished_game_answers_with_its_result_and_ends(
    running: RunningServer, stub: Stub
) -> None:
    game_id, tokens = await _two_seats(stub, seed=51)
    sessions = [await Session.open(stub, game_id, seat_token=t) for t in tokens]
    await asyncio.gather(*(play_out(s, random.Random(i)) for i, s in enumerate(sessions)))
    late = await Session.open(stub, game_id, seat_token=tokens[1])
    only = await late.read()
    assert only.status == gp.GAME_STATUS_FINISHED and only.result.winners
    assert only.view.status == gp.GAME_STATUS_FINISHED
    assert await late.end() == grpc.StatusCode.OK


async def test_closing_the_client_side_ends_the_session(running: RunningServer, stub: Stub) -> None:
    game_id, tokens = await _two_seats(stub, seed=52)
    session = await Session.open(stub, game_id, seat_token=tokens[0])
    prompt = await session.read()
    await session.send(decision(prompt, 0))
    await session.call.done_writing()
    # The accepted decision's answer is flushed before the end.
    message = await session.read()
    assert [(a.code, a.duplicate) for a in message.answers] == [(0, False)]
    assert await session.end() == grpc.StatusCode.OK
    assert running.metrics.registry.get_sample_value("yggdrasil_play_sessions_active") == 0


async def test_shutdown_ends_sessions_unavailable(server_factory: object) -> None:
    server = await server_factory()  # type: ignore[operator]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        from yggdrasil.v1 import game_service_pb2_grpc

        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game_id, tokens = await _two_seats(stub, seed=53)
        session = await Session.open(stub, game_id, seat_token=tokens[0])
        await session.read()
        active = server.metrics.registry.get_sample_value("yggdrasil_play_sessions_active")
        assert active == 1
        await server.shutdown(1.0)
        assert await session.end() == grpc.StatusCode.UNAVAILABLE
        assert "shutting down" in await session.call.details()


async def test_a_key_means_the_same_decision_on_either_path(
    running: RunningServer, stub: Stub
) -> None:
    """A decision submitted with SubmitAction and resent on a session with the same key (a bot
    that switched paths after a lost answer) is answered as a duplicate, not applied again."""
    game_id, tokens = await _two_seats(stub, seed=55)
    view = await seat_view(stub, game_id, tokens[0])
    await stub.SubmitAction(
        gs.SubmitActionRequest(
            game_id=game_id,
            seat_token=tokens[0],
            legal_index=1,
            state_version=view.state_version,
            idempotency_key="both-ways",
            include_view=True,  # (not part of what the key names)
        )
    )
    same = gs.PlayDecision(
        legal_index=1, state_version=view.state_version, idempotency_key="both-ways"
    )
    session = await Session.open(stub, game_id, seat_token=tokens[0], resend=[same])
    first = await session.read()
    assert [(a.code, a.duplicate) for a in first.answers] == [(0, True)]
    assert len(running.games.get(game_id).log) == 1
    other = decision(first, 0, key="both-ways")  # the same key, another decision
    await session.send(other)
    message = await session.read()
    assert message.answers[0].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert len(running.games.get(game_id).log) == 1
    session.cancel()


class _SlowAppends(MemoryStore):
    """A memory store whose appends wait until the test lets them through."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.waiting = 0

    async def append(self, game_id: str, entry: StoredAction) -> None:
        self.waiting += 1
        await self.gate.wait()
        await super().append(game_id, entry)


async def test_a_decision_still_being_logged_when_its_stream_ends_is_finished_first() -> None:
    """The client goes away while its decision waits for the store: the decision is applied
    all the same, and a shutdown (Game.idle) waits for it before the store may close."""
    store = _SlowAppends()
    config = ServerConfig(port=0, metrics_port=-1, store="memory")
    server = await start_server(
        config, metrics=Metrics(new_registry(process_collectors=False)), store=store
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            from yggdrasil.v1 import game_service_pb2_grpc

            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game_id, tokens = await _two_seats(stub, seed=56)
            session = await Session.open(stub, game_id, seat_token=tokens[0])
            prompt = await session.read()
            await session.send(decision(prompt, 0))
            while not store.waiting:
                await asyncio.sleep(0.005)
            session.cancel()
            game = server.games.get(game_id)
            while server.metrics.registry.get_sample_value("yggdrasil_play_sessions_active"):
                await asyncio.sleep(0.005)  # the stream's handler has ended
            idle = asyncio.create_task(game.idle())
            logged_when_idle: list[int] = []
            idle.add_done_callback(lambda _: logged_when_idle.append(len(game.log)))
            await asyncio.sleep(0)  # idle takes its first step before the store goes on
            assert not game.log
            store.gate.set()
            await asyncio.wait_for(idle, 60)  # a guard against a hang
            # idle ended after the decision was logged, not before.
            assert logged_when_idle == [1] and game.log[0].seat == 0
    finally:
        store.gate.set()
        await server.shutdown(0)
