"""What each kind of Rune effect does (the vocabulary is declared in ``effect_kinds``).

Each kind is two small functions keyed by its name: ``choices`` lists what the player may
choose when playing it now (``[0]`` when there is nothing to choose; an empty list makes the
card unplayable now, though it may still be discarded), and ``apply`` carries it out. Effects
never end a turn: the ones that take crew always leave one aboard (F9.2).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.fire_and_axe import runes_deck, weather
from engine.fire_and_axe.data_pack import Effect
from engine.fire_and_axe.effect_kinds import EFFECT_KINDS
from engine.fire_and_axe.ids import CREW, GOOD_NAMES, HAND_LIMIT, ITEM_NAMES, WINTERING
from engine.fire_and_axe.state import GameState

Choices = Callable[[GameState, int, Effect], list[int]]
Apply = Callable[[GameState, int, Effect, int], None]

_ONE = [0]


def _always(state: GameState, seat: int, effect: Effect) -> list[int]:
    return _ONE


def _at_sea(state: GameState, seat: int, effect: Effect) -> list[int]:
    """Effects that put things aboard act on a ship on the map, never in the Wintering Zone
    (where Loading is the only way aboard, F5.1)."""
    return _ONE if state.seats[seat].loc != WINTERING else []


def _event(state: GameState, seat: int, effect: str, **details: object) -> None:
    if state.events is not None:
        state.events.append(
            (-1, {"type": "rune_effect", "seat": seat, "effect": effect, **details})
        )


# -- change_demand (F8.3a) -----------------------------------------------------------------


def _demand_choices(state: GameState, seat: int, effect: Effect) -> list[int]:
    return [g for g in range(3) if g != state.demand and state.supply[g] > 0]


def _change_demand(state: GameState, seat: int, effect: Effect, good: int) -> None:
    old = state.demand
    state.supply[old] += 1
    state.supply[good] -= 1
    state.demand = good
    state.emit(
        -1,
        {
            "type": "demand_changed",
            "seat": seat,
            "old": GOOD_NAMES[old],
            "new": GOOD_NAMES[good],
        },
    )


# -- turn_dial (F6.1, F8.2) ------------------------------------------------------------------


def _direction_choices(state: GameState, seat: int, effect: Effect) -> list[int]:
    return [1] if effect.number("quarters") == 2 else [1, 2]


def _turn_dial(state: GameState, seat: int, effect: Effect, direction: int) -> None:
    quarters = effect.number("quarters")
    weather.turn_dial(state, seat, quarters if direction == 1 else -quarters, "rune")


# -- days_back (F4.3) ------------------------------------------------------------------------


def _days_back(state: GameState, seat: int, effect: Effect, choice: int) -> None:
    days = effect.number("days")
    if effect.get("marker") == "sailing":
        state.sail = max(0, state.sail - days)
    else:
        state.prep = max(0, state.prep - days)
    _event(state, seat, "days_back", preparation=state.prep, sailing=state.sail)


# -- recover_crew, gain_goods (F5.2, F9.1) ---------------------------------------------------


def _free(state: GameState, seat: int) -> int:
    return max(0, state.capacity() - state.seats[seat].aboard())


def _recover_crew(state: GameState, seat: int, effect: Effect, choice: int) -> None:
    p = state.seats[seat]
    k = min(effect.number("amount"), p.crew_supply, _free(state, seat))
    p.crew_supply -= k
    p.crew += k
    _event(state, seat, "recover_crew", crew=k)


def _goods_choices(state: GameState, seat: int, effect: Effect) -> list[int]:
    if state.seats[seat].loc == WINTERING:
        return []
    return [g for g in range(3) if state.supply[g] > 0]


def _gain_goods(state: GameState, seat: int, effect: Effect, good: int) -> None:
    k = min(effect.number("amount"), state.supply[good], _free(state, seat))
    state.supply[good] -= k
    state.seats[seat].cargo[good] += k
    _event(state, seat, "gain_goods", good=GOOD_NAMES[good], goods=k)


# -- opponent_loses_crew, opponent_loses_goods (F9.1, F9.2) ----------------------------------


def _crew_targets(state: GameState, seat: int, effect: Effect) -> list[int]:
    return [
        s for s, p in enumerate(state.seats) if s != seat and p.loc != WINTERING and p.crew >= 2
    ]


def _opponent_loses_crew(state: GameState, seat: int, effect: Effect, target: int) -> None:
    p = state.seats[target]
    k = min(effect.number("amount"), p.crew - 1)
    p.crew -= k
    p.crew_supply += k
    _event(state, seat, "opponent_loses_crew", target=target, crew=k)


def _goods_targets(state: GameState, seat: int, effect: Effect) -> list[int]:
    return [
        s * 4 + g
        for s, p in enumerate(state.seats)
        if s != seat and p.loc != WINTERING
        for g in range(3)
        if p.cargo[g]
    ]


def _opponent_loses_goods(state: GameState, seat: int, effect: Effect, choice: int) -> None:
    target, good = divmod(choice, 4)
    p = state.seats[target]
    k = min(effect.number("amount"), p.cargo[good])
    p.cargo[good] -= k
    state.supply[good] += k
    _event(state, seat, "opponent_loses_goods", target=target, good=GOOD_NAMES[good], goods=k)


# -- attack_bonus (F7.4c) --------------------------------------------------------------------


def _attack_bonus(state: GameState, seat: int, effect: Effect, choice: int) -> None:
    state.attack_bonus += effect.number("amount")
    _event(state, seat, "attack_bonus", bonus=state.attack_bonus)


# -- extra_task (F7.2) -----------------------------------------------------------------------


def _extra_task_choices(state: GameState, seat: int, effect: Effect) -> list[int]:
    """Playable after a Task at the ship's port this turn: it allows one more there."""
    return _ONE if state.seats[seat].loc in state.tasks_done else []


