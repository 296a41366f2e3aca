"""A client's model of a Blood Rage board, kept from events alone (the WatchGame promise:
applying the events in order onto the first view gives every later view).

``Board.of(view)`` takes what a view shows of every clan's figures, Glory, stats and Rage and
of the provinces; ``Board.apply(event)`` moves it on with one API event the way a frontend
would, reading nothing but the event (and the static catalog: which monster a card brings);
``Board.of(later_view)`` must then be equal. Along the way it checks what the events claim
against what they have set so far: a Glory change's previous total, a won battle's Glory
against the Axes the stat events have set, an end-of-game bonus against the stat's step.
A plain module of the tests (tests/ has no packages).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from engine.blood_rage.board import END_GAME_BONUS, STAT_TRACK
from engine.blood_rage.cards import CARDS, CardType, Slot, card_of, deck_instances
from engine.blood_rage.effects import HOOKS
from engine.blood_rage.ids import AREA_NAMES, FJORDS, OUTER_PROVINCES
from protocol.blood_rage.catalog import catalog
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

BOARD, RESERVE, VALHALLA = (
    br.FIGURE_LOCATION_BOARD,
    br.FIGURE_LOCATION_RESERVE,
    br.FIGURE_LOCATION_VALHALLA,
)
# Which figure each monster card brings (the catalog's `monster`).
MONSTER_OF: dict[str, int] = {c.card_id: int(c.monster) for c in catalog().cards if c.monster}

Figure = tuple[int, int, int]  # (unit, location, area)


class Mismatch(AssertionError):
    """An event that contradicts what the events before it have set."""


@dataclass
class Clan:
    figures: Counter[Figure]
    glory: int
    steps: list[int]  # 1-6 per stat: Rage, Axes, Horns
    rage: int

    def move(self, unit: int, source: tuple[int, int] | None, target: tuple[int, int]) -> None:
        """One figure of ``unit`` from ``source`` ((location, area); None: wherever the only
        one is) to ``target``."""
        if source is None:
            found = [f for f in self.figures if f[0] == unit and self.figures[f] > 0]
            if len(found) != 1:
                raise Mismatch(f"no single {br.Unit.Name(unit)} to move: {found}")  # type: ignore[arg-type]
            key = found[0]
        else:
            key = (unit, *source)
        if self.figures[key] <= 0:
            raise Mismatch(f"no {br.Unit.Name(unit)} at {source} to move")  # type: ignore[arg-type]
        self.figures[key] -= 1
        if not self.figures[key]:
            del self.figures[key]
        self.figures[(unit, *target)] += 1

    def remove(self, unit: int) -> None:
        """The figure of a monster leaves the game (its card was replaced), wherever it is."""
        found = [f for f in self.figures if f[0] == unit]
        if len(found) != 1:
            raise Mismatch(f"the replaced monster {unit} is not one figure: {found}")
        del self.figures[found[0]]


@dataclass
class Board:
    clans: list[Clan]
    destroyed: list[bool]
    pillaged: list[bool]
    march: tuple[int, int] | None = None
    applied: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, view: gp.View) -> Board:
        bv = view.blood_rage
        clans = [
            Clan(
                Counter((int(f.unit), int(f.location), int(f.area)) for f in c.figures),
                c.glory,
                [s.step for s in sorted(c.stats, key=lambda s: s.stat)],
                c.rage,
            )
            for c in bv.clans
        ]
        march = (int(bv.march.from_area), int(bv.march.to_area)) if bv.HasField("march") else None
        return cls(
            clans,
            [p.destroyed for p in bv.provinces],
            [p.pillaged for p in bv.provinces],
            march,
        )

    def facts(self) -> tuple[object, ...]:
        """What is compared with a view's: figure by figure, then the numbers."""
        return (
            [dict(c.figures) for c in self.clans],
            [c.glory for c in self.clans],
            [c.steps for c in self.clans],
            [c.rage for c in self.clans],
            self.destroyed,
            self.pillaged,
        )

    # -- events -----------------------------------------------------------------------------

    def apply(self, event: gp.Event) -> None:
        if event.WhichOneof("payload") != "blood_rage":
            return
        e = event.blood_rage
        kind = e.WhichOneof("kind")
        assert kind is not None
        self.applied[kind] += 1
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(getattr(e, kind))

    def _on_phase_started(self, e: br.PhaseStarted) -> None:
        if e.phase == br.PHASE_ACTION:  # every clan starts with its Rage stat
            for c in self.clans:
                c.rage = STAT_TRACK[0][c.steps[0] - 1]
        elif e.phase == br.PHASE_DRAFT:  # a new Age: the tokens turn back
            self.pillaged = [False] * len(self.pillaged)

    def _on_action_applied(self, e: br.ActionApplied) -> None:
        clan = self.clans[e.seat]
        a = e.action
        details = a.details
        clan.rage -= details.rage_cost
        kind = a.WhichOneof("kind")
        if kind in ("invade", "free_invade"):
            move = getattr(a, kind)
            clan.move(move.unit, (RESERVE, 0), (BOARD, move.area))
        elif kind == "invade_from_valhalla":
            clan.move(
                a.invade_from_valhalla.unit, (VALHALLA, 0), (BOARD, a.invade_from_valhalla.area)
            )
        elif kind == "march":
            m = a.march
            self.march = (m.from_area, m.to_area)
            clan.move(m.unit, (BOARD, m.from_area), (BOARD, m.to_area))
        elif kind == "march_more":
            assert self.march is not None, "more of a march that never began"
            if details.area != self.march[1]:
                raise Mismatch(f"a march to {self.march[1]} goes on to {details.area}")
            clan.move(a.march_more.unit, (BOARD, self.march[0]), (BOARD, self.march[1]))
        elif kind == "call_to_battle":
            c = a.call_to_battle
            clan.move(c.unit, (BOARD, c.from_area), (BOARD, details.area))
        elif kind == "move_leader":
            clan.move(br.UNIT_LEADER, None, (BOARD, a.move_leader.area))
        elif kind == "upgrade":
            if details.HasField("replaces") and details.replaces.card_id in MONSTER_OF:
                clan.remove(MONSTER_OF[details.replaces.card_id])
            monster = MONSTER_OF.get(details.card.card_id)
            if monster:
                clan.figures[(monster, RESERVE, 0)] += 1
        if kind not in ("march", "march_more"):
            self.march = None

    def _on_figures_destroyed(self, e: br.FiguresDestroyed) -> None:
        for d in e.destroyed:
            self.clans[d.seat].move(d.unit, (BOARD, d.area), (VALHALLA, 0))

    def _on_ragnarok(self, e: br.Ragnarok) -> None:
        for d in e.destroyed:
            self.clans[d.seat].move(d.unit, (BOARD, d.area), (VALHALLA, 0))
        index = e.province - 1
        self.destroyed[index] = True
        self.pillaged[index] = False

    def _on_figure_retreated(self, e: br.FigureRetreated) -> None:
        self.clans[e.seat].move(e.unit, (BOARD, e.from_area), (BOARD, e.to_area))

    def _on_valhalla_released(self, e: br.ValhallaReleased) -> None:
        for seat, count in enumerate(e.released):
            figures = self.clans[seat].figures
            dead = [f for f in figures if f[1] == VALHALLA]
            if sum(figures[f] for f in dead) != count:
                raise Mismatch(f"seat {seat} releases {count}, but Valhalla holds {dead}")
            for f in dead:
                figures[(f[0], RESERVE, 0)] += figures.pop(f)

    def _on_glory_changed(self, e: br.GloryChanged) -> None:
        clan = self.clans[e.seat]
        if clan.glory + e.delta != e.glory:
            raise Mismatch(f"Glory {clan.glory} {e.delta:+d} is not {e.glory}")
        if e.reason == br.GLORY_REASON_BATTLE:
            axes = STAT_TRACK[1][clan.steps[1] - 1]
            if e.delta != axes:
                raise Mismatch(f"a won battle gives {e.delta} Glory, but Axes stand at {axes}")
        if e.reason == br.GLORY_REASON_END_GAME:
            bonus = END_GAME_BONUS[clan.steps[e.stat - 1] - 1]
            if e.delta != bonus:
                raise Mismatch(f"the end-game bonus of stat {e.stat} is {bonus}, not {e.delta}")
        clan.glory = e.glory

    def _on_stat_changed(self, e: br.StatChanged) -> None:
        steps = self.clans[e.seat].steps
        index = e.level.stat - 1
        if steps[index] != e.previous_step or e.level.step != e.previous_step + 1:
            raise Mismatch(f"stat {e.level.stat} on step {steps[index]} changed as {e}")
        if STAT_TRACK[index][e.level.step - 1] != e.level.value:
            raise Mismatch(f"step {e.level.step} of stat {e.level.stat} is not {e.level.value}")
        steps[index] = e.level.step

    def _on_rage_changed(self, e: br.RageChanged) -> None:
        clan = self.clans[e.seat]
        if clan.rage + e.delta != e.rage:
            raise Mismatch(f"Rage {clan.rage} {e.delta:+d} is not {e.rage}")
        clan.rage = e.rage

    def _on_pillage_reward_taken(self, e: br.PillageRewardTaken) -> None:
        self.pillaged[e.province - 1] = True


