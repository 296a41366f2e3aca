"""Blood Rage's observation tensor and action catalogue for the learning environments.

The observation is what ``engine.blood_rage.view.view`` shows the seat, field by field (the
layout below, printed by ``python -m envs.layout blood_rage 4``): the public board, every
clan's public sheet, the battle under way, the seat's own cards. Seats are **egocentric**:
wherever a field has one entry per seat, entry 0 is the observing seat and entry ``k`` the
seat ``k`` places after it (clockwise), so one policy can play any seat. Card fields are
indexed by card *instance* (``engine.blood_rage.cards``: 126 physical cards), the same
numbers the actions carry.

:meth:`BloodRageEncoding.encode` reads the state directly (a view is a hundred times dearer
than a decision, and training runs millions of them), but only the parts the view shows:
other seats' hands, packs and quests by their sizes, their secret battle and keep choices as
"committed", the decks by their sizes. The same code runs on the redacted state the API sends
a bot (``seat_state``), where every hidden card is blanked; the conformance tests check that
both give the same tensor, and that resampling the hidden cards changes nothing.

The encoder is written twice. :meth:`BloodRageEncoding.encode_reference` is its definition,
in Python; :meth:`BloodRageEncoding.encode` runs the same reads and writes in C
(``envs/blood_rage/_fast.c``, compiled by the install wherever there is a C compiler; without
one, ``encode`` is the Python code). An observation is a few hundred scattered writes, which
in Python cost as much as the decision they observe (issue 24's target: an environment step
at most twice a raw decision). tests/envs/test_fast_encoding.py holds the two to the same
bytes over random games of every player count and over redacted views; a change to the layout
or to what a field means is made in the Python first, then in the C until that test passes.
The same module does the action mask from a legal list (``mask_indices``).

The action catalogue numbers every action the rules can offer: one block per action kind,
each the product of its arguments' ranges (a card instance, a unit, an area …).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.battle import STAGES, stage_compare
from engine.blood_rage.board import DRAFT_KEEP, TOKEN_NAMES
from engine.blood_rage.cards import NUM_INSTANCES
from engine.blood_rage.draft import picks_per_round
from engine.blood_rage.end_of_age import end_card_bonus, end_stat_bonus
from engine.blood_rage.flow import awaiting, is_simultaneous
from engine.blood_rage.ids import (
    FIG_UNIT,
    NUM_AREAS,
    NUM_FIGS,
    NUM_UNITS,
    DraftMode,
    Phase,
    Step,
)
from engine.blood_rage.results import result
from engine.blood_rage.snapshot import from_snapshot
from engine.blood_rage.state import EMPTY, GameState, PromptKind
from envs.encoding import Field, Layout, Observation

_fast: ModuleType | None
try:  # the C encoder, built by the install wherever there is a C compiler
    import envs.blood_rage._fast as _compiled

    _fast = _compiled
except ImportError:  # pragma: no cover - a machine without one: the same tensor, in Python
    _fast = None

__all__ = ["ENCODING", "BloodRageEncoding"]

CARDS = NUM_INSTANCES
PROVINCES = 9
PHASES = len(Phase)
STEPS = len(Step)
PROMPTS = len(PromptKind)
TOKENS = len(TOKEN_NAMES)
SLOTS = 8
LOCATIONS = 15  # the 13 areas, the reserve, Valhalla (figures in the box are not in the game)
MAX_SEATS = 5
_COMPARE_STAGE = STAGES.index(stage_compare)
_FIG_BASE = tuple(unit * LOCATIONS for unit in FIG_UNIT)  # a figure's unit's run of locations
# Plain ints for the encoder's comparisons (an IntEnum member is a dearer object to compare).
_ACTION = int(Phase.ACTION)
_GAME_OVER = int(Step.GAME_OVER)
_DRAFT_PICK = int(Step.DRAFT_PICK)
_FREE_INVADE = int(PromptKind.FREE_INVADE)
_RAISE_STAT = int(PromptKind.RAISE_STAT)
_PROTECT = int(PromptKind.PROTECT)
_AREA_PROMPTS = (int(PromptKind.SUCCOR), int(PromptKind.BLESSING), int(PromptKind.THORS_DOMAIN))
_HIDDEN_CHOICE = -3  # a redacted snapshot's mark for another seat's secret choice
_NOT_INVOLVED = -2  # a battle choice or keep of a seat that takes no part

# The action catalogue: kind -> the ranges of (a, b, c). Each kind's block holds
# na * nb * nc actions, in the order of (a, b, c).
_RANGES: dict[int, tuple[int, int, int]] = {
    ActionKind.DRAFT_PICK: (CARDS, 1, 1),
    ActionKind.PASS: (1, 1, 1),
    ActionKind.INVADE: (NUM_UNITS, NUM_AREAS, 1),
    ActionKind.MARCH: (PROVINCES, PROVINCES, NUM_UNITS),
    ActionKind.MARCH_MORE: (NUM_UNITS, 1, 1),
    ActionKind.MARCH_DONE: (1, 1, 1),
    ActionKind.UPGRADE: (CARDS, 3, 1),
    ActionKind.QUEST: (CARDS, 1, 1),
    ActionKind.PILLAGE: (PROVINCES, 1, 1),
    ActionKind.FREE_INVADE: (NUM_UNITS, NUM_AREAS, 1),
    ActionKind.DECLINE: (1, 1, 1),
    ActionKind.CALL_TO_BATTLE: (NUM_AREAS, NUM_UNITS, 1),
    ActionKind.BATTLE_CARD: (CARDS, 1, 1),
    ActionKind.KEEP_CARD: (CARDS, 1, 1),
    ActionKind.KEEP_NONE: (1, 1, 1),
    ActionKind.RAISE_STAT: (3, 1, 1),
    ActionKind.LATE_CARD: (CARDS, 1, 1),
    ActionKind.SAVE_FIGURE: (NUM_UNITS, NUM_AREAS, 1),
    ActionKind.ACCEPT: (1, 1, 1),
    ActionKind.KEEP_REVEALED: (CARDS, 1, 1),
    ActionKind.KEEP_FIGURE: (NUM_UNITS, NUM_AREAS, 1),
    ActionKind.MOVE_LEADER: (NUM_AREAS, 1, 1),
    ActionKind.CHALLENGE: (PROVINCES, 1, 1),
    ActionKind.SACRIFICE: (NUM_UNITS, NUM_AREAS, 1),
    ActionKind.INVADE_FROM_VALHALLA: (NUM_UNITS, NUM_AREAS, 1),
}


def _catalogue() -> list[Action]:
    actions: list[Action] = []
    for kind in sorted(_RANGES):
        na, nb, nc = _RANGES[kind]
        actions.extend(
            Action(kind, a, b, c) for a in range(na) for b in range(nb) for c in range(nc)
        )
    return actions


_ACTIONS = _catalogue()
_INDEX: dict[Action, int] = {a: i for i, a in enumerate(_ACTIONS)}


def _blocks() -> tuple[tuple[int, int, int, int], ...]:
    """The catalogue for the C encoder: (start, na, nb, nc) per kind, by kind number."""
    out: list[tuple[int, int, int, int]] = []
    for kind in range(max(_RANGES) + 1):
        na, nb, nc = _RANGES.get(kind, (0, 1, 1))  # (a kind with no block matches nothing)
        out.append((_INDEX[Action(kind)] if kind in _RANGES else 0, na, nb, nc))
    return tuple(out)


if _fast is not None:
    _fast.configure_actions(_blocks())


def _fields(p: int) -> list[Field]:
    """The layout for ``p`` players (entries per seat are egocentric: 0 is the viewer)."""
    seats = f"{p} seats, the viewer first"
    return [
        Field("viewer", MAX_SEATS, 0, 1, "the observing seat's number (its clan), one-hot"),
        Field("age", 3, 0, 1, "the Age, one-hot"),
        Field("phase", PHASES, 0, 1, "the phase (draft, action, discard, quest, …), one-hot"),
        Field("step", STEPS, 0, 1, "the step of the phase machine (engine Step), one-hot"),
        Field("first_player", p, 0, 1, f"who plays first this Age, one-hot over {seats}"),
        Field("turn", p, 0, 1, f"whose turn it is in the Action phase, one-hot ({seats})"),
        Field("awaiting", p, 0, 1, f"seats whose decision is awaited now ({seats})"),
        Field("simultaneous", 1, 0, 1, "1 while seats choose in secret at once"),
        Field("committed", p, 0, 1, f"seats that already chose in secret this round ({seats})"),
        Field("prompt", PROMPTS, 0, 1, "the offer awaiting an answer (engine PromptKind)"),
        Field("prompt_seat", p, 0, 1, f"the seat that must answer it ({seats})"),
        Field("prompt_unit", NUM_UNITS, 0, 1, "the unit of a free-invade offer, one-hot"),
        Field("prompt_area", NUM_AREAS, 0, 1, "the area of a Succor/Blessing/Thor offer"),
        Field("prompt_excluded_stat", 3, 0, 1, "the stat a raise may not pick, one-hot"),
        Field(
            "prompt_doomed",
            NUM_UNITS * NUM_AREAS,
            0,
            NUM_FIGS,
            "the answering seat's doomed figures (Frigga's Protection): count per unit × area",
        ),
        Field("prompt_queued", 1, 0, 99, "offers queued behind it"),
        Field("destroyed", PROVINCES, 0, 1, "provinces destroyed by Ragnarök"),
        Field("pillage_token", PROVINCES * TOKENS, 0, 1, "each province's pillage token, one-hot"),
        Field("pillaged", PROVINCES, 0, 1, "provinces pillaged this Age"),
        Field("ragnarok_age", PROVINCES * 3, 0, 1, "the Age in which Ragnarök destroys each"),
        Field("doom", PROVINCES, 0, 1, "the Doom token: the next province Ragnarök destroys"),
        Field("deck_sizes", 3, 0, CARDS, "cards left in each Age's deck"),
        Field("discard", CARDS, 0, 1, "the public discard pile, per card instance"),
        Field("unseen_count", 1, 0, CARDS, "cards discarded unseen"),
        Field("march_from", PROVINCES, 0, 1, "where the march under way comes from"),
        Field("march_to", PROVINCES, 0, 1, "where it goes"),
        Field("march_moved", NUM_UNITS, 0, NUM_FIGS, "figures moved in it so far, per unit"),
        Field("doomed_count", 1, 0, 99, "figures about to be destroyed"),
        Field("battle", 1, 0, 1, "1 while a battle is under way"),
        Field("battle_province", PROVINCES, 0, 1, "where it is fought"),
        Field("battle_pillager", p, 0, 1, f"who pillages ({seats})"),
        Field("battle_participants", p, 0, 1, f"who takes part ({seats})"),
        Field("battle_committed", p, 0, 1, f"who chose a battle card, unrevealed ({seats})"),
        Field("battle_revealed", p * CARDS, 0, 1, "each seat's revealed battle cards"),
        Field("battle_cancelled", CARDS, 0, 1, "revealed cards whose text is cancelled"),
        Field("battle_strength", p, 0, 999, "each seat's STR in the province"),
        Field("battle_totals_shown", 1, 0, 1, "1 once totals are compared"),
        Field("battle_totals", p, 0, 999, "each seat's total (after the comparison)"),
        Field("battle_winner", p, 0, 1, "the winner (after the comparison; none: a tie)"),
        Field("battle_reveal_round", 1, 0, 99, "how many times cards were revealed"),
        Field("battle_killed", p, 0, NUM_FIGS * MAX_SEATS, "figures each seat lost in it"),
        Field("stat_steps", 3 * 6, 0, 1, "the seat's Rage, Axes, Horns step, one-hot", True),
        Field("rage", 1, 0, 99, "the seat's Rage left this Action phase", True),
        Field("glory", 1, -999, 9999, "the seat's Glory", True),
        Field("hand_count", 1, 0, CARDS, "cards in the seat's hand", True),
        Field("quest_count", 1, 0, CARDS, "the seat's committed quests", True),
        Field("pack_count", 1, 0, CARDS, "cards in the seat's draft pack", True),
        Field("has_kept_card", 1, 0, 1, "1 if it holds a card kept from the last Age", True),
        Field("end_stat_bonus", 1, 0, 999, "Glory its stats gave at the end (0 before)", True),
        Field("end_card_bonus", 1, 0, 999, "Glory its end-of-game texts gave (0 before)", True),
        Field(
            "figures",
            NUM_UNITS * LOCATIONS,
            0,
            NUM_FIGS,
            "its figures: count per unit × location (13 areas, reserve, Valhalla)",
            True,
        ),
        Field("upgrades", SLOTS * CARDS, 0, 1, "its 8 upgrade slots: the card in each", True),
        Field("final_glory", p, -999, 9999, "the result's Glory (0 before the end)"),
        Field("winners", p, 0, 1, "the winners (once the game is over)"),
        Field("ranks", p * MAX_SEATS, 0, 1, "each seat's final rank, one-hot (1st … 5th)"),
        Field("hand", CARDS, 0, 1, "own hand"),
        Field("pack", CARDS, 0, 1, "own draft pack"),
        Field("pending_picks", CARDS, 0, 1, "cards taken from the pack this draft round"),
        Field("picks_left", 1, 0, 8, "picks still to make this draft round"),
        Field("quests", CARDS, 0, 1, "own committed quests"),
        Field("battle_card", CARDS, 0, 1, "own chosen battle card, unrevealed"),
        Field("keep", CARDS, 0, 1, "own choice of card to keep in the Discard phase"),
        Field("kept", CARDS, 0, 1, "own card kept from the last Age"),
    ]


class _Offsets:
    """A layout's offsets as attributes, for the encoder's inner loop, and its zeros."""

    def __init__(self, layout: Layout) -> None:
        for name, at in layout.offsets.items():
            setattr(self, name, at)
        self.size = layout.size
        self.zeros = bytes(4 * layout.size)


_PREPARED: dict[int, Any] = {}  # players -> _Offsets


class BloodRageEncoding:
    """Blood Rage's :class:`envs.encoding.Encoding`."""

    game = "blood_rage"

    @cache  # noqa: B019  (one per player count, for the life of the process)
    def layout(self, players: int) -> Layout:
        if not 2 <= players <= MAX_SEATS:
            raise ValueError(f"Blood Rage has 2-5 players, not {players}")
        return Layout(_fields(players), players)

    def _offsets(self, players: int) -> Any:
        """The layout's offsets as attributes, and its zeros."""
        o = _PREPARED.get(players)
        if o is None:
            o = _PREPARED[players] = _Offsets(self.layout(players))
        return o

    @property
    def compiled(self) -> bool:
        """True when :meth:`encode` runs the C encoder (``envs/blood_rage/_fast.c``)."""
        return _fast is not None

    @property
    def num_actions(self) -> int:
        return len(_ACTIONS)

    def action_index(self, action: Any) -> int:
        return _INDEX[action]

    def action_at(self, index: int) -> Action:
        if index < 0:
            raise IndexError(index)
        return _ACTIONS[index]

    def index_table(self) -> Mapping[Any, int]:
        """Action -> index for every catalogued action (the environments' fast path)."""
        return _INDEX

    @property
    def mask_indices(self) -> Callable[[Sequence[Action], bytearray], list[int]]:
        """The environments' fast path from a legal list to the mask: a function that gives
        the index of each action, in order, and sets each to 1 in the mask it is given (in
        C a tenth of hashing every action into the table; the table reads it once)."""
        if _fast is not None:
            indices: Callable[[Sequence[Action], bytearray], list[int]] = _fast.indices
            return indices
        return _mask_indices

    def max_score(self, players: int) -> int:
        return 9999

    def max_decisions(self, players: int) -> int:
        return 20_000

    def seat_state(self, view: Mapping[str, Any]) -> GameState:
        snapshot = view.get("engine_state")
        if not isinstance(snapshot, dict):
            raise ValueError("the view carries no engine state (ask for it with include_state)")
        return from_snapshot(snapshot)

    def encode(self, state: Any, seat: int, awaited: Sequence[int] | None = None) -> Observation:
        # The C encoder (envs/blood_rage/_fast.c) writes most of it; Python adds what takes
        # more of the rules (a battle's strengths, a finished game's results).
        if _fast is None:
            return self.encode_reference(state, seat, awaited)
        s: GameState = state
        o = _PREPARED.get(s.players) or self._offsets(s.players)
        x = np.zeros(o.size, np.float32)  # calloc: no zeros to copy from
        _fast.encode(x, s, seat, awaiting(s) if awaited is None else awaited)
        if s.battle is not None or s.step == _GAME_OVER:
            _write_derived(x, s, seat, o)
        return x

    def encode_reference(
        self, state: Any, seat: int, awaited: Sequence[int] | None = None
    ) -> Observation:
        """:meth:`encode` all in Python: the definition the C encoder is held to (and what
        runs where it could not be built)."""
        # Setting a few hundred scattered entries of an array.array from Python costs a
        # tenth of numpy's fancy indexing from lists (which converts every list first).
        s: GameState = state
        o = self._offsets(s.players)
        x = array("f", o.zeros)
        _write_held(x, s, seat, o)
        _write_awaited(x, s, seat, o, awaiting(s) if awaited is None else awaited)
        _write_derived(x, s, seat, o)
        return np.frombuffer(x, np.float32)


