"""The heuristic policy: score every legal action of one seat, pick the best.

``score_actions(state, seat, actions)`` gives one number per action, in Glory-equivalent
points, from what that seat may know (see ``knowledge``). ``HeuristicBot`` runs it on the state
it rebuilds from its view; ``IsmctsBot`` runs it inside determinized playouts, for every seat.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Final

from clients.blood_rage.bots.knowledge import (
    _QUEST,
    BATTLE_TEXT,
    CARD_GUESS,
    HAND_QUEST_WEIGHT,
    INST_TYPE,
    INST_VALUE,
    LAMBDA,
    LOSER_CARDS,
    QUEST_PROVINCES,
    QUEST_STAT,
    battle_strength,
    best_card,
    board_flux,
    call_strengths,
    card_guess,
    doom_province,
    draft_card_value,
    quest_met_prob,
    quest_unmet_prob,
    sig,
    slot_keys,
    slot_replaced_value,
    stat_value,
    strength_table,
    token_value,
    upgrade_value,
    warrior_total,
)
from engine.blood_rage.action_phase import upgrade_cost
from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.battle import card_value
from engine.blood_rage.board import (
    FJORD_SUPPORTS,
    RAGNAROK_GLORY,
    REGION_PROVINCES,
    SUPPORTING_FJORDS,
)
from engine.blood_rage.cards import NUM_INSTANCES, CardType, card_of
from engine.blood_rage.figures import figure_of_unit_in, invade_cost, reserve_figure
from engine.blood_rage.ids import FIG_UNIT, NUM_AREAS, VALHALLA, Phase, Step, Unit
from engine.blood_rage.state import GameState, PromptKind

K: Final = ActionKind
INST_QUEST: Final[tuple[int, ...]] = tuple(int(card_of(i).quest) for i in range(NUM_INSTANCES))
# The areas whose figures die with a doomed province: it and its supporting fjords.
DOOM_REACH: Final[tuple[frozenset[int], ...]] = tuple(
    frozenset((p, *SUPPORTING_FJORDS[p])) for p in range(9)
)


class Analysis:
    """What one seat reckons about the position, computed once per decision."""

    def __init__(
        self,
        state: GameState,
        seat: int,
        table: list[list[int]] | None = None,
        know_cards: bool = True,
    ) -> None:
        """``know_cards=False`` values the seat's hand and quests by their counts only (how
        another seat's hidden cards are judged, without the noise of a sampled guess)."""
        self.state = state
        self.seat = seat
        self.n = state.players
        self.age = age = state.age
        self.clan = clan = state.clans[seat]
        self.str = table = table if table is not None else strength_table(state)
        self.mystr = mine = table[seat]
        em = [0] * 9  # per province, the strongest other clan's STR
        for o, row in enumerate(table):
            if o != seat:
                for p in range(9):
                    if row[p] > em[p]:
                        em[p] = row[p]
        self.enemy_max = em
        self.live = live = [not d for d in state.destroyed]
        self.doom = doom = doom_province(state)
        self.keys = keys = slot_keys(clan)
        rag = RAGNAROK_GLORY[age]
        if "odins_inspiration" in keys:
            rag *= 2
        self.rag = float(rag)
        self.axes = float(clan.axes)
        guess_row = CARD_GUESS[age - 1]
        self.guess = [
            guess_row[min(len(c.hand), 4)] if o != seat else 0.0 for o, c in enumerate(state.clans)
        ]
        self.guess_max = max(self.guess)
        if know_cards:
            self.mycard = best_card(state, seat, self.guess_max)
        else:
            self.mycard = card_guess(age, len(clan.hand))
        self.in_action = in_action = state.phase <= Phase.ACTION
        loc = clan.loc
        self.valhalla = loc.count(VALHALLA)
        self.quest_regions: list[tuple[tuple[int, ...], float, float]] = []
        self.quest_other: list[tuple[int, float, float]] = []
        quests: list[tuple[int, float, float]] = []
        hidden = 0
        if know_cards:
            throne = 2.0 if "odins_throne" in keys else 1.0
            for q in clan.quests:
                if q >= 0:
                    quests.append((INST_QUEST[q], INST_VALUE[q] * throne, 1.0))
                else:
                    hidden += 1
            if in_action:
                for q in clan.hand:
                    if q >= 0 and INST_TYPE[q] == _QUEST:
                        quests.append((INST_QUEST[q], INST_VALUE[q] * throne, HAND_QUEST_WEIGHT))
            for kind, glory, w in quests:
                provinces = QUEST_PROVINCES.get(kind)
                if provinces is not None:
                    self.quest_regions.append((provinces, glory + QUEST_STAT, w))
                else:
                    self.quest_other.append((kind, glory + QUEST_STAT, w))
        else:
            hidden = len(clan.quests)
        self.quests = quests
        if hidden:  # a quest of unknown kind: most are region quests, any region alike
            throne = 2.0 if "odins_throne" in keys else 1.0
            glory = (5.0, 7.0, 9.0)[age - 1] * throne + QUEST_STAT
            for provinces in REGION_PROVINCES.values():
                self.quest_regions.append((provinces, glory, hidden * 0.27))
        self.presence = 0.1 * (3 - age + 0.5)
        self.unmet = quest_unmet_prob(state, seat)
        flux = board_flux(state, seat)
        self.met = 1.0 - 0.2 * flux  # a majority held now still holds at the Quest phase
        self.doom_keep = 1.0 - 0.15 * flux  # a figure in the doomed province dies there
        self._wmoved: dict[int, int] = {}
        self.wstr = clan.warrior_strength()  # (one warrior, a pair)
        self.warriors = warriors = [0] * 9
        for where in loc[1:9]:
            if where < 9:
                warriors[where] += 1
        self._tok: dict[int, float] = {}
        self._tokv: dict[int, float] = {}
        self.doom_figs = 0
        if doom >= 0:
            reach = DOOM_REACH[doom]
            self.doom_figs = sum(1 for w in loc if w in reach)
        self.maj = [lv and m > 0 and m > e for lv, m, e in zip(live, mine, em, strict=True)]
        self._base: tuple[list[float], float, float] | None = None
        self.opts: dict[str, float] = {}

    def _base_terms(self) -> tuple[list[float], float, float]:
        """(per-province terms, quest term, whole PV) of the position as it is (lazy)."""
        if self._base is None:
            mine = self.mystr
            terms = [self._prov_term(p, mine[p]) for p in range(9)]
            quest = self._quest_term(self.maj, self.valhalla)
            pv = quest + sum(terms)
            if self.doom >= 0:
                pv += self.doom_figs * self.rag * self.doom_keep
            self._base = (terms, quest, pv)
        return self._base

    @property
    def prov_terms(self) -> list[float]:
        return self._base_terms()[0]

    @property
    def base_quest(self) -> float:
        return self._base_terms()[1]

    @property
    def base_pv(self) -> float:
        return self._base_terms()[2]

    # -- values ------------------------------------------------------------------------

    def tokval(self, p: int) -> float:
        v = self._tok.get(p)
        if v is None:
            token = self.state.token[p]
            v = self._tokv.get(token)
            if v is None:
                v = token_value(self.state, self.seat, token)
                self._tokv[token] = v
            self._tok[p] = v
        return v

    def _prov_term(self, p: int, strength: float) -> float:
        """Pillage chance and presence worth of the seat's STR in one province."""
        if not self.live[p] or strength <= 0:
            return 0.0
        v = self.presence * strength
        if self.in_action and not self.state.pillaged[p]:
            em = self.enemy_max[p]
            if em == 0:
                v += 0.45 * self.tokval(p)
            else:
                prob = sig((strength + self.mycard - em - self.guess_max) / 2.0)
                v += 0.45 * prob * (self.tokval(p) + self.axes)
        return v

    def _quest_term(self, maj: Sequence[bool], valhalla: int) -> float:
        v = 0.0
        for region, glory, w in self.quest_regions:
            v += w * glory * (self.met if any(maj[p] for p in region) else self.unmet)
        for kind, glory, w in self.quest_other:
            v += w * glory * quest_met_prob(kind, maj, valhalla, self.unmet, self.met)
        return v

    def pv(self, mystr: Sequence[float], doom_figs: int, valhalla: int) -> float:
        """Positional value of the seat's figures: quests, Ragnarök Glory, pillage chances,
        presence on the board."""
        maj = [self.live[p] and mystr[p] > 0 and mystr[p] > self.enemy_max[p] for p in range(9)]
        v = self._quest_term(maj, valhalla)
        if self.doom >= 0:
            v += doom_figs * self.rag * self.doom_keep
        for p in range(9):
            v += self._prov_term(p, mystr[p])
        return v

    def fig_delta(self, fig: int, area: int, sign: int, delta: dict[int, float]) -> None:
        """Add (sign=1) or remove (sign=-1) one of the seat's figures at an area."""
        if area >= NUM_AREAS:
            return
        if 1 <= fig <= 8:
            if area >= 9:
                return
            wc = self.warriors[area] + self._wmoved.get(area, 0)
            single, pair = self.wstr
            now = (wc // 2) * pair + (wc % 2) * single  # knowledge.warrior_total, inlined
            wc += sign
            d = (wc // 2) * pair + (wc % 2) * single - now
            self._wmoved[area] = self._wmoved.get(area, 0) + sign
            delta[area] = delta.get(area, 0.0) + d
            return
        s = self.state.figure_strength(self.seat, fig, area)
        if area < 9:
            delta[area] = delta.get(area, 0.0) + sign * s
        else:
            for p in FJORD_SUPPORTS[area]:
                delta[p] = delta.get(p, 0.0) + sign * s

    def in_doom(self, area: int) -> bool:
        d = self.doom
        return d >= 0 and (area == d or area in SUPPORTING_FJORDS[d])

    def move_value(self, moves: list[tuple[int, int, int]]) -> float:
        """PV change of moving figures: (fig, from, to) with from/to areas or reserve."""
        delta: dict[int, float] = {}
        self._wmoved = {}
        doom_d = 0
        valhalla = self.valhalla
        for fig, src, dst in moves:
            self.fig_delta(fig, src, -1, delta)
            self.fig_delta(fig, dst, 1, delta)
            if src < NUM_AREAS and self.in_doom(src):
                doom_d -= 1
            if dst < NUM_AREAS and self.in_doom(dst):
                doom_d += 1
            if src == VALHALLA:
                valhalla -= 1
            if dst == VALHALLA:
                valhalla += 1
        v = doom_d * self.rag * self.doom_keep if self.doom >= 0 else 0.0
        maj = self.maj
        flipped = False
        for p, d in delta.items():
            if d == 0:
                continue
            new = self.mystr[p] + d
            v += self._prov_term(p, new) - self.prov_terms[p]
            m = self.live[p] and new > 0 and new > self.enemy_max[p]
            if m != maj[p]:
                if not flipped:
                    maj = list(maj)
                    flipped = True
                maj[p] = m
        if flipped or valhalla != self.valhalla:
            v += self._quest_term(maj, valhalla) - self.base_quest
        return v

    def slot_cost(self, extra: int = 1) -> float:
        c = self.clan
        return 0.6 if c.on_board() + extra >= c.horns else 0.2

    # -- battles -------------------------------------------------------------------------

    def pillage_value(self, p: int) -> float:
        """Expected worth of pillaging a province now (Call to Battle and cards guessed)."""
        state = self.state
        me = self.seat
        fv = state.free_villages(p)
        tok = self.tokval(p)
        enemies: list[tuple[float, list[float], float]] = []
        for o in range(self.n):
            if o == me:
                continue
            so = float(self.str[o][p])
            calls = call_strengths(state, o, p) if fv > 0 else []
            if so == 0 and not calls:
                continue
            enemies.append((so, calls, self.guess[o]))
        if not enemies:
            return tok + 0.3
        interested = len(enemies) + 1
        k = 3 if fv > 40 else max(1, math.ceil(fv / interested)) if fv > 0 else 0
        my_calls = call_strengths(state, me, p) if fv > 0 else []
        my_total = self.mystr[p] + self.mycard + 0.8 * sum(my_calls[:k])
        best = 0.0
        present = 0
        for so, calls, g in enemies:
            t = so + g + (0.8 if so > 0 else 0.6) * sum(calls[:k])
            if so == 0 and t < my_total - 1.5:
                continue
            present += 1
            best = max(best, t)
        if present == 0:
            return 0.9 * tok + 0.2
        prob = sig((my_total - best - 0.5) / 1.8)
        figs = sum(1 for w in self.clan.loc if w == p or w in SUPPORTING_FJORDS[p])
        lose = figs * 1.0 + (self.rag * figs if p == self.doom else 0.0) + 0.3 * self.axes
        win = tok + self.axes + 0.5 * present - 0.35 * self.mycard
        return prob * win - (1.0 - prob) * lose


# -- scoring per decision ----------------------------------------------------------------


def score_actions(
    state: GameState, seat: int, actions: Sequence[Action], opts: dict[str, float] | None = None
) -> list[float]:
    """One score per action (higher is better). ``opts``: tuning knobs (experiments)."""
    if state.prompts and state.prompts[0].kind in (PromptKind.QUEST_STAT, PromptKind.RAISE_STAT):
        return [stat_value(state, seat, a[1]) for a in actions]  # no board analysis needed
    an = Analysis(state, seat)
    an.opts = opts or {}
    if state.prompts:
        return _score_prompt(an, actions)
    step = state.step
    if step == Step.ACTION:
        return _score_action_step(an, actions)
    if step == Step.DRAFT_PICK:
        return _score_draft(an, actions)
    if step == Step.MARCH:
        return _score_march_more(an, actions)
    if step == Step.CALL_TO_BATTLE:
        return _score_call(an, actions)
    if step == Step.BATTLE_CARDS:
        return _score_battle_cards(an, actions)
    if step == Step.DISCARD:
        return _score_keep(an, actions)
    return [0.0] * len(actions)


def choose(
    state: GameState,
    seat: int,
    actions: Sequence[Action],
    rng: random.Random,
    temperature: float = 0.0,
    opts: dict[str, float] | None = None,
) -> int:
    """Index of the best-scored action (ties broken at random; softmax if temperature > 0)."""
    if len(actions) == 1:
        return 0
    scores = score_actions(state, seat, actions, opts)
    if temperature > 0:
        top = max(scores)
        weights = [math.exp((s - top) / temperature) for s in scores]
        r = rng.random() * sum(weights)
        for i, w in enumerate(weights):
            r -= w
            if r <= 0:
                return i
        return len(actions) - 1
    best = max(scores)
    ties = [i for i, s in enumerate(scores) if s >= best - 1e-9]
    return ties[0] if len(ties) == 1 else rng.choice(ties)


def _majorities(an: Analysis) -> list[bool]:
    return [an.live[p] and an.mystr[p] > 0 and an.mystr[p] > an.enemy_max[p] for p in range(9)]


def _score_draft(an: Analysis, actions: Sequence[Action]) -> list[float]:
    state, seat = an.state, an.seat
    maj = _majorities(an)
    hand = [c for c in an.clan.hand if c >= 0]
    battles = sum(1 for c in hand if card_of(c).type == CardType.BATTLE)
    upg_cost = sum(
        upgrade_cost(state, seat, c) for c in hand if card_of(c).type == CardType.UPGRADE
    )
    budget = an.clan.stat(0)
    out = []
    for a in actions:
        card = a[1]
        d = card_of(card)
        v = draft_card_value(state, seat, card, maj)
        if an.opts.get("draft_plain"):
            pass
        elif d.type == CardType.BATTLE:
            v *= max(0.4, 1.0 - 0.12 * battles)
        elif d.type == CardType.UPGRADE:
            over = upg_cost + upgrade_cost(state, seat, card) - (budget - 2)
            if over > 0:
                v -= 1.2 * over
            if (
                d.slot
                and any(
                    card_of(c).slot == d.slot and card_of(c).type == CardType.UPGRADE for c in hand
                )
                and d.slot != 5
            ):
                v -= 2.0
        out.append(v)
    return out


def _score_keep(an: Analysis, actions: Sequence[Action]) -> list[float]:
    maj = _majorities(an)
    out = []
    for a in actions:
        if a[0] == K.KEEP_NONE:
            out.append(-1.0)
        else:
            out.append(draft_card_value(an.state, an.seat, a[1], maj))
    return out


def _score_action_step(an: Analysis, actions: Sequence[Action]) -> list[float]:
    state, seat = an.state, an.seat
    clan = an.clan
    out: list[float] = []
    march_cache: dict[tuple[int, int], float] = {}
    pillage_cache: dict[int, float] = {}
    for a in actions:
        kind = a[0]
        if kind == K.INVADE or kind == K.INVADE_FROM_VALHALLA:
            unit, area = a[1], a[2]
            if kind == K.INVADE:
                fig = reserve_figure(state, seat, unit)
                cost = invade_cost(state, seat, unit)
                src = 13
            else:
                fig = figure_of_unit_in(state, seat, unit, VALHALLA)
                cost = 1
                src = VALHALLA
            v = an.move_value([(fig, src, area)]) - LAMBDA * cost - an.slot_cost()
            v += _invade_effects(an, fig, area)
            out.append(v)
        elif kind == K.MARCH:
            src, dst, unit = a[1], a[2], a[3]
            key = (src, dst)
            group = march_cache.get(key)
            if group is None:
                group = _march_group_value(an, src, dst)
                march_cache[key] = group
            fig = figure_of_unit_in(state, seat, unit, src)
            single = an.move_value([(fig, src, dst)])
            strength = state.figure_strength(seat, fig, dst) if not 1 <= fig <= 8 else 1
            out.append(max(group, single) - LAMBDA + 0.01 * strength)
        elif kind == K.UPGRADE:
            card, index = a[1], a[2]
            v = upgrade_value(state, seat, card) - slot_replaced_value(state, seat, card, index)
            v -= LAMBDA * upgrade_cost(state, seat, card)
            if upgrade_cost(state, seat, card) >= clan.rage:
                v -= 0.5  # it ends the clan's turns
            out.append(v)
        elif kind == K.QUEST:
            d = card_of(a[1])
            chance = quest_met_prob(d.quest, _majorities(an), an.valhalla, an.unmet, an.met)
            out.append(
                0.8 + 0.5 * chance * (d.value + QUEST_STAT) + (2.0 if clan.rage <= 1 else 0.0)
            )
        elif kind == K.PILLAGE or kind == K.CHALLENGE:
            p = a[1]
            cached = pillage_cache.get(p)
            if cached is None:
                cached = an.pillage_value(p)
                pillage_cache[p] = cached
            out.append(cached - (2 * LAMBDA if kind == K.CHALLENGE else 0.0))
        elif kind == K.SACRIFICE:
            gain = max(stat_value(state, seat, s) for s in range(3))
            out.append(gain - 6.0)
        elif kind == K.PASS:
            out.append(0.0 if clan.rage > 0 else 1.0)
        else:
            out.append(-1.0)
    return out


def _invade_effects(an: Analysis, fig: int, area: int) -> float:
    """Troll and Fire Giant destroy enemies where they invade."""
    if area >= 9 or fig < 10:
        return 0.0
    unit = FIG_UNIT[fig]
    state = an.state
    killed = 0
    if unit == Unit.TROLL:
        killed = sum(
            1
            for o in range(an.n)
            if o != an.seat
            for f in range(1, 9)
            if state.clans[o].loc[f] == area
        )
    elif unit == Unit.FIRE_GIANT:
        reach = (area, *SUPPORTING_FJORDS[area])
        killed = sum(
            1
            for o in range(an.n)
            if o != an.seat
            for f in range(10)
            if state.clans[o].loc[f] in reach
        )
    return 1.2 * killed


def _march_group_value(an: Analysis, src: int, dst: int) -> float:
    """Best PV change of marching a group from src to dst (all movable, capacity-limited)."""
    state, seat = an.state, an.seat
    loc = an.clan.loc
    figs = [f for f in range(19) if loc[f] == src and f != 9 and FIG_UNIT[f] != Unit.SEA_SERPENT]
    cap = state.free_villages(dst)
    figs.sort(key=lambda f: -(1 if 1 <= f <= 8 else state.figure_strength(seat, f, src)))
    best = -99.0
    moves: list[tuple[int, int, int]] = []
    for f in figs[: max(0, cap)]:
        moves.append((f, src, dst))
        best = max(best, an.move_value(moves))
    return best


def _score_march_more(an: Analysis, actions: Sequence[Action]) -> list[float]:
    state = an.state
    assert state.march is not None
    src, dst = state.march
    out = []
    for a in actions:
        if a[0] == K.MARCH_DONE:
            out.append(0.0)
        else:
            fig = figure_of_unit_in(state, an.seat, a[1], src)
            out.append(an.move_value([(fig, src, dst)]))
    return out


def _battle_totals(an: Analysis, province: int) -> tuple[float, float]:
    """(my STR + best card, best enemy STR + guessed card) among the battle's seats."""
    state = an.state
    b = state.battle
    assert b is not None
    best = 0.0
    for o in range(an.n):
        if o == an.seat:
            continue
        so = an.str[o][province]
        if so > 0 or (b.participants and o in b.participants):
            hand = len(state.clans[o].hand)
            if b.choice[o] not in (-1, -2):
                hand += 1
            best = max(best, so + card_guess(an.age, hand))
    return an.mystr[province] + an.mycard, best


def _score_call(an: Analysis, actions: Sequence[Action]) -> list[float]:
    state, seat = an.state, an.seat
    b = state.battle
    assert b is not None
    p = b.province
    mine, enemy = _battle_totals(an, p)
    present = an.mystr[p] > 0
    pillager = b.pillager == seat
    win_value = an.axes + (an.tokval(p) if pillager else 0.0) + 0.5
    figs = sum(1 for w in an.clan.loc if w == p or w in SUPPORTING_FJORDS[p])
    p_old = sig((mine - enemy - 0.5) / 1.8) if present else 0.0
    out = []
    for a in actions:
        if a[0] == K.DECLINE:
            out.append(0.0)
            continue
        src, unit = a[1], a[2]
        fig = figure_of_unit_in(state, seat, unit, src)
        if 1 <= fig <= 8:
            wc = an.warriors[p]
            add = warrior_total(state, seat, wc + 1) - warrior_total(state, seat, wc)
        else:
            add = state.figure_strength(seat, fig, p)
        base = mine if present else an.mycard
        p_new = sig((base + add - enemy - 0.5) / 1.8)
        # Joining another clan's pillage: only the battle's Glory, and spoiling their reward.
        joining = not present and not pillager
        win_value_here = an.axes + 0.3 * an.tokval(p) if joining else win_value
        loss_old = (1 - p_old) * figs if present else 0.0
        loss_new = (1 - p_new) * (figs + 1)
        removal = -an.move_value([(fig, src, 13)])
        out.append((p_new - p_old) * win_value_here - (loss_new - loss_old) - 0.5 * removal)
    return out


def _card_effect(an: Analysis, card: int, p: int) -> tuple[float, float, float, float]:
    """(my STR change, enemies' STR change, Glory if I win, Glory if I lose) of a card."""
    d = card_of(card)
    key = d.key
    state = an.state
    b = state.battle
    assert b is not None
    my_delta = 0.0
    enemy_delta = 0.0
    win_bonus = 0.0
    lose_bonus = 0.0
    if key == "odins_smite":
        enemy_delta = -1.0
    elif key == "odins_tide":
        mine = [
            state.figure_strength(an.seat, f, p) if not 1 <= f <= 8 else 1
            for f in state.figures_in_battle(an.seat, p)
        ]
        my_delta = float((max(mine) if mine else 0) - an.mystr[p])
        enemy_delta = -max(0.0, 0.5 * max(an.str[o][p] for o in b.participants) - 3)
    elif key == "thors_hammer":
        win_bonus = 3.0
    elif key == "thors_ascension":
        win_bonus = 3.0 + 3 * LAMBDA * (1.0 if state.phase == Phase.ACTION else 0.0)
    elif key == "thors_oath":
        win_bonus = max(stat_value(state, an.seat, s) for s in range(3))
    elif key == "friggas_grace" and b.pillager == an.seat:
        win_bonus = max(stat_value(state, an.seat, s) for s in range(3)) * 0.8
    elif key == "odins_judgement":
        win_bonus = 2.0 * sum(1 for o in b.participants if o != an.seat)
        lose_bonus = win_bonus
    elif key == "lokis_backstab":
        lose_bonus = 2.0
    elif key == "lokis_trickery":
        lose_bonus = 1.0
    elif key == "lokis_poison":
        lose_bonus = 2.0
    return my_delta, enemy_delta, win_bonus, lose_bonus


def _score_battle_cards(an: Analysis, actions: Sequence[Action]) -> list[float]:
    state, seat = an.state, an.seat
    b = state.battle
    assert b is not None
    p = b.province
    _, enemy = _battle_totals(an, p)
    mystr = an.mystr[p]
    figs = sum(1 for w in an.clan.loc if w == p or w in SUPPORTING_FJORDS[p])
    win_value = an.axes + figs * 1.0 + 0.5
    if b.pillager == seat:
        win_value += an.tokval(p)
    out = []
    for a in actions:
        card = a[1]
        eff = battle_strength(state, seat, card, an.guess_max)
        my_d, en_d, win_b, lose_b = _card_effect(an, card, p)
        prob = sig((mystr + eff + my_d - enemy - en_d - 0.5) / 1.5)
        keep_cost = 0.45 * (eff + BATTLE_TEXT.get(card_of(card).key, 0.0))
        if card_of(card).key in LOSER_CARDS:
            keep_cost += 0.5
        score = prob * (win_value + win_b - keep_cost) + (1 - prob) * (lose_b + 0.05 * eff)
        out.append(score)
    return out


def _score_prompt(an: Analysis, actions: Sequence[Action]) -> list[float]:
    state, seat = an.state, an.seat
    prompt = state.prompts[0]
    kind = prompt.kind
    out = []
    for a in actions:
        k = a[0]
        if k == K.DECLINE:
            out.append(0.0)
        elif k == K.RAISE_STAT:
            out.append(stat_value(state, seat, a[1]))
        elif k == K.FREE_INVADE:
            unit, area = a[1], a[2]
            fig = reserve_figure(state, seat, unit)
            v = an.move_value([(fig, 13, area)]) - an.slot_cost() + 0.5
            out.append(v + _invade_effects(an, fig, area))
        elif k == K.SAVE_FIGURE:
            fig = figure_of_unit_in(state, seat, a[1], a[2])
            strength = 1 if 1 <= fig <= 8 else state.figure_strength(seat, fig, a[2])
            cost = LAMBDA if state.phase == Phase.ACTION else 0.2
            out.append(0.8 * strength + (an.rag if an.in_doom(a[2]) else 0.0) - cost)
        elif k == K.ACCEPT:
            if kind == PromptKind.WITCH_RETREAT:
                out.append(1.0 if prompt.b == 0 or an.rag < 3 else -1.0)
            elif kind == PromptKind.THORS_DOMAIN:
                out.append(an.pillage_value(prompt.a) - 2 * LAMBDA)
            else:
                out.append(0.5)
        elif k == K.KEEP_FIGURE:
            fig = figure_of_unit_in(state, seat, a[1], a[2])
            strength = 1 if 1 <= fig <= 8 else state.figure_strength(seat, fig, a[2])
            out.append(float(strength))
        elif k == K.LATE_CARD:
            out.append(_late_card_value(an, a[1]))
        elif k == K.KEEP_REVEALED:
            d = card_of(a[1])
            out.append(
                0.5 * battle_strength(state, seat, a[1], an.guess_max)
                - LAMBDA
                + (0.0 if d.type == CardType.BATTLE else -5.0)
            )
        elif k == K.MOVE_LEADER:
            src = an.clan.loc[0]
            out.append(an.move_value([(0, src, a[1])]))
        elif k == K.SACRIFICE:
            fig = figure_of_unit_in(state, seat, a[1], a[2])
            strength = 1 if 1 <= fig <= 8 else state.figure_strength(seat, fig, a[2])
            out.append(-float(strength) + (1.0 if an.in_doom(a[2]) else 0.0))
        else:
            out.append(0.0)
    return out


def _late_card_value(an: Analysis, card: int) -> float:
    state = an.state
    b = state.battle
    assert b is not None
    p = b.province
    totals = {}
    for s in b.participants:
        totals[s] = state.strength_in(s, p) + sum(card_value(state, s, c) for c in b.played[s])
    mine = totals.get(an.seat, 0)
    other = max((t for s, t in totals.items() if s != an.seat), default=0)
    if mine > other:
        return -0.5
    v = card_of(card).value
    if mine + v > other:
        return an.axes + 1.0 - 0.3 * v
    if mine + v == other:
        return 0.5
    return -0.2
