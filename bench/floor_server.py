"""``python -m server`` with a reduced SubmitAction (for ``bench.floor``).

``YGG_FLOOR=empty`` (the default): no game work at all. The request is still parsed and the
answer built and sent through the same interceptors; only the game (token check, engine,
events, log) is skipped.

``YGG_FLOOR=engine``: only what no implementation of the rules in Python can skip. The game
is found, the seat token checked, the game's lock taken, the seat's legal list computed, the
chosen action applied to a copy of the state, and the copy installed. No events, log entry,
idempotency record, metrics or watchers. The ratio this reaches bounds what any server-side
bookkeeping could ever give back.

``YGG_FLOOR=lean``: the engine floor plus the least of the bookkeeping the API asks for, each
done the cheapest way: the request's idempotency digest, kept in a dict; the action's own
event (parsed from cached bytes, numbered, kept for watchers, sent in the answer); the
action counter and a (filtered) log call. No Glory/stat/phase events, no watchers woken, no
decision clock. What the real server could reach with bookkeeping this lean.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from engine.core.contract import Action, State
from protocol.blood_rage import events as br_events
from server import main as server_main
from server.api import service
from server.games.event_log import StoredEvent
from server.games.game import Game
from server.games.idempotency import SubmitOutcome, request_digest
from server.ops.logs import log_action_applied
from yggdrasil.v1 import game_pb2, game_service_pb2

if TYPE_CHECKING:
    from server.ops.interceptors import AioContext


async def _empty_submit(
    self: service.GameService,
    request: game_service_pb2.SubmitActionRequest,
    context: AioContext,
) -> game_service_pb2.SubmitActionResponse:
    return game_service_pb2.SubmitActionResponse(state_version=request.state_version + 1)


def _game_and_seat(
    self: service.GameService, request: game_service_pb2.SubmitActionRequest
) -> tuple[Game, int]:
    """The game and the seat whose token the request carries."""
    game = self.games.get(request.game_id)
    seat = game.seat_for_token(request.seat_token)
    if seat is None:
        raise RuntimeError("wrong seat token")
    return game, seat


def _apply(game: Game, seat: int, legal_index: int) -> tuple[State, Action]:
    """The rules' part (caller holds the game's lock): the legal list, the chosen action
    applied to a copy of the state, the copy installed."""
    rules = game.rules
    action = rules.legal_actions(game.state, seat)[legal_index]
    new = game.state.copy()
    new.events = []
    rules.apply_unchecked(new, seat, action)
    new.events = None
    game.state = new
    return new, action


async def _engine_submit(
    self: service.GameService,
    request: game_service_pb2.SubmitActionRequest,
    context: AioContext,
) -> game_service_pb2.SubmitActionResponse:
    game, seat = _game_and_seat(self, request)
    async with game.lock:
        new, _ = _apply(game, seat, request.legal_index)
    return game_service_pb2.SubmitActionResponse(state_version=new.version)


async def _lean_submit(
    self: service.GameService,
    request: game_service_pb2.SubmitActionRequest,
    context: AioContext,
) -> game_service_pb2.SubmitActionResponse:
    game, seat = _game_and_seat(self, request)
    digest = request_digest(service.submit_fingerprint(request))
    async with game.lock:
        new, action = _apply(game, seat, request.legal_index)
        full, _ = br_events._stamped_forms(action.code(), seat, False)
        event = game_pb2.Event.FromString(full)
        sequence = game.last_sequence + 1
        event.sequence = sequence
        event.state_version = new.version
        game.events.kept.append(StoredEvent(sequence, new.version, -1, event, event))
        game.events.last_sequence = sequence
        game.answers.kept[(seat, request.idempotency_key)] = (
            digest,
            SubmitOutcome(new.version, (event,)),
        )
        kind = game.wire.action_kind(action)
        game.metrics.action_applied(kind, "applied")
        log_action_applied(game.logger, game.id, seat, kind, "applied", 0.0, new.version)
    return game_service_pb2.SubmitActionResponse(state_version=new.version, events=[event])


FLOORS = {"empty": _empty_submit, "engine": _engine_submit, "lean": _lean_submit}

if __name__ == "__main__":
    floor = os.environ.get("YGG_FLOOR", "empty")
    if floor not in FLOORS:
        sys.exit(f"YGG_FLOOR must be one of {sorted(FLOORS)}, not {floor!r}")
    service.GameService.SubmitAction = FLOORS[floor]  # type: ignore[method-assign]
    sys.exit(server_main.main())
