"""API keys and quotas through the API: who may call, what a refusal says, what is logged."""

from __future__ import annotations

import asyncio
import io
import json
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from api_support import DETAILS_KEY, Stub, create_game, join_all, random_step
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped]
from grpc_health.v1 import health_pb2, health_pb2_grpc
from play_support import Session, decision
from prometheus_client import generate_latest

from clients.bots.base import RandomBot
from clients.connection import open_channel, stub_for
from clients.sdk import play_seat
from server.api.identity import hash_key
from server.main import RunningServer
from server.ops.logs import configure_logging
from tests.waiting import until
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

PLAYER_KEY = "ygg_player-key-for-tests-0123456789abcdef"
ADMIN_KEY = "ygg_admin-key-for-tests-0123456789abcdef"
OPS_KEY = "ygg_ops-key-for-tests-0123456789abcdef"
SCENARIO = json.dumps(
    {
        "players": 3,
        "phase": "action",
        "turn": 1,
        "clans": [
            {"hand": ["tyrs_smash"]},
            {"figures": {"Elvagar": ["leader", "warrior"]}, "hand": ["alfheim"]},
            {},
        ],
    }
)


def keys_file(path: Path, player_extra: str = "") -> Path:
    path.write_text(
        f"""
[[keys]]
name = "bot-runner"
role = "player"
sha256 = "{hash_key(PLAYER_KEY)}"
{player_extra}

[[keys]]
name = "lead"
role = "admin"
sha256 = "{hash_key(ADMIN_KEY)}"

[[keys]]
name = "dashboard"
role = "ops"
sha256 = "{hash_key(OPS_KEY)}"
""",
        encoding="utf-8",
    )
    return path


Factory = Callable[..., Any]


@pytest.fixture
async def keyed(server_factory: Factory, tmp_path: Path) -> AsyncIterator[RunningServer]:
    server: RunningServer = await server_factory(
        api_keys=keys_file(tmp_path / "keys.toml", "open_games = 2\ncreate_burst = 100"),
        require_api_key=True,
    )
    try:
        yield server
    finally:
        await server.shutdown(0)


def _stub(server: RunningServer, key: str | None) -> tuple[grpc.aio.Channel, Stub]:
    channel = open_channel(f"127.0.0.1:{server.port}", api_key=key)
    return channel, stub_for(channel)


def _details(error: grpc.aio.AioRpcError) -> list[Any]:
    found: list[Any] = []
    for key, value in error.trailing_metadata() or ():
        if key == DETAILS_KEY:
            status = status_pb2.Status.FromString(value)
            for packed in status.details:
                for kind in (error_details_pb2.QuotaFailure, error_details_pb2.RetryInfo):
                    detail = kind()
                    if packed.Unpack(detail):
                        found.append(detail)
    return found


async def test_a_required_key_is_checked_and_health_stays_open(keyed: RunningServer) -> None:
    for key, message in ((None, "requires an API key"), ("ygg_not-a-key", "unknown API key")):
        channel, stub = _stub(keyed, key)
        async with channel:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.ListGames(gs.ListGamesRequest())
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert message in (caught.value.details() or "")
            assert "ygg_not-a-key" not in (caught.value.details() or "")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{keyed.port}") as channel:
        # A malformed header is refused too (not served as anonymous).
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub_for(channel).ListGames(
                gs.ListGamesRequest(), metadata=(("authorization", "Basic abc"),)
            )
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    channel, stub = _stub(keyed, PLAYER_KEY)
    async with channel:
        await stub.ListGames(gs.ListGamesRequest())


async def test_roles_decide_what_a_key_may_do(keyed: RunningServer) -> None:
    ops_channel, ops = _stub(keyed, OPS_KEY)
    admin_channel, admin = _stub(keyed, ADMIN_KEY)
    player_channel, player = _stub(keyed, PLAYER_KEY)
    async with ops_channel, admin_channel, player_channel:
        game_id = await create_game(player, 2)
        for call in (
            ops.CreateGame(gs.CreateGameRequest(options=gp.GameOptions(player_count=2))),
            ops.JoinGame(gs.JoinGameRequest(game_id=game_id)),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await call
            assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert "ops role" in (caught.value.details() or "")
        # ...but it looks: lists and spectates.
        listed = await ops.ListGames(gs.ListGamesRequest())
        assert [g.game_id for g in listed.games] == [game_id]
        watch = ops.WatchGame(gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()))
        first = await watch.read()
        assert first.view.game_id == game_id
        watch.cancel()
        # Scenarios: an admin key, not a player key (nor the admin token of no server here).
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await player.CreateGame(gs.CreateGameRequest(scenario_json=SCENARIO))
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
        created = await admin.CreateGame(gs.CreateGameRequest(scenario_json=SCENARIO))
        assert created.game.from_scenario