# -- games that run every card text ----------------------------------------------------------


@contextmanager
def counted_card_texts() -> Iterator[Counter[tuple[str, str]]]:
    """Count every card text that runs, by (moment, card key), while the block lasts."""
    ran: Counter[tuple[str, str]] = Counter()
    saved = {moment: dict(table) for moment, table in HOOKS.items()}

    def counting(moment: str, key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def hook(*args: Any, **kwargs: Any) -> Any:
            ran[moment, key] += 1
            return fn(*args, **kwargs)

        return hook

    for moment, table in HOOKS.items():
        for key, fn in table.items():
            table[key] = counting(moment, key, fn)
    try:
        yield ran
    finally:
        for moment, table in saved.items():
            HOOKS[moment].clear()
            HOOKS[moment].update(table)


def rich_position(rng: random.Random, players: int) -> dict[str, Any]:
    """An Age 3 Action phase where every clan holds upgrades and cards of all three Ages (in
    the last Age: no draft is left to need them in its deck)."""
    pool = {age: [CARDS[i] for i in {c.index for c in map(card_of, deck_instances(age, players))}]
            for age in (1, 2, 3)}  # fmt: skip
    upgrades = [c for age in pool for c in pool[age] if c.type == CardType.UPGRADE]
    every = [c for age in pool for c in pool[age]]
    rng.shuffle(upgrades)
    taken: set[str] = set()
    ragnarok = rng.sample(OUTER_PROVINCES, 3)
    clans = []
    room = {
        p: v
        for p, v in zip(OUTER_PROVINCES, (3, 4, 5, 5, 4, 3, 3, 5), strict=True)
        if p not in ragnarok[:2]  # destroyed by the Ragnaröks of Ages 1 and 2
    }
    for _ in range(players):
        slots: Counter[int] = Counter()
        sheet = []
        limit = {Slot.LEADER: 1, Slot.WARRIOR: 1, Slot.SHIP: 1, Slot.MONSTER: 2, Slot.CLAN: 3}
        for card in upgrades:
            if card.id in taken or slots[card.slot] >= limit[card.slot] or rng.random() < 0.5:
                continue
            slots[card.slot] += 1
            taken.add(card.id)
            sheet.append(card)
        hand = [c for c in rng.sample(every, 5) if c.id not in taken]
        taken.update(c.id for c in hand)
        figures: dict[str, list[str]] = {}
        units = ["leader", "warrior", "warrior", "warrior"] + [
            c.key for c in sheet if c.slot == Slot.MONSTER and c.key != "sea_serpent"
        ]
        for unit in units[:5]:
            spots = [p for p, free in room.items() if free > 0]
            if not spots:
                break
            province = rng.choice(spots)
            room[province] -= 1
            figures.setdefault(AREA_NAMES[province], []).append(unit)
        ships = ["ship"] + [c.key for c in sheet if c.key == "sea_serpent"]
        for ship in ships:
            figures.setdefault(AREA_NAMES[rng.choice(FJORDS)], []).append(ship)
        clans.append(
            {
                "stats": {"rage": rng.randint(1, 3), "horns": 4, "axes": rng.randint(1, 3)},
                "glory": rng.randint(0, 6),
                "upgrades": [c.id for c in sheet],
                "hand": [c.id for c in hand],
                "figures": figures,
            }
        )
    return {
        "players": players,
        "seed": rng.randrange(2**32),
        "age": 3,
        "phase": "action",
        "turn": rng.randrange(players),
        "ragnarok": [AREA_NAMES[p] for p in ragnarok],
        "clans": clans,
    }
