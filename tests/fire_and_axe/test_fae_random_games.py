"""Random games: every player count and both Rune timings end without an engine error, with
the invariants after every decision, and replay to the same hash. The slow test plays 1,000
uniformly random games per player count (make test-slow)."""

from __future__ import annotations

import random

import pytest

from engine.core.playout import random_playout
from engine.fire_and_axe import flow
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.state import Step
from tests.fire_and_axe.fae_invariants import check_invariants


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("options", [{}, {"rune_timing": "any_time", "no_conflict": True}])
def test_a_random_game_ends_with_the_invariants_after_every_decision(
    players: int, options: dict[str, object]
) -> None:
    seed = players * 7 + len(options)
    s = RULES.new_game(
        RULES.options(
            players, seed, {**options, "settle_region_block": "any" if players % 2 else "all"}
        )
    )
    rnd = random.Random(seed)
    log = []
    check_invariants(s)
    while s.step != Step.GAME_OVER:
        who = flow.awaiting(s)[0]
        moves = flow.legal_actions(s, who)
        move = moves[rnd.randrange(len(moves))]
        flow.apply(s, who, move)
        log.append((who, move))
        check_invariants(s)
        assert len(log) < 60_000
    r = RULES.result(s)
    assert r is not None and len(r.scores) == players and r.winners
    replay = RULES.new_game(
        RULES.options(
            players, seed, {**options, "settle_region_block": "any" if players % 2 else "all"}
        )
    )
    for who, move in log:
        flow.apply_unchecked(replay, who, move)
    assert replay.state_hash() == s.state_hash()


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_thousand_random_games_per_player_count(players: int) -> None:
    for seed in range(1000):
        options = {"rune_timing": "any_time"} if seed % 4 == 3 else {}
        playout = random_playout(RULES, RULES.options(players, seed, options), max_actions=500_000)
        r = RULES.result(playout.state)
        assert r is not None and len(r.scores) == players
        if seed % 50 == 0:
            check_invariants(playout.state)
