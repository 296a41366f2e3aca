"""The Wintering Zone: Loading, leaving for a Homeland, and the voluntary return (F5.1-F5.3,
F8.4, F10.2b).

A ship in the Wintering Zone may Load (1 Day each) one crewmember from its owner's supply or
one goods token of any type from the general supply into a free slot of the current Age
(F5.1, F5.2); it must carry at least 1 crewmember before it stops Loading (F5.1b), and then it
moves at once, for free, to a Homeland of the player's choice (F5.3) — the only way out.

**Decision** (A9, F5.3): a ship that starts its turn in the Wintering Zone must leave it that
turn (ending a turn there is not offered), and while it has no crew aboard a goods token may
be loaded only if a slot and a Day remain for a crewmember afterwards, so that Loading can
always end legally.
"""

from __future__ import annotations

from engine.fire_and_axe import turns
from engine.fire_and_axe.actions import LEAVE, LOAD_CREW, LOAD_GOOD, Action
from engine.fire_and_axe.ids import DAYS_PER_TURN, ITEM_NAMES, WINTERING
from engine.fire_and_axe.state import GameState


def legal(state: GameState, seat: int, out: list[Action]) -> None:
    """Load and leave, for a ship in the Wintering Zone (appended to ``out``)."""
    p = state.seats[seat]
    free = state.capacity() - p.aboard()
    days_left = DAYS_PER_TURN - state.prep - state.sail
    if days_left > 0 and free > 0:
        if p.crew_supply > 0:
            out.append(LOAD_CREW)
        if p.crew > 0 or (free >= 2 and days_left >= 2 and p.crew_supply > 0):
            out.extend(LOAD_GOOD[g] for g in range(3) if state.supply[g] > 0)
    if p.crew > 0:
        out.extend(LEAVE[h] for h in state.board.homelands)


def load(state: GameState, seat: int, item: int) -> None:
    """F5.1: one item into one free slot, Preparation +1."""
    p = state.seats[seat]
    if item < 3:
        state.supply[item] -= 1
        p.cargo[item] += 1
    else:
        p.crew_supply -= 1
        p.crew += 1
    state.prep += 1
    state.emit(
        -1,
        {
            "type": "loaded",
            "seat": seat,
            "item": ITEM_NAMES[item],
            "preparation": state.prep,
            "days": state.prep + state.sail,
        },
    )


def leave(state: GameState, seat: int, homeland: int) -> None:
    """F5.3: to a Homeland, for free: not a Sail, so no weather check."""
    state.seats[seat].loc = homeland
    state.emit(-1, {"type": "left_wintering", "seat": seat, "homeland": homeland})


def voluntary_return(state: GameState, seat: int) -> int:
    """F8.4 / F10.2b: discard all goods and all crew but one, go to the Wintering Zone, and
    end the turn (0 Days)."""
    p = state.seats[seat]
    goods = p.cargo
    for g in range(3):
        state.supply[g] += goods[g]
    crew_home = p.crew - 1
    p.crew_supply += crew_home
    state.emit(
        -1,
        {
            "type": "returned",
            "seat": seat,
            "location": p.loc,
            "goods": list(goods),
            "crew": crew_home,
        },
    )
    p.cargo = [0, 0, 0]
    p.crew = 1
    p.loc = WINTERING
    return turns.VOLUNTARY