def _mask_indices(actions: Sequence[Action], mask: bytearray) -> list[int]:
    """``_fast.indices`` in Python."""
    found = [_INDEX[a] for a in actions]
    for i in found:
        if mask[i]:
            raise RuntimeError(f"two legal actions share the catalogue index {i}")
        mask[i] = 1
    return found


def _write_awaited(
    x: array[float], s: GameState, seat: int, o: Any, waiting: Sequence[int]
) -> None:
    """The seats awaited and, while seats choose in secret, those that already chose."""
    p = s.players
    for w in waiting:
        x[o.awaiting + (w - seat) % p] = 1.0
    if is_simultaneous(s):
        x[o.simultaneous] = 1.0
        for w in _involved(s):
            if w not in waiting:
                x[o.committed + (w - seat) % p] = 1.0


def _write_derived(x: array[float] | Observation, s: GameState, seat: int, o: Any) -> None:
    """The fields that take more of the rules than the state holds: the battle's strengths,
    a finished game's end bonuses and results."""
    p = s.players
    b = s.battle
    if b is not None:
        for who in b.participants:
            x[o.battle_strength + (who - seat) % p] = s.strength_in(who, b.province)
    if s.step == _GAME_OVER:
        for who in range(p):
            base = o.stat_steps + ((who - seat) % p) * _STRIDE
            x[base + _IN_STAT_BONUS] = end_stat_bonus(s.clans[who])
            x[base + _IN_CARD_BONUS] = end_card_bonus(s, who)
        res = result(s)
        assert res is not None
        for who in range(p):
            r = (who - seat) % p
            x[o.final_glory + r] = res.scores[who]
            x[o.ranks + r * MAX_SEATS + res.ranks[who] - 1] = 1.0
        for who in res.winners:
            x[o.winners + (who - seat) % p] = 1.0


