"""A tiny seeded generator whose sequence never changes across Python versions.

Blood Rage draws everything at set-up (shuffles, Ragnarök draw, first player); Fire & Axe also
rolls dice and reshuffles during play, so it keeps the generator in its state and saves it with
:attr:`SplitMix64.position`. Either way a game is a pure function of (options, seed, actions).
``random.Random`` would do today, but its algorithms are not promised to stay the same; replays
stored for years must.
"""

from __future__ import annotations

from typing import Final, TypeVar

T = TypeVar("T")

_MASK: Final = (1 << 64) - 1
_LIMITS: Final[dict[int, int]] = {}  # n -> the largest multiple of n not above 2**64
_CACHED: Final = 1 << 12


class SplitMix64:
    """SplitMix64 (Steele, Lea & Flood): 64-bit state, good enough for shuffles."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    @property
    def position(self) -> int:
        """The whole state of the generator: ``SplitMix64(g.position)`` continues exactly
        where ``g`` is (a game that rolls dice during play hashes and snapshots it)."""
        return self._state

    def next_u64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform in [0, n) by rejection, so no modulo bias."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _LIMITS.get(n)
        if limit is None:  # 64-bit arithmetic is a big integer's in Python: once per bound
            limit = (1 << 64) - ((1 << 64) % n)
            if n < _CACHED:
                _LIMITS[n] = limit
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def shuffle(self, items: list[T]) -> None:
        """Fisher–Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
