"""Whose seed a new game is dealt from.

A game's seed is every hidden card of it: with it, ``rules.new_game`` predicts each seat's
draft pack, hand and every deck's order. So the seed a creator asks for is the game's seed
only for identities allowed to choose one (admin and tournament keys: a tournament deals the
same cards to every line-up), and the game records who chose it (GameSummary and every view
show it). Anyone else's game is dealt from server randomness: a fresh secret of the server's,
mixed with the seed the creator gave if any (so a client that wants its own entropy in the
deal still gets it in, without being able to steer it). The seed stays hidden until the game
is FINISHED; its replay then carries it, so that anyone can replay and verify the game.
(``--seed-choice anyone`` lets every creator choose: for a server whose players all trust
every creator, such as a bot lab.)
"""

from __future__ import annotations

import hashlib
import secrets

from server.api.identity import Identity

__all__ = ["SEED_BITS", "game_seed", "mixed_seed"]

SEED_BITS = 64  # GameOptions.seed is a uint64
_DOMAIN = b"yggdrasil-seed-1\n"


def mixed_seed(client_seed: int | None, secret: bytes | None = None) -> int:
    """A seed nobody can predict: SHA-256 of a fresh 32-byte secret (``secret`` in tests) and
    the client's seed (if any), its first 64 bits."""
    secret = secrets.token_bytes(32) if secret is None else secret
    given = b"" if client_seed is None else str(client_seed).encode("ascii")
    digest = hashlib.sha256(_DOMAIN + secret + b"\n" + given).digest()
    return int.from_bytes(digest[: SEED_BITS // 8], "big")


def game_seed(identity: Identity, requested: int | None, anyone: bool = False) -> tuple[int, str]:
    """(the seed a new game is dealt from, who chose it or ""). ``anyone``: every creator
    chooses (``--seed-choice anyone``, a server whose players trust every creator)."""
    if requested is not None and (anyone or identity.may_choose_seed):
        return requested, identity.name
    return mixed_seed(requested), ""
