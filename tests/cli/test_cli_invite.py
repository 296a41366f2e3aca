"""How a creator invites players from the command line (issue 27, point 2): ``create
--unlisted --reserve SEAT=KEY --invite SEAT`` prints the game id on standard output and one join
code per invited seat on standard error; ``join --code`` claims the invited seat, a join
without the code is refused, and ``list`` marks reserved seats."""

from __future__ import annotations

import re

from cli_support import text_console

from clients.cli import amain
from server.main import RunningServer


async def run_cli(address: str, *argv: str) -> tuple[int, str, str]:
    out, out_buf = text_console()
    err, err_buf = text_console()
    code = await amain(["--server", address, *argv], out=out, err=err)
    return code, out_buf.getvalue(), err_buf.getvalue()


async def test_a_creator_invites_players_with_join_codes(
    address: str, server: RunningServer, token_file
) -> None:
    code, out, err = await run_cli(
        address, "create", "--players", "3", "--reserve", "0=bob", "--invite", "2", "--invite", "1"
    )
    assert code == 0, err
    game_id = out.strip()
    assert re.fullmatch(r"[0-9a-f]+", game_id)
    codes = dict(re.findall(r"seat (\d): join code (\S+) ", err))
    assert sorted(codes) == ["1", "2"]
    assert f"yggdrasil join {game_id} --code {codes['2']}" in err
    game = server.games.games[game_id]
    assert game.reserved_seats == (0, 1, 2)
    # without a code, an anonymous caller finds no seat it may take
    code, _, err = await run_cli(address, "join", game_id)
    assert code == 1 and "reserved for someone else" in err
    code, _, err = await run_cli(address, "join", game_id, "--seat", "2")
    assert code == 1 and "PERMISSION_DENIED" in err
    code, out, err = await run_cli(address, "join", game_id, "--code", codes["2"], "--name", "eve")
    assert code == 0, err
    assert "seat: 2" in out
    code, out, _ = await run_cli(address, "list")
    assert code == 0
    assert "(reserved)" in out and "eve" in out


async def test_bad_reservations_are_argument_errors(address: str, capsys) -> None:
    for bad in ("0bob", "x=bob", "1="):
        try:
            await amain(["--server", address, "create", "--players", "2", "--reserve", bad])
        except SystemExit as exit:
            assert exit.code == 2
        else:
            raise AssertionError(f"--reserve {bad} was accepted")
    assert "expected SEAT=KEY_NAME" in capsys.readouterr().err
