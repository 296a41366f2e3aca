"""Keyed hashes of seat tokens: what the stores persist instead of the tokens.

A seat's token is kept only as HMAC-SHA256, under a secret kept with the store, of the game id
and the token's SHA-256 (:class:`TokenHasher`). The same token value in two games therefore has
two unrelated hashes, and the stored hashes are worthless without the store's secret. It lives
with the stores because they draw and keep the secret and migrate old plain hashes
(``rekey``); the hosted game (``server.games.seat_tokens``) hashes with it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = ["TokenHasher", "creator_token_hash", "hash_token", "new_token_key", "tokens_match"]


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


def creator_token_hash(key: bytes, game_id: str, token: str) -> str:
    """What the stores keep of a game's creator token (CreateGameResponse.creator_token): its
    keyed hash, apart from every seat token's (a domain of its own)."""
    return TokenHasher(key, game_id)("creator\0" + token)
