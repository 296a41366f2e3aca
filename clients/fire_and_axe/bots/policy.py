"""The heuristic policy of Fire & Axe: score every legal action of one seat, play the best.

It reads only what the seat may know (the redacted state: the public table and its own Runes).
Everything is priced in VP: a port is worth what a Task there would bring now (the port value
of a Trade, +2 for the Goods in Demand; a Raid's chance times the treasures the pack holds for
a town that size, plus the Bloodiest Axe's 3; a Settle's chance times the port value it
scores at the end) and a share of the bonus and set value of the Sagas it helps, discounted
by the Sails to get there. Sailing goes towards the best such port, loading takes on crew and
the goods the best ports want, losses give up the least useful item, and a Rune is played
when its effects are worth more than keeping it.

The prices are rough by design: the bot is a sparring partner that finishes games (and beats
random play), not a strong player.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from functools import cache

from engine.fire_and_axe import tasks
from engine.fire_and_axe.actions import Action, ActionKind
from engine.fire_and_axe.board import Board
from engine.fire_and_axe.data_pack import Effect
from engine.fire_and_axe.ids import (
    CREW,
    DAYS_PER_TURN,
    DEMAND_BONUS,
    DIE_SIDES,
    HAND_LIMIT,
    MAX_ATTACK_ROLLS,
    PORT,
    RAID,
    SETTLE,
    TOWN_VP,
    TRADE,
    WINTERING,
)
from engine.fire_and_axe.state import NONE, GameState, Step

__all__ = ["Analysis", "choose", "distances", "score_actions"]

K = ActionKind
DISCOUNT = 0.8
"""What a port is still worth per Sail it lies away."""
SAGA_SET_VALUE = 6.0
"""A completed Saga's rough worth at final scoring (a share of the Homeland sets, F13.4)."""
CREW_VALUE = 1.2
"""A crewmember sent home (it comes back with a Day of Loading)."""
UNREACHABLE = 99


@cache
def distances(board: Board) -> tuple[tuple[int, ...], ...]:
    """Sails between every two locations (breadth first over the pack's map; ships in the
    way ignored), computed once per pack."""
    n = len(board.ids)
    table = []
    for start in range(n):
        dist = [UNREACHABLE] * n
        dist[start] = 0
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for there in board.adjacent[here]:
                if dist[there] == UNREACHABLE:
                    dist[there] = dist[here] + 1
                    queue.append(there)
        table.append(tuple(dist))
    return tuple(table)


def _p_die(target: int) -> float:
    """The chance one d6 beats ``target`` (F7.4a, F7.5b: greater than the value)."""
    return max(0, min(DIE_SIDES, DIE_SIDES - target)) / DIE_SIDES