def _write_held(x: array[float], s: GameState, seat: int, o: Any) -> None:
    """The fields the state holds, read as they are (what ``_fast.encode`` writes)."""
    p = s.players
    x[o.viewer + seat] = 1.0
    x[o.age + s.age - 1] = 1.0
    x[o.phase + s.phase] = 1.0
    x[o.step + s.step] = 1.0
    x[o.first_player + (s.first_player - seat) % p] = 1.0
    if s.phase == _ACTION:
        x[o.turn + (s.turn - seat) % p] = 1.0
    if s.prompts:
        pr = s.prompts[0]
        kind = pr.kind
        x[o.prompt + kind] = 1.0
        x[o.prompt_seat + (pr.seat - seat) % p] = 1.0
        if kind == _FREE_INVADE:
            x[o.prompt_unit + pr.a] = 1.0
        elif kind in _AREA_PROMPTS:
            x[o.prompt_area + pr.a] = 1.0
        elif kind == _RAISE_STAT and pr.a >= 0:
            x[o.prompt_excluded_stat + pr.a] = 1.0
        if kind == _PROTECT:
            loc = s.clans[pr.seat].loc
            for ds, fig in s.doomed:
                if ds == pr.seat:
                    x[o.prompt_doomed + FIG_UNIT[fig] * NUM_AREAS + loc[fig]] += 1.0
        x[o.prompt_queued] = len(s.prompts) - 1
    x[o.destroyed : o.destroyed + _BOARD] = _board(s)
    base = o.deck_sizes
    for deck in s.decks:
        x[base] = len(deck)
        base += 1
    x[o.discard : o.discard + CARDS] = _cards(s.discard)
    x[o.unseen_count] = len(s.unseen)
    if s.march is not None:
        x[o.march_from + s.march[0]] = 1.0
        x[o.march_to + s.march[1]] = 1.0
        for unit in s.march_moved:
            x[o.march_moved + unit] += 1.0
    x[o.doomed_count] = len(s.doomed)
    b = s.battle
    if b is not None:
        x[o.battle] = 1.0
        x[o.battle_province + b.province] = 1.0
        x[o.battle_pillager + (b.pillager - seat) % p] = 1.0
        shown = b.stage > _COMPARE_STAGE
        if shown:
            x[o.battle_totals_shown] = 1.0
            if b.winner >= 0:
                x[o.battle_winner + (b.winner - seat) % p] = 1.0
        for who in b.participants:
            r = (who - seat) % p
            x[o.battle_participants + r] = 1.0
            choice = b.choice[who]
            if not b.revealed and (choice >= 0 or choice == _HIDDEN_CHOICE):
                x[o.battle_committed + r] = 1.0
            base = o.battle_revealed + r * CARDS
            for card in b.played[who]:
                x[base + card] = 1.0
            if shown:
                x[o.battle_totals + r] = b.totals[who]
        for card in b.cancelled:
            x[o.battle_cancelled + card] = 1.0
        x[o.battle_reveal_round] = b.reveals
        for who in range(p):
            x[o.battle_killed + (who - seat) % p] = b.killed[who]
    block = o.stat_steps
    for who in range(p):
        c = s.clans[who]
        base = block + ((who - seat) % p) * _STRIDE
        x[base : base + _STRIDE] = _sheet(c.loc, c.slots)
        steps = c.steps
        x[base + steps[0]] = 1.0
        x[base + 6 + steps[1]] = 1.0
        x[base + 12 + steps[2]] = 1.0
        x[base + _IN_RAGE] = c.rage
        x[base + _IN_GLORY] = c.glory
        x[base + _IN_HAND] = len(c.hand)
        x[base + _IN_QUESTS] = len(c.quests)
        x[base + _IN_PACK] = len(s.packs[who])
        if c.kept != EMPTY:
            x[base + _IN_KEPT] = 1.0
    me = s.clans[seat]
    base = o.hand
    for card in me.hand:
        x[base + card] = 1.0
    base = o.pack
    for card in s.packs[seat]:
        x[base + card] = 1.0
    if s.step == _DRAFT_PICK:
        x[o.picks_left] = s.picks[seat]
        taken = picks_per_round(s) - s.picks[seat]
        if taken > 0:
            base = o.pending_picks
            for card in me.hand[len(me.hand) - taken :]:
                x[base + card] = 1.0
    base = o.quests
    for card in me.quests:
        x[base + card] = 1.0
    if b is not None and not b.revealed and b.choice[seat] >= 0:
        x[o.battle_card + b.choice[seat]] = 1.0
    if s.keep[seat] >= 0:
        x[o.keep + s.keep[seat]] = 1.0
    if me.kept >= 0:
        x[o.kept + me.kept] = 1.0


