"""IsmctsBot keeps to its time budget and decides from the view alone."""

from __future__ import annotations

import json
import random

from clients.blood_rage.bots import IsmctsBot
from engine.blood_rage import awaiting, legal_actions, new_game
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import Step
from engine.blood_rage.state import GameState
from engine.blood_rage.view import view


def _advance(players: int, seed: int, steps: int) -> GameState:
    rng = random.Random(seed)
    state = new_game(players, seed)
    for _ in range(steps):
        if state.step == Step.GAME_OVER:
            break
        seat = rng.choice(awaiting(state))
        apply_unchecked(state, seat, rng.choice(legal_actions(state, seat)))
    return state


def _seat_view(state: GameState, seat: int) -> dict:
    return json.loads(json.dumps(view(state, seat, include_state=True)))


def _scramble_hidden(state: GameState, seat: int, rng: random.Random) -> GameState:
    """Reshuffle every card the seat cannot see (other hands, packs, quests, decks, unseen
    discards) among the places it cannot see: a different true state, the same view."""
    s = state.copy()
    holders: list[list[int]] = [*s.decks, s.unseen]
    for other, clan in enumerate(s.clans):
        if other != seat:
            holders += [clan.hand, s.packs[other]]
    pool = [c for h in holders for c in h]
    rng.shuffle(pool)
    it = iter(pool)
    for h in holders:
        h[:] = [next(it) for _ in h]
    for other in range(s.players):  # a pending keep choice stays one of that seat's cards
        if other != seat and s.keep[other] >= 0:
            s.keep[other] = s.clans[other].hand[0]
    return s


class WorkClock:
    """A clock for the bot that counts its work instead of reading the wall: every read
    advances it by ``TICK_S`` and nothing else does. The search reads it once before every
    ply, so a decision takes the same "time" on any machine under any load, and whether the
    search stops at its budget is exact. It works on the mypyc-compiled bot too, where
    patching the module's functions would change nothing."""

    TICK_S = 0.0001

    def __init__(self) -> None:
        self.now = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.TICK_S
        return self.now


def test_the_search_stops_at_its_budget() -> None:
    """The deadline is 80% of the budget, checked before every ply: a decision never runs
    more than a ply or two past it (the root action and the ply that found the time up)."""
    budget = 0.02
    clock = WorkClock()
    bot = IsmctsBot(time_budget_s=budget, clock=clock)
    rng = random.Random(1)
    searched = at_deadline = 0
    for seed in range(6):
        state = _advance(4, seed, 40 + 25 * seed)
        if state.step == Step.GAME_OVER:
            continue
        for seat in awaiting(state):
            v = _seat_view(state, seat)
            start = clock()
            index = bot.choose(v, rng)
            spent = clock() - start
            assert 0 <= index < len(v["legal_actions"])
            # Past the deadline only the bot's first read, the outer loop's check after the
            # ply that found the time up and the test's own read (plus float rounding).
            assert spent <= 0.8 * budget + 3 * WorkClock.TICK_S + 1e-9
            searched += bot.last_iterations > 0
            at_deadline += spent >= 0.8 * budget
    assert searched and at_deadline  # some decisions searched, some to the deadline


def test_a_single_legal_action_is_answered_at_once() -> None:
    clock = WorkClock()
    bot = IsmctsBot(time_budget_s=1.0, clock=clock)
    rng = random.Random(0)
    # Find a decision with exactly one legal action (e.g. a battle card from a 1-card hand).
    for seed in range(20):
        state = _advance(3, 5 + seed, 0)
        r = random.Random(seed)
        for _ in range(3000):
            if state.step == Step.GAME_OVER:
                break
            seat = awaiting(state)[0]
            actions = legal_actions(state, seat)
            if len(actions) == 1:
                assert bot.choose(_seat_view(state, seat), rng) == 0
                # No search at all: the clock read once, when the decision started.
                assert clock.reads == 1 and bot.last_iterations == 0
                return
            apply_unchecked(state, seat, r.choice(actions))
    raise AssertionError("no forced decision found")


def test_hidden_information_does_not_change_its_decision() -> None:
    """With a fixed number of iterations and a fixed seed the bot is deterministic; true
    states that differ only in what the seat cannot see give byte-identical views, and so the
    same decisions: the bot cannot be reading anything but its view."""
    checked = 0
    for seed in range(8):
        state = _advance(4, 100 + seed, 30 + 37 * seed)
        if state.step == Step.GAME_OVER:
            continue
        seat = awaiting(state)[0]
        v = _seat_view(state, seat)
        if len(v["legal_actions"]) < 2:
            continue
        other = _scramble_hidden(state, seat, random.Random(seed))
        v2 = _seat_view(other, seat)
        assert json.dumps(v, sort_keys=True) == json.dumps(v2, sort_keys=True)
        picks = []
        for view_ in (v, v2):
            bot = IsmctsBot(time_budget_s=30.0, max_iterations=12)
            picks.append(bot.choose(view_, random.Random(seed)))
        assert picks[0] == picks[1]
        checked += 1
    assert checked >= 4


def test_racing_drops_a_clearly_worse_candidate_and_keeps_close_ones() -> None:
    """Paired racing: after enough blocks a candidate behind the leader on every deal drops
    out; one whose paired difference is within the noise stays in the race."""
    bot = IsmctsBot(race_z=2.0, race_min_blocks=3)
    bot._offset = {0: 0.0, 1: 0.0, 2: 0.0}
    rewards_of = {
        0: [0.60, 0.40, 0.70, 0.50],
        1: [0.50, 0.30, 0.60, 0.40],  # 0.1 behind on every deal: out
        2: [0.70, 0.30, 0.65, 0.52],  # as good on average, noisy: stays
    }
    assert bot._eliminate([0, 1, 2], rewards_of) == [0, 2]
    # Too few blocks yet: nobody drops out.
    short = {i: r[:2] for i, r in rewards_of.items()}
    assert bot._eliminate([0, 1, 2], short) == [0, 1, 2]


def test_racing_stops_early_on_a_clear_decision() -> None:
    """An unspent budget is fine: once one candidate is left the search stops (before its
    deadline, having searched)."""
    clock = WorkClock()
    bot = IsmctsBot(time_budget_s=2.0, clock=clock)
    rng = random.Random(3)
    early = 0
    for seed in range(6):
        state = _advance(4, 200 + seed, 40 + 20 * seed)
        if state.step == Step.GAME_OVER:
            continue
        seat = awaiting(state)[0]
        v = _seat_view(state, seat)
        if len(v["legal_actions"]) < 2:
            continue
        start = clock()
        index = bot.choose(v, rng)
        assert 0 <= index < len(v["legal_actions"])
        early += bot.last_iterations > 0 and clock() - start < 0.8 * 2.0
    assert early
