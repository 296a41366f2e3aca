"""Tasks: Trade, Raid and Settle, at the port the ship is in, 0 Days each (F7).

At most one Task per port per turn, successful or not (F7.2; A1: a hard limit, also after
leaving and coming back). Raid and Settle roll d6 against the port's effective value: its
printed value, less 1 while a goods token lies there (F7.2a); a die succeeds when it is
*greater* than that value (F7.4a, F7.5b).

**Option** ``settle_region_block`` (A2, F7.5a): ``"all"`` (default, the literal reading) blocks
a Settle only while *every* other port of the region has a town; ``"any"`` blocks it while
*any* other port of the region has one. Independent and large ports have no region condition.
"""

from __future__ import annotations

from engine.fire_and_axe import turns
from engine.fire_and_axe.actions import RAID, SETTLE, TRADE, Action
from engine.fire_and_axe.ids import (
    CREW,
    CREW_PER_PLAYER,
    DEMAND_BONUS,
    GOOD_NAMES,
    ITEM_NAMES,
    MAX_ATTACK_ROLLS,
)
from engine.fire_and_axe.state import NONE, GameState, Step


def effective_value(state: GameState, port: int) -> int:
    """F7.2a: the printed value, less 1 if the port holds a goods token (whoever put it)."""
    return state.board.value[port] - (1 if state.goods[port] != NONE else 0)


def region_allows_settling(state: GameState, port: int) -> bool:
    """F7.5a under the game's option (A2); always true for independent and large ports."""
    others = state.board.region_others[port]
    if not others:
        return True
    towns = [state.town[q] != 0 for q in others]
    return not any(towns) if state.settle_any else not all(towns)


def can_trade(state: GameState, port: int, good: int) -> bool:
    """F7.3.3-4: no token at the port yet, and none of that type elsewhere in its region."""
    goods = state.goods
    if goods[port] != NONE:
        return False
    return all(goods[q] != good for q in state.board.region_others[port])


def legal(state: GameState, seat: int, out: list[Action]) -> None:
    """The Tasks of a ship in a port (appended to ``out``)."""
    p = state.seats[seat]
    port = p.loc
    if port in state.tasks_done:  # F7.2
        return
    for g in range(3):
        if p.cargo[g] and can_trade(state, port, g):
            out.append(TRADE[g])
    if state.town[port]:
        out.append(RAID)
    elif state.settler[port] == NONE and region_allows_settling(state, port):
        out.extend(SETTLE[n] for n in range(1, min(p.crew, MAX_ATTACK_ROLLS) + 1))


def trade(state: GameState, seat: int, good: int) -> None:
    """F7.3a: the token goes to the port; VP = the printed value, +2 if it is in demand."""
    p = state.seats[seat]
    port = p.loc
    state.tasks_done.append(port)
    p.cargo[good] -= 1
    state.goods[port] = good
    value = state.board.value[port]
    in_demand = good == state.demand
    state.emit(
        -1,
        {
            "type": "traded",
            "seat": seat,
            "port": port,
            "good": GOOD_NAMES[good],
            "value": value,
            "in_demand": in_demand,
        },
    )
    state.gain_vp(seat, value, "trade", port=port, good=GOOD_NAMES[good])
    if in_demand:
        state.gain_vp(seat, DEMAND_BONUS, "demand", port=port, good=GOOD_NAMES[good])


def _crew_home(state: GameState, seat: int, cause: str) -> None:
    """A failed attack die: 1 crewmember from the ship back to its owner's supply."""
    p = state.seats[seat]
    p.crew -= 1
    p.crew_supply += 1
    state.emit(
        -1,
        {
            "type": "item_lost",
            "seat": seat,
            "item": ITEM_NAMES[CREW],
            "cause": cause,
        },
    )


def _end_attack(state: GameState) -> None:
    state.attack_port = NONE
    state.raid_rolls = 0
    state.attack_bonus = 0
    state.step = Step.MAIN


def raid(state: GameState, seat: int) -> int:
    """F7.4: start a Raid at the ship's port (it counts as the port's Task) and roll."""
    port = state.seats[seat].loc
    state.tasks_done.append(port)
    state.attack_port = port
    state.raid_rolls = 0
    return raid_roll(state, seat)