def _extra_task(state: GameState, seat: int, effect: Effect, choice: int) -> None:
    port = state.seats[seat].loc
    state.tasks_done.remove(port)
    _event(state, seat, "extra_task", port=port)


# -- gain_vp (F13.1) -------------------------------------------------------------------------


def _gain_vp(state: GameState, seat: int, effect: Effect, choice: int) -> None:
    state.gain_vp(seat, effect.number("amount"), "rune")


# -- draw_runes (F5.4, F5.5) -----------------------------------------------------------------


def _draw_runes(state: GameState, seat: int, effect: Effect, choice: int) -> None:
    drawn = 0
    for _ in range(effect.number("amount")):
        if len(state.seats[seat].hand) >= HAND_LIMIT or not runes_deck.draw_one(state, seat):
            break
        drawn += 1
    _event(state, seat, "draw_runes", drawn=drawn)


# -- recover_losses (F6.4, F6.6) -------------------------------------------------------------


def _recover_losses(state: GameState, seat: int, effect: Effect, choice: int) -> None:
    p = state.seats[seat]
    back = [0, 0, 0, 0]
    for item in (CREW, 0, 1, 2):
        k = min(state.chart[item], _free(state, seat))
        state.chart[item] -= k
        back[item] = k
        if item == CREW:
            p.crew += k
        else:
            p.cargo[item] += k
    _event(state, seat, "recover_losses", items={ITEM_NAMES[i]: back[i] for i in range(4)})


# -- calm_weather (F6.3) ---------------------------------------------------------------------


def _calm(state: GameState, seat: int, effect: Effect, choice: int) -> None:
    state.calm = True
    _event(state, seat, "calm_weather")


EFFECTS: dict[str, tuple[Choices, Apply]] = {
    "change_demand": (_demand_choices, _change_demand),
    "turn_dial": (_direction_choices, _turn_dial),
    "days_back": (_always, _days_back),
    "recover_crew": (_at_sea, _recover_crew),
    "gain_goods": (_goods_choices, _gain_goods),
    "opponent_loses_crew": (_crew_targets, _opponent_loses_crew),
    "opponent_loses_goods": (_goods_targets, _opponent_loses_goods),
    "attack_bonus": (_always, _attack_bonus),
    "extra_task": (_extra_task_choices, _extra_task),
    "gain_vp": (_always, _gain_vp),
    "draw_runes": (_always, _draw_runes),
    "recover_losses": (_always, _recover_losses),
    "calm_weather": (_always, _calm),
}

assert set(EFFECTS) == set(EFFECT_KINDS), "every effect kind needs its implementation"
