"""HeuristicBot really plays: it beats three RandomBots in a small, seeded sample."""

from __future__ import annotations

from clients.blood_rage.bots import HeuristicBot
from clients.bots import RandomBot
from clients.bots.arena import play_game


def test_heuristic_bot_beats_random_bots() -> None:
    games = 20
    wins = 0.0
    for g in range(games):
        seat = g % 4
        bots = [RandomBot() for _ in range(4)]
        bots[seat] = HeuristicBot()
        record = play_game(bots, seed=500 + g)
        if seat in record.winners:
            wins += 1 / len(record.winners)
    assert wins >= 10, wins


def test_games_of_every_size_finish_with_mixed_bots() -> None:
    for players in (2, 3, 5):
        bots = [HeuristicBot() if s % 2 == 0 else RandomBot() for s in range(players)]
        record = play_game(bots, seed=players)
        assert len(record.scores) == players and record.winners
        assert all(d > 0 for d in record.decisions)
