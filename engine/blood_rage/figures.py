"""Rules about figures that several phases share: where one may invade, what it costs,
destroying and releasing figures, raising stats."""

from __future__ import annotations

from typing import Final

from engine.blood_rage.board import FJORD_SUPPORTS, LAST_STEP
from engine.blood_rage.cards import MONSTER_CARD
from engine.blood_rage.effects import acts_at, fire_upgrades
from engine.blood_rage.ids import (
    FIG_LEADER,
    FIG_SHIP,
    FIG_UNIT,
    FIG_WARRIORS,
    FJORDS,
    OUTER_PROVINCES,
    RESERVE,
    Area,
    Unit,
    monster_fig,
)
from engine.blood_rage.state import EMPTY, GameState, is_ship

# The units and the area the hot paths compare ints with, as plain ints: compiled (make accel),
# a Final int is a C constant, where comparing an int with an IntEnum member is a generic Python
# comparison.
_LEADER: Final = int(Unit.LEADER)
_WARRIOR: Final = int(Unit.WARRIOR)
_SHIP: Final = int(Unit.SHIP)
_SEA_SERPENT: Final = int(Unit.SEA_SERPENT)
_YGGDRASIL: Final = int(Area.YGGDRASIL)


def unit_fig(unit: int) -> int:
    """The figure slot of a non-warrior unit."""
    if unit == _LEADER:
        return FIG_LEADER
    if unit == _SHIP:
        return FIG_SHIP
    return monster_fig(unit)


def reserve_figure(state: GameState, seat: int, unit: int) -> int:
    """A figure of that unit in the clan's reserve, or -1."""
    loc = state.clans[seat].loc
    if unit == _WARRIOR:
        for f in FIG_WARRIORS:
            if loc[f] == RESERVE:
                return f
        return -1
    f = unit_fig(unit)
    return f if loc[f] == RESERVE else -1


def reserve_units(state: GameState, seat: int) -> list[int]:
    """The distinct units a clan has in its reserve."""
    loc = state.clans[seat].loc
    units: list[int] = []
    if loc[FIG_LEADER] == RESERVE:
        units.append(_LEADER)
    for f in FIG_WARRIORS:
        if loc[f] == RESERVE:
            units.append(_WARRIOR)
            break
    if loc[FIG_SHIP] == RESERVE:
        units.append(_SHIP)
    for f in range(10, 19):
        if loc[f] == RESERVE:
            units.append(FIG_UNIT[f])
    return units


def invade_cost(state: GameState, seat: int, unit: int) -> int:
    """Rage to invade with a unit: its STR (leader 0), unless its card says otherwise."""
    if unit == _LEADER:
        return 0
    if unit == _WARRIOR:
        return state.clans[seat].warrior_strength()[0]
    if unit == _SHIP:
        return 2
    card = MONSTER_CARD[unit]
    return card.value if card.invade_cost < 0 else card.invade_cost


def invade_targets(state: GameState, unit: int) -> list[int]:
    """Areas a unit may invade: empty villages of live outer provinces, or live fjords."""
    if unit in (_SHIP, _SEA_SERPENT):
        destroyed = state.destroyed
        return [
            f
            for f in FJORDS
            if not (destroyed[FJORD_SUPPORTS[f][0]] and destroyed[FJORD_SUPPORTS[f][1]])
        ]
    out = [p for p in OUTER_PROVINCES if not state.destroyed[p] and state.free_villages(p) > 0]
    if unit >= 3 and MONSTER_CARD[unit].yggdrasil_str >= 0:
        # Dark Elf: may invade Yggdrasil directly, for its printed cost (cards.md decision).
        out.insert(0, _YGGDRASIL)
    return out


def can_invade_more(state: GameState, seat: int) -> bool:
    c = state.clans[seat]
    return c.on_board() < c.horns


def invade(state: GameState, seat: int, fig: int, area: int, source: str = "turn") -> None:
    """Place a figure (cost already paid) and fire invade effects.

    ``source`` tells effects where the invade comes from: ``"turn"`` (the clan's own action
    or an offer it made on its turn), ``"succor"`` (Frigga's Succor's own warrior, which does
    not trigger Succor again) or ``"battle"`` (an offer made while a battle resolves).
    """
    state.move_figure(seat, fig, area)
    if acts_at(state, seat, "on_invade"):
        fire_upgrades(state, seat, "on_invade", fig=fig, area=area, source=source)


def raise_stat(
    state: GameState, seat: int, stat: int, reason: str, *, card: int = EMPTY, area: int = EMPTY
) -> None:
    """One step up, recorded with why (``StatReason``; ``card`` the card whose text did it,
    ``area`` the province of a pillage reward): a frontend reads the Glory of a won battle
    against Axes as they stood, so the step is reported where it happens. A raise past the
    last step is lost (board.md) and reports nothing."""
    steps = state.clans[seat].steps
    old = steps[stat]
    if old < LAST_STEP:
        steps[stat] = old + 1
        if state.events is not None:
            state.events.append(
                (
                    -1,
                    {
                        "type": "stat",
                        "seat": seat,
                        "stat": stat,
                        "step": old + 1,  # step indexes 0-5, as ClanState.steps
                        "previous": old,
                        "reason": reason,
                        "card": card,
                        "area": area,
                    },
                )
            )


def movable_in(state: GameState, seat: int, province: int) -> list[int]:
    """Distinct units of a clan in a province that may march or answer a Call to Battle."""
    loc = state.clans[seat].loc
    units: list[int] = []
    for f in range(19):
        if loc[f] == province and not is_ship(f):
            u = FIG_UNIT[f]
            if u not in units:
                units.append(u)
    return units


def figure_of_unit_in(state: GameState, seat: int, unit: int, area: int) -> int:
    loc = state.clans[seat].loc
    if unit == _WARRIOR:
        for f in FIG_WARRIORS:
            if loc[f] == area:
                return f
        return -1
    f = unit_fig(unit)
    return f if loc[f] == area else -1
