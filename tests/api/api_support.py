"""Helpers shared by the API tests (imported as a plain module: tests/ has no packages)."""

from __future__ import annotations

import random
import re
from typing import Any

import grpc
import grpc.aio
from google.protobuf.message import Message
from google.rpc import status_pb2  # type: ignore[import-untyped]

from engine.blood_rage.ids import DraftMode
from engine.blood_rage.setup import new_game
from engine.blood_rage.state import GameState
from engine.blood_rage.view import view as engine_view
from protocol.blood_rage import actions as br_actions
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

Stub = Any  # GameServiceAsyncStub (the generated stub types its methods loosely)

ADMIN_TOKEN = "test-admin-token-7f3c"
DETAILS_KEY = "grpc-status-details-bin"
_LABEL_CARD = re.compile(r"\[#(\d+)\]")


async def create_game(stub: Stub, players: int = 4, seed: int | None = 11, **options: Any) -> str:
    opts = gp.GameOptions(player_count=players, **options)
    if seed is not None:
        opts.seed = seed
    response = await stub.CreateGame(gs.CreateGameRequest(options=opts))
    return str(response.game_id)


async def join_all(stub: Stub, game_id: str, players: int) -> list[str]:
    tokens = []
    for seat in range(players):
        reply = await stub.JoinGame(
            gs.JoinGameRequest(game_id=game_id, seat=seat, player_name=f"player {seat}")
        )
        assert reply.seat == seat
        tokens.append(reply.seat_token)
    return tokens


async def seat_view(stub: Stub, game_id: str, token: str) -> gp.View:
    reply: gs.GetViewResponse = await stub.GetView(
        gs.GetViewRequest(game_id=game_id, seat_token=token)
    )
    return reply.view


async def spectator_view(stub: Stub, game_id: str) -> gp.View:
    reply: gs.GetViewResponse = await stub.GetView(
        gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
    )
    return reply.view


def version_mismatch(error: grpc.aio.AioRpcError) -> gp.VersionMismatch | None:
    """The VersionMismatch detail of a FAILED_PRECONDITION, if any."""
    for key, value in error.trailing_metadata() or ():
        if key == DETAILS_KEY:
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                mismatch = gp.VersionMismatch()
                if detail.Unpack(mismatch):
                    return mismatch
    return None


def card_instances(message: Message) -> set[int]:
    """Every card instance a message names: Card messages, action `card` fields and `[#n]`
    in labels and other strings."""
    found: set[int] = set()
    card_type = br.Card.DESCRIPTOR

    def walk(m: Message) -> None:
        if m.DESCRIPTOR is card_type:
            found.add(m.instance)  # type: ignore[attr-defined]
        for fd, value in m.ListFields():
            values = list(value) if fd.is_repeated else [value]
            if fd.type == fd.TYPE_MESSAGE:
                for item in values:
                    walk(item)
            elif fd.type == fd.TYPE_STRING:
                for text in values:
                    found.update(int(x) for x in _LABEL_CARD.findall(text))
            elif fd.name == "card":
                found.update(int(x) for x in values)

    walk(message)
    return found


def text_instances(text: str) -> set[int]:
    return {int(x) for x in _LABEL_CARD.findall(text)}


def private_instances(state: GameState, seat: int) -> set[int]:
    """The card instances only ``seat`` may see now (per the engine's own view)."""
    private = engine_view(state, seat)["private"] or {}
    out: set[int] = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            if "instance" in value:
                out.add(int(value["instance"]))
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(private)
    return out


# Decisions whose card everyone sees when it is played.
_PUBLIC_PLAYS = frozenset({"late_card", "keep_revealed", "upgrade"})


def publicly_shown(event: gp.Event) -> set[int]:
    """The cards an event shows to everyone (battle reveals, quest reveals, public plays);
    empty for any other event."""
    br_event = event.blood_rage
    kind = br_event.WhichOneof("kind")
    public = kind in ("battle_revealed", "quest_results") or (
        kind == "action_applied"
        and br_event.action_applied.action.WhichOneof("kind") in _PUBLIC_PLAYS
    )
    return card_instances(event) if public else set()


class OthersSecrets:
    """For each state version of a game, the card instances each seat may not see: the
    other seats' private cards (per the engine's views), less those some rule had revealed
    publicly by then (``shown``: version -> instances revealed at that version)."""

    def __init__(self, states: list[GameState], shown: dict[int, set[int]]) -> None:
        players = states[0].players if states else 0
        self._private = [[private_instances(st, seat) for seat in range(players)] for st in states]
        self._shown_upto: list[set[int]] = []
        revealed: set[int] = set()
        for version in range(len(states)):
            revealed |= shown.get(version, set())
            self._shown_upto.append(set(revealed))

    def hidden_from(self, seat: int | None, version: int) -> set[int]:
        """What ``seat`` (None: a spectator) may not see at ``version``."""
        private = self._private[version]
        hidden = set().union(*(cards for other, cards in enumerate(private) if other != seat))
        return hidden - self._shown_upto[version]


def replay_states(replay: gs.GetReplayResponse) -> list[GameState]:
    """Replay a finished game in-process; states[v] is the state at version v (copies)."""
    options = replay.options
    state = new_game(
        options.player_count,
        options.seed,
        DraftMode(br_actions.draft_mode_from_pb(options.blood_rage.draft_mode)),
        options.blood_rage.first_player if options.blood_rage.HasField("first_player") else None,
    )
    states = [state.copy()]
    from engine.blood_rage.flow import apply

    for step in replay.steps:
        assert step.state_version == state.version
        apply(state, step.seat, br_actions.action_from_pb(step.action))
        states.append(state.copy())
    return states


def message_version(message: Message) -> int:
    if isinstance(message, gs.WatchGameResponse):
        return int(
            message.view.state_version if message.HasField("view") else message.event.state_version
        )
    if isinstance(message, gs.SubmitActionResponse | gs.PlaySessionResponse):
        return int(message.state_version)
    if isinstance(message, gs.GetViewResponse):
        return int(message.view.state_version)
    raise TypeError(type(message))


async def random_step(stub: Stub, game_id: str, tokens: list[str], rng: random.Random) -> bool:
    """One random decision of some awaited seat that has not committed yet, through the API;
    False (and nothing done) once the game is over."""
    spectator = await spectator_view(stub, game_id)
    if spectator.status == gp.GAME_STATUS_FINISHED:
        return False
    seat = next(s for s in spectator.awaiting_seats if s not in spectator.committed_seats)
    view = await seat_view(stub, game_id, tokens[seat])
    await stub.SubmitAction(
        gs.SubmitActionRequest(
            game_id=game_id,
            seat_token=tokens[seat],
            legal_index=rng.randrange(len(view.legal_actions)),
            state_version=view.state_version,
        )
    )
    return True
