"""The game state: plain lists of ints, copied by hand, hashed stably.

The state holds data only; the rules that change it live in the phase modules
(``draft``, ``action_phase``, ``battle``, ``end_of_age``) and are driven by ``flow``.
Everything here is cheap on purpose: bots clone states thousands of times per decision.
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections.abc import Sequence
from enum import IntEnum
from typing import Any, Final, NamedTuple

from engine.blood_rage.board import (
    LEADER_STR,
    SHIP_STR,
    STAT_TRACK,
    SUPPORTING_FJORDS,
    VILLAGES,
    WARRIOR_STR,
)
from engine.blood_rage.cards import CARDS, INSTANCE_DEF, MONSTER_CARD, card_of
from engine.blood_rage.ids import (
    FIG_LEADER,
    FIG_SHIP,
    FIG_UNIT,
    NUM_AREAS,
    NUM_FIGS,
    RESERVE,
    Area,
    Unit,
)

# The unit and the area the hot paths compare ints with, as plain ints: compiled (make accel), a
# Final int is a C constant, where comparing an int with an IntEnum member is a generic Python
# comparison.
_SEA_SERPENT: Final = int(Unit.SEA_SERPENT)
_YGGDRASIL: Final = int(Area.YGGDRASIL)

# Per province, per location (areas, reserve, Valhalla, box): is it one of the province's
# supporting fjords? A table lookup, where a membership test in a tuple of fjords compares
# object by object in the compiled build.
_SUPPORTS: Final[tuple[tuple[bool, ...], ...]] = tuple(
    tuple(where in SUPPORTING_FJORDS[p] for where in range(16)) for p in range(9)
)

# Upgrade slots on a clan sheet, flattened: leader, warrior, ship, 2 monsters, 3 clan.
SLOT_LEADER: Final = 0
SLOT_WARRIOR: Final = 1
SLOT_SHIP: Final = 2
SLOT_MONSTERS: Final = (3, 4)
SLOT_CLANS: Final = (5, 6, 7)
NUM_SLOTS: Final = 8
EMPTY: Final = -1


class PromptKind(IntEnum):
    """Decisions that interrupt the phase flow (offers made by a rule or a card)."""

    FREE_INVADE = 0  # a=unit: invade with that figure for free after its upgrade, or decline
    QUEST_STAT = 1  # a fulfilled quest: raise one stat
    RAISE_STAT = 2  # a card raises one stat; a=a stat that may not be chosen, or -1
    PROTECT = 3  # Frigga's Protection: pay 1 Rage to save one doomed figure, or decline
    WITCH_RETREAT = 4  # Volur Witch: retreat to Yggdrasil instead of being destroyed?
    TIDE_KEEP = 5  # Odin's Tide: which one figure in the battle survives
    LATE_CARD = 6  # Heimdall's Eye / Gaze: play one after the reveal, or decline
    PROWESS = 7  # Tyr's Prowess: keep a revealed card for 1 Rage, or decline (done)
    MOVE_LEADER = 8  # Lord of Hammers: move the leader to an adjacent province, or decline
    THORS_DOMAIN = 9  # a=province: pay 2 Rage to pillage it at once?
    SUCCOR = 10  # a=province: Frigga's Succor, a free warrior there, or decline
    BLESSING = 11  # a=province: Loki's Blessing, a free warrior there, or decline
    SACRIFICE = 12  # Frigga's Sacrifice: the second figure to destroy


# Prompts that decide the fate of doomed figures; the doom waits for all of them.
DOOM_PROMPTS: Final = frozenset({PromptKind.PROTECT, PromptKind.WITCH_RETREAT})


class Prompt(NamedTuple):
    kind: int
    seat: int
    a: int = 0
    b: int = 0


# Every field of a ClanState (its __slots__); the first is its __init__ argument.
CLAN_FIELDS: tuple[str, ...] = (
    "seat",
    "steps",
    "rage",
    "glory",
    "hand",
    "quests",
    "loc",
    "slots",
    "kept",
)


def _rebuilt(cls: type[Any], args: tuple[Any, ...], fields: dict[str, Any]) -> Any:
    """An instance made blank by its __init__ from ``args``, then given ``fields``; see
    :func:`_reduction`."""
    obj = cls(*args, blank=True)
    for name, value in fields.items():
        setattr(obj, name, value)
    return obj


def _reduction(obj: object, args: tuple[Any, ...], fields: Sequence[str]) -> tuple[Any, ...]:
    """``obj.__reduce__()`` for the state classes, so that copy.deepcopy, copy.copy and pickle
    work on them compiled as well (make accel). The default protocol makes an instance with
    ``cls.__new__(cls)``, which for a mypyc-compiled class runs ``__init__`` without its
    arguments and fails, and mypyc's own ``__setstate__`` does not take the slots back. So
    everything travels as arguments of :func:`_rebuilt` (deepcopy copies arguments deeply,
    copy.copy shares them). No state refers back to itself, so no cycle needs the memo."""
    return (_rebuilt, (type(obj), args, {f: getattr(obj, f) for f in fields}))


class ClanState:
    """One clan's sheet, hand and figures."""

    __slots__ = CLAN_FIELDS

    def __init__(self, seat: int, *, blank: bool = False) -> None:
        self.seat = seat
        if blank:  # for copy(), which sets every other field itself
            return
        self.steps: list[int] = [0, 0, 0]  # step index (0–5) of Rage, Axes, Horns
        self.rage = STAT_TRACK[0][0]  # Rage left to spend this Action phase
        self.glory = 0
        self.hand: list[int] = []
        self.quests: list[int] = []  # committed quest cards, face down
        # Location of each of the 19 figures: an Area, RESERVE, VALHALLA or BOX.
        self.loc: list[int] = [RESERVE] * 10 + [15] * 9
        self.slots: list[int] = [EMPTY] * NUM_SLOTS
        # The card of ``hand`` kept in the last Discard phase, until it leaves the hand
        # (EMPTY: none). What views show (§11: its identity is private, that there is one is
        # not); no rule reads it, so the state hash leaves it out.
        self.kept = EMPTY

    def copy(self) -> ClanState:
        c = ClanState(self.seat, blank=True)
        c.steps = self.steps[:]
        c.rage = self.rage
        c.glory = self.glory
        c.hand = self.hand[:]
        c.quests = self.quests[:]
        c.loc = self.loc[:]
        c.slots = self.slots[:]
        c.kept = self.kept
        return c

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduction(self, (self.seat,), CLAN_FIELDS[1:])

    def take_from_hand(self, card: int) -> None:
        """A card leaves the hand (played, committed, put on the sheet); a kept card stops
        being the kept card, even if it comes back later (a lost battle, Tyr's Prowess)."""
        self.hand.remove(card)
        if card == self.kept:
            self.kept = EMPTY

    def stat(self, stat: int) -> int:
        """The value of a stat (Rage, Axes or Horns) at its current step."""
        return STAT_TRACK[stat][self.steps[stat]]

    @property
    def horns(self) -> int:
        return STAT_TRACK[2][self.steps[2]]

    @property
    def axes(self) -> int:
        return STAT_TRACK[1][self.steps[1]]

    def on_board(self) -> int:
        """Figures on the board (provinces and fjords), which Horns limits."""
        return sum(1 for x in self.loc if x < NUM_AREAS)

    def has_upgrade(self, key: str) -> bool:
        return any(inst >= 0 and CARDS[INSTANCE_DEF[inst]].key == key for inst in self.slots)

    def warrior_strength(self) -> tuple[int, int]:
        """(STR of one warrior, STR of a pair in one province), from the warrior upgrade."""
        up = self.slots[SLOT_WARRIOR]
        if up < 0:
            return WARRIOR_STR, 2 * WARRIOR_STR
        d = card_of(up)
        return d.warrior_str, d.warrior_pair_str