async def test_the_old_admin_token_is_an_admin_key(server_factory: Factory) -> None:
    server: RunningServer = await server_factory(admin_token="legacy-admin-token-value")
    try:
        channel, stub = _stub(server, "legacy-admin-token-value")
        async with channel:
            created = await stub.CreateGame(gs.CreateGameRequest(scenario_json=SCENARIO))
            assert created.game.from_scenario
        # The request field keeps working for anonymous callers too.
        channel, stub = _stub(server, None)
        async with channel:
            created = await stub.CreateGame(
                gs.CreateGameRequest(scenario_json=SCENARIO, admin_token="legacy-admin-token-value")
            )
            assert created.game.from_scenario
    finally:
        await server.shutdown(0)


async def test_open_games_quota_names_the_limit_and_frees_up_when_a_game_ends(
    keyed: RunningServer,
) -> None:
    channel, stub = _stub(keyed, PLAYER_KEY)
    admin_channel, admin = _stub(keyed, ADMIN_KEY)
    async with channel, admin_channel:
        first = await create_game(stub, 2, seed=3)
        await create_game(stub, 2)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await create_game(stub, 2)
        error = caught.value
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "bot-runner" in (error.details() or "")
        assert "at most 2 open or in-progress games" in (error.details() or "")
        (failure,) = _details(error)  # a count: no RetryInfo, waiting does not help
        assert isinstance(failure, error_details_pb2.QuotaFailure)
        violation = failure.violations[0]
        assert violation.subject == "client:bot-runner" and violation.quota_id == "open_games"
        # Another identity is not affected.
        await create_game(admin, 2)
        # Once a game is over it no longer counts.
        tokens = await join_all(stub, first, 2)
        rng = random.Random(1)
        while await random_step(stub, first, tokens, rng):
            pass
        await create_game(stub, 2)
    refusals = keyed.metrics.registry.get_sample_value(
        "yggdrasil_quota_refusals_total", {"client": "bot-runner", "limit": "open_games"}
    )
    assert refusals == 1.0
    # The metrics name the key, never show it (nor its hash).
    exposition = generate_latest(keyed.metrics.registry).decode()
    assert 'client="bot-runner"' in exposition
    for secret in (PLAYER_KEY, hash_key(PLAYER_KEY), ADMIN_KEY, hash_key(ADMIN_KEY)):
        assert secret not in exposition


async def test_rates_answer_with_retry_info(server_factory: Factory) -> None:
    # Rates of one per 1,000 s: no token comes back while the test runs, however slowly.
    server: RunningServer = await server_factory(
        anonymous_quota="create_rate=0.001,create_burst=2,decision_rate=0.001,decision_burst=1"
    )
    try:
        channel, stub = _stub(server, None)
        async with channel:
            game_id = await create_game(stub, 2)
            await create_game(stub, 2)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await create_game(stub, 2)
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            failure, retry = _details(caught.value)
            assert failure.violations[0].quota_id == "create_rate"
            assert failure.violations[0].subject == "client:anonymous"
            assert 0 < retry.retry_delay.ToNanoseconds() <= 1_000 * 1_000_000_000
            tokens = await join_all(stub, game_id, 2)
            view = await stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=tokens[0]))
            request = gs.SubmitActionRequest(
                game_id=game_id,
                seat_token=tokens[view.view.awaiting_seats[0]],
                legal_index=0,
                state_version=view.view.state_version,
                idempotency_key="one",
            )
            await stub.SubmitAction(request)
            request.idempotency_key = "two"
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.SubmitAction(request)
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "decisions a second" in (caught.value.details() or "")
            failure, retry = _details(caught.value)
            assert failure.violations[0].quota_id == "decision_rate"
            assert retry.retry_delay.ToNanoseconds() > 0
    finally:
        await server.shutdown(0)


