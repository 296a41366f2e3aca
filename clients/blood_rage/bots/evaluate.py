"""Static evaluation of a (determinized) position for every seat, and rewards from it.

``values(state)`` estimates each clan's final Glory on the same scale the heuristic policy
scores actions with (so a search comparing positions agrees with it on simple moves): Glory so
far, the end-game bonus its stats are heading for and what they will still earn, the upgrades on
its sheet, its position (quests, Ragnarök, pillage chances: ``policy.Analysis.pv``), its cards
and unspent Rage. ``rewards`` turns those into one number in [0, 1] per seat from its margin over
the best other clan (1 = a sure win).
"""

from __future__ import annotations

from clients.blood_rage.bots.knowledge import (
    LAMBDA,
    PHI,
    STAT_USE,
    card_guess,
    hand_card_value,
    sig,
    stat_phases,
    strength_table,
    upgrade_value,
)
from clients.blood_rage.bots.policy import Analysis
from engine.blood_rage.board import END_GAME_BONUS, STAT_TRACK
from engine.blood_rage.ids import Phase, Step
from engine.blood_rage.state import GameState


def seat_value(
    state: GameState, seat: int, table: list[list[int]] | None = None, know_cards: bool = True
) -> float:
    """Estimated final Glory of one clan. ``know_cards=False``: its hand and quests are
    judged by their counts (how the searching seat sees another clan's hidden cards)."""
    clan = state.clans[seat]
    v = float(clan.glory)
    if state.step == Step.GAME_OVER:
        return v
    final = state.age == 3 and state.phase >= Phase.DISCARD
    for i, k in enumerate(clan.steps):
        if final:
            v += END_GAME_BONUS[k]
        else:
            v += PHI[k]
            v += (STAT_TRACK[i][k] - STAT_TRACK[i][0]) * STAT_USE[i] * stat_phases(state, i)
    for inst in clan.slots:
        if inst >= 0:
            v += upgrade_value(state, seat, inst)
    an = Analysis(state, seat, table, know_cards)
    v += an.base_pv
    if state.phase <= Phase.ACTION:
        guess = card_guess(state.age, 3)
        if know_cards:
            v += sum(hand_card_value(state, seat, c, guess) for c in clan.hand)
        else:
            v += 0.45 * guess * 0.8 * len(clan.hand)
        if state.phase == Phase.ACTION:
            v += LAMBDA * clan.rage
    return v


def values(state: GameState, viewer: int = -1) -> list[float]:
    """Every seat's estimated final Glory; only ``viewer``'s cards are looked at."""
    table = strength_table(state)
    return [seat_value(state, s, table, s == viewer) for s in range(state.players)]


def rewards(
    state: GameState, viewer: int = -1, scale: float = 6.0, linear: float = 0.5
) -> list[float]:
    """Per seat, in [0, 1]: a sigmoid of its value margin over the best other seat (how
    likely it wins), mixed with a linear term in its margin over the average of the others
    (which keeps every point counting when the game is far from even)."""
    vals = values(state, viewer)  # at the end of the game: the final Glory
    n = len(vals)
    total = sum(vals)
    out = []
    for s, v in enumerate(vals):
        other = max(x for o, x in enumerate(vals) if o != s)
        mean = (total - v) / (n - 1)
        lin = min(1.0, max(0.0, 0.5 + (v - mean) / 80.0))
        out.append((1 - linear) * sig((v - other) / scale) + linear * lin)
    return out
