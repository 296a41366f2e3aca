"""DuctBot decides legally from the view alone, within its budget, and searches secret
simultaneous choices as simultaneous: the other seats' choices in a deal are drawn once, the
same against every one of its candidates."""

from __future__ import annotations

import json
import random

import pytest

from clients.blood_rage.bots import DuctBot, IsmctsBot
from clients.games import make_bot
from engine.blood_rage import awaiting, legal_actions, new_game
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import Step
from engine.blood_rage.state import GameState
from engine.blood_rage.view import view
from tests.bots.test_bot_ismcts import WorkClock, _advance, _scramble_hidden, _seat_view


def _positions(players: int, seed: int, where: frozenset[int]) -> list[tuple[GameState, int]]:
    """(state, seat) along a random game wherever the step is one of ``where`` and the seat
    has a real choice."""
    rng = random.Random(seed)
    state = new_game(players, seed)
    found = []
    while state.step != Step.GAME_OVER:
        seats = awaiting(state)
        seat = rng.choice(seats)
        actions = legal_actions(state, seat)
        if state.step in where and not state.prompts and len(actions) > 1:
            found.append((state.copy(), seat))
        apply_unchecked(state, seat, rng.choice(actions))
    return found


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_duct_bot_chooses_legal_indexes(players: int) -> None:
    bot = DuctBot(time_budget_s=0.004)
    rng = random.Random(players)
    steps = frozenset({Step.DRAFT_PICK, Step.ACTION, Step.BATTLE_CARDS, Step.DISCARD})
    seen = set()
    for state, seat in _positions(players, 11 * players, steps)[::5]:
        v = json.loads(json.dumps(view(state, seat, include_state=True)))
        index = bot.choose(v, rng)
        assert 0 <= index < len(v["legal_actions"])
        seen.add(Step(state.step).name)
    assert {"DRAFT_PICK", "ACTION"} <= seen


@pytest.mark.parametrize("share", [0.8, 0.95])
def test_the_search_stops_at_its_budget(share: float) -> None:
    """Counted from the start of ``choose``: at most ``search_share`` of the budget and a
    ply or two past it; the search did stop at the deadline, for it to be the limit."""
    budget = 0.02
    clock = WorkClock()
    bot = DuctBot(time_budget_s=budget, clock=clock, search_share=share)
    rng = random.Random(2)
    searched = 0
    stopped_by_clock = 0
    for seed in range(6):
        state = _advance(4, seed, 30 + 25 * seed)
        if state.step == Step.GAME_OVER:
            continue
        for seat in awaiting(state):
            v = _seat_view(state, seat)
            start = clock()
            index = bot.choose(v, rng)
            spent = clock() - start
            assert 0 <= index < len(v["legal_actions"])
            assert spent <= share * budget + 3 * WorkClock.TICK_S + 1e-9
            searched += bot.last_iterations > 0
            if bot.last_stop == "deadline":
                stopped_by_clock += 1
                assert spent >= share * budget
    assert searched and stopped_by_clock


def test_hidden_information_does_not_change_its_decision() -> None:
    checked = 0
    for seed in range(8):
        state = _advance(4, 300 + seed, 20 + 31 * seed)
        if state.step == Step.GAME_OVER:
            continue
        seat = awaiting(state)[0]
        v = _seat_view(state, seat)
        if len(v["legal_actions"]) < 2:
            continue
        v2 = _seat_view(_scramble_hidden(state, seat, random.Random(seed)), seat)
        assert json.dumps(v, sort_keys=True) == json.dumps(v2, sort_keys=True)
        picks = [
            DuctBot(time_budget_s=30.0, max_iterations=12).choose(w, random.Random(seed))
            for w in (v, v2)
        ]
        assert picks[0] == picks[1]
        checked += 1
    assert checked >= 4


def test_the_others_choose_once_per_deal_whatever_the_seat_plays() -> None:
    """At a secret battle-card choice every other participant draws its card once per deal,
    before (and so without knowing) the searching seat's candidate: one draw per other seat
    and deal, however many candidates played each deal."""
    checked = 0
    for seed in range(40):
        for state, seat in _positions(4, 500 + seed, frozenset({Step.BATTLE_CARDS})):
            b = state.battle
            assert b is not None
            others = [o for o in b.participants if o != seat and b.choice[o] != -2]
            bot = DuctBot(time_budget_s=30.0, max_iterations=60)
            bot.choose(_seat_view(state, seat), random.Random(seed))
            if not others or bot.last_deals == 0:
                continue  # nobody else chooses, or one candidate only: nothing searched
            assert bot.last_draws == bot.last_deals * len(others)
            assert bot.last_iterations >= 2 * bot.last_deals  # every deal: 2+ candidates
            checked += 1
            if checked >= 3:
                return
    pytest.fail(f"only {checked} searched battle-card decisions found")


