"""Issue 26, point 4: a creator who chooses the seed knows everyone's hidden cards.

A player's CreateGame with ``seed = 12345`` let ``rules.new_game`` predict another seat's
draft pack exactly. Now only admin and tournament identities choose a seed (tournaments deal
equal hands to every line-up); a player's seed is mixed with server randomness, and the seed
the game played with is revealed with its replay once it is over, so the replay verifies.
GameSummary, ListGames and every view say whether the seed was chosen, and by whom."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from api_support import Stub

from clients.bots.base import RandomBot
from clients.connection import open_channel, stub_for
from clients.sdk import play_seat
from engine import registry
from protocol.replay_json import replay_from_response, verify_replay
from server.api.identity import hash_key
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

PLAYER_KEY = "ygg_seed-player-key-0123456789abcdefghij"
TOURNAMENT_KEY = "ygg_seed-tournament-key-0123456789abcdef"
ADMIN_KEY = "ygg_seed-admin-key-0123456789abcdefghijk"
SEED = 12345


@pytest.fixture
async def keyed(server_factory: Callable[..., Any], tmp_path: Path) -> AsyncIterator[RunningServer]:
    keys = tmp_path / "keys.toml"
    keys.write_text(
        "".join(
            f'[[keys]]\nname = "{name}"\nrole = "{role}"\nsha256 = "{hash_key(key)}"\n\n'
            for name, role, key in (
                ("someone", "player", PLAYER_KEY),
                ("league", "tournament", TOURNAMENT_KEY),
                ("lead", "admin", ADMIN_KEY),
            )
        ),
        encoding="utf-8",
    )
    server: RunningServer = await server_factory(api_keys=keys, seed_choice="keys")
    try:
        yield server
    finally:
        await server.shutdown(0)


def _predicted_pack(players: int, seat: int) -> list[int]:
    """Seat ``seat``'s first draft pack as the engine deals it from SEED."""
    rules = registry.rules("blood_rage")
    state = rules.new_game(rules.options(players, SEED, {}))
    view = rules.view(state, seat)
    return sorted(int(card["instance"]) for card in view["private"]["pack"])


async def _created(server: RunningServer, key: str | None) -> tuple[str, list[str], Stub]:
    channel = open_channel(f"127.0.0.1:{server.port}", api_key=key)
    stub = stub_for(channel)
    options = gp.GameOptions(player_count=2, seed=SEED)
    game_id = (await stub.CreateGame(gs.CreateGameRequest(options=options))).game_id
    tokens = []
    for seat in range(2):
        reply = await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=seat))
        tokens.append(reply.seat_token)
    return game_id, tokens, stub


async def _pack(stub: Stub, game_id: str, token: str) -> list[int]:
    view = (await stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=token))).view
    return sorted(int(card.instance) for card in view.blood_rage.own.draft_pack)


@pytest.mark.parametrize("key", [None, PLAYER_KEY], ids=["anonymous", "player key"])
async def test_a_players_seed_does_not_predict_the_deal(
    keyed: RunningServer, key: str | None
) -> None:
    predicted = _predicted_pack(2, 1)
    packs = []
    for _ in range(2):
        game_id, tokens, stub = await _created(keyed, key)
        packs.append(await _pack(stub, game_id, tokens[1]))
    assert packs[0] != predicted and packs[1] != predicted
    assert packs[0] != packs[1]  # the same seed asked twice: two deals
    summary = (await stub.ListGames(gs.ListGamesRequest())).games[0]
    assert summary.game_id == game_id
    assert not summary.seed_chosen and summary.seed_chosen_by == ""
    assert not summary.options.HasField("seed")  # still hidden while the game is on
    view = (await stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))).view
    assert not view.seed_chosen
    # Once the game is over, the seed it played with comes with the replay, which verifies.
    address = f"127.0.0.1:{keyed.port}"
    await asyncio.wait_for(
        asyncio.gather(
            *(
                play_seat(
                    address,
                    game_id,
                    RandomBot(),
                    token=tokens[s],
                    rng=random.Random(s),
                    api_key=key,
                )
                for s in range(2)
            )
        ),
        120,
    )
    replay = await stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
    assert replay.options.HasField("seed") and replay.options.seed != SEED
    assert verify_replay(replay_from_response(replay, game_id)).ok


@pytest.mark.parametrize(
    ("key", "name"), [(TOURNAMENT_KEY, "league"), (ADMIN_KEY, "lead")], ids=["tournament", "admin"]
)
async def test_admin_and_tournament_keys_choose_the_seed_and_say_so(
    keyed: RunningServer, key: str, name: str
) -> None:
    game_id, tokens, stub = await _created(keyed, key)
    assert await _pack(stub, game_id, tokens[1]) == _predicted_pack(2, 1)
    (summary,) = [
        g for g in (await stub.ListGames(gs.ListGamesRequest())).games if g.game_id == game_id
    ]
    assert summary.seed_chosen and summary.seed_chosen_by == name
    for request in (
        gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()),
        gs.GetViewRequest(game_id=game_id, seat_token=tokens[0]),
    ):
        view = (await stub.GetView(request)).view
        assert view.seed_chosen and view.seed_chosen_by == name
    watch = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, seat_token=tokens[1]))
    first = await watch.read()
    assert first.view.seed_chosen_by == name
    watch.cancel()