# Every field of a Battle (its __slots__), in the order snapshots write them.
BATTLE_FIELDS: tuple[str, ...] = (
    "province",
    "pillager",
    "order",
    "pos",
    "moved",
    "participants",
    "monsters",
    "choice",
    "played",
    "cancelled",
    "revealed",
    "stage",
    "cursor",
    "late_played",
    "reveals",
    "totals",
    "winner",
    "killed",
    "destroyed",
)


class Battle:
    """A pillage in progress: Call to Battle, secret cards, resolution stages."""

    __slots__ = BATTLE_FIELDS

    def __init__(self, province: int, pillager: int, players: int, *, blank: bool = False) -> None:
        self.province = province
        self.pillager = pillager
        if blank:  # for copy(), which sets every other field itself
            return
        # Call to Battle order: the pillager's left first, the pillager last.
        self.order: list[int] = [(pillager + i) % players for i in range(1, players + 1)]
        self.pos = 0
        self.moved = False  # did anyone move a figure in this Call to Battle round?
        self.participants: list[int] = []  # clockwise from the pillager
        self.monsters: list[int] = []  # (seat * 32 + unit) of monsters that took part
        self.choice: list[int] = [EMPTY] * players  # card chosen, secret until the reveal
        self.played: list[list[int]] = [[] for _ in range(players)]  # revealed cards
        self.cancelled: list[int] = []  # revealed cards whose text is cancelled
        self.revealed = False
        self.stage = 0  # resolution stage (battle.STAGES)
        self.cursor = 0  # position inside a stage that waits for decisions
        self.late_played = False  # did anyone play a late card this round?
        self.reveals = 0  # how many times cards were revealed (Heimdall's Watch adds rounds)
        self.totals: list[int] = [0] * players
        self.winner = EMPTY
        self.killed: list[int] = [0] * players  # figures of each seat destroyed in it
        # Those figures as [seat, figure, area], in order (for events only: not hashed).
        self.destroyed: list[list[int]] = []

    def copy(self) -> Battle:
        b = Battle(self.province, self.pillager, 0, blank=True)
        b.order = self.order
        b.pos = self.pos
        b.moved = self.moved
        b.participants = self.participants[:]
        b.monsters = self.monsters[:]
        b.choice = self.choice[:]
        b.played = [p[:] for p in self.played]
        b.cancelled = self.cancelled[:]
        b.revealed = self.revealed
        b.stage = self.stage
        b.cursor = self.cursor
        b.late_played = self.late_played
        b.reveals = self.reveals
        b.totals = self.totals[:]
        b.winner = self.winner
        b.killed = self.killed[:]
        b.destroyed = [d[:] for d in self.destroyed]
        return b

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduction(self, (self.province, self.pillager, 0), BATTLE_FIELDS[2:])


