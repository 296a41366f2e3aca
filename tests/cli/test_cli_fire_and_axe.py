"""Fire & Axe through the command line: ``create --game fire_and_axe`` with its options, a
person playing a whole game at 80×24 against the heuristic bot (the CLI's PlaySession, lines
typed by a script that reads the screen), ``result``, ``replay --verify``, ``watch``; ``bot
--strategy heuristic``; ``data validate``."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

from cli_support import text_console

from clients.cli import CallableInput, PlaySession, amain, run_bot
from clients.fire_and_axe.bots.heuristic import HeuristicBot
from clients.fire_and_axe.names import Catalog
from clients.fire_and_axe.terminal import TERMINAL
from clients.games import make_bot
from engine.fire_and_axe.rules import RULES
from server.main import RunningServer
from yggdrasil.v1 import fire_and_axe_pb2 as fa
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "engine" / "fire_and_axe" / "demo_pack.toml"


async def run_cli(address: str, *argv: str) -> tuple[int, str, str]:
    out, out_buf = text_console()
    err, err_buf = text_console()
    code = await amain(["--server", address, *argv], out=out, err=err)
    return code, out_buf.getvalue(), err_buf.getvalue()


def _person(session: list[PlaySession], server: RunningServer, game: str) -> CallableInput:
    """Someone who reads the screen and types a number: the one the heuristic bot would take
    in their place (the test reads the position the server hosts to ask it), so that the game
    goes somewhere; it checks first that the screen shows what it is about to choose, and
    leaves the result with ``q``."""
    bot = HeuristicBot()
    rng = random.Random(5)

    def ask(prompt: str) -> str:
        shown = session[0].shown
        assert shown is not None
        if shown.status == gp.GAME_STATUS_FINISHED:  # the result stays until a key
            assert prompt.startswith("The game is over")
            return "q"
        assert shown.legal_actions
        state = server.games.get(game).state
        view = RULES.view(state, shown.viewer_seat, include_state=True)
        assert [a["code"] for a in view["legal_actions"]] == [a.code for a in shown.legal_actions]
        return str(bot.choose(view, rng) + 1)

    return CallableInput(ask)


async def test_a_person_plays_a_whole_game_against_a_bot_at_80_by_24(
    server, address, stub, token_file, tmp_path
):
    code, out, err = await run_cli(
        address,
        "create",
        "--game",
        "fire_and_axe",
        "--players",
        "2",
        "--seed",
        "11",
        "--names",
        "ann,bot",
        "--settle-region-block",
        "any",
        "--no-conflict",
        "--first-player",
        "1",
        "--data-pack",
        "demo",
    )
    assert code == 0, err
    game = out.strip()
    summary = (await stub.ListGames(gs.ListGamesRequest())).games
    options = next(g for g in summary if g.game_id == game).options.fire_and_axe
    assert options.settle_region_block == fa.FIRE_AND_AXE_SETTLE_BLOCK_ANY
    assert options.no_conflict and options.first_player == 1 and options.pack.demo

    person = await stub.JoinGame(gs.JoinGameRequest(game_id=game, seat=0, player_name="ann"))
    bot = await stub.JoinGame(gs.JoinGameRequest(game_id=game, seat=1, player_name="bot"))
    catalog = TERMINAL.catalog(await stub.GetCatalog(gs.GetCatalogRequest(kind=2)))
    assert isinstance(catalog, Catalog) and catalog.packs
    console, buffer = text_console(80)
    holder: list[PlaySession] = []
    session = PlaySession(
        stub,
        game,
        person.seat_token,
        _person(holder, server, game),
        console,
        TERMINAL,
        catalog,
        height=24,
    )
    holder.append(session)
    heuristic = make_bot("heuristic", "fire_and_axe")
    playing = run_bot(stub, game, bot.seat_token, rng=random.Random(3), bot=heuristic)
    result = await asyncio.wait_for(asyncio.gather(session.run(), playing), timeout=300)
    assert result[0] == 0 and result[1] > 50
    assert session.view.status == gp.GAME_STATUS_FINISHED and session.decisions > 10
    text = buffer.getvalue()
    assert "DEMO PACK: invented, NOT the published game" in text
    assert "YOUR DECISION" in text and "You chose: trade" in text
    assert "WINNER" in text

    code, out, _ = await run_cli(address, "result", game)
    assert code == 0 and "Winner(s):" in out and "Sagas D/N/S" in out
    code, _, err = await run_cli(
        address, "replay", game, "--out", str(tmp_path / "r.json"), "--verify"
    )
    assert code == 0 and "replay verified" in err
    code, out, _ = await run_cli(address, "watch", game, "--once")
    assert code == 0 and "DEMO PACK" in out and "WINNER" in out
    code, out, _ = await run_cli(address, "watch", game, "--from-sequence", "1", "--log")
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("#")]
    assert any(re.search(r"Red \(ann\) trades \w+", line) for line in lines)
    assert any("Blue (bot) sails" in line for line in lines)
    assert any("Game over:" in line for line in lines)
    assert not any(": draws a Rune: " in line for line in lines)  # a spectator's copy


async def test_the_bot_command_plays_fire_and_axe_heuristics(address, stub, token_file):
    code, out, _ = await run_cli(
        address, "create", "--game", "fire_and_axe", "--players", "2", "--seed", "4"
    )
    assert code == 0
    game = out.strip()
    code, _, err = await run_cli(address, "bot", game, "--strategy", "ismcts:5")
    assert code == 1 and "unknown bot 'ismcts:5'" in err  # Blood Rage's, not this game's
    assert not json.loads(token_file.read_text())["games"] if token_file.exists() else True
    seats = [
        run_cli(address, "bot", game, "--seat", str(s), "--strategy", "heuristic")
        for s in range(2)
    ]
    results = await asyncio.wait_for(asyncio.gather(*seats), timeout=300)
    for (code, out, err), colour in zip(results, ("Red", "Blue"), strict=True):
        assert code == 0, err
        assert out.startswith(f"bot {colour} (heuristic) made ") and " VP" in out, out


async def test_create_names_an_unknown_pack(address, token_file):
    code, _, err = await run_cli(
        address, "create", "--game", "fire_and_axe", "--players", "3", "--data-pack", "mine"
    )
    assert code == 1 and "INVALID_ARGUMENT" in err and "demo-invented-v1" in err


async def test_data_validate_runs_the_packs_checks_offline(tmp_path: Path) -> None:
    out, out_buf = text_console(120)
    err, err_buf = text_console(120)
    # No server is needed: an address nobody listens on.
    argv = ["--server", "127.0.0.1:1", "data", "validate", str(DEMO)]
    assert await amain(argv, out=out, err=err) == 0
    assert "OK: " in out_buf.getvalue() and "NOT the published game" in out_buf.getvalue()
    broken = tmp_path / "broken.toml"
    broken.write_text(
        DEMO.read_text(encoding="utf-8").replace('ports = ["lindisfarne"]', 'ports = ["lindis"]'),
        encoding="utf-8",
    )
    assert await amain(["data", "validate", str(broken), "--game", "fire_and_axe"], err=err) == 1
    problems = err_buf.getvalue()
    assert f"{broken}: saga 'i-lindisfarne': unknown port 'lindis'" in problems
    assert "is not a usable data pack" in problems
    assert await amain(["data", "validate", str(DEMO), "--game", "blood_rage"], err=err) == 1
    assert "blood_rage has no data files to validate" in err_buf.getvalue()
