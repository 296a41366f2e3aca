"""Private games (issue 27, point 2): an unlisted game is listed only to its creator, the keys
its seats are reserved for and admins; a reserved seat goes only to its API key or its join
code; a stranger's refused join changes nothing; the access is checked when the game is made,
and survives a restart of a SQLite server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from private_support import Caller, keys_file, listed_ids, private_request, refused

from server.config import ServerConfig
from server.main import RunningServer, open_store, start_server
from server.ops.metrics import Metrics, new_registry
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

Factory = Callable[..., Any]


@pytest.fixture
async def keyed(server_factory: Factory, tmp_path: Path) -> AsyncIterator[RunningServer]:
    server: RunningServer = await server_factory(api_keys=keys_file(tmp_path / "keys.toml"))
    try:
        yield server
    finally:
        await server.shutdown(0)


@pytest.fixture
async def callers(keyed: RunningServer) -> AsyncIterator[dict[str | None, Caller]]:
    address = f"127.0.0.1:{keyed.port}"
    made = {who: Caller(address, who) for who in ("alice", "bob", "mallory", "lead", None)}
    try:
        yield made
    finally:
        for caller in made.values():
            await caller.close()


async def test_an_unlisted_game_is_listed_to_its_own_only(
    callers: dict[str | None, Caller],
) -> None:
    alice = callers["alice"]
    private = await alice.stub.CreateGame(private_request(keys={1: "bob"}))
    public = await alice.stub.CreateGame(
        gs.CreateGameRequest(options=gp.GameOptions(player_count=2))
    )
    assert private.game.unlisted and not public.game.unlisted
    assert [s.reserved for s in private.game.seats] == [False, True, False]
    for who, sees in {
        "alice": True,
        "bob": True,
        "lead": True,
        "mallory": False,
        None: False,
    }.items():
        ids = await listed_ids(callers[who])
        assert (private.game_id in ids) is sees, who
        assert public.game_id in ids, who
    # the id is the invitation: whoever has it may watch, and take a seat nobody reserved
    view = await callers["mallory"].stub.GetView(gs.GetViewRequest(game_id=private.game_id))
    assert view.view.game_id == private.game_id
    joined = await callers[None].stub.JoinGame(gs.JoinGameRequest(game_id=private.game_id))
    assert joined.seat == 0


async def test_a_seat_reserved_for_a_key_goes_to_that_key_only(
    keyed: RunningServer, callers: dict[str | None, Caller]
) -> None:
    created = await callers["alice"].stub.CreateGame(
        private_request(unlisted=False, keys={0: "bob", 2: "bob"})
    )
    game_id = created.game_id
    game = keyed.games.games[game_id]
    for who in ("mallory", "alice", "lead", None):
        error = await refused(
            callers[who].stub.JoinGame, gs.JoinGameRequest(game_id=game_id, seat=0)
        )
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED, who
        assert "seat 0 is reserved" in (error.details() or "")
    assert game.claimed() == [False, False, False] and game.last_sequence == 0
    # without a seat, a stranger gets the free seat nobody reserved, then nothing
    stranger = await callers["mallory"].stub.JoinGame(gs.JoinGameRequest(game_id=game_id))
    assert stranger.seat == 1
    error = await refused(callers["mallory"].stub.JoinGame, gs.JoinGameRequest(game_id=game_id))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "reserved for someone else" in (error.details() or "")
    # bob, asking for no seat, gets his own seats in turn
    first = await callers["bob"].stub.JoinGame(gs.JoinGameRequest(game_id=game_id))
    second = await callers["bob"].stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=2))
    assert (first.seat, second.seat) == (0, 2)
    assert second.game.status == gp.GAME_STATUS_IN_PROGRESS


async def test_join_codes_open_their_seat_and_nothing_else(
    keyed: RunningServer, callers: dict[str | None, Caller]
) -> None:
    created = await callers["alice"].stub.CreateGame(private_request(codes=(0, 2)))
    codes = {c.seat: c.join_code for c in created.join_codes}
    assert sorted(codes) == [0, 2] and len(set(codes.values())) == 2
    assert all(len(code) >= 22 for code in codes.values())
    game_id = created.game_id
    stub = callers[None].stub
    game = keyed.games.games[game_id]
    for request, code in (
        (gs.JoinGameRequest(game_id=game_id, seat=0), grpc.StatusCode.PERMISSION_DENIED),
        (
            gs.JoinGameRequest(game_id=game_id, join_code="x" * 22),
            grpc.StatusCode.PERMISSION_DENIED,
        ),
        (
            gs.JoinGameRequest(game_id=game_id, seat=2, join_code=codes[0]),
            grpc.StatusCode.PERMISSION_DENIED,
        ),
        (
            gs.JoinGameRequest(game_id=game_id, join_code="y" * 257),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
    ):
        error = await refused(stub.JoinGame, request)
        assert error.code() == code, request
    assert game.claimed() == [False, False, False]
    # the right code, from anyone: its seat (asked for or not)
    friend = await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, join_code=codes[2]))
    assert friend.seat == 2
    again = await refused(stub.JoinGame, gs.JoinGameRequest(game_id=game_id, join_code=codes[2]))
    assert again.code() == grpc.StatusCode.ALREADY_EXISTS
    other = await callers["bob"].stub.JoinGame(
        gs.JoinGameRequest(game_id=game_id, seat=0, join_code=codes[0])
    )
    assert other.seat == 0
    # a code is never a seat token
    error = await refused(stub.GetView, gs.GetViewRequest(game_id=game_id, seat_token=codes[0]))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_a_play_session_joins_with_a_join_code(
    callers: dict[str | None, Caller],
) -> None:
    created = await callers["alice"].stub.CreateGame(private_request(players=2, codes=(0, 1)))
    codes = {c.seat: c.join_code for c in created.join_codes}
    game_id = created.game_id

    async def open_with(code: str) -> Any:
        call = callers[None].stub.PlaySession()
        await call.write(
            gs.PlaySessionRequest(
                open=gs.PlayOpen(game_id=game_id, join=gs.PlayJoin(join_code=code))
            )
        )
        try:
            return await call.read()
        finally:
            call.cancel()

    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await open_with("")
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # every seat reserved
    first = await open_with(codes[1])
    assert first.seat == 1 and first.seat_token


@pytest.mark.parametrize(
    ("access", "message"),
    [
        (
            gs.GameAccess(reservations=[gs.SeatReservation(seat=0, join_code=True)] * 2),
            "more than once",
        ),
        (
            gs.GameAccess(reservations=[gs.SeatReservation(seat=5, api_key_name="bob")]),
            "not a seat",
        ),
        (gs.GameAccess(reservations=[gs.SeatReservation(seat=-1, join_code=True)]), "not a seat"),
        (gs.GameAccess(reservations=[gs.SeatReservation(seat=0)]), "needs api_key_name"),
        (
            gs.GameAccess(reservations=[gs.SeatReservation(seat=0, join_code=False)]),
            "needs api_key_name",
        ),
        (
            gs.GameAccess(reservations=[gs.SeatReservation(seat=0, api_key_name=" ")]),
            "api_key_name",
        ),
        (
            gs.GameAccess(reservations=[gs.SeatReservation(seat=0, api_key_name="k" * 129)]),
            "api_key_name",
        ),
    ],
)
async def test_malformed_access_is_refused_and_creates_nothing(
    keyed: RunningServer, callers: dict[str | None, Caller], access: gs.GameAccess, message: str
) -> None:
    request = gs.CreateGameRequest(options=gp.GameOptions(player_count=3), access=access)
    error = await refused(callers["alice"].stub.CreateGame, request)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in (error.details() or "")
    assert not keyed.games.games


async def test_the_access_survives_a_restart(tmp_path: Path) -> None:
    keys = keys_file(tmp_path / "keys.toml")
    config = ServerConfig(
        port=0, metrics_port=-1, store="sqlite", data_dir=tmp_path / "data", fsync=False,
        api_keys=keys, anonymous_quota="unlimited", grace_period_s=0.0,
    )  # fmt: skip

    async def start() -> RunningServer:
        return await start_server(
            config,
            metrics=Metrics(new_registry(process_collectors=False)),
            store=open_store(config),
            owns_store=True,
        )

    running = await start()
    alice = Caller(f"127.0.0.1:{running.port}", "alice")
    created = await alice.stub.CreateGame(private_request(keys={0: "bob"}, codes=(1,)))
    code = created.join_codes[0].join_code
    await alice.close()
    await running.shutdown(0)
    running = await start()
    address = f"127.0.0.1:{running.port}"
    mallory, bob, anyone = Caller(address, "mallory"), Caller(address, "bob"), Caller(address, None)
    try:
        assert created.game_id not in await listed_ids(mallory)
        assert created.game_id in await listed_ids(bob)
        error = await refused(
            mallory.stub.JoinGame, gs.JoinGameRequest(game_id=created.game_id, seat=0)
        )
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        joined = await anyone.stub.JoinGame(
            gs.JoinGameRequest(game_id=created.game_id, join_code=code)
        )
        assert joined.seat == 1
        assert (await bob.stub.JoinGame(gs.JoinGameRequest(game_id=created.game_id))).seat == 0
    finally:
        for caller in (mallory, bob, anyone):
            await caller.close()
        await running.shutdown(0)
