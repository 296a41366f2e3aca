"""Phase 2 — Action: Invade, March, Upgrade, Quest, Pillage, Pass (blood-rage.md §5).

One action per turn, clockwise from the first player; 0-Rage clans are skipped; the phase
ends when every clan has 0 Rage or every live province has been pillaged this Age.
"""

from __future__ import annotations

from typing import Final

from engine.blood_rage import battle
from engine.blood_rage.actions import (
    DECLINE,
    INVADE_TABLE,
    MARCH_DONE,
    MARCH_MORE_ACTIONS,
    MARCH_TABLE,
    PASS,
    PILLAGE_ACTIONS,
    QUEST_ACTIONS,
    UPGRADE_TABLE,
    Action,
    ActionKind,
)
from engine.blood_rage.board import CLAN_SLOTS, MAX_MONSTERS, SUPPORTING_FJORDS
from engine.blood_rage.cards import CardType, Slot, card_of
from engine.blood_rage.effects import HOOKS, acts_at, modify_upgrades
from engine.blood_rage.figures import (
    can_invade_more,
    figure_of_unit_in,
    invade,
    invade_cost,
    invade_targets,
    movable_in,
    reserve_figure,
    reserve_units,
    unit_fig,
)
from engine.blood_rage.ids import (
    BOX,
    FIG_UNIT,
    NUM_AREAS,
    NUM_FIGS,
    PROVINCES,
    RESERVE,
    Phase,
    Step,
    Unit,
)
from engine.blood_rage.prompts import EXTRA_ACTIONS, register_prompt
from engine.blood_rage.state import (
    EMPTY,
    SLOT_CLANS,
    SLOT_LEADER,
    SLOT_MONSTERS,
    SLOT_SHIP,
    SLOT_WARRIOR,
    GameState,
    Prompt,
    PromptKind,
    is_ship,
)

SLOT_BASE: Final = {
    Slot.LEADER: SLOT_LEADER,
    Slot.WARRIOR: SLOT_WARRIOR,
    Slot.SHIP: SLOT_SHIP,
    Slot.MONSTER: SLOT_MONSTERS[0],
    Slot.CLAN: SLOT_CLANS[0],
}
SLOT_COUNT: Final = {
    Slot.LEADER: 1,
    Slot.WARRIOR: 1,
    Slot.SHIP: 1,
    Slot.MONSTER: MAX_MONSTERS,
    Slot.CLAN: CLAN_SLOTS,
}
# Upgrades that add actions to the Action phase: card key -> legal actions they add.
EXTRA_ACTION_HOOKS: Final = HOOKS.setdefault("extra_actions", {})
# The figure an upgrade lets its owner invade with for free right away.
UPGRADE_UNIT: Final = {Slot.LEADER: Unit.LEADER, Slot.WARRIOR: Unit.WARRIOR, Slot.SHIP: Unit.SHIP}


def start(state: GameState) -> None:
    state.phase = Phase.ACTION
    for c in state.clans:
        c.rage = c.stat(0)
    state.emit(-1, {"type": "phase", "age": state.age, "phase": "action"})
    state.turn = (state.first_player - 1) % state.players
    end_turn(state)


def phase_over(state: GameState) -> bool:
    if all(c.rage <= 0 for c in state.clans):
        return True
    return all(state.pillaged[p] or state.destroyed[p] for p in PROVINCES)


def end_turn(state: GameState) -> None:
    """Next clockwise clan with Rage acts, or the phase ends."""
    state.battle = None
    state.march = None
    state.march_moved = []
    if phase_over(state):
        state.step = Step.DISCARD_START
        return
    n = state.players
    seat = state.turn
    for _ in range(n):
        seat = (seat + 1) % n
        if state.clans[seat].rage > 0:
            break
    state.turn = seat
    state.step = Step.ACTION


def upgrade_cost(state: GameState, seat: int, card: int) -> int:
    cost = card_of(card).cost
    if not acts_at(state, seat, "upgrade_cost"):
        return max(0, cost)
    return max(0, modify_upgrades(state, seat, "upgrade_cost", cost, upgrade=card))


def upgrade_slots(state: GameState, seat: int, slot: Slot) -> list[int]:
    """Slot indexes worth offering: the first empty one, and every occupied one (replace)."""
    slots = state.clans[seat].slots
    base = SLOT_BASE[slot]
    out: list[int] = []
    empty_offered = False
    for i in range(SLOT_COUNT[slot]):
        if slots[base + i] == EMPTY:
            if not empty_offered:
                out.append(i)
                empty_offered = True
        else:
            out.append(i)
    return out


def legal(state: GameState, seat: int) -> list[Action]:
    c = state.clans[seat]
    rage = c.rage
    out: list[Action] = []
    if can_invade_more(state, seat):
        for unit in reserve_units(state, seat):
            if invade_cost(state, seat, unit) <= rage:
                invades = INVADE_TABLE[unit]
                for area in invade_targets(state, unit):
                    out.append(invades[area])
    # One pass over the clan's figures: units per province (for March) and presence.
    units_at: dict[int, list[int]] = {}
    here: set[int] = set()
    loc = c.loc
    for fig in range(NUM_FIGS):
        where = loc[fig]
        if where < NUM_AREAS:
            here.add(where)
            if where < 9 and not is_ship(fig):
                units = units_at.setdefault(where, [])
                unit = FIG_UNIT[fig]
                if unit not in units:
                    units.append(unit)
    if rage >= 1 and units_at:
        destinations = [
            p for p in PROVINCES if not state.destroyed[p] and state.free_villages(p) > 0
        ]
        for src, units in units_at.items():
            row = MARCH_TABLE[src]
            for dst in destinations:
                if dst != src:
                    cell = row[dst]
                    for unit in units:
                        out.append(cell[unit])
    for card in c.hand:
        d = card_of(card)
        if d.type == CardType.UPGRADE:
            if upgrade_cost(state, seat, card) <= rage:
                for i in upgrade_slots(state, seat, d.slot):
                    out.append(UPGRADE_TABLE[card][i])
        elif d.type == CardType.QUEST:
            out.append(QUEST_ACTIONS[card])
    if here:
        for p in PROVINCES:
            if (
                not state.destroyed[p]
                and not state.pillaged[p]
                and (p in here or any(f in here for f in SUPPORTING_FJORDS[p]))
            ):
                out.append(PILLAGE_ACTIONS[p])
    for inst in c.slots:
        if inst >= 0:
            fn = EXTRA_ACTION_HOOKS.get(card_of(inst).key)
            if fn is not None:
                out.extend(fn(state, seat, inst))
    out.append(PASS)
    return out


