"""The tournament runner reserves its seats (issue 27, point 2): every seat of its games is
behind a join code only that seat's bot gets, so a stranger who sees the game between
CreateGame and the bots' joins cannot take a seat; the bots, in process and external, join
with their codes and the games are played out."""

from __future__ import annotations

import grpc
import grpc.aio
import pytest

from clients import tournament
from clients.connection import open_channel, stub_for
from clients.tournament import BotSpec, Settings, parse_bot, run_tournament
from server.main import RunningServer
from yggdrasil.v1 import game_service_pb2 as gs


async def test_a_stranger_cannot_take_a_tournament_seat(
    running: RunningServer, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    address = f"127.0.0.1:{running.port}"
    stranger = open_channel(address)
    refusals: dict[int, grpc.StatusCode] = {}
    mine: list[int] = []
    real_play_seat = tournament.play_seat

    async def stranger_first(address: str, game_id: str, *args: object, **kwargs: object):
        # the moment between CreateGame and this seat's join: a stranger tries every seat
        listed = await stub_for(stranger).ListGames(gs.ListGamesRequest())
        assert game_id in {g.game_id for g in listed.games}  # the game is listed...
        mine.append(int(kwargs["seat"]))  # type: ignore[call-overload]
        for seat in range(2):
            try:
                await stub_for(stranger).JoinGame(gs.JoinGameRequest(game_id=game_id, seat=seat))
            except grpc.aio.AioRpcError as error:
                refusals[seat] = error.code()
        return await real_play_seat(address, game_id, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tournament, "play_seat", stranger_first)
    bots: list[BotSpec] = []
    for spec in ("random", "cmd:python -m clients.sdk --bot random"):
        bots.append(parse_bot(spec, [b.label for b in bots]))
    settings = Settings(bots, [2], 1, address, tmp_path / "out", seed=5, concurrency=1)
    try:
        records = await run_tournament(settings)
    finally:
        await stranger.close()
    (record,) = records
    assert not record.error, record.error
    assert len(record.scores) == 2
    # ...but its seats are not free: the in-process bot's seat (not joined yet) was refused
    # as reserved, the external bot's as reserved or, had it been quicker, as claimed
    (seat,) = mine
    assert refusals[seat] == grpc.StatusCode.PERMISSION_DENIED
    assert refusals[1 - seat] in (
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.ALREADY_EXISTS,
    )
    game = running.games.games.get(record.game_id)
    if game is not None:
        assert game.reserved_seats == (0, 1)
