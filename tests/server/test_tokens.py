"""Seat tokens."""

from __future__ import annotations

import hmac

import pytest

from server.games.seat_tokens import SeatAlreadyClaimedError, SeatTokens, new_token
from server.stores.token_hashes import hash_token, tokens_match


def test_new_tokens_are_long_random_and_url_safe() -> None:
    made = {new_token() for _ in range(50)}
    assert len(made) == 50
    for token in made:
        assert len(token) >= 43
        assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_hash_and_match() -> None:
    token = new_token()
    stored = hash_token(token)
    assert len(stored) == 64 and stored != token
    assert stored == hash_token(token)
    assert tokens_match(token, stored)
    assert not tokens_match(token + "x", stored)
    assert not tokens_match(new_token(), stored)


def test_claim_and_lookup() -> None:
    seats = SeatTokens(range(4))
    assert not seats.is_claimed(2)
    t2 = seats.claim(2)
    t0 = seats.claim(0)
    assert seats.is_claimed(2) and seats.is_claimed(0) and not seats.is_claimed(1)
    assert seats.seat_for(t2) == 2
    assert seats.seat_for(t0) == 0
    assert seats.seat_for(new_token()) is None
    assert seats.seat_for("") is None
    assert t0 != t2
    # Only hashes are kept.
    assert set(seats.hashes().values()) == {hash_token(t0), hash_token(t2)}
    assert t0 not in repr(seats.hashes())


def test_double_claim_and_unknown_seat() -> None:
    seats = SeatTokens(range(3))
    token = seats.claim(1)
    with pytest.raises(SeatAlreadyClaimedError) as caught:
        seats.claim(1)
    assert caught.value.seat == 1
    assert seats.seat_for(token) == 1  # the first token still works
    with pytest.raises(ValueError, match="no seat 7"):
        seats.claim(7)
    with pytest.raises(ValueError):
        seats.is_claimed(-1)
    with pytest.raises(ValueError):
        SeatTokens([])


def test_restore_from_hashes() -> None:
    original = SeatTokens(range(5))
    token = original.claim(3)
    restored = SeatTokens.restore(range(5), original.hashes())
    assert restored.seat_for(token) == 3
    assert restored.is_claimed(3) and not restored.is_claimed(4)
    with pytest.raises(SeatAlreadyClaimedError):
        restored.claim(3)
    with pytest.raises(ValueError, match="hash"):
        SeatTokens.restore(range(5), {1: "not-a-hash"})
    with pytest.raises(ValueError, match="no seat 9"):
        SeatTokens.restore(range(5), {9: hash_token(token)})


def test_seat_for_compares_against_every_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    seats = SeatTokens(range(5))
    first = seats.claim(0)
    seats.claim(1)
    calls: list[str] = []
    real_compare = hmac.compare_digest

    def counting(a: str, b: str) -> bool:
        calls.append(b)
        return real_compare(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counting)  # seat_tokens' compare
    assert seats.seat_for(first) == 0
    assert len(calls) == 5  # no early exit on the match, unclaimed seats too
    calls.clear()
    assert seats.seat_for(new_token()) is None
    assert len(calls) == 5


def test_keyed_hashes_differ_per_game_and_per_key() -> None:
    from server.stores.token_hashes import TokenHasher, new_token_key

    key = new_token_key()
    token = new_token()
    a, b = TokenHasher(key, "game-a"), TokenHasher(key, "game-b")
    assert a(token) != b(token)  # the same token value in two games does not match
    assert a(token) != TokenHasher(new_token_key(), "game-a")(token)
    assert a(token) == a(token) and len(a(token)) == 64
    # Stores that kept the plain SHA-256 are migrated without the token.
    assert a.rekey(hash_token(token)) == a(token)
    seats = SeatTokens(range(2), a)
    t0 = seats.claim(0)
    assert seats.seat_for(t0) == 0
    assert seats.hashes()[0] == a(t0) != hash_token(t0)
    other = SeatTokens.restore(range(2), seats.hashes(), b)
    assert other.seat_for(t0) is None  # the hashes of one game are worthless in another
    claimed = seats.with_claim(1, token)
    assert claimed.seat_for(token) == 1 and seats.seat_for(token) is None