# The two largest parts of an observation change seldom between two decisions: a seat's block
# (its sheet, figures and counts; one clan moves per decision) and the board's provinces. Each
# distinct one is encoded once and copied in whole; the caches start over when they grow.
_CLANS: dict[tuple[bytes, tuple[int, ...]], array[float]] = {}
_BOARDS: dict[tuple[int, ...], array[float]] = {}
_CACHE_LIMIT = 4096


def _sheet(loc: list[int], slots: list[int]) -> array[float]:
    """A seat's block with its figures and upgrades set (its other fields are written over
    it): the two large runs, which change seldom."""
    key = (bytes(loc), tuple(slots))
    run = _CLANS.get(key)
    if run is None:
        run = array("f", bytes(4 * _STRIDE))
        for fig, where in enumerate(loc):
            if where < LOCATIONS:
                run[_IN_FIGURES + _FIG_BASE[fig] + where] += 1.0
        for slot, card in enumerate(slots):
            if card >= 0:
                run[_IN_UPGRADES + slot * CARDS + card] = 1.0
        if len(_CLANS) >= _CACHE_LIMIT:
            _CLANS.clear()
        _CLANS[key] = run
    return run


_CARD_SETS: dict[tuple[int, ...], array[float]] = {}


def _cards(cards: list[int]) -> array[float]:
    """A set of cards (the discard pile) as a run of CARDS 0/1 entries."""
    key = tuple(cards)
    run = _CARD_SETS.get(key)
    if run is None:
        run = array("f", bytes(4 * CARDS))
        for card in cards:
            run[card] = 1.0
        if len(_CARD_SETS) >= _CACHE_LIMIT:
            _CARD_SETS.clear()
        _CARD_SETS[key] = run
    return run


