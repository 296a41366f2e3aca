"""Game knowledge the heuristic and the search share: strengths, values of stats, cards,
positions, battles — all in "Glory-equivalent" points.

Everything here reads a ``GameState`` only through what one seat may know: the board, stats,
upgrades, hand *counts* of the others, and that seat's own hand and quests. So it gives the
same answers on the redacted state a bot rebuilds from its view as on any determinization.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from engine.blood_rage.board import (
    ADJACENT,
    END_GAME_BONUS,
    RAGNAROK_GLORY,
    REGION_PROVINCES,
    STAT_TRACK,
    SUPPORTING_FJORDS,
    Region,
    Token,
)
from engine.blood_rage.cards import NUM_INSTANCES, CardDef, CardType, QuestKind, Slot, card_of
from engine.blood_rage.ids import NUM_AREAS, VALHALLA, Phase
from engine.blood_rage.state import ClanState, GameState, is_ship

# Potential of a stat step index for the end-game bonus (+10 at the 4th step, +20 at the last),
# smoothed so every step on the way counts.
PHI: Final[tuple[float, ...]] = (0.0, 3.3, 6.7, 10.0, 15.0, 20.0)
LAMBDA: Final = 1.0  # Glory-equivalent of one Rage spent in the Action phase
QUEST_STAT: Final = 4.0  # a fulfilled quest's stat step, roughly
HAND_QUEST_WEIGHT: Final = 0.7  # a quest in hand will most likely be committed
# Expected best battle card of a hidden hand: [age][min(hand count, 4)].
CARD_GUESS: Final[tuple[tuple[float, ...], ...]] = (
    (0.0, 2.0, 3.0, 3.5, 4.0),
    (0.0, 2.5, 3.5, 4.5, 5.0),
    (0.0, 3.0, 4.0, 5.0, 6.0),
)
REGION_OF_QUEST: Final = {
    QuestKind.ALFHEIM: Region.ALFHEIM,
    QuestKind.JOTUNHEIM: Region.JOTUNHEIM,
    QuestKind.MANHEIM: Region.MANHEIM,
}

# Provinces of the region a region quest names, by quest kind (an int).
QUEST_PROVINCES: Final[dict[int, tuple[int, ...]]] = {
    int(k): REGION_PROVINCES[r] for k, r in REGION_OF_QUEST.items()
}

# Extra worth of a battle card's text (beyond its +STR), roughly in Glory.
BATTLE_TEXT: Final = {
    "thors_hammer": 2.0,
    "odins_smite": 1.0,
    "heimdalls_sight": 2.0,
    "friggas_grace": 1.5,
    "lokis_trickery": 0.5,
    "heimdalls_eye": 1.0,
    "heimdalls_gaze": 1.0,
    "heimdalls_watch": 1.0,
    "lokis_backstab": 1.0,
    "thors_oath": 2.0,
    "thors_primacy": 0.5,
    "thors_ascension": 3.0,
    "odins_judgement": 1.5,
    "lokis_poison": 0.5,
}
LOSER_CARDS: Final = frozenset({"lokis_trickery", "lokis_backstab", "lokis_poison"})

# Upgrades: worth per Age in play (Glory-equivalent), before situational terms.
UPGRADE_PER_AGE: Final = {
    "troll": 4.0,
    "dwarf_chieftain": 3.0,
    "sea_serpent": 3.0,
    "lord_of_hammers": 1.0,
    "brothers_in_arms": 2.5,
    "lokis_dragons": 1.5,
    "lokis_domain": 1.5,
    "friggas_charm": 1.0,
    "thors_glory": 2.0,
    "friggas_succor": 3.0,
    "tyrs_domain": 1.0,
    "lokis_blessing": 1.5,
    "valkyrie": 4.0,
    "dark_elf": 4.0,
    "fire_giant": 6.0,
    "lord_of_axes": 3.0,
    "experts_in_arms": 4.0,
    "fire_dragons": 3.0,
    "odins_inspiration": 2.0,
    "tyrs_challenge": 2.0,
    "friggas_protection": 2.0,
    "lokis_eminence": 3.0,
    "tyrs_prowess": 1.5,
    "thors_domain": 2.0,
    "frost_giant": 6.0,
    "soldier_of_hel": 5.0,
    "volur_witch": 4.0,
    "lord_of_spears": 6.0,
    "masters_in_arms": 7.0,
    "eternal_dragons": 6.0,
    "friggas_domain": 2.0,
    "odins_throne": 2.0,
    "thors_conquest": 2.0,
    "friggas_sacrifice": 1.0,
    "tyrs_wrath": 2.0,
    "lokis_wrath": 4.0,
}


# Per card instance, for the hot paths (no CardDef lookups).
INST_TYPE: Final[tuple[int, ...]] = tuple(int(card_of(i).type) for i in range(NUM_INSTANCES))
INST_KEY: Final[tuple[str, ...]] = tuple(card_of(i).key for i in range(NUM_INSTANCES))
INST_VALUE: Final[tuple[int, ...]] = tuple(card_of(i).value for i in range(NUM_INSTANCES))
INST_SLOT: Final[tuple[int, ...]] = tuple(int(card_of(i).slot) for i in range(NUM_INSTANCES))
INST_UPGRADE_PER_AGE: Final[tuple[float, ...]] = tuple(
    UPGRADE_PER_AGE.get(card_of(i).key, 1.0) for i in range(NUM_INSTANCES)
)
_BATTLE: Final = int(CardType.BATTLE)
_QUEST: Final = int(CardType.QUEST)


def slot_keys(clan: ClanState) -> set[str]:
    """Keys of the upgrades on a clan sheet."""
    return {INST_KEY[i] for i in clan.slots if i >= 0}


def sig(x: float) -> float:
    if x > 30:
        return 1.0
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


_FIG_STR: Final[list[list[int]]] = []


def _figure_strengths(state: GameState) -> list[list[int]]:
    """``[fig][area]`` STR of the non-warrior figures. ``GameState.figure_strength`` depends
    on the figure and the area only, so it is tabulated once (from the first state seen)."""
    if not _FIG_STR:
        _FIG_STR.extend(
            [state.figure_strength(0, fig, a) if fig >= 10 else 0 for a in range(NUM_AREAS)]
            for fig in range(19)
        )
    return _FIG_STR


def strength_table(state: GameState) -> list[list[int]]:
    """STR of every clan in every province (fjord ships included): ``[seat][province]``."""
    out: list[list[int]] = []
    fjords = SUPPORTING_FJORDS
    fig_str = _FIG_STR or _figure_strengths(state)
    for clan in state.clans:
        loc = clan.loc
        area = [0] * NUM_AREAS
        warriors = [0] * 9
        for w in loc[1:9]:
            if w < 9:
                warriors[w] += 1
        w = loc[0]
        if w < NUM_AREAS:
            area[w] += 3  # the leader
        w = loc[9]
        if w < NUM_AREAS:
            area[w] += 2
        for fig in range(10, 19):
            w = loc[fig]
            if w < NUM_AREAS:
                area[w] += fig_str[fig][w]
        single, pair = clan.warrior_strength()
        row = area[:9]
        if area[9] or area[10] or area[11] or area[12]:  # figures in fjords support provinces
            for p in range(1, 9):
                for f in fjords[p]:
                    row[p] += area[f]
        for p in range(9):
            wc = warriors[p]
            if wc:
                row[p] += (wc // 2) * pair + (wc % 2) * single
        out.append(row)
    return out


def warrior_total(state: GameState, seat: int, count: int) -> int:
    single, pair = state.clans[seat].warrior_strength()
    return (count // 2) * pair + (count % 2) * single


def card_guess(age: int, hand_count: int) -> float:
    return CARD_GUESS[age - 1][min(hand_count, 4)]


def doom_province(state: GameState) -> int:
    """The province destroyed at the end of this Age (-1 once Ragnarök has passed)."""
    if state.phase >= Phase.RAGNAROK:
        return -1
    p = state.ragnarok[state.age - 1]
    return -1 if p < 0 or state.destroyed[p] else p


def ages_ahead(state: GameState) -> float:
    """How many Action phases an improvement made now still serves (current one partly)."""
    rest = 3 - state.age
    if state.phase <= Phase.DRAFT:
        return rest + 1.0
    if state.phase == Phase.ACTION:
        return rest + 0.5
    return float(rest)


# Future Glory per point of a stat's value per Action phase still to come (Rage, Axes, Horns).
STAT_USE: Final = (1.3, 1.2, 0.9)


def stat_phases(state: GameState, stat: int) -> float:
    """Action phases still to profit from a stat's value: the later Ages', this Age's too
    before its Action phase, half of it during it (not for Rage: this phase's Rage is set)."""
    rest = 3.0 - state.age
    if state.phase <= Phase.DRAFT:
        return rest + 1.0
    if state.phase == Phase.ACTION and stat != 0:
        return rest + 0.5
    return rest


def stat_value(state: GameState, seat: int, stat: int) -> float:
    """Worth of one step up in a stat for that clan, now."""
    clan = state.clans[seat]
    k = clan.steps[stat]
    if k >= 5:
        return -0.5
    if state.age == 3 and state.phase >= Phase.DISCARD:
        # Only the end-game bonus is left; prefer the stat closest to its next threshold.
        return END_GAME_BONUS[k + 1] - END_GAME_BONUS[k] + 0.1 * k
    end = PHI[k + 1] - PHI[k]
    dv = STAT_TRACK[stat][k + 1] - STAT_TRACK[stat][k]
    return end + dv * STAT_USE[stat] * stat_phases(state, stat)


def token_value(state: GameState, seat: int, token: int) -> float:
    if token == Token.ALL_STATS:
        return sum(stat_value(state, seat, s) for s in range(3)) + 0.5
    if token == Token.GLORY5:
        return 5.0
    if token >= 1:
        return stat_value(state, seat, token - 1)
    return 0.0


def quest_battle_value(clan: ClanState) -> float:
    """What a quest card adds in battle for this clan (Tyr's Domain / Wrath), else 0."""
    best = 0.0
    for i in clan.slots:
        if i >= 0:
            key = INST_KEY[i]
            if key == "tyrs_wrath":
                return 5.0
            if key == "tyrs_domain":
                best = 3.0
    return best


def battle_strength(state: GameState, seat: int, card: int, guess: float) -> float:
    """+STR a card of the seat's hand would add in a battle (before its text)."""
    kind = INST_TYPE[card]
    if kind == _BATTLE:
        if INST_KEY[card] == "heimdalls_sight":
            return guess
        return float(INST_VALUE[card])
    if kind == _QUEST:
        return quest_battle_value(state.clans[seat])
    return 0.0


def best_card(state: GameState, seat: int, guess: float) -> float:
    best = 0.0
    quest = -1.0
    for c in state.clans[seat].hand:
        if c >= 0:
            kind = INST_TYPE[c]
            if kind == _BATTLE:
                v = guess if INST_KEY[c] == "heimdalls_sight" else float(INST_VALUE[c])
                if v > best:
                    best = v
            elif kind == _QUEST and quest < 0:
                quest = quest_battle_value(state.clans[seat])
    return max(best, quest)


def call_strengths(state: GameState, seat: int, province: int) -> list[float]:
    """STR of the figures the clan could call into a battle there, strongest first."""
    loc = state.clans[seat].loc
    single, pair = state.clans[seat].warrior_strength()
    adj = ADJACENT[province]
    out: list[float] = []
    for fig in range(19):
        w = loc[fig]
        if w < 9 and w in adj and not state.destroyed[w] and not is_ship(fig):
            if 1 <= fig <= 8:
                out.append(pair / 2.0 if pair > 2 * single else float(single))
            else:
                out.append(float(state.figure_strength(seat, fig, province)))
    out.sort(reverse=True)
    return out


def upgrade_value(state: GameState, seat: int, card: int) -> float:
    """Worth of having this upgrade on the clan sheet from now on (no cost counted)."""
    clan = state.clans[seat]
    base = INST_UPGRADE_PER_AGE[card] * ages_ahead(state)
    key = INST_KEY[card]
    slot = INST_SLOT[card]
    if slot == Slot.MONSTER:
        # A figure with STR that needs a Horns place.
        if clan.on_board() >= clan.horns:
            base *= 0.6
    elif slot == Slot.WARRIOR:
        warriors = sum(1 for f in range(1, 9) if clan.loc[f] < NUM_AREAS)
        base *= 0.6 + 0.15 * warriors
    elif slot == Slot.SHIP:
        doom = doom_province(state)
        ship_area = clan.loc[9]
        glory = {"lokis_dragons": 4, "fire_dragons": 8, "eternal_dragons": 12}.get(key, 0)
        if ship_area < NUM_AREAS and doom >= 0 and ship_area in SUPPORTING_FJORDS[doom]:
            base += glory * 0.9
        else:
            base += glory * 0.3
    elif key == "odins_throne":
        glory = sum(
            card_of(q).value
            for q in clan.quests + clan.hand
            if q >= 0 and card_of(q).type == CardType.QUEST
        )
        base += 0.5 * glory
    elif key == "thors_conquest":
        base += 3.0 * min(clan.horns, clan.on_board() + 2)
    elif key == "odins_inspiration":
        doom = doom_province(state)
        if doom >= 0:
            base += RAGNAROK_GLORY[state.age] * state_doom_count(state, seat, doom) * 0.8
    elif key in ("tyrs_domain", "tyrs_wrath"):
        quests = sum(1 for q in clan.hand if q >= 0 and card_of(q).type == CardType.QUEST)
        base += 1.0 * quests
    return base


def state_doom_count(state: GameState, seat: int, doom: int) -> int:
    if doom < 0:
        return 0
    reach = (doom, *SUPPORTING_FJORDS[doom])
    return sum(1 for w in state.clans[seat].loc if w in reach)


def slot_replaced_value(state: GameState, seat: int, card: int, index: int) -> float:
    from engine.blood_rage.action_phase import SLOT_BASE

    d = card_of(card)
    old = state.clans[seat].slots[SLOT_BASE[d.slot] + index]
    if old < 0:
        return 0.0
    return upgrade_value(state, seat, old)


def quest_unmet_prob(state: GameState, seat: int) -> float:
    """Chance a quest not met now will be met at the Quest phase (more with Rage to come)."""
    if state.phase <= Phase.DRAFT:
        return 0.4
    if state.phase == Phase.ACTION:
        return 0.1 + 0.3 * min(1.0, state.clans[seat].rage / 6.0)
    return 0.0


def board_flux(state: GameState, seat: int) -> float:
    """How much the others can still change the board before the Quest phase: 1 before the
    Action phase, shrinking with their Rage left during it, 0 after it."""
    if state.phase <= Phase.DRAFT:
        return 1.0
    if state.phase == Phase.ACTION:
        others = sum(c.rage for s, c in enumerate(state.clans) if s != seat)
        return min(1.0, others / 8.0)
    return 0.0


def quest_met_prob(
    kind: int, maj: Sequence[bool], valhalla: int, unmet: float, met: float = 0.8
) -> float:
    """Chance a quest of that kind succeeds, given the current majorities (``met``: the
    chance a majority held now still holds at the Quest phase)."""
    if kind in REGION_OF_QUEST:
        ok = any(maj[p] for p in REGION_PROVINCES[REGION_OF_QUEST[QuestKind(kind)]])
        return met if ok else unmet
    if kind == QuestKind.YGGDRASIL:
        return met if maj[0] else 0.8 * unmet
    if kind == QuestKind.WIDESPREAD:
        count = sum(1 for m in maj if m)
        return met * 0.95 if count >= 2 else (0.3 * met if count == 1 else 0.5 * unmet)
    if kind == QuestKind.GLORIOUS_DEATH:
        if valhalla >= 4:
            return 1.0
        if unmet <= 0:  # the Action phase is over: Valhalla will not fill any more
            return 0.0
        return max(0.5 * unmet, (0.05, 0.08, 0.15, 0.35)[valhalla])
    return 0.0


def hand_card_value(state: GameState, seat: int, card: int, guess: float) -> float:
    """Worth of holding one battle or upgrade card in the draft and the Action phase
    (quests in hand are valued with the position, ``policy.Analysis.pv``)."""
    from engine.blood_rage.action_phase import upgrade_cost

    d = card_of(card)
    if d.type == CardType.BATTLE:
        return 0.45 * (battle_strength(state, seat, card, guess) + BATTLE_TEXT.get(d.key, 0.0))
    if d.type == CardType.UPGRADE:
        return 0.8 * max(
            0.0, upgrade_value(state, seat, card) - LAMBDA * upgrade_cost(state, seat, card)
        )
    return 0.0


def draft_card_value(state: GameState, seat: int, card: int, maj: list[bool]) -> float:
    """Worth of holding this card (for the draft and the keep choice)."""
    d: CardDef = card_of(card)
    if d.type == CardType.QUEST:
        valhalla = sum(1 for w in state.clans[seat].loc if w == VALHALLA)
        p = quest_met_prob(d.quest, maj, valhalla, quest_unmet_prob(state, seat))
        glory = float(d.value)
        if state.clans[seat].has_upgrade("odins_throne"):
            glory *= 2
        return HAND_QUEST_WEIGHT * p * (glory + QUEST_STAT)
    return hand_card_value(state, seat, card, card_guess(state.age, 3))