async def test_the_sdk_waits_out_a_rate_refusal_and_plays_on(server_factory: Factory) -> None:
    # One decision at a time, 100 a second: two seats deciding together are refused often;
    # the SDK retries after the RetryInfo delay (same idempotency key) and the game ends.
    server: RunningServer = await server_factory(
        anonymous_quota="decision_rate=100,decision_burst=1"
    )
    try:
        address = f"127.0.0.1:{server.port}"
        channel, stub = _stub(server, None)
        async with channel:
            game_id = await create_game(stub, 2)
        results = await asyncio.gather(
            *(
                play_seat(address, game_id, RandomBot(), seat=seat, transport="unary",
                          rng=random.Random(seat))
                for seat in range(2)
            )
        )  # fmt: skip
        assert {result.status for result in results} == {"FINISHED"}
        assert sum(result.retried for result in results) > 0
        assert sum(result.reconnects for result in results) == 0
        refused = server.metrics.registry.get_sample_value(
            "yggdrasil_quota_refusals_total", {"client": "anonymous", "limit": "decision_rate"}
        )
        assert refused is not None and refused >= sum(result.retried for result in results)
    finally:
        await server.shutdown(0)


async def test_stream_quota_counts_open_streams(server_factory: Factory) -> None:
    server: RunningServer = await server_factory(anonymous_quota="streams=2")
    try:
        channel, stub = _stub(server, None)
        async with channel:
            game_id = await create_game(stub, 2)
            request = gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator())
            calls = [stub.WatchGame(request) for _ in range(2)]
            for call in calls:
                await call.read()
            third = stub.WatchGame(request)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await third.read()
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "at most 2 streams" in (caught.value.details() or "")
            calls[0].cancel()
            quotas = server.quotas
            assert quotas is not None
            await until(  # the server notices the cancellation
                lambda: quotas.streams("anon:ipv4:127.0.0.1") < 2, "the stream is still counted"
            )
            again = stub.WatchGame(request)
            assert (await again.read()).view.game_id == game_id
            again.cancel()
            calls[1].cancel()
    finally:
        await server.shutdown(0)


async def test_logs_carry_the_key_name_never_the_key(keyed: RunningServer) -> None:
    out = io.StringIO()
    configure_logging("DEBUG", out)  # access lines are DEBUG unless --access-log
    try:
        channel, stub = _stub(keyed, PLAYER_KEY)
        async with channel:
            await stub.ListGames(gs.ListGamesRequest())
    finally:
        configure_logging("WARNING")
    text = out.getvalue()
    assert PLAYER_KEY not in text and hash_key(PLAYER_KEY) not in text
    lines = [json.loads(line) for line in text.splitlines()]
    access = [line for line in lines if line.get("event") == "rpc"]
    assert access and all(line["client"] == "bot-runner" for line in access)


async def test_the_keys_file_is_read_again_when_it_changes(
    server_factory: Factory, tmp_path: Path
) -> None:
    path = tmp_path / "keys.toml"
    path.write_text("", encoding="utf-8")
    server: RunningServer = await server_factory(api_keys=path, require_api_key=True)
    try:
        channel, stub = _stub(server, PLAYER_KEY)
        async with channel:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.ListGames(gs.ListGamesRequest())
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
            # The server notices the new file by itself (it checks every 2 s).
            loads = server.keys.loads if server.keys else 0
            keys_file(path)
            await until(
                lambda: server.keys is not None and server.keys.loads > loads,
                "the changed keys file was never read again",
            )
            await stub.ListGames(gs.ListGamesRequest())
            assert server.reload_keys()  # what SIGHUP calls
            # A broken file keeps the keys read before.
            path.write_text("[[keys]]\nname = 3\n", encoding="utf-8")
            assert not server.reload_keys()
            await stub.ListGames(gs.ListGamesRequest())
    finally:
        await server.shutdown(0)