Event = tuple[int, dict[str, Any]]  # (audience seat, or -1 for everyone; payload)


class GloryReason:
    """Why Glory changed (the ``reason`` of a ``glory`` event): one event per source."""

    # Final: mypyc (make accel) compiles the class, and reads only Final class attributes
    # through the class object.
    BATTLE: Final = "battle"  # won a battle: Glory = Axes (area: the battle's province)
    PILLAGE: Final = "pillage"  # the 5-Glory pillage reward (area: the pillaged province)
    QUEST: Final = "quest"  # a fulfilled quest's printed Glory (card: the quest)
    RAGNAROK: Final = "ragnarok"  # figures Ragnarök destroyed (area: the destroyed province)
    CARD: Final = "card"  # a card's text (card: that card; area where it acted, if one)
    END_GAME: Final = "end_game"  # a stat on its 4th-6th step at the end (stat: which)


GLORY_REASONS: tuple[str, ...] = (
    GloryReason.BATTLE,
    GloryReason.PILLAGE,
    GloryReason.QUEST,
    GloryReason.RAGNAROK,
    GloryReason.CARD,
    GloryReason.END_GAME,
)


class StatReason:
    """Why a clan stat rose one step (the ``reason`` of a ``stat`` event): one event per step."""

    PILLAGE: Final = "pillage"  # a pillage reward (area: the pillaged province)
    QUEST: Final = "quest"  # the step a fulfilled quest gives, as its owner chose it
    CARD: Final = "card"  # a card's text (card: that card, when one card can have asked)


STAT_REASONS: tuple[str, ...] = (StatReason.PILLAGE, StatReason.QUEST, StatReason.CARD)


# Every field of a GameState (its __slots__); the first three are its __init__ arguments.
GAME_STATE_FIELDS: tuple[str, ...] = (
    "players",
    "draft_mode",
    "seed",
    "age",
    "phase",
    "step",
    "first_player",
    "turn",
    "version",
    "decks",
    "packs",
    "picks",
    "discard",
    "unseen",
    "clans",
    "destroyed",
    "token",
    "pillaged",
    "ragnarok",
    "occupancy",
    "battle",
    "march",
    "march_moved",
    "prompts",
    "keep",
    "doomed",
    "doom_cause",
    "doom_card",
    "events",
)


