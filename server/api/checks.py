"""Request checks and refusals shared by every RPC that acts for a seat.

A decision reaches a game by SubmitAction (unary) or on a PlaySession stream; a seat is
claimed by JoinGame or by a PlaySession that joins. Both paths must check the same things,
identify the same decision the same way for its idempotency key, and tell a refusal with the
same code, message and details, so these live here rather than in either servicer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from grpc_status import rpc_status

from engine.core.contract import Action
from protocol.wire import ConversionError
from server.api.identity import Identity
from server.api.quotas import QuotaExceeded, quota_status
from server.games.access import MAX_KEY_NAME_LENGTH, AccessRequest, new_join_code
from server.games.game import Game
from server.games.refusal import (
    MAX_MESSAGE_BYTES,
    Refusal,
    abort,
    clip_message,
    refusal_status,
)
from server.games.seat_tokens import client_token_problem
from server.stores.contract import ListViewer
from yggdrasil.v1 import game_pb2, game_service_pb2

if TYPE_CHECKING:
    from server.ops.interceptors import AioContext

__all__ = [
    "MAX_IDEMPOTENCY_KEY_LENGTH",
    "MAX_MESSAGE_BYTES",
    "MAX_NAME_LENGTH",
    "abort",
    "abort_quota",
    "access_request",
    "check_idempotency_key",
    "check_name",
    "choice_of",
    "clip_message",
    "join_seat",
    "key_name",
    "list_viewer",
    "must_play",
    "refusal_status",
    "seat_of",
    "submit_fingerprint",
]

MAX_NAME_LENGTH = 64
# A join code is 22 characters (server.games.access.new_join_code); longer is no code of ours.
MAX_JOIN_CODE_LENGTH = 256
# Kept per game (the last server.games.idempotency.IDEMPOTENCY_KEYS_PER_GAME of them) and logged
# with each decision; a UUID is 36 characters.
MAX_IDEMPOTENCY_KEY_LENGTH = 128
def check_name(name: str) -> str:
    if len(name) > MAX_NAME_LENGTH:
        raise Refusal("INVALID_ARGUMENT", f"names are at most {MAX_NAME_LENGTH} characters")
    return name


async def join_seat(
    game: Game,
    seat: int | None,
    name: str,
    token: str,
    identity: Identity | None = None,
    join_code: str = "",
) -> tuple[int, str, bool]:
    """Claim a seat of ``game`` (see :meth:`Game.join`) for ``identity`` (its API key's name
    holds the seats reserved for it) after checking the request's name, client-chosen token
    and join code; returns (seat, token, duplicate)."""
    if token:
        problem = client_token_problem(token)
        if problem is not None:
            raise Refusal("INVALID_ARGUMENT", problem)
    if len(join_code) > MAX_JOIN_CODE_LENGTH:
        raise Refusal("INVALID_ARGUMENT", f"join_code is at most {MAX_JOIN_CODE_LENGTH} characters")
    return await game.join(seat, check_name(name), token, key_name(identity), join_code)


def key_name(identity: Identity | None) -> str:
    """The API key name a caller holds reservations by ("" for an anonymous caller)."""
    return identity.name if identity is not None and not identity.anonymous else ""


def list_viewer(identity: Identity) -> ListViewer:
    """Who lists games (``ListViewer``): an API key sees the unlisted games it created or holds
    a reserved seat in, an admin every game, an anonymous caller only listed ones (its
    address proves nothing: many clients may share one)."""
    if identity.anonymous:
        return ListViewer(sees_all=identity.is_admin)
    return ListViewer(identity.quota_key, identity.name, identity.is_admin)


def access_request(
    access: game_service_pb2.GameAccess,
) -> tuple[AccessRequest, dict[int, str]]:
    """The access a CreateGame asks for, with fresh join codes for the seats that take one
    (returned by seat: they are handed out once); INVALID_ARGUMENT if malformed (seat numbers
    are checked against the game by the registry)."""
    key_seats: dict[int, str] = {}
    codes: dict[int, str] = {}
    for reservation in access.reservations:
        seat = reservation.seat
        if seat in key_seats or seat in codes:
            raise Refusal("INVALID_ARGUMENT", f"seat {seat} is reserved more than once")
        holder = reservation.WhichOneof("holder")
        if holder == "api_key_name":
            name = reservation.api_key_name
            if not name.strip() or len(name) > MAX_KEY_NAME_LENGTH:
                raise Refusal(
                    "INVALID_ARGUMENT",
                    f"api_key_name must be 1 to {MAX_KEY_NAME_LENGTH} characters (seat {seat})",
                )
            key_seats[seat] = name
        elif holder == "join_code" and reservation.join_code:
            codes[seat] = new_join_code()
        else:
            raise Refusal(
                "INVALID_ARGUMENT",
                f"the reservation of seat {seat} needs api_key_name or join_code = true",
            )
    return AccessRequest(access.unlisted, key_seats, codes), codes


def check_idempotency_key(key: str) -> None:
    if len(key) > MAX_IDEMPOTENCY_KEY_LENGTH:
        raise Refusal(
            "INVALID_ARGUMENT",
            f"idempotency_key is at most {MAX_IDEMPOTENCY_KEY_LENGTH} characters",
        )


def seat_of(game: Game, token: str) -> int:
    """The seat ``token`` holds in ``game``; PERMISSION_DENIED if none."""
    seat = game.seat_for_token(token)
    if seat is None:
        raise Refusal("PERMISSION_DENIED", "missing or wrong seat token for this game")
    return seat


def choice_of(
    game: Game, which: str | None, action: game_pb2.Action, legal_index: int
) -> tuple[Action | None, int | None]:
    """A decision's choice as (the rules' action, None) or (None, legal index), from the name
    of the oneof field set (``action`` or ``legal_index``); INVALID_ARGUMENT if malformed."""
    if which is None:
        raise Refusal("INVALID_ARGUMENT", "set action or legal_index")
    if which == "action":
        try:
            return game.wire.action_from_pb(action), None
        except ConversionError as exc:
            raise Refusal("INVALID_ARGUMENT", str(exc)) from None
    return None, legal_index


def submit_fingerprint(request: game_service_pb2.SubmitActionRequest) -> bytes:
    """What identifies a decision for its idempotency key: the SubmitAction request without
    the seat token and the view flag (a retry may ask for a view the first try did not).
    A PlaySession decision is fingerprinted as the SubmitAction request it stands for, so a
    key means the same decision on either path."""
    essence = game_service_pb2.SubmitActionRequest()
    essence.CopyFrom(request)
    essence.ClearField("seat_token")
    essence.ClearField("include_view")
    return essence.SerializeToString(deterministic=True)


def must_play(identity: Identity, what: str) -> None:
    """PERMISSION_DENIED unless the caller's role may create, join, decide and abort (the ops
    role only looks)."""
    if not identity.may_play:
        raise Refusal("PERMISSION_DENIED", f"the {identity.role} role cannot {what}")


async def abort_quota(context: AioContext, exceeded: QuotaExceeded) -> NoReturn:
    """End the RPC with RESOURCE_EXHAUSTED and the QuotaFailure/RetryInfo details."""
    await context.abort_with_status(rpc_status.to_status(quota_status(exceeded)))
    raise AssertionError("abort_with_status returned")  # pragma: no cover