def _board(s: GameState) -> array[float]:
    """The provinces' run: destroyed, pillage tokens, pillaged, Ragnarök's Ages, the Doom."""
    key = (s.age, *s.destroyed, *s.token, *s.pillaged, *s.ragnarok)
    run = _BOARDS.get(key)
    if run is None:
        run = array("f", bytes(4 * _BOARD))
        for pv in range(PROVINCES):
            if s.destroyed[pv]:
                run[pv] = 1.0
            token = s.token[pv]
            if token >= 0:
                run[_IN_TOKEN + pv * TOKENS + token] = 1.0
            if s.pillaged[pv]:
                run[_IN_PILLAGED + pv] = 1.0
        for age, pv in enumerate(s.ragnarok):
            if pv >= 0:
                run[_IN_RAGNAROK + pv * 3 + age] = 1.0
        for pv in s.ragnarok[s.age - 1 :]:
            if pv >= 0 and not s.destroyed[pv]:
                run[_IN_DOOM + pv] = 1.0
                break
        if len(_BOARDS) >= _CACHE_LIMIT:
            _BOARDS.clear()
        _BOARDS[key] = run
    return run


def _plan(layout: Layout) -> tuple[int, ...]:
    """The numbers the C encoder works with, in the order of its ``PLAN`` names: the
    layout's offsets (by field name) and the constants of this module and the rules."""
    assert _fast is not None
    known = {
        **layout.offsets,
        "players": layout.seats,
        "size": layout.size,
        "stride": _STRIDE,
        **{f"in_{name}": at for name, at in _SEAT_PLAN.items()},
        "PROVINCES": PROVINCES,
        "TOKENS": TOKENS,
        "CARDS": CARDS,
        "LOCATIONS": LOCATIONS,
        "NUM_AREAS": NUM_AREAS,
        "COMPARE_STAGE": _COMPARE_STAGE,
        "Phase.ACTION": _ACTION,
        "Step.DRAFT_PICK": _DRAFT_PICK,
        "PromptKind.FREE_INVADE": _FREE_INVADE,
        "PromptKind.RAISE_STAT": _RAISE_STAT,
        "PromptKind.PROTECT": _PROTECT,
        "PromptKind.SUCCOR": int(PromptKind.SUCCOR),
        "PromptKind.BLESSING": int(PromptKind.BLESSING),
        "PromptKind.THORS_DOMAIN": int(PromptKind.THORS_DOMAIN),
        "HIDDEN_CHOICE": _HIDDEN_CHOICE,
        "EMPTY": EMPTY,
        "DraftMode.NO_DRAFT": int(DraftMode.NO_DRAFT),
        "DRAFT_KEEP": DRAFT_KEEP,
        "Step.BATTLE_CARDS": int(Step.BATTLE_CARDS),
        "Step.DISCARD": int(Step.DISCARD),
        "NOT_INVOLVED": _NOT_INVOLVED,
    }
    return tuple(known[name] for name in _fast.PLAN)


