"""Seat tokens: bearer secrets that let a client act for one seat.

A token is handed out once, when its seat is claimed; the server keeps only a keyed hash of
it (:class:`TokenHasher`): HMAC-SHA256, under a secret kept with the store, of the game id
and the token's SHA-256. The same token value in two games therefore has two unrelated
hashes, and the stored hashes are worthless without the store's secret. Lookups compare
hashes with :func:`hmac.compare_digest` against every seat, so timing does not reveal which
seat (if any) matched.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Iterable, Mapping

__all__ = [
    "SeatAlreadyClaimedError",
    "SeatTokens",
    "TokenHasher",
    "client_token_problem",
    "hash_token",
    "new_token",
    "new_token_key",
    "tokens_match",
]

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


def hash_token(token: str) -> str:
    """Hex SHA-256 of ``token``: what gets stored and persisted."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token_key() -> bytes:
    """A fresh secret for :class:`TokenHasher` (32 random bytes)."""
    return secrets.token_bytes(32)


class TokenHasher:
    """The keyed hash of one game's seat tokens (see the module doc)."""

    __slots__ = ("_key", "_prefix")

    def __init__(self, key: bytes, game_id: str) -> None:
        self._key = key
        self._prefix = game_id.encode("utf-8") + b"\0"

    def rekey(self, plain_hash: str) -> str:
        """The keyed hash of a token whose plain SHA-256 is ``plain_hash`` (how stores that
        kept plain hashes are migrated: the token itself is not needed)."""
        message = self._prefix + plain_hash.encode("ascii")
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def __call__(self, token: str) -> str:
        return self.rekey(hash_token(token))


def tokens_match(token: str, stored_hash: str) -> bool:
    """Whether ``token`` hashes to ``stored_hash`` (constant-time compare)."""
    return hmac.compare_digest(hash_token(token), stored_hash)


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
