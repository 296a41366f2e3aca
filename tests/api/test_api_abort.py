"""Abandoned games end, and AbortGame: who may, what watchers and players see, the quota."""

from __future__ import annotations

import io
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from api_support import Stub, create_game, join_all, random_step, version_mismatch
from rich.console import Console
from test_api_identity import ADMIN_KEY, OPS_KEY, PLAYER_KEY, keys_file

from clients.cli import amain
from clients.connection import open_channel, stub_for
from server.api.identity import hash_key
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

Factory = Callable[..., Any]
OTHER_KEY = "ygg_another-player-key-0123456789abcdef"


@pytest.fixture
async def keyed(server_factory: Factory, tmp_path: Path) -> AsyncIterator[RunningServer]:
    path = keys_file(tmp_path / "keys.toml")
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f'\n[[keys]]\nname = "rival"\nsha256 = "{hash_key(OTHER_KEY)}"\n')
    server: RunningServer = await server_factory(api_keys=path, require_api_key=True)
    try:
        yield server
    finally:
        await server.shutdown(0)


def _stub(server: RunningServer, key: str | None) -> tuple[grpc.aio.Channel, Stub]:
    channel = open_channel(f"127.0.0.1:{server.port}", api_key=key)
    return channel, stub_for(channel)


def _aborted(server: RunningServer, cause: str) -> float:
    value = server.metrics.registry.get_sample_value(
        "yggdrasil_games_aborted_total", {"cause": cause}
    )
    return 0.0 if value is None else value


async def test_the_creator_aborts_watchers_are_told_and_nothing_more_is_accepted(
    keyed: RunningServer,
) -> None:
    channel, stub = _stub(keyed, PLAYER_KEY)
    async with channel:
        game_id = await create_game(stub, 2, seed=5)
        tokens = await join_all(stub, game_id, 2)
        watch = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()))
        first = await watch.read()
        reply = await stub.AbortGame(gs.AbortGameRequest(game_id=game_id, reason="rain"))
        assert reply.game.status == gp.GAME_STATUS_ABORTED
        changed, aborted = await watch.read(), await watch.read()
        assert changed.sequence == first.sequence + 1 and aborted.sequence == first.sequence + 2
        assert changed.event.status_changed.status == gp.GAME_STATUS_ABORTED
        event = aborted.event.game_aborted
        assert event.cause == gp.GameAborted.CAUSE_REQUESTED
        assert event.reason == "aborted by its creator (bot-runner): rain"
        assert await watch.read() is grpc.aio.EOF
        assert await watch.code() == grpc.StatusCode.OK  # the game is over: a normal end
        view = (await stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=tokens[0]))).view
        assert view.status == gp.GAME_STATUS_ABORTED and not view.legal_actions
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.SubmitAction(
                gs.SubmitActionRequest(
                    game_id=game_id, seat_token=tokens[0], legal_index=0, state_version=0
                )
            )
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        mismatch = version_mismatch(caught.value)
        assert mismatch is not None
        assert mismatch.reason == gp.VersionMismatch.REASON_NOT_IN_PROGRESS
        for call in (
            stub.GetResult(gs.GetResultRequest(game_id=game_id)),
            stub.AbortGame(gs.AbortGameRequest(game_id=game_id)),
            stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat_token="z" * 40)),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await call
            assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        listed = await stub.ListGames(gs.ListGamesRequest(status=gp.GAME_STATUS_ABORTED))
        assert [g.game_id for g in listed.games] == [game_id]
    assert _aborted(keyed, "requested") == 1.0
    assert keyed.quotas is not None and keyed.quotas.open_games("key:bot-runner") == 0


async def test_only_the_creator_or_an_admin_may_abort(keyed: RunningServer) -> None:
    channel, stub = _stub(keyed, PLAYER_KEY)
    rival_channel, rival = _stub(keyed, OTHER_KEY)
    ops_channel, ops = _stub(keyed, OPS_KEY)
    admin_channel, admin = _stub(keyed, ADMIN_KEY)
    async with channel, rival_channel, ops_channel, admin_channel:
        game_id = await create_game(stub, 3)
        for who in (rival, ops):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await who.AbortGame(gs.AbortGameRequest(game_id=game_id))
            assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.AbortGame(gs.AbortGameRequest(game_id=game_id, reason="x" * 201))
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.AbortGame(gs.AbortGameRequest(game_id="nope"))
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
        watch = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=1))
        await admin.AbortGame(gs.AbortGameRequest(game_id=game_id))
        messages = [m async for m in watch]
        assert messages[-1].event.game_aborted.reason == "aborted by an admin (lead)"


