"""Random decisions a client might send, through the real server, at every point of whole
games: each is applied (if it is on offer) or refused with INVALID_ARGUMENT,
FAILED_PRECONDITION or PERMISSION_DENIED and a message, and a refusal changes nothing.

Hand-picked cases of each error class are in ``test_api_errors.py``; this one looks for the
inputs nobody thought of (card numbers past the deck, enum values no version defines, fields
left unset, other seats' tokens) in the steps where they are hardest to explain, such as the
late battle cards.
"""

from __future__ import annotations

import random

import grpc
import grpc.aio
import pytest
from api_support import Stub, create_game, join_all, seat_view, spectator_view
from google.protobuf.descriptor import FieldDescriptor

from server.main import RunningServer
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

REFUSALS = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.PERMISSION_DENIED,
}
KINDS = [f.name for f in br.BloodRageAction.DESCRIPTOR.oneofs_by_name["kind"].fields]
# Around the ends of every table (cards, areas, units, stats), past them, and unknown enums.
NUMBERS = [0, 1, 2, 3, 8, 9, 10, 12, 13, 16, 17, 125, 126, 127, 200, 255, 256, 70000]


def random_action(rng: random.Random, legal: list[gp.Action]) -> gp.Action:
    """Mostly a legal action with a field changed or cleared; else any kind, any numbers."""
    if legal and rng.random() < 0.5:
        action = gp.Action()
        action.CopyFrom(rng.choice(legal))
        kind = action.blood_rage.WhichOneof("kind")
        assert kind is not None
        sub = getattr(action.blood_rage, kind)
        fields = sub.DESCRIPTOR.fields
        if fields:
            field = rng.choice(fields)
            if rng.random() < 0.2:
                sub.ClearField(field.name)
            else:
                setattr(sub, field.name, rng.choice(NUMBERS))
        return action
    if rng.random() < 0.03:
        return gp.Action()  # no game's decision at all
    action = gp.Action(blood_rage=br.BloodRageAction())
    kind = rng.choice(KINDS)
    sub = getattr(action.blood_rage, kind)
    sub.SetInParent()
    for field in sub.DESCRIPTOR.fields:
        if rng.random() < 0.85:
            value = rng.choice(NUMBERS)
            if field.type == FieldDescriptor.TYPE_ENUM:
                value = min(value, 2**31 - 1)
            setattr(sub, field.name, value)
    return action


async def probe_game(
    running: RunningServer, stub: Stub, players: int, seed: int, probes: int
) -> tuple[int, int]:
    """Play one game with random legal choices; before each, submit ``probes`` random
    decisions. Returns (refused, applied) counts of the probes."""
    rng = random.Random(seed)
    game_id = await create_game(stub, players, seed=seed)
    tokens = await join_all(stub, game_id, players)
    game = running.games.get(game_id)
    refused = applied = 0
    while True:
        spectator = await spectator_view(stub, game_id)
        if spectator.status == gp.GAME_STATUS_FINISHED:
            return refused, applied
        seat = next(s for s in spectator.awaiting_seats if s not in spectator.committed_seats)
        view = await seat_view(stub, game_id, tokens[seat])
        legal = [entry.action for entry in view.legal_actions]
        for _ in range(probes):
            sender = seat if rng.random() < 0.8 else rng.randrange(players)
            token = tokens[sender] if rng.random() < 0.95 else "x" * 43
            request = gs.SubmitActionRequest(
                game_id=game_id, seat_token=token, state_version=view.state_version
            )
            if rng.random() < 0.1:
                request.legal_index = rng.choice([-1, len(legal), 2**31 - 1, 0])
            else:
                request.action.CopyFrom(random_action(rng, legal))
            before = (game.state.state_hash(), game.version, game.last_sequence, len(game.log))
            try:
                reply = await stub.SubmitAction(request)
            except grpc.aio.AioRpcError as error:
                assert error.code() in REFUSALS, (request, error.code(), error.details())
                assert error.details(), request
                after = (game.state.state_hash(), game.version, game.last_sequence, len(game.log))
                assert after == before, (request, error.details())
                refused += 1
                continue
            # Accepted: it was on offer (the same decision, or a valid index), and it was
            # applied once.
            assert reply.state_version == before[1] + 1
            assert len(game.log) == before[3] + 1
            applied += 1
            break  # the game moved on: look again
        else:
            await stub.SubmitAction(
                gs.SubmitActionRequest(
                    game_id=game_id,
                    seat_token=tokens[seat],
                    legal_index=rng.randrange(len(legal)),
                    state_version=view.state_version,
                )
            )


async def test_random_submissions_are_applied_or_refused_cleanly(
    running: RunningServer, stub: Stub
) -> None:
    # Seed 7 reaches a late battle card step (Heimdall's Eye), where a card number past the
    # deck once made the engine's explanation fail and the server answer UNKNOWN.
    refused, applied = await probe_game(running, stub, players=3, seed=7, probes=6)
    assert refused > 300
    assert applied > 0


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
async def test_random_submissions_are_applied_or_refused_cleanly_long(
    running: RunningServer, stub: Stub, players: int
) -> None:
    total = 0
    for seed in range(6):
        refused, _ = await probe_game(running, stub, players, seed=100 * players + seed, probes=6)
        total += refused
    assert total > 1500
