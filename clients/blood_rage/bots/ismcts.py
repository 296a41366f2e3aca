"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Each iteration deals a *determinization* — a complete state consistent with the bot's view:
the redacted snapshot of ``view["engine_state"]`` is sampled once with
``engine.blood_rage.determinize.sample_from_redacted`` and every iteration reshuffles all the cards
the seat cannot see (``engine.blood_rage.determinize.determinize``, the same distribution). The
iteration then walks one shared tree: at the root the bot's own actions (keyed by action code),
below it every seat's actions keyed by ``(seat, action code)``; a child is only eligible when its
action is legal in this determinization, and UCB uses availability counts instead of parent visits.
Simultaneous choices (draft picks, battle cards, keep) need nothing special: the engine asks the
awaited seats one after the other and hides what was chosen, so each is just a move of its seat.

Below the root the tree widens progressively: a node grows a new child (the action the
heuristic playout policy picks) only while it has fewer children than ``1 + sqrt(visits) / 2``.
Playouts follow the heuristic policy (the bot's own moves with some softmax noise, the other
clans' exactly as the heuristic would play them) and stop after one round of the others' turns,
``horizon`` plies, or at the end of the Age; the position is then scored by
``evaluate.rewards``: per seat, a sigmoid of its estimated Glory margin over the best other
clan. Rewards are backed up per seat.

By default the root candidates (the heuristic's best few) are compared by *paired racing*
(``_race``) rather than UCB: every determinization is played once by each candidate still in
the race, with the same random numbers, and a candidate clearly behind the leader drops out.
The search stops as soon as one candidate is left, so clear decisions take a few milliseconds
and close ones get the whole budget. Below the root the information-set tree grows as above
(``tree=True``); ``tree=False`` makes it flat Monte Carlo (after the root action everything is
playout, the other clans always playing the heuristic's move). Against three heuristic bots at
50 ms (``python -m bench.strength``, 100 games each, same seeds, interpreted) UCB over the tree
won 53%, racing with the tree 58.5%, racing without it 59%: no real difference between the
last two, so the default keeps the tree search. Compiled (``make accel``) the same search takes
about a third of the time per decision, which keeps it clear of the budget on a loaded machine.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Final, NamedTuple

from clients.blood_rage.bots.evaluate import rewards
from clients.blood_rage.bots.policy import choose as policy_choose
from clients.blood_rage.bots.policy import score_actions
from clients.blood_rage.bots.views import redacted_state, sampled_state, view_actions
from clients.bots.base import View, has_state, view_seat
from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.determinize import determinize
from engine.blood_rage.flow import apply_unchecked, awaiting, legal_actions
from engine.blood_rage.ids import Phase, Step
from engine.blood_rage.state import GameState

_CHEAP_KINDS: Final = frozenset({ActionKind.INVADE, ActionKind.MARCH})
SEARCHED_STEPS: Final = frozenset({Step.ACTION, Step.MARCH, Step.CALL_TO_BATTLE, Step.BATTLE_CARDS})
ALL_STEPS: Final = frozenset(Step)
# A playout width no legal list reaches: the heuristic weighs every option.
EVERY_OPTION: Final = 1 << 30


class _Horizon(NamedTuple):
    """Where every playout of one decision stops (decided once, so all are comparable)."""

    age: int  # the Age of the root: playouts end with it
    finishing: bool  # run on to the end of the Age (else: one round of the others' turns)
    limit: int  # at most this many plies
    active_others: int  # the other clans' turns in one round


class _Node:
    """Statistics of the edge leading here, and the children below."""

    __slots__ = ("children", "visits", "avail", "total")

    def __init__(self) -> None:
        self.children: dict[tuple[int, int], _Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0


def playout_choice(
    state: GameState,
    seat: int,
    actions: list[Action],
    rng: random.Random,
    temperature: float,
    width: int = 8,
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
        opponent_temperature: float | None = 0.0,
        prior_weight: float = 0.5,
        prior_visits: float = 2.0,
        prior_scale: float = 24.0,
        stop_at_own_turn: bool = True,
        block: bool = True,
        common_random: bool = True,
        linear: float = 0.5,
        model_choices: bool = True,
        max_iterations: int | None = None,
        search_steps: frozenset[int] | None = None,
        finish_rage: int = 6,
        long_horizon: int = 48,
        playout_width: int = 8,
        opponent_width: int | None = None,
        race: bool = True,
        race_z: float = 3.0,
        race_min_blocks: int = 4,
        tree: bool = True,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.budget = time_budget_s
        # What the budget is measured on (tests pass a clock that counts the search's work).
        self.clock = clock
        self.horizon = horizon
        self.c = exploration
        self.root_width = root_width
        self.prune = prune
        self.temperature = temperature
        # How the other clans are modelled in playouts: the heuristic policy with this softmax
        # temperature (0: exactly the heuristic, which is what the bot's opponents play in
        # ``make strength``; None: as noisy as the bot's own playouts).
        self.opp_temperature = temperature if opponent_temperature is None else opponent_temperature
        self.prior_weight = prior_weight
        self.prior_visits = prior_visits
        self.prior_scale = prior_scale
        self.stop_at_own_turn = stop_at_own_turn
        self.block = block
        # Within a block, every candidate's playout draws the same random numbers (common
        # random numbers): the candidates' rewards then differ by what the moves change,
        # less by luck.
        self.common_random = common_random
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
        self.width = playout_width
        # The other clans' moves in playouts may weigh more options than the seat's own (None:
        # as many): the heuristic they are modelled by weighs all of them.
        self.opp_width = playout_width if opponent_width is None else opponent_width
        # Paired racing of the root candidates (``_race``) instead of UCB over them: with the
        # others played by the deterministic heuristic, UCB would often replay a candidate
        # on the same deal (the same playout again) and compare candidates on different deals.
        self.race = race
        self.race_z = race_z
        self.race_min_blocks = race_min_blocks
        # The tree below the root (False: flat Monte Carlo, every move after the root's by
        # the playout policy, so the other clans always play exactly the heuristic's move).
        self.tree = tree
        self.last_iterations = 0
        self._seat = -1

    def choose(self, view: View, rng: random.Random) -> int:
        start = self.clock()
        # Search stops at 80% of the budget: what follows the last check (finishing a ply,
        # scoring the playout, choosing) and the machine's own hiccups must fit in the rest.
        deadline = start + self.budget * 0.8
        actions = view_actions(view)
        self.last_iterations = 0
        if len(actions) <= 1:
            return 0
        if not has_state(view):
            return rng.randrange(len(actions))
        seat = view_seat(view)
        self._seat = seat
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
        self._offset = {c: (scores[c] - top) / self.prior_scale for c in cands}
        base = sampled_state(view, rng)
        roots = {i: _Node() for i in cands}
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
        horizon = _Horizon(base.age, finishing, limit, active_others)
        if self.race:
            return self._race(base, seat, actions, cands, roots, horizon, deadline, rng)
        # UCB over the root candidates (race=False).
        total_visits = 0
        shared = base
        block_seed = 0
        while True:
            if self.clock() >= deadline:
                break
            if self.max_iterations is not None and total_visits >= self.max_iterations:
                break
            if not self.block or total_visits % len(cands) == 0:
                shared = determinize(base, seat, rng)
                if self.model_choices:
                    _model_hidden_choices(shared, seat, rng)
                block_seed = rng.getrandbits(32)
            det = shared.copy() if self.block else shared
            prng = random.Random(block_seed) if self.common_random else rng
            i = self._select_root(cands, roots, prior, total_visits)
            self._iterate(det, seat, actions[i], roots[i], prng, horizon, deadline, False)
            total_visits += 1
        self.last_iterations = total_visits
        return max(cands, key=lambda i: (self._value(roots[i], i), prior[i]))

    def _iterate(
        self,
        det: GameState,
        seat: int,
        action: Action,
        root: _Node,
        prng: random.Random,
        horizon: _Horizon,
        deadline: float,
        strict: bool,
    ) -> float | None:
        """One iteration on the determinization ``det`` (played on): the seat's root action,
        the tree down to a new node, the playout, and the backup. Returns the seat's reward,
        or None when ``strict`` and the deadline cut the playout short (nothing backed up:
        a position cut at a random point is not comparable with the others)."""
        node = root
        path: list[tuple[_Node, int]] = [(node, seat)]
        apply_unchecked(det, seat, action)
        depth = 1
        expanded = not self.tree  # without the tree, it's a playout from the root action on
        others_turns = 0
        while det.step != Step.GAME_OVER:
            if self.clock() >= deadline:
                if strict:
                    return None
                break
            if det.age != horizon.age or depth >= horizon.limit:
                break
            waiting = awaiting(det)
            if (
                not horizon.finishing
                and det.battle is None
                and not det.prompts
                and (seat in waiting or others_turns >= horizon.active_others)
            ):
                break  # one round of the others' turns is over: evaluate here
            if det.step == Step.ACTION and not det.prompts:
                others_turns += 1
            mover = waiting[0]
            legal = legal_actions(det, mover)
            if expanded:
                j = self._playout_pick(det, mover, legal, prng)
                apply_unchecked(det, mover, legal[j])
            else:
                child, j = self._tree_step(node, det, mover, legal, prng)
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
        return r[seat]

    def _race(
        self,
        base: GameState,
        seat: int,
        actions: list[Action],
        cands: list[int],
        roots: dict[int, _Node],
        horizon: _Horizon,
        deadline: float,
        rng: random.Random,
    ) -> int:
        """Paired racing of the root candidates. Each *block* deals one determinization and
        plays every candidate still in the race on it once, with the same random numbers:
        with the other clans modelled by the (deterministic) heuristic, a second visit of a
        candidate in the same block would repeat the same playout, and pairing makes the
        candidates' difference depend on the moves, not on the deal. After each block a
        candidate clearly behind the leader (its paired difference more than ``race_z``
        standard errors, heuristic prior included) drops out, so the budget goes to the
        close calls. Only complete blocks count, to keep the comparison paired."""
        rewards_of: dict[int, list[float]] = {i: [] for i in cands}
        alive = list(cands)  # best-scored first
        iterations = 0
        while len(alive) > 1:
            shared = determinize(base, seat, rng)
            if self.model_choices:
                _model_hidden_choices(shared, seat, rng)
            block_seed = rng.getrandbits(32)
            block: dict[int, float] = {}
            for i in alive:
                if self.clock() >= deadline or (
                    self.max_iterations is not None and iterations >= self.max_iterations
                ):
                    break
                r = self._iterate(
                    shared.copy(),
                    seat,
                    actions[i],
                    roots[i],
                    random.Random(block_seed),
                    horizon,
                    deadline,
                    True,
                )
                iterations += 1
                if r is None:
                    break
                block[i] = r
            if len(block) < len(alive):
                if not rewards_of[alive[0]]:  # not even one full block: judge what there is
                    for i, r in block.items():
                        rewards_of[i].append(r)
                break
            for i, r in block.items():
                rewards_of[i].append(r)
            alive = self._eliminate(alive, rewards_of)
        self.last_iterations = iterations
        ranked = [i for i in alive if rewards_of[i]] or alive
        return max(ranked, key=lambda i: self._race_value(i, rewards_of[i]))

    def _race_value(self, i: int, samples: list[float]) -> float:
        """Mean reward, shrunk toward the heuristic's opinion by ``prior_visits``."""
        n = len(samples)
        mean = sum(samples) / n if n else 0.0
        return mean + self._offset[i] * self.prior_visits / (n + self.prior_visits)

    def _eliminate(self, alive: list[int], rewards_of: dict[int, list[float]]) -> list[int]:
        """The candidates still in the race after a block (the leader always stays)."""
        n = len(rewards_of[alive[0]])
        if n < self.race_min_blocks:
            return alive
        values = {i: self._race_value(i, rewards_of[i]) for i in alive}
        leader = max(alive, key=lambda i: values[i])
        lead = rewards_of[leader]
        keep = []
        for i in alive:
            if i == leader:
                keep.append(i)
                continue
            diffs = [a - b for a, b in zip(lead[-n:], rewards_of[i][-n:], strict=True)]
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
            se = math.sqrt(var / n)
            if values[leader] - values[i] <= self.race_z * se + 1e-9:
                keep.append(i)
        return keep

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

    def _playout_pick(
        self, det: GameState, mover: int, legal: list[Action], rng: random.Random
    ) -> int:
        """The playout policy's move for ``mover``: the seat's own with its temperature and
        width, another clan's with the opponents' model."""
        if mover == self._seat:
            return playout_choice(det, mover, legal, rng, self.temperature, self.width)
        return playout_choice(det, mover, legal, rng, self.opp_temperature, self.opp_width)

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
            j = self._playout_pick(det, mover, legal, rng)
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
