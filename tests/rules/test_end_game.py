"""§10 End of game: stat bonuses (+10 on the 4th/5th step, +20 on the last, not cumulative),
most Glory wins, equal Glory shares the victory."""

from __future__ import annotations

import pytest

from engine.blood_rage.flow import apply
from engine.blood_rage.ids import Phase, Step
from engine.blood_rage.results import result
from engine.core.errors import GameOverError


@pytest.mark.parametrize(("step", "bonus"), [(1, 0), (2, 0), (3, 0), (4, 10), (5, 10), (6, 20)])
def test_stat_bonus_per_step(h, step, bonus):
    """§10 / board.md: a stat on its 4th or 5th step +10, on its last step +20 (not +30)."""
    state = h.scenario(2, [{"stats": {"horns": step}, "glory": 7}, {}], age=3, phase="release")
    assert state.step == Step.GAME_OVER and state.phase == Phase.GAME_OVER
    assert state.clans[0].glory == 7 + bonus
    assert state.clans[1].glory == 0


def test_raven_end_game_example(h):
    """seeds/000_3142a3a5a8184f45.txt / seeds/004_98acbb221e078b57.txt, end-of-game example: Raven
    has Rage on an epic step and Axes on the last step: +10 and +20, 30 Glory in all."""
    state = h.scenario(
        3, [{}, {"stats": {"rage": 4, "axes": 6}, "glory": 50}, {}], age=3, phase="release"
    )
    assert state.clans[1].glory == 80


def test_all_three_stats_add_up(h):
    state = h.scenario(
        2, [{"stats": {"rage": 5, "axes": 6, "horns": 4}}, {}], age=3, phase="release"
    )
    assert state.clans[0].glory == 40


def test_most_glory_wins_and_ties_share_the_victory(h):
    """§10: most Glory wins; equal Glory shares the victory."""
    state = h.scenario(
        4,
        [{"glory": 30}, {"glory": 20, "stats": {"axes": 4}}, {"glory": 12}, {"glory": 30}],
        age=3,
        phase="release",
    )
    r = result(state)
    assert r is not None
    assert r.scores == (30, 30, 12, 30)
    assert r.winners == (0, 1, 3)
    assert r.ranks == (1, 1, 4, 1)
    assert h.view(state)["result"]["winners"] == [0, 1, 3]


def test_single_winner(h):
    state = h.scenario(3, [{"glory": 5}, {"glory": 9}, {"glory": 8}], age=3, phase="release")
    r = result(state)
    assert r.winners == (1,)
    assert r.ranks == (3, 1, 2)


def test_game_ends_only_after_the_third_age(h):
    """§1/§10: after Age 2's Release Valhalla the game goes on; after Age 3's it is over and
    nothing more can be applied."""
    state = h.scenario(2, [{"stats": {"rage": 6}}, {}], age=2, phase="release")
    assert result(state) is None
    assert state.age == 3 and state.phase == Phase.DRAFT
    assert state.clans[0].glory == 0, "no bonus before the end"

    over = h.scenario(2, [{}, {}], age=3, phase="release")
    assert h.awaiting(over) == []
    with pytest.raises(GameOverError):
        apply(over, 0, h.A(h.K.PASS))


def test_whole_game_reaches_a_result():
    """A full game from set-up ends after three Ages with bonuses applied."""
    from engine.blood_rage import new_game
    from engine.blood_rage.flow import awaiting, legal_actions

    state = new_game(3, 77)
    ages = set()
    i = 0
    while state.step != Step.GAME_OVER:
        ages.add(state.age)
        seat = awaiting(state)[0]
        legal = legal_actions(state, seat)
        apply(state, seat, legal[i % len(legal)])
        i += 1
        assert i < 5000
    assert ages == {1, 2, 3}
    r = result(state)
    assert r is not None and len(r.winners) >= 1
    assert sum(state.destroyed) == 2 + 3, "two at set-up, three Ragnaröks"