def test_a_candidate_behind_on_the_deals_it_shared_drops_out() -> None:
    """Paired on the deals both played: a newcomer with fewer deals is compared on those."""
    bot = DuctBot(time_budget_s=1.0)
    bot.race_z = 2.0
    bot.race_min_blocks = 3
    bot._offset = {0: 0.0, 1: 0.0, 2: 0.0}
    rewards_of = {
        0: [0.5, 0.6, 0.6, 0.7, 0.6],
        1: [0.5, 0.6, 0.5],  # joined later: 0.1 behind on each of the 3 deals it shared
        2: [0.9, 0.35, 0.5],  # a little behind on the same 3, but noisy: stays
    }
    assert bot._drop([0, 1, 2], rewards_of) == [0, 2]


def test_a_candidate_that_dropped_out_is_not_chosen() -> None:
    """Its mean over its few early deals beats the leader's over many (the later deals
    were harder for everyone), but it was behind on the deals both played."""
    bot = DuctBot(time_budget_s=1.0)
    bot._offset = {0: 0.0, 1: 0.0}
    rewards_of = {0: [0.8, 0.8, 0.8, 0.2, 0.2, 0.2, 0.2, 0.2], 1: [0.7, 0.7, 0.7]}
    assert sum(rewards_of[1]) / 3 > sum(rewards_of[0]) / 8
    assert bot._pick([0], rewards_of, 0) == 0


def test_a_late_candidate_is_judged_on_the_deals_it_shared() -> None:
    """A candidate let in after three easy deals: its plain mean is lower than the first
    one's, but it did better on each of the deals both played, so it is chosen."""
    bot = DuctBot(time_budget_s=1.0)
    bot._offset = {0: 0.0, 1: 0.0, 2: -0.2}
    rewards_of = {
        0: [0.9, 0.9, 0.9, 0.3, 0.3, 0.3],
        1: [0.35, 0.35, 0.35],
        2: [],  # let in as the time ran out: not judged
    }
    values = bot._paired_values([0, 1, 2], rewards_of)
    assert set(values) == {0, 1}
    assert values[1] - values[0] == pytest.approx(0.05 + bot._shrink(1, 3) - bot._shrink(0, 6))
    assert bot._pick([0, 1, 2], rewards_of, 0) == 1
    assert bot._pick([2], rewards_of, 0) == 0  # nothing judged: the heuristic's best


def test_it_says_why_each_search_stopped() -> None:
    """``last_stop``: one candidate, the race decided, the deadline, or the iteration cap."""
    stops = set()
    rng = random.Random(5)
    for seed in range(6):
        state = _advance(4, 40 + seed, 20 + 23 * seed)
        if state.step == Step.GAME_OVER:
            continue
        for seat in awaiting(state):
            v = _seat_view(state, seat)
            if len(v["legal_actions"]) < 2:
                continue
            for bot in (
                DuctBot(time_budget_s=0.002, clock=WorkClock()),
                DuctBot(time_budget_s=30.0, max_iterations=7),
            ):
                bot.choose(v, rng)
                assert bot.last_stop in {"single", "race", "deadline", "cap"}
                assert bot.last_candidates >= 1
                assert (bot.last_stop == "single") == (bot.last_candidates == 1)
                stops.add(bot.last_stop)
    assert {"deadline", "cap"} <= stops


def test_the_kit_offers_it() -> None:
    assert make_bot("duct").name == "duct"
    bot = make_bot("duct:20")
    assert isinstance(bot, DuctBot) and bot.budget == pytest.approx(0.02)
    for bad in ("duct:0", "duct:x"):
        with pytest.raises(ValueError, match="duct budget"):
            make_bot(bad)


def test_the_other_clans_playouts_weigh_every_option_the_heuristic_would() -> None:
    """By default another clan's playout move is the heuristic's own choice over all its
    options; with ``opponent_width`` 8 (IsmctsBot's model) it is chosen from a sample of the
    many Invade/March options, and so sometimes differs from what the heuristic would play."""
    from clients.blood_rage.bots.policy import choose as policy_choose

    wide, narrow = DuctBot(), DuctBot(opponent_width=8)
    assert wide.width == narrow.width == narrow.opp_width == IsmctsBot().opp_width == 8
    assert wide.opp_width > 1000
    checked = differs = 0
    for state, seat in _positions(4, 5, frozenset({Step.ACTION})):
        legal = legal_actions(state, seat)
        if len(legal) <= 8:
            continue
        for bot in (wide, narrow):
            bot._seat = (seat + 1) % 4  # the searching seat is another: ``seat`` is modelled
        exact = policy_choose(state, seat, legal, random.Random(1))
        assert wide._playout_pick(state, seat, legal, random.Random(1)) == exact
        checked += 1
        differs += legal[narrow._playout_pick(state, seat, legal, random.Random(1))] != legal[exact]
    assert checked >= 5
    assert differs >= 1