class Analysis:
    """What the seat reckons about the position, worked out once per decision."""

    def __init__(self, state: GameState, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.board = board = state.board
        self.me = state.seats[seat]
        self.dist = distances(board)
        self.days_left = DAYS_PER_TURN - state.prep - state.sail
        self.blocked = {
            p.loc for s, p in enumerate(state.seats) if s != seat and p.loc != WINTERING
        }
        self.saga_share = self._saga_shares()
        small = board.pack.small_treasures
        large = board.pack.large_treasures
        self.treasure = {
            1: sum(small) / len(small) if small else 3.0,
            3: sum(large) / len(large) if large else 7.0,
        }
        self.port_gain = {p: self.gain(p) for p in board.ports}
        self._good_worth: dict[int, float] = {}
        self._best_sail: int | None = None

    # -- what a port is worth ------------------------------------------------------------

    def _saga_shares(self) -> dict[tuple[int, int], float]:
        """(saga type, port) -> the part of the face-up Sagas' worth one more step there
        brings (their bonus and set value, split over the ports still missing)."""
        state = self.state
        shares: dict[tuple[int, int], float] = {}
        for card in state.saga_spaces:
            if card == NONE:
                continue
            saga = self.board.sagas[card]
            missing = [p for p in saga.ports if not self._done(saga.type, p)]
            if not missing:
                continue
            worth = (saga.bonus_vp + SAGA_SET_VALUE) / len(missing)
            for p in missing:
                key = (saga.type, p)
                shares[key] = shares.get(key, 0.0) + worth
        return shares

    def _done(self, kind: int, port: int) -> bool:
        state = self.state
        if kind == TRADE:
            return state.goods[port] != NONE
        if kind == RAID:
            return state.town[port] == 0
        return state.settler[port] != NONE

    def trade_gain(self, port: int, good: int) -> float:
        state = self.state
        if not tasks.can_trade(state, port, good):
            return 0.0
        bonus = DEMAND_BONUS if good == state.demand else 0
        return self.board.value[port] + bonus + self.saga_share.get((TRADE, port), 0.0)

    def attack_odds(self, port: int, dice: int, bonus: int = 0) -> float:
        """The chance that at least one of ``dice`` dice beats the port's effective value."""
        p = _p_die(tasks.effective_value(self.state, port) - bonus)
        return 1.0 - (1.0 - p) ** dice

    def raid_gain(self, port: int, crew: int) -> float:
        state = self.state
        size = state.town[port]
        if not size or crew < 2:
            return 0.0
        rolls = min(crew - 1, MAX_ATTACK_ROLLS)
        p = _p_die(tasks.effective_value(state, port) - state.attack_bonus)
        odds = 1.0 - (1.0 - p) ** rolls
        worth = self.treasure.get(size, 3.0) + TOWN_VP + self.saga_share.get((RAID, port), 0.0)
        lost = sum((1.0 - p) ** k for k in range(rolls)) * (1.0 - p)
        return odds * worth - lost * CREW_VALUE

    def settle_gain(self, port: int, crew: int) -> float:
        state = self.state
        if state.town[port] or state.settler[port] != NONE or crew < 2:
            return 0.0
        if not tasks.region_allows_settling(state, port):
            return 0.0
        dice = min(crew - 1, MAX_ATTACK_ROLLS)
        p = _p_die(tasks.effective_value(state, port) - state.attack_bonus)
        odds = 1.0 - (1.0 - p) ** dice
        worth = self.board.value[port] + self.saga_share.get((SETTLE, port), 0.0)
        return odds * worth - dice * (1.0 - p) * CREW_VALUE - CREW_VALUE

    def gain(self, port: int, cargo: Sequence[int] | None = None, crew: int | None = None) -> float:
        """The best a Task at ``port`` would bring with this cargo and crew (the ship's own by
        default)."""
        cargo = self.me.cargo if cargo is None else cargo
        crew = self.me.crew if crew is None else crew
        best = 0.0
        for g in range(3):
            if cargo[g]:
                best = max(best, self.trade_gain(port, g))
        return max(best, self.raid_gain(port, crew), self.settle_gain(port, crew))

    def reach_value(self, loc: int, gains: dict[int, float] | None = None) -> float:
        """How good it is to be at ``loc``: the best port within reach, discounted by the
        Sails there (a port another ship holds cannot be entered, F2.6; one done this turn
        waits for the next)."""
        gains = self.port_gain if gains is None else gains
        row = self.dist[loc]
        best = 0.0
        for port, gain in gains.items():
            if gain <= 0 or (port in self.blocked and port != loc):
                continue
            d = row[port]
            if port in self.state.tasks_done:
                d += 2
            best = max(best, gain * DISCOUNT**d)
        return best

    # -- weather -------------------------------------------------------------------------

    def new_skulls(self, dest: int, dial: int | None = None, sail_add: int = 1) -> int:
        """Skulls a Sail into ``dest`` would cover now (F6.3-F6.4)."""
        state = self.state
        if state.calm:
            return 0
        dial = state.dial if dial is None else dial
        excess = state.sail + sail_add - self.board.fwd[dial][self.board.zone[dest]]
        if excess <= 0:
            return 0
        return sum(
            1 for s in self.board.skulls if s <= excess and not state.skulls_covered >> s & 1
        )

    def loss_cost(self, count: int) -> float:
        """What ``count`` items lost to the weather cost (the cheapest ones go first; the
        last crewmember loses the whole cargo and the turn)."""
        if count <= 0:
            return 0.0
        me = self.me
        items = sorted([self.good_worth(g) for g in range(3) for _ in range(me.cargo[g])])
        items += [CREW_VALUE] * max(0, me.crew - 1)
        if count > len(items):
            return sum(items) + 5.0
        return sum(items[:count]) + 0.5

    def good_worth(self, good: int) -> float:
        """A goods token aboard: the best Trade it could still make, discounted by distance."""
        if good not in self._good_worth:
            self._good_worth[good] = self._worth_of(good)
        return self._good_worth[good]

    def _worth_of(self, good: int) -> float:
        here = self.me.loc
        best = 0.0
        for port in self.board.ports:
            gain = self.trade_gain(port, good)
            if gain:
                d = self.dist[here][port] if here != WINTERING else self._from_homeland(port)
                best = max(best, gain * DISCOUNT**d)
        return best

    def _from_homeland(self, port: int) -> int:
        return min(self.dist[h][port] for h in self.board.homelands)

    def best_sail(self) -> int:
        """Where the ship would sail next (NONE: nowhere useful)."""
        if self._best_sail is None:
            self._best_sail = self._next_sail()
        return self._best_sail

    def _next_sail(self) -> int:
        here = self.me.loc
        if here == WINTERING:
            return NONE
        best, where = self.reach_value(here), NONE
        for dest in self.board.adjacent[here]:
            if self.board.kind[dest] == PORT and dest in self.blocked:
                continue
            value = self.reach_value(dest)
            if value > best + 1e-9:
                best, where = value, dest
        return where


# -- scoring the actions ------------------------------------------------------------------


def score_actions(state: GameState, seat: int, actions: Sequence[Action]) -> list[float]:
    """One score per action (higher is better), in VP-like units."""
    a = Analysis(state, seat)
    return [_score(a, action) for action in actions]


def choose(state: GameState, seat: int, actions: Sequence[Action], rng: random.Random) -> int:
    """The index of the best-scored action (ties broken at random)."""
    scores = score_actions(state, seat, actions)
    top = max(scores)
    best = [i for i, s in enumerate(scores) if s >= top - 1e-9]
    return best[0] if len(best) == 1 else rng.choice(best)


def _score(a: Analysis, action: Action) -> float:
    kind = action.kind
    state = a.state
    if kind == K.PASS:
        return 0.0
    if kind == K.LOSE:
        return -_item_cost(a, action.a)
    if kind == K.RAID_AGAIN:
        return _raid_again(a)
    if kind == K.RAID_STOP:
        return 0.0
    if kind == K.CONVERT:
        port = state.attack_port if state.attack_port != NONE else a.me.loc
        worth = a.board.value[port] + a.saga_share.get((SETTLE, port), 0.0)
        cargo = sum(a.good_worth(g) * a.me.cargo[g] for g in range(3))
        return worth - cargo
    if kind == K.DECLINE:
        return 0.0
    if kind in (K.PLAY_RUNE, K.DISCARD_RUNE):
        return _rune(a, action)
    if a.me.loc == WINTERING:
        return _wintering(a, action)
    return _at_sea(a, action)


def _item_cost(a: Analysis, item: int) -> float:
    if item == CREW:
        return CREW_VALUE if a.me.crew > 1 else 20.0
    return a.good_worth(item)


def _raid_again(a: Analysis) -> float:
    state = a.state
    port = state.attack_port
    size = state.town[port] if port != NONE else 0
    if not size:
        return -1.0
    p = _p_die(tasks.effective_value(state, port) - state.attack_bonus)
    worth = a.treasure.get(size, 3.0) + TOWN_VP + a.saga_share.get((RAID, port), 0.0)
    if a.me.crew <= 1:
        cargo = sum(a.good_worth(g) * a.me.cargo[g] for g in range(3))
        return p * worth - (1.0 - p) * (cargo + 3.0)
    return p * worth - (1.0 - p) * CREW_VALUE


def _wintering(a: Analysis, action: Action) -> float:
    """Load some crew, then goods the ports want, then leave for the best Homeland."""
    me = a.me
    kind = action.kind
    free = a.state.capacity() - me.aboard()
    goods = sum(me.cargo)
    if kind == K.LOAD_CREW:
        if me.crew < 2:
            return 10.0
        if me.crew < 3 and a.state.prep < 4:
            return 3.0
        return -1.0
    if kind == K.LOAD_GOOD:
        if a.state.prep >= 5 or free <= 0:
            return -1.0
        worth = a.good_worth(action.a)
        if worth < 1.5:
            return -1.0
        # The same type twice only if two ports could take it.
        crowd = me.cargo[action.a]
        return 2.0 + worth / 4 - crowd * 1.5 - goods * 0.4
    if kind == K.LEAVE_WINTERING:
        gains = {p: a.gain(p) for p in a.board.ports}
        return 1.0 + a.reach_value(action.a, gains) / 10
    return -5.0


def _at_sea(a: Analysis, action: Action) -> float:
    kind = action.kind
    me = a.me
    here = me.loc
    if kind == K.TRADE:
        return 20.0 + a.trade_gain(here, action.a)
    if kind == K.RAID:
        gain = a.raid_gain(here, me.crew)
        return 20.0 + gain if gain > 1.0 else -1.0
    if kind == K.SETTLE:
        dice = action.a
        if me.crew - dice < 1 and me.crew > 1:
            return -1.0  # keep one aboard to man the ship
        gain = a.settle_gain(here, me.crew)
        if gain <= 0.5:
            return -1.0
        return 19.0 + gain + dice * 0.1
    if kind == K.SAIL:
        dest = action.a
        value = a.reach_value(dest) - a.reach_value(here)
        return value - a.loss_cost(a.new_skulls(dest)) - 0.05
    if kind == K.DRAW_RUNE:
        hand = len(me.hand)
        if hand < HAND_LIMIT - 1 and a.days_left >= 3:
            return 0.8
        return -1.0
    if kind == K.WINTER:
        goods = sum(me.cargo)
        if goods == 0 and (me.crew <= 1 or a.reach_value(here) < 1.0):
            return 0.5
        return -2.0
    if kind == K.END_TURN:
        return 0.0
    return -5.0


def _effect_worth(a: Analysis, effect: Effect, choice: int) -> float:
    state = a.state
    me = a.me
    kind = effect.kind
    free = state.capacity() - me.aboard()
    if kind == "gain_vp":
        return float(effect.number("amount"))
    if kind == "change_demand":
        carried = me.cargo
        return DEMAND_BONUS * (carried[choice] - carried[state.demand]) * 0.8 - 0.5
    if kind == "turn_dial":
        return 0.0
    if kind == "days_back":
        used = state.sail if effect.get("marker") == "sailing" else state.prep
        return 0.6 * min(used, effect.number("days")) if a.days_left <= 2 else -0.5
    if kind == "recover_crew":
        return 0.8 * min(free, effect.number("amount"), me.crew_supply)
    if kind == "gain_goods":
        return min(free, effect.number("amount")) * min(3.0, a.good_worth(choice))
    if kind in ("opponent_loses_crew", "opponent_loses_goods"):
        return 0.6 * effect.number("amount")
    if kind == "attack_bonus":
        here = me.loc
        attacking = state.step == Step.RAID_AGAIN or (
            here != WINTERING
            and a.board.kind[here] == PORT
            and here not in state.tasks_done
            and (state.town[here] or state.settler[here] == NONE)
        )
        return 1.5 * effect.number("amount") if attacking else -1.0
    if kind == "extra_task":
        return 3.0 if a.gain(me.loc) > 1.0 else -1.0
    if kind == "draw_runes":
        return 0.5 * effect.number("amount")
    if kind == "recover_losses":
        return 1.2 * sum(state.chart)
    if kind == "calm_weather":
        nxt = a.best_sail()
        return a.loss_cost(a.new_skulls(nxt)) if nxt != NONE else -1.0
    return 0.0


def _dial_worth(a: Analysis, turn: int) -> float:
    """What a free quarter turn of the Wind Dial saves on the next Sail (F8.2)."""
    if turn == 0:
        return 0.0
    nxt = a.best_sail()
    if nxt == NONE:
        return -0.1
    dial = (a.state.dial + (1 if turn == 1 else -1)) % 4
    return a.loss_cost(a.new_skulls(nxt)) - a.loss_cost(a.new_skulls(nxt, dial)) - 0.1


def _rune(a: Analysis, action: Action) -> float:
    card = a.board.runes[action.a]
    dial = _dial_worth(a, action.b)
    full = len(a.me.hand) >= HAND_LIMIT
    if action.kind == K.DISCARD_RUNE:
        return dial - (1.0 if full else 2.5)
    worth = sum(_effect_worth(a, e, action.c) for e in card.effects)
    keep = 0.5 if full else 1.2
    return worth + dial - keep

