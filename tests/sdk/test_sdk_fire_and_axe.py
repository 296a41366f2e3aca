"""Fire & Axe bots through the SDK and the tournament runner: heuristic and random bots play
whole games on a served game (one PlaySession per seat, and the frontends' unary calls), the
runner plays Fire & Axe games (``--game``) with an external ``cmd:`` bot that finds the game's
kind itself, and every replay verifies."""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from pathlib import Path

import grpc.aio
import pytest

from clients.fire_and_axe.bots.heuristic import HeuristicBot
from clients.sdk import game_of, make_bot, play_seat
from clients.tournament import main, parse_bot
from protocol.replay_json import loads, replay_from_response, verify_replay
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc


@pytest.mark.parametrize("transport", ["session", "unary"])
async def test_heuristic_and_random_bots_play_a_whole_game(
    running: RunningServer, transport: str
) -> None:
    address = f"127.0.0.1:{running.port}"
    options = gp.GameOptions(player_count=3, seed=12)
    options.fire_and_axe.SetInParent()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game = (await stub.CreateGame(gs.CreateGameRequest(options=options))).game_id
        assert await game_of(address, game) == "fire_and_axe"
        bots = [make_bot("heuristic", "fire_and_axe"), make_bot("heuristic", "fire_and_axe")]
        bots.append(make_bot("random", "fire_and_axe"))
        assert isinstance(bots[0], HeuristicBot)
        results = await asyncio.wait_for(
            asyncio.gather(
                *(
                    play_seat(
                        address, game, bot, seat=seat, rng=random.Random(seat), transport=transport
                    )
                    for seat, bot in enumerate(bots)
                )
            ),
            timeout=300,
        )
        assert {r.status for r in results} == {"FINISHED"}
        truth = (await stub.GetResult(gs.GetResultRequest(game_id=game))).result
        assert results[0].scores == [s.score for s in sorted(truth.seats, key=lambda s: s.seat)]
        assert truth.HasField("fire_and_axe") and truth.fire_and_axe.pack.demo
        # The heuristic seats outscore the random one.
        scores = results[0].scores
        assert min(scores[0], scores[1]) > scores[2]
        replay = await stub.GetReplay(gs.GetReplayRequest(game_id=game))
        check = verify_replay(replay_from_response(replay, game))
        assert check.ok, check.problems


def test_the_tournament_runner_plays_fire_and_axe(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    code = main(
        ["heuristic", "random", "cmd:python -m clients.sdk --bot heuristic", "--game",
         "fire_and_axe", "--games", "3", "--players", "3", "--spawn-server", "--seed", "7",
         "--concurrency", "3", "--out", str(out)]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "3 fire_and_axe games, players 3" in printed
    results = json.loads((out / "results.json").read_text())
    assert results["game"] == "fire_and_axe" and len(results["games"]) == 3
    seats = Counter(bot for g in results["games"] for bot in g["bots"])
    assert set(seats.values()) == {3}  # every bot played every seat once
    for game in results["games"]:
        assert not game["error"], game
        document = loads((out / game["replay"]).read_text())
        assert document["game"] == "fire_and_axe"
        check = verify_replay(document)
        assert check.ok, check.problems
        assert check.scores == game["scores"]


def test_a_strategy_is_the_chosen_games() -> None:
    assert parse_bot("heuristic", game="fire_and_axe").spec == "heuristic"
    with pytest.raises(ValueError, match="unknown bot 'ismcts'"):
        parse_bot("ismcts", game="fire_and_axe")
    assert parse_bot("ismcts").spec == "ismcts"  # Blood Rage's