def raid_roll(state: GameState, seat: int) -> int:
    """F7.4a: one die; greater than the effective value takes the town and its treasure;
    otherwise 1 crewmember goes home and, crew and rolls (3 in all) permitting, the player
    may roll again."""
    port = state.attack_port
    target = effective_value(state, port)
    die = state.roll()
    state.raid_rolls += 1
    success = die + state.attack_bonus > target
    state.emit(
        -1,
        {
            "type": "raid_roll",
            "seat": seat,
            "port": port,
            "roll": die,
            "bonus": state.attack_bonus,
            "target": target,
            "success": success,
            "attempt": state.raid_rolls,
        },
    )
    if success:
        p = state.seats[seat]
        size = state.town[port]
        state.town[port] = 0
        p.towns.append(port)
        treasure = state.treasure[port]
        state.emit(
            -1,
            {
                "type": "town_taken",
                "seat": seat,
                "port": port,
                "size": "large" if size == 3 else "small",
                "treasure": treasure,
            },
        )
        state.gain_vp(seat, treasure, "treasure", port=port)
        _end_attack(state)
        return turns.GOES_ON
    _crew_home(state, seat, "raid")
    if state.seats[seat].crew == 0:
        _end_attack(state)
        return turns.ship_lost(state, seat, "raid")
    if state.raid_rolls < MAX_ATTACK_ROLLS:
        state.step = Step.RAID_AGAIN
    else:
        _end_attack(state)
    return turns.GOES_ON


def raid_stop(state: GameState, seat: int) -> None:
    """F7.4b: the player need not roll again."""
    state.emit(-1, {"type": "raid_stopped", "seat": seat, "port": state.attack_port})
    _end_attack(state)


def settle(state: GameState, seat: int, dice: int) -> int:
    """F7.5b: roll ``dice`` dice together; each that does not exceed the effective value
    sends 1 crewmember home; then, if any exceeded it, 1 crewmember becomes the Settlement
    (asked first when it is the last one aboard, F7.5b.5)."""
    p = state.seats[seat]
    port = p.loc
    state.tasks_done.append(port)
    target = effective_value(state, port)
    bonus = state.attack_bonus
    rolls = [state.roll() for _ in range(dice)]
    failures = sum(1 for d in rolls if d + bonus <= target)
    state.emit(
        -1,
        {
            "type": "settle_roll",
            "seat": seat,
            "port": port,
            "dice": rolls,
            "bonus": bonus,
            "target": target,
            "failures": failures,
            "success": failures < dice,
        },
    )
    for _ in range(failures):
        _crew_home(state, seat, "settle")
    _end_attack(state)
    if failures == dice:
        # No die succeeded; the dice never outnumber the crew, so someone is left unless
        # every die failed and took the last crewmember with it.
        return turns.ship_lost(state, seat, "settle") if p.crew == 0 else turns.GOES_ON
    if p.crew >= 2:
        found(state, seat, port)
        return turns.GOES_ON
    state.attack_port = port
    state.step = Step.SETTLE_CONVERT
    return turns.GOES_ON


def found(state: GameState, seat: int, port: int) -> None:
    """A crewmember from the ship becomes the Settlement at ``port`` for good (F7.5b.4)."""
    p = state.seats[seat]
    p.crew -= 1
    p.settlements += 1
    state.settler[port] = seat
    state.emit(
        -1,
        {
            "type": "settled",
            "seat": seat,
            "port": port,
            "settlements": p.settlements,
            "left": CREW_PER_PLAYER - p.settlements,
        },
    )


def convert(state: GameState, seat: int) -> int:
    """F7.5b.5-6: the last crewmember becomes the Settlement, and the empty ship goes home."""
    port = state.attack_port
    _end_attack(state)
    found(state, seat, port)
    return turns.ship_lost(state, seat, "settled")


def decline(state: GameState, seat: int) -> None:
    """F7.5b.5: keep the last crewmember aboard; the port is not settled."""
    state.emit(-1, {"type": "settle_declined", "seat": seat, "port": state.attack_port})
    _end_attack(state)
