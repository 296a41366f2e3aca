"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Each iteration deals a *determinization* — a complete state consistent with the bot's view:
the redacted snapshot of ``view["engine_state"]`` is sampled once with
``engine.determinize.sample_from_redacted`` and every iteration reshuffles all the cards the
seat cannot see (``engine.determinize.determinize``, the same distribution). The iteration then
walks one shared tree: at the root the bot's own actions (keyed by action code), below it every
seat's actions keyed by ``(seat, action code)``; a child is only eligible when its action is
legal in this determinization, and UCB uses availability counts instead of parent visits.
Simultaneous choices (draft picks, battle cards, keep) need nothing special: the engine asks the
awaited seats one after the other and hides what was chosen, so each is just a move of its seat.

Below the root the tree widens progressively: a node grows a new child (the action the
heuristic playout policy picks) only while it has fewer children than ``1 + sqrt(visits) / 2``.
Playouts follow the heuristic policy with some softmax noise and stop after ``horizon`` plies
(or at the end of the game); the position is then scored by ``evaluate.rewards``: per seat, a
sigmoid of its estimated Glory margin over the best other clan. Rewards are backed up per seat.
"""

from __future__ import annotations

import math
import random
import time

from clients.bots.base import (
    View,
    has_state,
    redacted_state,
    sampled_state,
    view_actions,
    view_seat,
)
from clients.bots.evaluate import rewards
from clients.bots.policy import choose as policy_choose
from clients.bots.policy import score_actions
from engine.actions import Action, ActionKind
from engine.determinize import determinize
from engine.flow import apply_unchecked, awaiting, legal_actions
from engine.ids import Phase, Step
from engine.state import GameState

_CHEAP_KINDS = frozenset({ActionKind.INVADE, ActionKind.MARCH})
SEARCHED_STEPS = frozenset(
    {Step.ACTION, Step.MARCH, Step.CALL_TO_BATTLE, Step.BATTLE_CARDS}
)
ALL_STEPS = frozenset(Step)


class _Node:
    """Statistics of the edge leading here, and the children below."""

    __slots__ = ("children", "visits", "avail", "total")

    def __init__(self) -> None:
        self.children: dict[tuple[int, int], _Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0


def playout_choice(
    state: GameState, seat: int, actions: list[Action], rng: random.Random, temperature: float,
    width: int = 10,
) -> int:
    """The playout policy: the heuristic (softmax), on a sample of the many Invade/March
    options when there are lots of them (to stay fast)."""
    if len(actions) == 1:
        return 0
    if len(actions) <= width:
        return policy_choose(state, seat, actions, rng, temperature)
    keep = [i for i, a in enumerate(actions) if a[0] not in _CHEAP_KINDS]
    rest = [i for i, a in enumerate(actions) if a[0] in _CHEAP_KINDS]
    room = max(3, width - len(keep))
    if len(rest) > room:
        rest = rng.sample(rest, room)
    subset = keep + rest
    j = policy_choose(state, seat, [actions[i] for i in subset], rng, temperature)
    return subset[j]


def _model_hidden_choices(state: GameState, seat: int, rng: random.Random) -> None:
    """A determinization deals another seat's committed battle card at random from its
    (sampled) cards; have the heuristic choose it instead, as that seat would have."""
    b = state.battle
    if b is None or b.revealed or state.step != Step.BATTLE_CARDS:
        return
    for o in b.participants:
        if o != seat and b.choice[o] >= 0:
            hand = state.clans[o].hand
            hand.append(b.choice[o])
            options = [Action(ActionKind.BATTLE_CARD, c) for c in hand]
            b.choice[o] = -1
            j = policy_choose(state, o, options, rng)
            b.choice[o] = options[j][1]
            hand.remove(b.choice[o])


class IsmctsBot:
    """ISMCTS under a per-decision time budget, guided by the heuristic policy."""

    name = "ismcts"

    def __init__(
        self,
        time_budget_s: float = 0.05,
        horizon: int = 20,
        exploration: float = 0.5,
        root_width: int = 6,
        prune: float = 8.0,
        temperature: float = 0.5,
        prior_weight: float = 0.5,
        prior_visits: float = 2.0,
        prior_scale: float = 24.0,
        stop_at_own_turn: bool = True,
        block: bool = True,
        linear: float = 0.5,
        model_choices: bool = True,
        max_iterations: int | None = None,
        search_steps: frozenset[int] | None = None,
        finish_rage: int = 6,
        long_horizon: int = 48,
    ) -> None:
        self.budget = time_budget_s
        self.horizon = horizon
        self.c = exploration
        self.root_width = root_width
        self.prune = prune
        self.temperature = temperature
        self.prior_weight = prior_weight
        self.prior_visits = prior_visits
        self.prior_scale = prior_scale
        self.stop_at_own_turn = stop_at_own_turn
        self.block = block
        self.linear = linear
        self.model_choices = model_choices
        self.max_iterations = max_iterations
        # Decisions a short lookahead cannot judge better than the heuristic's value tables
        # (which cards to draft or keep: their worth shows only Ages later) are left to it.
        self.search_steps = ALL_STEPS if search_steps is None else search_steps
        # Near the end of the Action phase (all clans' Rage <= finish_rage) and after it,
        # playouts run on through the Quest phase and Ragnarök (at most long_horizon plies):
        # what the Age's end pays is then counted exactly instead of estimated.
        self.finish_rage = finish_rage
        self.long_horizon = long_horizon
        self.last_iterations = 0

    def choose(self, view: View, rng: random.Random) -> int:
        start = time.perf_counter()
        deadline = start + self.budget * 0.9
        actions = view_actions(view)
        self.last_iterations = 0
        if len(actions) <= 1:
            return 0
        if not has_state(view):
            return rng.randrange(len(actions))
        seat = view_seat(view)
        # The root candidates: the heuristic's best few (all of them when there are few).
        red = redacted_state(view)
        scores = score_actions(red, seat, actions)
        if not red.prompts and red.step not in self.search_steps:
            best = max(scores)
            ties = [i for i, x in enumerate(scores) if x >= best - 1e-9]
            return ties[0] if len(ties) == 1 else rng.choice(ties)
        order = sorted(range(len(actions)), key=lambda i: -scores[i])
        top = scores[order[0]]
        cands = [i for i in order[: self.root_width] if scores[i] >= top - self.prune]
        if len(cands) == 1:
            return cands[0]
        lo = min(scores[i] for i in cands)
        span = max(1e-6, top - lo)
        prior = {i: (scores[i] - lo) / span for i in cands}
        # The heuristic's opinion as virtual visits: a reward offset per Glory-point of score.
        self._offset = {i: (scores[i] - top) / self.prior_scale for i in cands}
        base = sampled_state(view, rng)
        roots = {i: _Node() for i in cands}
        total_visits = 0
        shared = base
        root_age = base.age
        # How far playouts go, decided once so every candidate is judged at the same point:
        # to the end of the Age when the Action phase is (nearly) over, else one round of the
        # other clans' turns (or up to the seat's next decision).
        finishing = base.phase > Phase.ACTION or (
            base.phase == Phase.ACTION and sum(c.rage for c in base.clans) <= self.finish_rage
        )
        limit = self.long_horizon if finishing else self.horizon
        active_others = sum(1 for o, c in enumerate(base.clans) if o != seat and c.rage > 0)
        if base.phase != Phase.ACTION:
            active_others = base.players
        while True:
            if time.perf_counter() >= deadline:
                break
            if self.max_iterations is not None and total_visits >= self.max_iterations:
                break
            if not self.block or total_visits % len(cands) == 0:
                shared = determinize(base, seat, rng)
                if self.model_choices:
                    _model_hidden_choices(shared, seat, rng)
            det = shared.copy() if self.block else shared
            i = self._select_root(cands, roots, prior, total_visits)
            node = roots[i]
            path: list[tuple[_Node, int]] = [(node, seat)]
            apply_unchecked(det, seat, actions[i])
            depth = 1
            expanded = False
            others_turns = 0
            while det.step != Step.GAME_OVER:
                if time.perf_counter() >= deadline or det.age != root_age:
                    break
                if depth >= limit:
                    break
                waiting = awaiting(det)
                if not finishing and det.battle is None and not det.prompts and (
                    seat in waiting or others_turns >= active_others
                ):
                    break  # one round of the others' turns is over: evaluate here
                if det.step == Step.ACTION and not det.prompts:
                    others_turns += 1
                mover = waiting[0]
                legal = legal_actions(det, mover)
                if expanded:
                    j = playout_choice(det, mover, legal, rng, self.temperature)
                    apply_unchecked(det, mover, legal[j])
                else:
                    child, j = self._tree_step(node, det, mover, legal, rng)
                    apply_unchecked(det, mover, legal[j])
                    if child is None:  # a new child: from here on it's a playout
                        child = _Node()
                        node.children[(mover, legal[j].code())] = child
                        expanded = True
                    path.append((child, mover))
                    node = child
                depth += 1
            r = rewards(det, seat, linear=self.linear)
            for n, s in path:
                n.visits += 1
                n.total += r[s]
            total_visits += 1
        self.last_iterations = total_visits
        return max(cands, key=lambda i: (self._value(roots[i], i), prior[i]))

    def _value(self, node: _Node, i: int) -> float:
        """Mean reward, shrunk toward the heuristic's opinion by ``prior_visits``."""
        n0 = self.prior_visits
        mean = node.total / node.visits if node.visits else 0.0
        return mean + self._offset[i] * n0 / (node.visits + n0)

    def _select_root(
        self, cands: list[int], roots: dict[int, _Node], prior: dict[int, float], total: int
    ) -> int:
        for i in cands:  # every candidate once, best-scored first
            if roots[i].visits == 0:
                return i
        log_n = math.log(total)
        best = cands[0]
        best_v = -1e9
        for i in cands:
            n = roots[i]
            v = self._value(n, i) + self.c * math.sqrt(log_n / n.visits)
            if v > best_v:
                best, best_v = i, v
        return best

    def _tree_step(
        self,
        node: _Node,
        det: GameState,
        mover: int,
        legal: list[Action],
        rng: random.Random,
    ) -> tuple[_Node | None, int]:
        """Select an existing child legal here (UCB with availability), or expand one."""
        if len(legal) == 1:
            child = node.children.get((mover, legal[0].code()))
            if child is not None:
                child.avail += 1
            return child, 0
        available: list[tuple[_Node, int]] = []
        for j, a in enumerate(legal):
            child = node.children.get((mover, a.code()))
            if child is not None:
                child.avail += 1
                available.append((child, j))
        visits = sum(c.visits for c, _ in available)
        if len(available) < 1 + int(0.5 * math.sqrt(visits)):
            j = playout_choice(det, mover, legal, rng, self.temperature)
            child = node.children.get((mover, legal[j].code()))
            return child, j
        best: tuple[_Node, int] = available[0]
        best_v = -1e9
        for child, j in available:
            if child.visits == 0:
                return child, j
            v = child.total / child.visits + self.c * math.sqrt(
                math.log(max(child.avail, 1)) / child.visits
            )
            if v > best_v:
                best, best_v = (child, j), v
        return best