# The action kinds apply() compares with, as plain ints: compiled (make accel), a Final int is a
# C constant, where comparing an int with an IntEnum member is a generic Python comparison.
_INVADE: Final = int(ActionKind.INVADE)
_MARCH: Final = int(ActionKind.MARCH)
_UPGRADE: Final = int(ActionKind.UPGRADE)
_QUEST: Final = int(ActionKind.QUEST)
_PILLAGE: Final = int(ActionKind.PILLAGE)
_PASS: Final = int(ActionKind.PASS)
_FREE_INVADE: Final = int(ActionKind.FREE_INVADE)
_MARCH_DONE: Final = int(ActionKind.MARCH_DONE)


def apply(state: GameState, seat: int, action: Action) -> None:
    kind, a, b, c3 = action
    clan = state.clans[seat]
    if kind == _INVADE:
        clan.rage -= invade_cost(state, seat, a)
        invade(state, seat, reserve_figure(state, seat, a), b)
        state.step = Step.TURN_END
    elif kind == _MARCH:
        clan.rage -= 1
        state.move_figure(seat, figure_of_unit_in(state, seat, c3, a), b)
        state.march = (a, b)
        state.march_moved = [c3]
        state.step = Step.MARCH if march_options(state, seat) else Step.TURN_END
    elif kind == _UPGRADE:
        clan.rage -= upgrade_cost(state, seat, a)
        play_upgrade(state, seat, a, b)
        state.step = Step.TURN_END
    elif kind == _QUEST:
        clan.take_from_hand(a)
        clan.quests.append(a)
        state.step = Step.TURN_END
    elif kind == _PILLAGE:
        battle.begin(state, seat, a)
    elif kind == _PASS:
        clan.rage = 0
        state.step = Step.TURN_END
    else:  # an action an upgrade card adds (Tyr's Challenge, Frigga's Sacrifice, …)
        state.step = Step.TURN_END
        EXTRA_ACTIONS[kind](state, seat, action)


def play_upgrade(state: GameState, seat: int, card: int, index: int) -> None:
    """Put an upgrade on the clan sheet, replacing what was there; offer the free invade."""
    clan = state.clans[seat]
    d = card_of(card)
    clan.take_from_hand(card)
    slot = SLOT_BASE[d.slot] + index
    old = clan.slots[slot]
    if old != EMPTY:
        state.discard.append(old)
        old_def = card_of(old)
        if old_def.slot == Slot.MONSTER:
            # The replaced monster's figure leaves the game, wherever it was (cards.md).
            state.move_figure(seat, unit_fig(old_def.unit), BOX)
    clan.slots[slot] = card
    if d.slot == Slot.MONSTER:
        state.move_figure(seat, unit_fig(d.unit), RESERVE)
        unit = d.unit
    elif d.slot in UPGRADE_UNIT:
        unit = UPGRADE_UNIT[d.slot]
    else:
        return
    offer_free_invade(state, seat, unit)


def offer_free_invade(state: GameState, seat: int, unit: int) -> None:
    """Offer a free invade with that unit, if one is in reserve and Horns allow it."""
    if (
        reserve_figure(state, seat, unit) >= 0
        and can_invade_more(state, seat)
        and invade_targets(state, unit)
    ):
        state.prompts.append(Prompt(PromptKind.FREE_INVADE, seat, unit))


def _legal_free_invade(state: GameState, prompt: Prompt) -> list[Action]:
    out = [
        Action(ActionKind.FREE_INVADE, prompt.a, area) for area in invade_targets(state, prompt.a)
    ]
    out.append(DECLINE)
    return out


def _apply_free_invade(state: GameState, prompt: Prompt, action: Action) -> None:
    if action[0] == _FREE_INVADE:
        invade(state, prompt.seat, reserve_figure(state, prompt.seat, prompt.a), action[2])


register_prompt(PromptKind.FREE_INVADE, _legal_free_invade, _apply_free_invade)


def march_options(state: GameState, seat: int) -> list[Action]:
    """More figures that may follow the march under way: same origin, same destination."""
    assert state.march is not None
    src, dst = state.march
    if state.free_villages(dst) <= 0:
        return []
    return [MARCH_MORE_ACTIONS[u] for u in movable_in(state, seat, src)]


def legal_march(state: GameState, seat: int) -> list[Action]:
    return [*march_options(state, seat), MARCH_DONE]


def apply_march(state: GameState, seat: int, action: Action) -> None:
    if action[0] == _MARCH_DONE:
        state.step = Step.TURN_END
        return
    assert state.march is not None
    src, dst = state.march
    state.move_figure(seat, figure_of_unit_in(state, seat, action[1], src), dst)
    state.march_moved.append(action[1])
    if not march_options(state, seat):
        state.step = Step.TURN_END