def _within(names: tuple[str, ...]) -> dict[str, int]:
    """Where each of a run of fields starts inside the run (same in every layout)."""
    layout = ENCODING.layout(2)
    first = layout.offsets[names[0]]
    return {n: layout.offsets[n] - first for n in names}


def _involved(state: GameState) -> list[int]:
    """The seats taking part in the current simultaneous decision (as the view counts them:
    another seat's secret choice shows as made, whatever it is)."""
    b = state.battle
    if state.step == Step.BATTLE_CARDS and b is not None:
        return [w for w in b.participants if b.choice[w] != _NOT_INVOLVED]
    if state.step == Step.DISCARD:
        return [
            w for w in range(state.players) if state.keep[w] != _NOT_INVOLVED or state.clans[w].hand
        ]
    return list(range(state.players))


ENCODING = BloodRageEncoding()
_SEAT_FIELDS = tuple(f.name for f in ENCODING.layout(2).fields if f.per_seat)
_STRIDE = ENCODING.layout(2).stride
_IN = _within(_SEAT_FIELDS)
_IN_RAGE, _IN_GLORY = _IN["rage"], _IN["glory"]
assert _IN["stat_steps"] == 0, "the encoder writes the stat steps at the block's start"
_IN_HAND, _IN_QUESTS, _IN_PACK = _IN["hand_count"], _IN["quest_count"], _IN["pack_count"]
_IN_KEPT, _IN_FIGURES, _IN_UPGRADES = _IN["has_kept_card"], _IN["figures"], _IN["upgrades"]
_IN_STAT_BONUS, _IN_CARD_BONUS = _IN["end_stat_bonus"], _IN["end_card_bonus"]
_BOARD_FIELDS = ("destroyed", "pillage_token", "pillaged", "ragnarok_age", "doom")
_IN_BOARD = _within(_BOARD_FIELDS)
_IN_TOKEN, _IN_PILLAGED = _IN_BOARD["pillage_token"], _IN_BOARD["pillaged"]
_IN_RAGNAROK, _IN_DOOM = _IN_BOARD["ragnarok_age"], _IN_BOARD["doom"]
_BOARD = sum(ENCODING.layout(2).field(n).size for n in _BOARD_FIELDS)
_SEAT_PLAN = {
    "rage": _IN_RAGE,
    "glory": _IN_GLORY,
    "hand": _IN_HAND,
    "quests": _IN_QUESTS,
    "pack": _IN_PACK,
    "kept": _IN_KEPT,
    "figures": _IN_FIGURES,
    "upgrades": _IN_UPGRADES,
    "token": _IN_TOKEN,
    "pillaged": _IN_PILLAGED,
    "ragnarok": _IN_RAGNAROK,
    "doom": _IN_DOOM,
}
if _fast is not None:  # the C encoder learns every player count's layout once
    for _players in range(2, MAX_SEATS + 1):
        _fast.configure(_plan(ENCODING.layout(_players)), FIG_UNIT)
