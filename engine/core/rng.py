"""A tiny seeded generator whose sequence never changes across Python versions.

Blood Rage draws everything at set-up (shuffles, Ragnarök draw, first player); Fire & Axe also
rolls dice and reshuffles during play, so it keeps the generator in its state and saves it with
:attr:`SplitMix64.position`. Either way a game is a pure function of (options, seed, actions).
``random.Random`` would do today, but its algorithms are not promised to stay the same; replays
stored for years must.

Two forms of the same arithmetic. Interpreted, a 64-bit step is cheapest as a handful of big
integer operations (the wide form). Compiled by mypyc (``make accel``), every one of those
leaves the machine word and calls back into CPython, which made the generator a fifth of a
compiled random game; there the state is kept as two 32-bit halves and multiplied in 16-bit
pieces (the narrow form), so that every operand stays a small machine integer. A generator
takes the narrow form exactly when this module runs compiled (``NARROW``, the default of
``SplitMix64(seed, narrow=...)``); both give the same numbers, which the tests check draw by
draw in either build (tests/engine/test_rng_and_options.py).
"""

from __future__ import annotations

from typing import Final, TypeVar

T = TypeVar("T")

_MASK: Final = (1 << 64) - 1
_LIMITS: Final[dict[int, int]] = {}  # n -> the largest multiple of n not above 2**64
_CACHED: Final = 1 << 12

_M32: Final = 0xFFFFFFFF
_M16: Final = 0xFFFF
_TWO32: Final = 1 << 32
# Bounds below this take the narrow path: every product then fits a machine word (the result
# would be the same up to 2**32; only the speed depends on it).
_NARROW_BOUND: Final = 1 << 30


def _compiled() -> bool:
    """Compiled by mypyc, a module's functions are builtins rather than Python functions."""
    return type(_compiled).__name__ != "function"


NARROW: Final = _compiled()


def _times(hi: int, lo: int, c3: int, c2: int, c1: int, c0: int) -> tuple[int, int]:
    """(hi, lo) * c mod 2**64, with c given as four 16-bit pieces (c3 the highest): the
    schoolbook product of 16-bit pieces, each column carried into the next (mypyc multiplies
    in a machine word only when both operands are below 2**30)."""
    z0 = lo & _M16
    z1 = lo >> 16
    z2 = hi & _M16
    z3 = hi >> 16
    r0 = z0 * c0
    r1 = z0 * c1 + z1 * c0 + (r0 >> 16)
    r2 = z0 * c2 + z1 * c1 + z2 * c0 + (r1 >> 16)
    r3 = z0 * c3 + z1 * c2 + z2 * c1 + z3 * c0 + (r2 >> 16)
    return ((r3 & _M16) << 16) | (r2 & _M16), ((r1 & _M16) << 16) | (r0 & _M16)


def _mix(hi: int, lo: int) -> tuple[int, int]:
    """SplitMix64's output function on a state given as 32-bit halves (the narrow form of
    the last three lines of ``SplitMix64.next_u64``)."""
    lo ^= ((lo >> 30) | (hi << 2)) & _M32
    hi ^= hi >> 30
    hi, lo = _times(hi, lo, 0xBF58, 0x476D, 0x1CE4, 0xE5B9)  # 0xBF58476D1CE4E5B9
    lo ^= ((lo >> 27) | (hi << 5)) & _M32
    hi ^= hi >> 27
    hi, lo = _times(hi, lo, 0x94D0, 0x49BB, 0x1331, 0x11EB)  # 0x94D049BB133111EB
    lo ^= ((lo >> 31) | (hi << 1)) & _M32
    hi ^= hi >> 31
    return hi, lo


def _reduce(hi: int, lo: int, n: int) -> int:
    """The narrow form of ``x % n`` for ``x = hi * 2**32 + lo`` and ``0 < n < 2**30``, or -1
    when rejection sampling throws x away (x at or above 2**64 - 2**64 % n, the largest
    multiple of n that fits)."""
    t = _TWO32 % n  # 2**32 mod n, so 2**64 mod n is t * t mod n
    rest = t * t % n
    # The limit is 2**64 - rest, rest < n < 2**32: its high half is all ones (none for rest 0).
    if hi == _M32 and lo >= _TWO32 - rest:
        return -1
    return (hi % n * t + lo) % n


class SplitMix64:
    """SplitMix64 (Steele, Lea & Flood): 64-bit state, good enough for shuffles."""

    # The state, wide (``_state``) or narrow (``_hi``, ``_lo``): only the form in use moves.
    __slots__ = ("_narrow", "_state", "_hi", "_lo")

    def __init__(self, seed: int, narrow: bool = NARROW) -> None:
        self._narrow = narrow
        self._state = seed & _MASK
        self._hi = self._state >> 32
        self._lo = self._state & _M32

    @property
    def position(self) -> int:
        """The whole state of the generator: ``SplitMix64(g.position)`` continues exactly
        where ``g`` is (a game that rolls dice during play hashes and snapshots it)."""
        if self._narrow:
            return (self._hi << 32) | self._lo
        return self._state

    def next_u64(self) -> int:
        if self._narrow:
            hi, lo = self._next_narrow()
            return (hi << 32) | lo
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def _next_narrow(self) -> tuple[int, int]:
        """The next output as 32-bit halves (high, low)."""
        lo = self._lo + 0x7F4A7C15  # the state moves on by 0x9E3779B97F4A7C15
        self._hi = hi = (self._hi + 0x9E3779B9 + (lo >> 32)) & _M32
        self._lo = lo = lo & _M32
        return _mix(hi, lo)

    def below(self, n: int) -> int:
        """Uniform in [0, n) by rejection, so no modulo bias."""
        if n <= 0:
            raise ValueError("n must be positive")
        if self._narrow and n < _NARROW_BOUND:
            return self._below_narrow(n)
        limit = _LIMITS.get(n)
        if limit is None:  # 64-bit arithmetic is a big integer's in Python: once per bound
            limit = (1 << 64) - ((1 << 64) % n)
            if n < _CACHED:
                _LIMITS[n] = limit
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def _below_narrow(self, n: int) -> int:
        """``below`` for ``0 < n < 2**30`` on the narrow form."""
        while True:
            hi, lo = self._next_narrow()
            x = _reduce(hi, lo, n)
            if x >= 0:
                return x

    def shuffle(self, items: list[T]) -> None:
        """Fisher–Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
