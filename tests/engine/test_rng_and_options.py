"""The seeded generator (engine/core/rng.py: a game is a pure function of its seed, for years),
game options' limits (engine/blood_rage/setup.py), random playouts' safety stop and the decision
counter (engine/blood_rage/playout.py, engine/blood_rage/flow.py)."""

from __future__ import annotations

import pytest

from engine.blood_rage import apply, awaiting, is_simultaneous, legal_actions, new_game
from engine.blood_rage.ids import Step
from engine.blood_rage.playout import random_game
from engine.blood_rage.setup import GameOptions
from engine.core import rng as rng_module
from engine.core.errors import OptionsError
from engine.core.rng import SplitMix64

MASK = (1 << 64) - 1


def test_splitmix64_gives_the_reference_sequence():
    """The published SplitMix64 outputs for seed 0."""
    rng = SplitMix64(0)
    assert [rng.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    assert SplitMix64(1 << 64).next_u64() == 0xE220A8397B1DCDAF, "the seed is taken mod 2**64"


def _reference_below(raw: SplitMix64, n: int) -> int:
    """Rejection sampling as defined: draws at or above the largest multiple of n that fits
    in 64 bits are thrown away."""
    limit = (1 << 64) - (1 << 64) % n
    while True:
        x = raw.next_u64()
        if x < limit:
            return x % n


@pytest.mark.parametrize("n", [1, 2, 7, 1000, 3 << 62, (1 << 63) + 1, MASK])
def test_below_is_rejection_sampling(n):
    """With n near 2**64 a quarter to a half of the draws are rejected: the limit matters."""
    rng, reference = SplitMix64(42), SplitMix64(42)
    drawn = [rng.below(n) for _ in range(200)]
    assert drawn == [_reference_below(reference, n) for _ in range(200)]
    assert all(0 <= x < n for x in drawn)


@pytest.mark.parametrize("n", [0, -3])
def test_below_needs_a_positive_bound(n):
    with pytest.raises(ValueError, match="n must be positive"):
        SplitMix64(1).below(n)


def test_shuffle_is_fisher_yates_with_below():
    rng, reference = SplitMix64(9), SplitMix64(9)
    items = list(range(30))
    rng.shuffle(items)
    expected = list(range(30))
    for i in range(29, 0, -1):
        j = _reference_below(reference, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected and sorted(items) == list(range(30))


def _wide_reference(seed: int, draws: int) -> list[int]:
    """SplitMix64 as published, on Python's big integers."""
    state, out = seed & MASK, []
    for _ in range(draws):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


SEEDS = [0, 1, 42, MASK, MASK - 0x9E3779B97F4A7C15, 0xFFFFFFFF, 1 << 32, 0x0123456789ABCDEF]
FORMS = [pytest.param(False, id="wide"), pytest.param(True, id="narrow")]


def _state_after(seed: int, draws: int) -> int:
    return (seed + draws * 0x9E3779B97F4A7C15) & MASK


@pytest.mark.parametrize("narrow", FORMS)
@pytest.mark.parametrize("seed", SEEDS)
def test_both_forms_of_the_generator_give_the_published_sequence(seed, narrow):
    """The wide form (big integers, interpreted) and the narrow one (32-bit halves, compiled)
    are the same generator, whichever this build defaults to."""
    expected = _wide_reference(seed, 300)
    rng = SplitMix64(seed, narrow=narrow)
    assert [rng.next_u64() for _ in range(300)] == expected
    assert rng.position == _state_after(seed, 300)
    assert SplitMix64(rng.position, narrow=not narrow).next_u64() == _wide_reference(seed, 301)[-1]


@pytest.mark.parametrize("narrow", FORMS)
@pytest.mark.parametrize(
    "n", [1, 2, 3, 7, 40, 1000, 65_537, (1 << 29) + 1, (1 << 30) - 1, 1 << 30, (1 << 63) + 1]
)
@pytest.mark.parametrize("seed", SEEDS[:4])
def test_both_forms_draw_below_as_defined(seed, n, narrow):
    rng, reference = SplitMix64(seed, narrow=narrow), SplitMix64(seed, narrow=False)
    drawn = [rng.below(n) for _ in range(100)]
    assert drawn == [_reference_below(reference, n) for _ in range(100)]
    assert rng.position == reference.position


@pytest.mark.parametrize("narrow", FORMS)
def test_both_forms_shuffle_alike(narrow):
    items = list(range(52))
    SplitMix64(7, narrow=narrow).shuffle(items)
    expected = list(range(52))
    SplitMix64(7, narrow=False).shuffle(expected)
    assert items == expected and items != list(range(52))


@pytest.mark.parametrize("n", [3, 1000, 3 << 28, (1 << 30) - 1, 1 << 29, 1])
def test_the_narrow_form_rejects_exactly_at_the_limit(n):
    """Rejection is too rare to meet by drawing with n < 2**30: the limit is checked on
    crafted draws either side of it (none for a power of two, which divides 2**64), and on
    draws whose low half alone would be past it."""
    limit = (1 << 64) - (1 << 64) % n
    low_past = limit & 0xFFFFFFFF  # the low half of the limit under a high half of 0
    crafted = [limit - 1, limit, limit + 1, MASK, 0, 1 << 32, (1 << 63) + 12345]
    crafted += [limit - (1 << 32), low_past, 0xFFFFFFFF, MASK - (1 << 32)]
    for x in crafted:
        if not 0 <= x <= MASK:
            continue  # no 64-bit draw
        got = rng_module._reduce(x >> 32, x & 0xFFFFFFFF, n)
        assert got == (x % n if x < limit else -1), hex(x)


def test_the_narrow_form_is_the_compiled_default():
    """``make accel`` compiles engine/core/rng.py; the interpreted module keeps the wide form."""
    compiled = not str(rng_module.__file__).endswith(".py")
    assert rng_module.NARROW is compiled
    assert SplitMix64(5)._narrow is compiled


@pytest.mark.parametrize(
    ("players", "first", "seed", "problem"),
    [
        (2, None, 0, None),
        (5, 4, MASK, None),
        (3, 0, 1, None),
        (1, None, 0, "2 to 5 players, not 1"),
        (6, None, 0, "2 to 5 players, not 6"),
        (3, 3, 0, "first player 3 is not a seat"),
        (3, -1, 0, "first player -1 is not a seat"),
        (2, None, 1 << 64, "seed must be in"),
        (2, None, -1, "seed must be in"),
    ],
)
def test_game_options_limits(players, first, seed, problem):
    options = GameOptions(players, seed, first_player=first)
    if problem is None:
        options.validate()
        state = new_game(players, seed, first_player=first)
        assert state.players == players and (first is None or state.first_player == first)
    else:
        with pytest.raises(OptionsError, match=problem):
            options.validate()
        with pytest.raises(OptionsError, match=problem):
            new_game(players, seed, first_player=first)  # a game checks its options itself


def test_random_game_stops_past_its_action_limit():
    length = len(random_game(2, 3).log)
    assert len(random_game(2, 3, max_actions=length).log) == length
    with pytest.raises(RuntimeError, match=f"game did not end after {length - 1} actions"):
        random_game(2, 3, max_actions=length - 1)


def test_every_decision_counts_one_version():
    """Through the simultaneous draft and into the Action phase (one seat at a time)."""
    state = new_game(3, 5)
    assert state.version == 0 and is_simultaneous(state)
    for expected in range(1, 40):
        seat = awaiting(state)[0]
        apply(state, seat, legal_actions(state, seat)[0])
        assert state.version == expected
    assert state.step == Step.ACTION and not is_simultaneous(state)
