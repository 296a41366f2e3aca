"""Creating (admin-only scenarios), listing, catalog and ping."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import grpc
import grpc.aio
import pytest
from api_support import ADMIN_TOKEN, Stub, create_game, join_all, seat_view

from server.main import RunningServer
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import diagnostics_service_pb2 as ds
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

ROOT = Path(__file__).resolve().parents[2]
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


async def test_scenarios_need_the_admin_token(stub: Stub) -> None:
    for token in ("", "wrong", ADMIN_TOKEN + "x"):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.CreateGame(gs.CreateGameRequest(scenario_json=SCENARIO, admin_token=token))
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert ADMIN_TOKEN not in (caught.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.CreateGame(
            gs.CreateGameRequest(scenario_json='{"players": 9}', admin_token=ADMIN_TOKEN)
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    reply = await stub.CreateGame(
        gs.CreateGameRequest(scenario_json=SCENARIO, admin_token=ADMIN_TOKEN)
    )
    assert reply.game.from_scenario and reply.game.options.player_count == 3
    tokens = await join_all(stub, reply.game_id, 3)
    view = await seat_view(stub, reply.game_id, tokens[1])
    assert view.awaiting_seats == [1]
    assert view.blood_rage.phase == br.PHASE_ACTION and view.blood_rage.step == br.STEP_ACTION
    elvagar = [f for f in view.blood_rage.clans[1].figures if f.area == br.AREA_ELVAGAR]
    assert sorted(f.unit for f in elvagar) == [br.UNIT_LEADER, br.UNIT_WARRIOR]


async def test_no_admin_token_configured_means_no_scenarios(server_factory: object) -> None:
    server = await server_factory(admin_token=None)  # type: ignore[operator]
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            from yggdrasil.v1 import game_service_pb2_grpc

            stub = game_service_pb2_grpc.GameServiceStub(channel)
            for token in ("", ADMIN_TOKEN):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub.CreateGame(
                        gs.CreateGameRequest(scenario_json=SCENARIO, admin_token=token)
                    )
                assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        await server.shutdown(0)


async def test_list_games_newest_first_with_pages(stub: Stub) -> None:
    ids = [await create_game(stub, 2, seed=i) for i in range(7)]
    await join_all(stub, ids[3], 2)
    seen: list[str] = []
    token = ""
    while True:
        page = await stub.ListGames(gs.ListGamesRequest(page_size=3, page_token=token))
        seen += [g.game_id for g in page.games]
        for summary in page.games:
            assert not summary.options.HasField("seed")  # secret until finished
        token = page.next_page_token
        if not token:
            break
    assert seen == ids[::-1]
    in_progress = await stub.ListGames(gs.ListGamesRequest(status=gp.GAME_STATUS_IN_PROGRESS))
    assert [g.game_id for g in in_progress.games] == [ids[3]]
    assert [s.name for s in in_progress.games[0].seats] == ["player 0", "player 1"]


async def test_catalog_and_ping(running: RunningServer, stub: Stub, diagnostics: object) -> None:
    catalog = await stub.GetCatalog(gs.GetCatalogRequest())
    assert len(catalog.blood_rage.cards) > 50
    assert {a.name for a in catalog.blood_rage.areas} >= {"Yggdrasil", "Gimle", "North fjord"}
    pong = await diagnostics.Ping(ds.PingRequest(payload=b"hello"))  # type: ignore[attr-defined]
    assert pong.payload == b"hello"
    with (ROOT / "pyproject.toml").open("rb") as f:
        assert pong.server_version == tomllib.load(f)["project"]["version"]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await diagnostics.Ping(ds.PingRequest(payload=b"x" * (64 * 1024 + 1)))  # type: ignore[attr-defined]
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_server_drawn_seed_stays_secret(running: RunningServer, stub: Stub) -> None:
    game_id = await create_game(stub, 2, seed=None)
    game = running.games.get(game_id)
    assert 0 <= game.settings.seed < 2**64  # drawn by the server
    page = await stub.ListGames(gs.ListGamesRequest())
    assert not page.games[0].options.HasField("seed")