class GameState:
    """A whole game position. Build one with ``setup.new_game`` or ``scenario.from_scenario``."""

    __slots__ = GAME_STATE_FIELDS

    def __init__(self, players: int, draft_mode: int, seed: int, *, blank: bool = False) -> None:
        self.players = players
        self.draft_mode = draft_mode
        self.seed = seed
        if blank:  # for copy(), which sets every other field itself
            return
        self.age = 1
        self.phase = 0
        self.step = 0
        self.first_player = 0
        self.turn = 0
        self.version = 0
        self.decks: list[list[int]] = [[], [], []]
        self.packs: list[list[int]] = [[] for _ in range(players)]
        self.picks: list[int] = [0] * players  # cards still to pick this draft round
        self.discard: list[int] = []  # public discard pile
        self.unseen: list[int] = []  # discarded unseen (deal leftovers, last pack cards)
        self.clans: list[ClanState] = [ClanState(s) for s in range(players)]
        self.destroyed: list[bool] = [False] * 9
        self.token: list[int] = [EMPTY] * 9  # pillage token kind per province
        self.pillaged: list[bool] = [False] * 9
        self.ragnarok: list[int] = [EMPTY] * 3  # province destroyed at the end of Age 1/2/3
        self.occupancy: list[int] = [0] * NUM_AREAS  # figures per area, all clans
        self.battle: Battle | None = None
        self.march: tuple[int, int] | None = None  # (from, to) of the march under way
        self.march_moved: list[int] = []  # units moved in it so far, in order (views only)
        self.prompts: list[Prompt] = []
        self.keep: list[int] = [EMPTY] * players  # Discard phase choice: -2 none, card, -1 open
        self.doomed: list[tuple[int, int]] = []  # (seat, figure) about to be destroyed
        self.doom_cause = 0
        # The card whose text doomed them (EMPTY: a rule), for the event that reports their
        # destruction; like ``ClanState.kept`` no rule reads it, so it is not hashed.
        self.doom_card = EMPTY
        self.events: list[Event] | None = None  # set to a list to record events

    # -- cloning and hashing -------------------------------------------------------------

    def copy(self) -> GameState:
        """A cheap deep copy (hand-written, no deepcopy). Events are not copied."""
        # Not GameState.__new__: compiled with mypyc (make accel) that would run __init__.
        s = GameState(self.players, self.draft_mode, self.seed, blank=True)
        s.age = self.age
        s.phase = self.phase
        s.step = self.step
        s.first_player = self.first_player
        s.turn = self.turn
        s.version = self.version
        s.decks = [d[:] for d in self.decks]
        s.packs = [p[:] for p in self.packs]
        s.picks = self.picks[:]
        s.discard = self.discard[:]
        s.unseen = self.unseen[:]
        s.clans = [c.copy() for c in self.clans]
        s.destroyed = self.destroyed[:]
        s.token = self.token[:]
        s.pillaged = self.pillaged[:]
        s.ragnarok = self.ragnarok[:]
        s.occupancy = self.occupancy[:]
        s.battle = self.battle.copy() if self.battle is not None else None
        s.march = self.march
        s.march_moved = self.march_moved[:]
        s.prompts = self.prompts[:]
        s.keep = self.keep[:]
        s.doomed = self.doomed[:]
        s.doom_cause = self.doom_cause
        s.doom_card = self.doom_card
        s.events = None
        return s

    def __reduce__(self) -> tuple[Any, ...]:
        args = (self.players, self.draft_mode, self.seed)
        return _reduction(self, args, GAME_STATE_FIELDS[3:])

    def canonical(self) -> array[int]:
        """Every rule-relevant field as one flat run of integers (the basis of the hash).

        ``ClanState.kept``, ``doom_card``, ``march_moved`` and ``Battle.destroyed`` are left
        out: they only tell views and events what happened (no rule reads them), and leaving
        them out keeps the hashes of stored games the same as before they existed.

        Each list is preceded by its length, so different states never flatten alike; enum
        members enter as their int values, so the encoding depends on values only. Built as
        a list and packed once (half the cost of growing the array piece by piece).
        """
        out: list[int] = []
        add = out.append
        ext = out.extend
        ext((self.players, self.draft_mode, self.age, self.phase, self.step))
        ext((self.first_player, self.turn, self.version, self.doom_cause))
        for group in (self.decks, self.packs):
            add(len(group))
            for cards in group:
                add(len(cards))
                ext(cards)
        for flat in (
            self.picks,
            self.discard,
            self.unseen,
            self.destroyed,
            self.token,
            self.pillaged,
            self.ragnarok,
            self.keep,
        ):
            add(len(flat))
            ext(flat)
        for c in self.clans:
            ext(c.steps)
            add(c.rage)
            add(c.glory)
            add(len(c.hand))
            ext(c.hand)
            add(len(c.quests))
            ext(c.quests)
            ext(c.loc)
            ext(c.slots)
        march = self.march
        ext(march if march is not None else (-1, -1))
        add(len(self.prompts))
        for p in self.prompts:
            ext(p)
        add(len(self.doomed))
        for d in self.doomed:
            ext(d)
        b = self.battle
        if b is None:
            add(-1)
        else:
            ext((b.province, b.pillager, b.pos, b.moved, b.revealed, b.stage, b.cursor))
            ext((b.late_played, b.reveals, b.winner))
            for flat in (b.participants, b.monsters, b.choice, b.cancelled, b.totals, b.killed):
                add(len(flat))
                ext(flat)
            for played in b.played:
                add(len(played))
                ext(played)
        return array("q", out)

    def state_hash(self) -> str:
        """A stable hex digest: equal states hash equal in every process and version."""
        data = self.canonical()
        if sys.byteorder != "little":  # one byte layout on every machine
            data.byteswap()
        return hashlib.blake2b(data.tobytes(), digest_size=16).hexdigest()

    # -- figures -------------------------------------------------------------------------

    def move_figure(self, seat: int, fig: int, dest: int) -> None:
        """Move one figure, keeping the per-area occupancy count true."""
        loc = self.clans[seat].loc
        src = loc[fig]
        if src < NUM_AREAS:
            self.occupancy[src] -= 1
        if dest < NUM_AREAS:
            self.occupancy[dest] += 1
        loc[fig] = dest

    def free_villages(self, area: int) -> int:
        return VILLAGES[area] - self.occupancy[area] if area < 9 else 99

    def figure_strength(self, seat: int, fig: int, area: int) -> int:
        """STR of one non-warrior figure in an area (warriors are counted by pairs)."""
        if fig == FIG_LEADER:
            return LEADER_STR
        if fig == FIG_SHIP:
            return SHIP_STR
        card = MONSTER_CARD[FIG_UNIT[fig]]
        if area == _YGGDRASIL and card.yggdrasil_str >= 0:
            return card.yggdrasil_str
        return card.value

    def strength_in(self, seat: int, province: int) -> int:
        """A clan's STR in a province: its figures there plus its ships in supporting fjords."""
        loc = self.clans[seat].loc
        supports = _SUPPORTS[province]
        total = 0
        warriors = 0
        for fig in range(NUM_FIGS):
            where = loc[fig]
            if where == province:
                if 1 <= fig <= 8:
                    warriors += 1
                else:
                    total += self.figure_strength(seat, fig, province)
            elif supports[where]:
                total += self.figure_strength(seat, fig, where)
        if warriors:
            single, pair = self.clans[seat].warrior_strength()
            total += (warriors // 2) * pair + (warriors % 2) * single
        return total

    def figures_in_battle(self, seat: int, province: int) -> list[int]:
        """The figures of a clan that take part in a battle in a province (fjords included)."""
        loc = self.clans[seat].loc
        supports = _SUPPORTS[province]
        return [f for f in range(NUM_FIGS) if loc[f] == province or supports[loc[f]]]

    def emit(self, audience: int, payload: dict[str, Any]) -> None:
        """Record an event for everyone (audience -1) or for one seat only."""
        if self.events is not None:
            self.events.append((audience, payload))

    def gain_glory(
        self,
        seat: int,
        delta: int,
        reason: str,
        *,
        card: int = EMPTY,
        area: int = EMPTY,
        stat: int = EMPTY,
        other_seat: int = EMPTY,
    ) -> None:
        """Change a clan's Glory (``delta`` < 0 takes it away) and record why: every change
        of Glory goes through here, one call per source, so a frontend can say where each
        point came from. ``card`` is the card instance whose text (or, for a quest, whose
        printed value) gave it; ``other_seat`` the other clan of a transfer (Loki's
        Backstab). Nothing is recorded for a change of 0."""
        if delta == 0:
            return
        clan = self.clans[seat]
        clan.glory += delta
        if self.events is not None:
            self.events.append(
                (
                    -1,
                    {
                        "type": "glory",
                        "seat": seat,
                        "delta": delta,
                        "glory": clan.glory,
                        "reason": reason,
                        "card": card,
                        "area": area,
                        "stat": stat,
                        "other_seat": other_seat,
                    },
                )
            )

    def gain_rage(self, seat: int, delta: int, card: int, other_seat: int = EMPTY) -> None:
        """Change a clan's Rage left by a card's text (Loki's Trickery, Thor's Ascension) and
        record it: what decisions spend is told by their own event, and the Action phase's
        start sets every clan's Rage to its stat."""
        clan = self.clans[seat]
        clan.rage += delta
        if self.events is not None:
            self.events.append(
                (
                    -1,
                    {
                        "type": "rage",
                        "seat": seat,
                        "delta": delta,
                        "rage": clan.rage,
                        "card": card,
                        "other_seat": other_seat,
                    },
                )
            )

    def __repr__(self) -> str:
        return (
            f"<GameState players={self.players} age={self.age} phase={self.phase} "
            f"step={self.step} version={self.version} hash={self.state_hash()[:8]}>"
        )


def is_ship(fig: int) -> bool:
    """Ships and the Sea Serpent: fjords only, never march, never answer a Call to Battle."""
    return fig == FIG_SHIP or FIG_UNIT[fig] == _SEA_SERPENT
