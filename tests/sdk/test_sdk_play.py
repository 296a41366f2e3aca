"""The bot SDK against a real in-process server: view conversion, whole games, reconnects."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import grpc.aio
import pytest

from clients.bots.base import RandomBot
from clients.sdk import BotClient, Result, make_bot, play_seat, proto_view_to_bot_view
from engine.blood_rage.actions import Action
from engine.blood_rage.flow import legal_actions
from engine.blood_rage.snapshot import from_snapshot
from protocol.replay_json import replay_from_response, verify_replay
from server.main import RunningServer
from tests.silent_link import SilentLink
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc


def _stub(channel: grpc.aio.Channel) -> Any:
    return game_service_pb2_grpc.GameServiceStub(channel)


async def _create(stub: Any, players: int, seed: int) -> str:
    reply = await stub.CreateGame(
        gs.CreateGameRequest(options=gp.GameOptions(player_count=players, seed=seed))
    )
    return str(reply.game_id)


def test_conversion_of_a_hand_built_view() -> None:
    action = Action(2, 3, 17, 0)
    view = gp.View(game_id="g1", state_version=7, viewer_seat=1, awaiting_seats=[1])
    view.seats.add(seat=0, name="a")
    view.seats.add(seat=1, name="b")
    view.legal_actions.add(index=0, code=action.code(), label="invade")
    view.blood_rage.CopyFrom(br.BloodRageView(engine_state_json='{"version": 7}'))
    out = proto_view_to_bot_view(view)
    assert out["viewer"] == 1 and out["version"] == 7 and out["players"] == 2
    assert out["awaiting"] == [1]
    assert out["legal_actions"] == [
        {"index": 0, "code": action.code(), "kind": 2, "args": [3, 17, 0], "label": "invade"}
    ]
    assert out["engine_state"] == {"version": 7}
    spectator = proto_view_to_bot_view(gp.View(game_id="g1"))
    assert spectator["viewer"] == -1 and spectator["engine_state"] is None
    assert spectator["legal_actions"] == []


async def test_conversion_of_a_server_view_matches_the_engine(running: RunningServer) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        stub = _stub(channel)
        game_id = await _create(stub, 3, seed=5)
        tokens = []
        for seat in range(3):
            reply = await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=seat))
            tokens.append(reply.seat_token)
        for seat, token in enumerate(tokens):
            reply = await stub.GetView(
                gs.GetViewRequest(game_id=game_id, seat_token=token, include_engine_state=True)
            )
            view = proto_view_to_bot_view(reply.view)
            assert view["viewer"] == seat
            assert view["game_id"] == game_id
            assert view["version"] == reply.view.state_version
            assert isinstance(view["engine_state"], dict)
            assert view["legal_actions"], "the draft awaits every seat"
            state = from_snapshot(view["engine_state"])
            engine_codes = [a.code() for a in legal_actions(state, seat)]
            assert [a["code"] for a in view["legal_actions"]] == engine_codes
            for i, entry in enumerate(view["legal_actions"]):
                assert entry["index"] == i
                assert Action(entry["kind"], *entry["args"]).code() == entry["code"]
                assert entry["label"] == reply.view.legal_actions[i].label


def test_make_bot() -> None:
    assert make_bot("random").name == "random"
    assert make_bot("heuristic").name == "heuristic"
    assert make_bot("ismcts:20").name == "ismcts"
    for bad in ("nope", "ismcts:0", "ismcts:x", "random:3"):
        with pytest.raises(ValueError):
            make_bot(bad)


async def _check_against_server(address: str, results: list[Result]) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = _stub(channel)
        game_id = results[0].game_id
        server_result = (await stub.GetResult(gs.GetResultRequest(game_id=game_id))).result
        seats = sorted(server_result.seats, key=lambda s: s.seat)
        for r in results:
            assert r.status == "FINISHED"
            assert r.scores == [s.score for s in seats]
            assert r.ranks == [s.rank for s in seats]
            assert r.winners == sorted(server_result.winners)
        replay = await stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
        check = verify_replay(replay_from_response(replay, game_id))
        assert check.ok, check.problems
        # Every decision of the log came from one of the SDK's submits.
        assert len(replay.steps) == sum(r.decisions for r in results)


def _calls(running: RunningServer, method: str) -> float:
    value = running.metrics.registry.get_sample_value(
        "yggdrasil_rpc_duration_seconds_count", {"method": method, "code": "OK"}
    )
    return 0.0 if value is None else value


@pytest.mark.parametrize("transport", ["session", "unary"])
async def test_four_random_bots_finish_a_game(running: RunningServer, transport: str) -> None:
    address = f"127.0.0.1:{running.port}"
    async with grpc.aio.insecure_channel(address) as channel:
        game_id = await _create(_stub(channel), 4, seed=21)
    results = await asyncio.wait_for(
        asyncio.gather(
            *(
                play_seat(
                    address, game_id, RandomBot(), seat=s, rng=random.Random(s), transport=transport
                )
                for s in range(4)
            )
        ),
        timeout=40,
    )
    assert [r.seat for r in results] == [0, 1, 2, 3]
    assert all(r.decisions > 0 for r in results)
    await _check_against_server(address, list(results))
    # Each seat played over the transport asked for, and only over it.
    decisions = sum(r.decisions for r in results)
    if transport == "session":
        assert _calls(running, "PlaySession") == 4
        assert _calls(running, "SubmitAction") == _calls(running, "JoinGame") == 0
    else:
        assert _calls(running, "PlaySession") == 0
        assert _calls(running, "SubmitAction") == decisions


async def _beside_a_random_seat(client: BotClient, address: str, game_id: str) -> list[Result]:
    """Run ``client`` (seat 0) and a plain random seat 1 of the same game to its end."""
    other = play_seat(address, game_id, RandomBot(), seat=1, rng=random.Random(2))
    return list(await asyncio.wait_for(asyncio.gather(client.run(), other), timeout=40))


class SlowRandom(RandomBot):
    """A random bot that thinks for a few ms, so that a game lasts long enough to be cut."""

    def choose(self, view: dict[str, Any], rng: random.Random) -> int:
        time.sleep(0.002)
        return super().choose(view, rng)


async def _version(address: str, game_id: str) -> int:
    options = [("grpc.use_local_subchannel_pool", 1)]
    async with grpc.aio.insecure_channel(address, options=options) as channel:
        reply = await _stub(channel).GetView(
            gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
        )
        return int(reply.view.state_version)


async def test_seats_resume_after_a_server_restart(start_server_at: Any, tmp_path: Path) -> None:
    server = await start_server_at(data_dir=tmp_path)
    port = server.port
    address = f"127.0.0.1:{port}"
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            game_id = await _create(_stub(channel), 3, seed=8)
        tasks = [
            asyncio.create_task(
                play_seat(address, game_id, SlowRandom(), seat=s, rng=random.Random(s))
            )
            for s in range(3)
        ]
        for restart in range(2):
            target = 25 + 40 * restart
            deadline = time.monotonic() + 20
            while await _version(address, game_id) < target:
                assert time.monotonic() < deadline, "the game does not progress"
                assert not any(t.done() for t in tasks)
                await asyncio.sleep(0.02)
            await server.shutdown(0)
            await asyncio.sleep(0.3)  # the seats see the server gone and back off
            server = await start_server_at(port=port, data_dir=tmp_path)
        results = await asyncio.wait_for(asyncio.gather(*tasks), timeout=40)
        assert all(r.reconnects >= 1 for r in results)
        await _check_against_server(address, list(results))
    finally:
        await server.shutdown(0)


class _LossyStub:
    """A stub whose SubmitAction answers are lost now and then (the server applied the
    decision, the client saw UNAVAILABLE), and whose WatchGame streams break."""

    def __init__(self, inner: Any, log: list[tuple[str, bool]]) -> None:
        self._inner = inner
        self._log = log

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def SubmitAction(self, request: gs.SubmitActionRequest, **kwargs: Any) -> Any:
        reply = await self._inner.SubmitAction(request, **kwargs)
        self._log.append((request.idempotency_key, reply.duplicate))
        if len(self._log) % 3 == 1:
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "lost"
            )
        return reply


class _LossyClient(BotClient):
    log: list[tuple[str, bool]]

    def _connect(self) -> Any:
        if self._stub is None:
            self._stub = _LossyStub(super()._connect(), self.log)
        return self._stub


async def test_a_lost_answer_is_resent_with_the_same_key(running: RunningServer) -> None:
    address = f"127.0.0.1:{running.port}"
    async with grpc.aio.insecure_channel(address) as channel:
        game_id = await _create(_stub(channel), 2, seed=4)
    log: list[tuple[str, bool]] = []
    lossy = _LossyClient(
        address, game_id, RandomBot(), seat=0, rng=random.Random(1), transport="unary"
    )
    lossy.log = log
    lossy.backoff_s = 0.001
    results = await _beside_a_random_seat(lossy, address, game_id)
    assert results[0].reconnects >= 1
    # Each lost answer was followed by the same key, answered as a duplicate.
    lost = [i for i in range(len(log)) if i % 3 == 0]
    assert lost
    for i in lost:
        if i + 1 < len(log):
            assert log[i + 1][0] == log[i][0] and log[i + 1][1] is True
    assert len({key for key, _ in log}) == results[0].decisions
    await _check_against_server(address, list(results))


class _CutCall:
    """A PlaySession call that the test cuts after every third decision is written, when the
    server's answer to it arrives: that message, and the answers to every decision sent on
    the stream and not answered yet, are never read."""

    def __init__(self, inner: Any, client: _CuttingClient) -> None:
        self._inner = inner
        self._client = client
        self._cut_at = ""  # the key of the decision whose answer ends the stream
        self._unanswered: list[str] = []  # keys sent on this stream, not answered yet
        self.was_cut = False  # then the client reads the end of the stream

    def _cut(self) -> None:
        self.was_cut = True
        self._inner.cancel()

    async def write(self, request: gs.PlaySessionRequest) -> None:
        client = self._client
        if request.WhichOneof("kind") == "open":
            client.opens.append(request.open)
            self._unanswered.extend(d.idempotency_key for d in request.open.resend)
        await self._inner.write(request)
        if request.WhichOneof("kind") == "decision":
            client.sent += 1
            self._unanswered.append(request.decision.idempotency_key)
            if client.cut_every and client.sent % client.cut_every == 0:
                self._cut_at = request.decision.idempotency_key

    async def read(self) -> Any:
        if self.was_cut:
            return grpc.aio.EOF
        message = await self._inner.read()
        if message is grpc.aio.EOF:
            return message
        answers = list(message.answers)
        if self._cut_at and any(a.idempotency_key == self._cut_at for a in answers):
            # The server is done with the decision (applied, or refused: stale). Its answer
            # is lost with the stream, and so are those of the decisions sent after it.
            self._client.cut.extend(a.idempotency_key for a in answers if a.code == 0)
            self._client.lost.extend(self._unanswered)
            self._cut()
            return grpc.aio.EOF
        answered = {a.idempotency_key for a in answers}
        self._unanswered = [key for key in self._unanswered if key not in answered]
        self._client.answers.extend(answers)
        return message

    def cancel(self) -> bool:
        return bool(self._inner.cancel())


class _CuttingClient(BotClient):
    server: RunningServer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent = 0
        self.cut_every = 3
        self.cut: list[str] = []  # decisions applied whose answer the stream's cut lost
        self.lost: list[str] = []  # every decision whose answer a cut lost
        self.opens: list[gs.PlayOpen] = []
        self.answers: list[gs.PlayAnswer] = []

    def _open_session(self, stub: Any) -> Any:
        return _CutCall(super()._open_session(stub), self)


async def test_a_session_cut_after_a_decision_resends_it_with_the_same_key(
    running: RunningServer,
) -> None:
    address = f"127.0.0.1:{running.port}"
    async with grpc.aio.insecure_channel(address) as channel:
        game_id = await _create(_stub(channel), 2, seed=4)
    cutting = _CuttingClient(address, game_id, RandomBot(), seat=0, rng=random.Random(1))
    cutting.server = running
    cutting.backoff_s = 0.001
    results = await _beside_a_random_seat(cutting, address, game_id)
    assert cutting.cut and results[0].reconnects >= len(cutting.cut)
    # Each decision whose answer a cut lost was resent by a later open, with its key. Those
    # seen applied before the cut are answered there as duplicates (applied once); one still
    # on its way at the cut may be applied by either stream, but once.
    resent = [d.idempotency_key for opened in cutting.opens[1:] for d in opened.resend]
    assert set(cutting.lost) <= set(resent)
    assert all(opened.from_sequence > 0 for opened in cutting.opens[1:])
    duplicates = [a.idempotency_key for a in cutting.answers if a.duplicate]
    assert len(set(duplicates)) == len(duplicates)
    assert set(cutting.cut) <= set(duplicates) <= set(cutting.lost)
    accepted = [a.idempotency_key for a in cutting.answers if a.code == 0]
    assert len(set(accepted)) == len(accepted) == results[0].decisions
    await _check_against_server(address, list(results))


class _LostJoinStub(_LossyStub):
    """The first JoinGame is applied by the server but its answer never arrives."""

    joins: list[bool]

    async def SubmitAction(self, request: gs.SubmitActionRequest, **kwargs: Any) -> Any:
        return await self._inner.SubmitAction(request, **kwargs)

    async def JoinGame(self, request: gs.JoinGameRequest, **kwargs: Any) -> Any:
        reply = await self._inner.JoinGame(request, **kwargs)
        self.joins.append(reply.duplicate)
        if len(self.joins) == 1:
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "lost"
            )
        return reply


class _LostJoinClient(BotClient):
    joins: list[bool]

    def _connect(self) -> Any:
        if self._stub is None:
            stub = _LostJoinStub(super()._connect(), [])
            stub.joins = self.joins
            self._stub = stub
        return self._stub


async def test_a_lost_join_answer_keeps_the_seat(running: RunningServer) -> None:
    """Without a seat given, a retried join must not claim a second seat: the client's own
    token finds the seat the lost answer was about."""
    address = f"127.0.0.1:{running.port}"
    async with grpc.aio.insecure_channel(address) as channel:
        game_id = await _create(_stub(channel), 2, seed=6)
    client = _LostJoinClient(address, game_id, RandomBot(), rng=random.Random(1), transport="unary")
    client.joins = []
    client.backoff_s = 0.001
    results = await _beside_a_random_seat(client, address, game_id)
    assert client.joins == [False, True]  # claimed once, then answered as a duplicate
    assert results[0].seat == 0 and results[0].reconnects == 1
    await _check_against_server(address, list(results))


class _JoinCutCall(_CutCall):
    """The first open joins the seat; the stream is cut before its first message is read."""

    async def write(self, request: gs.PlaySessionRequest) -> None:
        client = self._client
        await super().write(request)
        if len(client.opens) == 1 and request.WhichOneof("kind") == "open":
            game = client.server.games.get(client.game_id)
            while not game.claimed()[0]:
                await asyncio.sleep(0.001)
            self._cut()


class _JoinCuttingClient(_CuttingClient):
    def _open_session(self, stub: Any) -> Any:
        return _JoinCutCall(BotClient._open_session(self, stub), self)


async def test_a_session_that_joins_and_loses_its_first_message_keeps_the_seat(
    running: RunningServer,
) -> None:
    address = f"127.0.0.1:{running.port}"
    async with grpc.aio.insecure_channel(address) as channel:
        game_id = await _create(_stub(channel), 2, seed=6)
    client = _JoinCuttingClient(address, game_id, RandomBot(), rng=random.Random(1))
    client.server = running
    client.cut_every = 0  # no decision is cut here
    client.backoff_s = 0.001
    results = await _beside_a_random_seat(client, address, game_id)
    first, second = client.opens[0].join, client.opens[1].join
    assert first.seat_token and second.seat_token == first.seat_token
    assert not first.HasField("seat")  # any free seat: the retry must not claim another
    assert results[0].seat == 0 and results[0].reconnects == 1
    await _check_against_server(address, list(results))


async def test_a_seat_gets_its_result_after_the_game_left_the_server(
    start_server_at: Any, tmp_path: Path
) -> None:
    """A restarted server does not host finished games again; a seat that comes back after
    the restart still gets its game's result (the server answers from the store)."""
    server = await start_server_at(data_dir=tmp_path)
    port = server.port
    address = f"127.0.0.1:{port}"
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            game_id = await _create(_stub(channel), 2, seed=12)
        results = await asyncio.wait_for(
            asyncio.gather(
                *(
                    play_seat(address, game_id, RandomBot(), seat=s, rng=random.Random(s))
                    for s in range(2)
                )
            ),
            timeout=60,
        )
        await server.shutdown(0)
        server = await start_server_at(port=port, data_dir=tmp_path)
        assert game_id not in server.games.games
        again = await asyncio.wait_for(
            BotClient(address, game_id, RandomBot(), seat=0, token=results[0].seat_token).run(),
            timeout=30,
        )
        assert again.status == "FINISHED"
        assert (again.scores, again.ranks, again.winners) == (
            results[0].scores,
            results[0].ranks,
            results[0].winners,
        )
        assert again.decisions == 0
        # A game that never existed stays NOT_FOUND.
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await BotClient(address, "nope", RandomBot(), seat=0, token="t" * 43).run()
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        await server.shutdown(0)


