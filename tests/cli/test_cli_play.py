"""`play` driven by scripted input: a person's decisions in the draft while three bots play
the other seats, help/cards/refresh commands, bad input, a refused action, a stale version,
and quitting from a stream while waiting for players."""

from __future__ import annotations

import asyncio
import io
import json
import random

import grpc
import grpc.aio
from cli_support import join_all, new_game, text_console, views

from clients.blood_rage.render import Catalog
from clients.blood_rage.terminal import TERMINAL
from clients.cli import LineSource, PlaySession, ScriptedInput, StreamInput, amain, run_bot
from tests.waiting import until
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_service_pb2 as gs


class Wrapped:
    """A stub with some methods replaced."""

    def __init__(self, stub, **overrides) -> None:
        self._stub = stub
        self.__dict__.update(overrides)

    def __getattr__(self, name):
        return getattr(self._stub, name)


class SilentCall:
    """A WatchGame call that never delivers anything."""

    def __aiter__(self):
        return self

    async def __anext__(self):
        await asyncio.Event().wait()

    def cancel(self) -> bool:
        return True


async def test_play_draft_with_scripted_input_against_bots(address, stub, token_file):
    out, buffer = text_console()
    err, _ = text_console()
    game = await stub.CreateGame(gs.CreateGameRequest(options={"player_count": 4, "seed": 9}))
    game_id = game.game_id
    script = ScriptedInput(["h", "c", "99", "abc", "1", "r", "2", "", "1"])
    play = asyncio.create_task(
        amain(
            ["--server", address, "play", game_id, "--seat", "0", "--name", "ann"],
            out=out,
            err=err,
            source=script,
        )
    )
    # The person sits down first and waits for the others.
    await until(lambda: "Waiting for players" in buffer.getvalue(), "the person never sat down")
    bots = []
    for seat in (1, 2, 3):
        reply = await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=seat))
        bots.append(
            asyncio.create_task(run_bot(stub, game_id, reply.seat_token, rng=random.Random(seat)))
        )
    try:
        assert await asyncio.wait_for(play, timeout=60) == 0  # the script ran out: quit
    finally:
        for bot in bots:
            bot.cancel()
    text = buffer.getvalue()
    assert "Waiting for players" in text  # drawn before the bots joined
    assert "you: Wolf (ann)" in text
    assert "Type the number of an action" in text  # h
    assert "Text" in text and "Kind" in text  # c: the card texts table
    assert "There is no action 99" in text
    assert "Unknown command 'abc'" in text
    assert text.count("You chose: pick ") == 3
    assert len(script.prompts) == 10 and script.prompts[0].startswith("Your choice (1-8")

    token = json.loads(token_file.read_text())["games"][game_id]["0"]["token"]
    me = (await views(stub, game_id, [token]))[0]
    own = me.blood_rage.own
    assert len(own.hand) + len(own.pending_picks) == 3


async def test_play_shows_the_servers_refusal(address, stub):
    game = await new_game(stub, seed=5)
    tokens = await join_all(stub, game)

    async def refuse(request):
        raise grpc.aio.AioRpcError(
            grpc.StatusCode.INVALID_ARGUMENT,
            grpc.aio.Metadata(),
            grpc.aio.Metadata(),
            details="that card is not in your pack",
        )

    out, buffer = text_console()
    session = PlaySession(
        Wrapped(stub, SubmitAction=refuse),
        game,
        tokens[0],
        ScriptedInput(["1", "q"]),
        out,
        TERMINAL,
        Catalog(),
    )
    assert await asyncio.wait_for(session.run(), timeout=30) == 0
    text = buffer.getvalue()
    assert "The server refused that: that card is not in your pack" in text
    assert session.decisions == 0


async def test_stale_version_is_refreshed_and_the_same_choice_sent(stub):
    """Others commit while the person is choosing; their choice was made on an old version.
    The session gets FAILED_PRECONDITION, refreshes, sees the same legal actions and sends
    the choice on the new version."""
    game = await new_game(stub, seed=6)
    tokens = await join_all(stub, game)

    class OthersFirst:
        def __init__(self) -> None:
            self.calls = 0

        async def readline(self, prompt: str, *, decision: bool, choices: int = 0) -> str | None:
            if not decision:
                await asyncio.Event().wait()
            self.calls += 1
            if self.calls > 1:
                return None
            for seat in (1, 2, 3):
                view = (await views(stub, game, [tokens[seat]]))[0]
                await stub.SubmitAction(
                    gs.SubmitActionRequest(
                        game_id=game,
                        seat_token=tokens[seat],
                        legal_index=0,
                        state_version=view.state_version,
                    )
                )
            return "2"

    source: LineSource = OthersFirst()

    def silent(request):
        return SilentCall()

    out, buffer = text_console()
    session = PlaySession(
        Wrapped(stub, WatchGame=silent), game, tokens[0], source, out, TERMINAL, Catalog()
    )
    first = (await views(stub, game, [tokens[0]]))[0]
    wanted = first.legal_actions[1].action
    assert await asyncio.wait_for(session.run(), timeout=30) == 0
    assert session.decisions == 1
    text = buffer.getvalue()
    assert "Not applied" not in text
    assert "You chose: pick" in text
    after = (await views(stub, game, [tokens[0]]))[0]
    assert after.blood_rage.draft_round == 2  # everyone picked: the packs moved on
    assert any(c.instance == wanted.blood_rage.draft_pick.card for c in after.blood_rage.own.hand)
    assert after.blood_rage.step == br.STEP_DRAFT_PICK


async def test_quit_from_a_stream_while_waiting(address, stub, token_file):
    game = await new_game(stub, players=3)
    out, buffer = text_console()
    err, err_buffer = text_console()
    code = await asyncio.wait_for(
        amain(
            ["--server", address, "play", game],
            out=out,
            err=err,
            source=StreamInput(io.StringIO("r\nq\n")),
        ),
        timeout=30,
    )
    assert code == 0
    assert "Joined game" in err_buffer.getvalue()
    token = json.loads(token_file.read_text())["games"][game]["0"]["token"]
    assert token not in buffer.getvalue() + err_buffer.getvalue()  # play never prints it
    assert buffer.getvalue().count("Waiting for players: 2 seat(s) free") == 2  # r redrew
