"""Who may join a game's seats (issue 27): reservations for API keys, and join codes.

A creator may keep seats for named players: for an API key (only a caller with that key may
claim the seat) or behind a join code the server draws and hands to the creator once (whoever
presents it may claim the seat: a link sent to a friend, the seat a tournament gives its bot).
Without reservations, the first caller takes a seat: a stranger could take a seat in a game
made for friends, or a tournament's seat in the moment between CreateGame and its bots' joins.

Join codes are bearer secrets like seat tokens, and are kept the same way: only their keyed
hash, under the store's secret and the game id (``server.stores.token_hashes.TokenHasher``), in
a separate domain (a seat token and a join code of the same text never hash alike). A code is
compared with every reserved seat's hash, in constant time each, so timing does not tell
which seat it opened.

The access is fixed at creation and stored with the game (``GameAccess`` in the store
contract), so reservations hold across restarts and a cluster's takeovers.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

from server.games.refusal import Refusal
from server.stores.contract import NO_ACCESS, GameAccess, SeatReservation
from server.stores.token_hashes import TokenHasher

__all__ = [
    "MAX_KEY_NAME_LENGTH",
    "AccessRequest",
    "JoinCodes",
    "claim_seat",
    "new_join_code",
]

MAX_KEY_NAME_LENGTH = 128
# What a join code hashes as: a domain of its own beside the seat tokens'.
_CODE_DOMAIN = "join-code\0"


def new_join_code() -> str:
    """A fresh join code: 128 random bits, 22 URL-safe characters (short enough to paste)."""
    return secrets.token_urlsafe(16)


class JoinCodes:
    """Hashes join codes for one game (the keyed hash seat tokens use, in its own domain)."""

    __slots__ = ("_hasher",)

    def __init__(self, key: bytes, game_id: str) -> None:
        self._hasher = TokenHasher(key, game_id)

    def hash(self, code: str) -> str:
        return self._hasher(_CODE_DOMAIN + code)

    def seat_for(self, access: GameAccess, code: str) -> int | None:
        """The reserved seat ``code`` opens, or None. Every reservation is compared."""
        digest = self.hash(code)
        found: int | None = None
        for reservation in access.reservations:
            stored = reservation.code_hash or ("0" * len(digest))
            if hmac.compare_digest(digest, stored) and reservation.code_hash:
                found = reservation.seat
        return found


@dataclass(frozen=True)
class AccessRequest:
    """The access CreateGame asks for, before the game has an id: seats reserved for API
    key names, and seats behind join codes (the plain codes, drawn by the caller and handed
    out once; :meth:`stored` keeps only their hashes)."""

    unlisted: bool = False
    key_seats: Mapping[int, str] = field(default_factory=dict)
    code_seats: Mapping[int, str] = field(default_factory=dict)

    def check(self, players: int) -> None:
        """INVALID_ARGUMENT unless every reservation names a seat of a ``players`` game."""
        for seat in (*self.key_seats, *self.code_seats):
            if not 0 <= seat < players:
                raise Refusal(
                    "INVALID_ARGUMENT",
                    f"a reservation names seat {seat}, not a seat of this {players}-seat game",
                )

    def stored(self, key: bytes, game_id: str) -> GameAccess:
        """What the game and its store keep."""
        if not (self.unlisted or self.key_seats or self.code_seats):
            return NO_ACCESS
        codes = JoinCodes(key, game_id)
        reservations = [SeatReservation(s, key_name=n) for s, n in self.key_seats.items()]
        reservations += [
            SeatReservation(s, code_hash=codes.hash(c)) for s, c in self.code_seats.items()
        ]
        return GameAccess(self.unlisted, tuple(sorted(reservations, key=lambda r: r.seat)))


def claim_seat(
    access: GameAccess,
    codes: JoinCodes,
    claimed: list[bool],
    seat: int | None,
    claimant: str,
    join_code: str,
) -> int:
    """The seat a join may claim, or a Refusal: ``seat`` as asked (None: the caller's reserved
    seat, else the lowest free one nobody reserved), for the API key named ``claimant`` (""
    for an anonymous caller) presenting ``join_code`` ("" for none). ``claimed`` says which
    seats are taken."""
    players = len(claimed)
    opened: int | None = None
    if join_code:
        opened = codes.seat_for(access, join_code)
        if opened is None:
            raise Refusal("PERMISSION_DENIED", "wrong join code for this game")
        if seat is not None and seat != opened:
            raise Refusal(
                "PERMISSION_DENIED", f"this join code is for seat {opened}, not seat {seat}"
            )
        seat = opened
    if seat is None:
        mine = [
            s
            for s in range(players)
            if not claimed[s] and _holds(access.reservation(s), claimant)
        ]
        free = [s for s in range(players) if not claimed[s] and access.reservation(s) is None]
        if mine or free:
            return (mine or free)[0]
        if not all(claimed):
            raise Refusal(
                "FAILED_PRECONDITION", "every free seat is reserved for someone else"
            )
        raise Refusal("FAILED_PRECONDITION", "every seat is already claimed")
    if not 0 <= seat < players:
        raise Refusal("INVALID_ARGUMENT", f"seat {seat} is not a seat of this game")
    if claimed[seat]:
        raise Refusal("ALREADY_EXISTS", f"seat {seat} is already claimed")
    reservation = access.reservation(seat)
    if reservation is not None and seat != opened and not _holds(reservation, claimant):
        how = "its join code" if reservation.code_hash else "the API key it is reserved for"
        raise Refusal("PERMISSION_DENIED", f"seat {seat} is reserved: it takes {how}")
    return seat


def _holds(reservation: SeatReservation | None, claimant: str) -> bool:
    return (
        reservation is not None
        and bool(reservation.key_name)
        and bool(claimant)
        and hmac.compare_digest(reservation.key_name.encode(), claimant.encode())
    )