class SilencesItsLink(RandomBot):
    """A random bot whose network path to the server goes silent at its 5th decision."""

    def __init__(self, link: SilentLink) -> None:
        self.link = link
        self.decisions = 0

    def choose(self, view: dict[str, Any], rng: random.Random) -> int:
        self.decisions += 1
        if self.decisions == 5:
            self.link.go_silent()
        return super().choose(view, rng)


async def test_a_seat_whose_connection_goes_silent_reconnects_and_finishes(
    running: RunningServer,
) -> None:
    # The link drops nothing and closes nothing: only the SDK's keepalive can tell that the
    # server is gone. Without it the seat would wait on its watch (or its submit) for good.
    link = SilentLink(running.port)
    linked = f"127.0.0.1:{await link.start()}"
    direct = f"127.0.0.1:{running.port}"
    try:
        async with grpc.aio.insecure_channel(direct) as channel:
            game_id = await _create(_stub(channel), 2, seed=31)
        silenced = BotClient(
            linked, game_id, SilencesItsLink(link), seat=0, rng=random.Random(0), keepalive_s=1.0
        )
        results = await asyncio.wait_for(
            asyncio.gather(
                silenced.run(),
                play_seat(direct, game_id, RandomBot(), seat=1, rng=random.Random(1)),
            ),
            timeout=30,
        )
    finally:
        await link.close()
    assert results[0].reconnects >= 1
    assert link.connections >= 2
    await _check_against_server(direct, list(results))