async def test_play_sessions_count_as_streams_and_their_decisions_as_decisions(
    server_factory: Factory,
) -> None:
    server: RunningServer = await server_factory(
        anonymous_quota="streams=1,decision_rate=0.01,decision_burst=1"
    )
    try:
        channel, stub = _stub(server, None)
        async with channel:
            game_id = await create_game(stub, 2, seed=43)
            tokens = await join_all(stub, game_id, 2)
            session = await Session.open(stub, game_id, seat_token=tokens[0])
            prompt = await session.read()
            # A second stream (a session or a watch) is over the quota of 1.
            second = await Session.open(stub, game_id, seat_token=tokens[1])
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await second.read()
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            watch = stub.WatchGame(gs.WatchGameRequest(game_id=game_id))
            with pytest.raises(grpc.aio.AioRpcError):
                await watch.read()
            # The first decision uses the burst; the second is answered in band, with the
            # same details as SubmitAction would give, and the seat is asked again.
            await session.send(decision(prompt, 0))
            message = await session.read()
            assert message.answers[0].code == 0 and message.legal_actions
            over = decision(message, 0)
            await session.send(over)
            refused = await session.read()
            answer = refused.answers[0]
            assert answer.idempotency_key == over.idempotency_key
            assert answer.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
            assert "decisions a second" in answer.message
            kinds = set()
            for packed in answer.details:
                for kind in (error_details_pb2.QuotaFailure, error_details_pb2.RetryInfo):
                    if packed.Is(kind.DESCRIPTOR):
                        kinds.add(kind.__name__)
            assert kinds == {"QuotaFailure", "RetryInfo"}
            assert refused.legal_actions  # asked again
            assert len(server.games.get(game_id).log) == 1
            session.cancel()
    finally:
        await server.shutdown(0)


async def test_the_ops_role_cannot_open_a_play_session(keyed: RunningServer) -> None:
    channel, stub = _stub(keyed, PLAYER_KEY)
    ops_channel, ops = _stub(keyed, OPS_KEY)
    async with channel, ops_channel:
        game_id = await create_game(stub, 2)
        session = await Session.open(ops, game_id, join=gs.PlayJoin())
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await session.read()
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_behind_a_trusted_proxy_anonymous_callers_are_counted_by_forwarded_address(
    server_factory: Factory,
) -> None:
    # One open game per anonymous address. The test's calls come from 127.0.0.1.
    quota = "open_games=1"

    async def create(stub: Stub, forwarded: str | None) -> grpc.StatusCode:
        metadata = (("x-forwarded-for", forwarded),) if forwarded else ()
        try:
            await stub.CreateGame(
                gs.CreateGameRequest(options=gp.GameOptions(player_count=2)), metadata=metadata
            )
        except grpc.aio.AioRpcError as error:
            return error.code()
        return grpc.StatusCode.OK

    out = io.StringIO()
    configure_logging("DEBUG", out)
    proxied: RunningServer = await server_factory(
        anonymous_quota=quota, trusted_proxies="127.0.0.1"
    )
    untrusted: RunningServer = await server_factory(
        anonymous_quota=quota, trusted_proxies="10.0.0.0/8"
    )
    try:
        # From a trusted proxy: each forwarded client has its own quota.
        channel, stub = _stub(proxied, None)
        async with channel:
            assert await create(stub, "198.51.100.1") == grpc.StatusCode.OK
            assert await create(stub, "6.6.6.6, 198.51.100.2") == grpc.StatusCode.OK
            assert await create(stub, "198.51.100.1") == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert await create(stub, None) == grpc.StatusCode.OK  # the proxy's own
        quotas = proxied.quotas
        assert quotas is not None
        assert quotas.open_games("anon:ipv4:198.51.100.2") == 1
        # From a peer that is not trusted, a spoofed header changes nothing: one quota.
        channel, stub = _stub(untrusted, None)
        async with channel:
            assert await create(stub, "198.51.100.1") == grpc.StatusCode.OK
            assert await create(stub, "198.51.100.2") == grpc.StatusCode.RESOURCE_EXHAUSTED
        quotas = untrusted.quotas
        assert quotas is not None
        assert quotas.open_games("anon:ipv4:127.0.0.1") == 1
        assert quotas.open_games("anon:ipv4:198.51.100.1") == 0
    finally:
        configure_logging("WARNING")
        await proxied.shutdown(0)
        await untrusted.shutdown(0)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    forwarded = {line.get("client_address") for line in lines if line.get("event") == "rpc"}
    assert {"ipv4:198.51.100.1", "ipv4:198.51.100.2"} <= forwarded