async def test_anonymous_creators_abort_with_their_creator_token(server_factory: Factory) -> None:
    """Their address is no proof (issue 26: clients behind one address, or a forged
    x-forwarded-for, would all be the creator): the token CreateGame gave is."""
    server: RunningServer = await server_factory()
    try:
        channel, stub = _stub(server, None)
        async with channel:
            created = await stub.CreateGame(
                gs.CreateGameRequest(options=gp.GameOptions(player_count=2))
            )
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.AbortGame(gs.AbortGameRequest(game_id=created.game_id))
            assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
            await stub.AbortGame(
                gs.AbortGameRequest(game_id=created.game_id, creator_token=created.creator_token)
            )
            assert server.games.get(created.game_id).status.name == "ABORTED"
    finally:
        await server.shutdown(0)


async def test_abandoned_games_are_aborted_by_their_clocks(
    running: RunningServer, stub: Stub
) -> None:
    abandonment = running.abandonment
    assert abandonment is not None
    waiting = await create_game(stub, 3, seed=1)  # never complete
    playing = await create_game(stub, 2, seed=2)  # complete, then nobody decides
    tokens = await join_all(stub, playing, 2)
    clocked = await create_game(stub, 2, seed=3, decision_time_limit_ms=60_000)
    await join_all(stub, clocked, 2)
    games = running.games
    created = games.get(waiting).record.created_unix_ms
    idle_since = games.get(playing).activity_unix_ms
    assert await abandonment.sweep(created + 1_799_000) == 0
    assert await abandonment.sweep(created + 1_800_000) == 1
    assert games.get(waiting).status.name == "ABORTED"
    assert games.get(waiting).aborted is not None
    assert games.get(waiting).aborted.cause == gp.GameAborted.CAUSE_OPEN_TIMEOUT
    # A decision moves the idle clock on.
    assert await random_step(stub, playing, tokens, random.Random(1))
    moved = games.get(playing).activity_unix_ms
    assert moved >= idle_since
    assert await abandonment.sweep(moved + 86_399_000) == 0
    assert await abandonment.sweep(moved + 86_400_000) == 1
    aborted = games.get(playing).aborted
    assert aborted is not None and aborted.cause == gp.GameAborted.CAUSE_IDLE_TIMEOUT
    assert aborted.reason == "abandoned: no decision for 24 h"
    # A game with a decision time limit never stalls: its clock decides for absent seats.
    assert games.get(clocked).status.name == "IN_PROGRESS"
    assert await abandonment.sweep(moved + 10 * 86_400_000) == 0
    assert _aborted(running, "open_timeout") == 1.0 and _aborted(running, "idle_timeout") == 1.0


async def test_the_sweep_runs_by_itself(server_factory: Factory) -> None:
    server: RunningServer = await server_factory(open_game_timeout_s=0.3)
    try:
        channel, stub = _stub(server, None)
        async with channel:
            game_id = await create_game(stub, 2)
            watch = stub.WatchGame(gs.WatchGameRequest(game_id=game_id))
            messages = [m async for m in watch]  # ends when the sweep aborts it
            assert messages[-1].event.game_aborted.cause == gp.GameAborted.CAUSE_OPEN_TIMEOUT
            assert messages[-1].event.game_aborted.reason == (
                "abandoned: not every seat claimed after 0.3 s"
            )
    finally:
        await server.shutdown(0)


async def test_the_cli_aborts(keyed: RunningServer, monkeypatch: pytest.MonkeyPatch) -> None:
    channel, stub = _stub(keyed, PLAYER_KEY)
    async with channel:
        game_id = await create_game(stub, 2)
    address = f"127.0.0.1:{keyed.port}"
    monkeypatch.setenv("YGGDRASIL_API_KEY", OTHER_KEY)
    code, _, err = await run_cli(address, "abort", game_id)
    assert code == 1 and "PERMISSION_DENIED" in err
    monkeypatch.setenv("YGGDRASIL_API_KEY", PLAYER_KEY)
    code, out, _ = await run_cli(address, "abort", game_id, "--reason", "done")
    assert code == 0 and f"game {game_id} aborted" in out
    assert keyed.games.get(game_id).aborted is not None
    assert keyed.games.get(game_id).aborted.reason.endswith(": done")


async def run_cli(address: str, *argv: str) -> tuple[int, str, str]:
    out_buffer, err_buffer = io.StringIO(), io.StringIO()
    out = Console(file=out_buffer, color_system=None, force_terminal=False, width=200)
    err = Console(file=err_buffer, color_system=None, force_terminal=False, width=200)
    code = await amain(["--server", address, *argv], out=out, err=err)
    return code, out_buffer.getvalue(), err_buffer.getvalue()
