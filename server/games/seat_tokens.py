"""Seat tokens: bearer secrets that let a client act for one seat of a hosted game.

A token is handed out once, when its seat is claimed; the game keeps only its keyed hash
(``server.stores.token_hashes.TokenHasher``, the form the stores persist). Lookups compare
hashes with :func:`hmac.compare_digest` against every seat, so timing does not reveal which
seat (if any) matched.
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Callable, Iterable, Mapping

from server.stores.token_hashes import hash_token

__all__ = ["SeatAlreadyClaimedError", "SeatTokens", "client_token_problem", "new_token"]

_HASH_RE = re.compile(r"[0-9a-f]{64}")
# Compared against for unclaimed seats so every lookup does the same work.
_NO_HASH = "0" * 64


def new_token() -> str:
    """A fresh random token (32 random bytes, URL-safe base64)."""
    return secrets.token_urlsafe(32)


# What a client-chosen token may be (JoinGameRequest.seat_token): long enough to be
# unguessable when drawn at random, short enough to keep requests small, URL-safe.
_CLIENT_TOKEN_RE = re.compile(r"[A-Za-z0-9_.~-]{32,256}")


def client_token_problem(token: str) -> str | None:
    """Why a client-chosen seat token is refused, or None if it is acceptable."""
    if _CLIENT_TOKEN_RE.fullmatch(token):
        return None
    return "seat_token must be 32 to 256 characters from A-Z a-z 0-9 - _ . ~"


class SeatAlreadyClaimedError(ValueError):
    """The seat already has a token."""

    def __init__(self, seat: int) -> None:
        super().__init__(f"seat {seat} is already claimed")
        self.seat = seat


class SeatTokens:
    """The token hashes of one game's seats; ``digest`` hashes a token (a
    :class:`TokenHasher`; the plain SHA-256 by default)."""

    __slots__ = ("_digest", "_hashes", "_seats")

    def __init__(self, seats: Iterable[int], digest: Callable[[str], str] = hash_token) -> None:
        self._seats: tuple[int, ...] = tuple(sorted(set(seats)))
        if not self._seats:
            raise ValueError("a game needs at least one seat")
        self._hashes: dict[int, str] = {}
        self._digest = digest

    @classmethod
    def restore(
        cls,
        seats: Iterable[int],
        hashes: Mapping[int, str],
        digest: Callable[[str], str] = hash_token,
    ) -> SeatTokens:
        """Rebuild from persisted hashes (see :meth:`hashes`), e.g. after a crash."""
        restored = cls(seats, digest)
        for seat, stored in hashes.items():
            restored._check_seat(seat)
            if not _HASH_RE.fullmatch(stored):
                raise ValueError(f"seat {seat}: not a hex SHA-256 hash")
            restored._hashes[seat] = stored
        return restored

    @property
    def seats(self) -> tuple[int, ...]:
        """All seats of the game, ascending."""
        return self._seats

    def hashes(self) -> dict[int, str]:
        """Hashes of the claimed seats, for persistence."""
        return dict(self._hashes)

    def digest(self, token: str) -> str:
        """What would be stored for ``token``."""
        return self._digest(token)

    def with_claim(self, seat: int, token: str) -> SeatTokens:
        """A copy in which ``seat`` holds ``token`` (the original is not changed)."""
        return SeatTokens.restore(
            self._seats, {**self._hashes, seat: self._digest(token)}, self._digest
        )

    def claim(self, seat: int) -> str:
        """Give ``seat`` a new token and return it (the only time it is seen)."""
        self._check_seat(seat)
        if seat in self._hashes:
            raise SeatAlreadyClaimedError(seat)
        token = new_token()
        self._hashes[seat] = self._digest(token)
        return token

    def is_claimed(self, seat: int) -> bool:
        """Whether ``seat`` has a token."""
        self._check_seat(seat)
        return seat in self._hashes

    def seat_for(self, token: str) -> int | None:
        """The seat ``token`` belongs to, or None.

        Every seat is compared, claimed or not, and the loop never stops
        early, so the time taken does not depend on which seat matched.
        """
        digest = self._digest(token)
        found: int | None = None
        for seat in self._seats:
            stored = self._hashes.get(seat)
            matched = hmac.compare_digest(digest, _NO_HASH if stored is None else stored)
            if matched and stored is not None:
                found = seat
        return found

    def _check_seat(self, seat: int) -> None:
        if seat not in self._seats:
            raise ValueError(f"no seat {seat} in this game (seats: {list(self._seats)})")
