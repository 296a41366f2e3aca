"""Helpers shared by the CLI tests (a plain module: tests/ has no packages)."""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console

from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

Stub = Any  # GameServiceAsyncStub


def text_console(width: int = 100) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, color_system=None, force_terminal=False, highlight=False
    )
    return console, buffer


async def new_game(stub: Stub, players: int = 4, seed: int = 7, **options: Any) -> str:
    opts = gp.GameOptions(player_count=players, seed=seed, **options)
    reply = await stub.CreateGame(gs.CreateGameRequest(options=opts))
    return str(reply.game_id)


async def join_all(stub: Stub, game_id: str, players: int = 4) -> list[str]:
    tokens = []
    for seat in range(players):
        reply = await stub.JoinGame(
            gs.JoinGameRequest(game_id=game_id, seat=seat, player_name=f"player{seat}")
        )
        tokens.append(str(reply.seat_token))
    return tokens


async def views(stub: Stub, game_id: str, tokens: Sequence[str]) -> list[gp.View]:
    out = []
    for token in tokens:
        reply = await stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=token))
        out.append(reply.view)
    return out


async def spectator(stub: Stub, game_id: str) -> gp.View:
    reply = await stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
    return reply.view


async def play_until(
    stub: Stub,
    game_id: str,
    tokens: Sequence[str],
    done: Callable[[list[gp.View]], bool],
    rng: random.Random,
    max_steps: int = 5000,
) -> list[gp.View] | None:
    """Random legal decisions (one seat at a time) until ``done(views)``; None if the game
    ended first."""
    for _ in range(max_steps):
        current = await views(stub, game_id, tokens)
        if done(current):
            return current
        if current[0].status != gp.GAME_STATUS_IN_PROGRESS:
            return None
        seat = next(s for s, v in enumerate(current) if v.legal_actions)
        view = current[seat]
        await stub.SubmitAction(
            gs.SubmitActionRequest(
                game_id=game_id,
                seat_token=tokens[seat],
                legal_index=rng.randrange(len(view.legal_actions)),
                state_version=view.state_version,
            )
        )
    raise AssertionError("the game did not reach the wanted position")


def private_cards(view: gp.View) -> list[br.Card]:
    """Every card only this view's seat may see."""
    own = view.blood_rage.own
    cards = [*own.hand, *own.draft_pack, *own.pending_picks, *own.committed_quests]
    if own.HasField("battle_card"):
        cards.append(own.battle_card)
    if own.HasField("kept_card"):
        cards.append(own.kept_card)
    return cards
