"""What a decision costs and what it is about, in the state it is taken in.

An action names only what its seat chooses (``invade ship -> North fjord``); what it costs
and what it answers depend on the position: a ship costs 2 Rage, a warrior its upgrade's
STR, passing gives up all the Rage left, and a ``decline`` may refuse a Call to Battle or a
free invade. Views put these details beside each legal action, and a decision's event
carries them, so no frontend has to know the costs or read them from labels.
"""

from __future__ import annotations

from typing import Any

from engine.blood_rage.action_phase import SLOT_BASE, upgrade_cost
from engine.blood_rage.actions import Action, ActionKind, describe
from engine.blood_rage.card_effects import (
    CHALLENGE_RAGE,
    PROTECTION_RAGE,
    PROWESS_RAGE,
    THORS_DOMAIN_RAGE,
    VALHALLA_INVADE_RAGE,
)
from engine.blood_rage.cards import card_of, unit_display_name
from engine.blood_rage.figures import invade_cost, unit_fig
from engine.blood_rage.ids import AREA_NAMES, NUM_AREAS, Area, Step, Unit, monster_fig
from engine.blood_rage.state import EMPTY, GameState, Prompt, PromptKind

__all__ = ["choice_details", "choice_label", "offer_name"]

K = ActionKind
# Decisions that put one figure somewhere: (the unit's argument, the area's argument), by
# position in the action (1 = a, 2 = b, 3 = c); 0: the area is not in the action.
_PLACES: dict[int, tuple[int, int]] = {
    K.INVADE: (1, 2),
    K.FREE_INVADE: (1, 2),
    K.INVADE_FROM_VALHALLA: (1, 2),
    K.MARCH: (3, 2),
    K.MARCH_MORE: (1, 0),
    K.CALL_TO_BATTLE: (2, 0),
}


def offer_name(state: GameState) -> str:
    """What an ``accept`` or ``decline`` answers now: the open prompt's kind
    (``free_invade``, ``thors_domain``, …, as views name it), or ``call_to_battle``."""
    if state.prompts:
        return PromptKind(state.prompts[0].kind).name.lower()
    if state.step == Step.CALL_TO_BATTLE:
        return "call_to_battle"
    return ""


def _prompt(state: GameState) -> Prompt | None:
    return state.prompts[0] if state.prompts else None


def rage_cost(state: GameState, seat: int, action: Action) -> int:
    """The Rage ``action`` spends, as the rules take it (``flow.apply_unchecked``: a prompt's
    answer first, else the step's decision)."""
    kind = action[0]
    prompt = _prompt(state)
    if prompt is not None:
        if kind == K.SAVE_FIGURE:
            return PROTECTION_RAGE
        if kind == K.KEEP_REVEALED:
            return PROWESS_RAGE
        if kind == K.ACCEPT and prompt.kind == PromptKind.THORS_DOMAIN:
            return THORS_DOMAIN_RAGE if state.clans[seat].rage >= THORS_DOMAIN_RAGE else 0
        return 0
    if state.step != Step.ACTION:
        return 0
    if kind == K.INVADE:
        return invade_cost(state, seat, action[1])
    if kind == K.MARCH:
        return 1
    if kind == K.UPGRADE:
        return upgrade_cost(state, seat, action[1])
    if kind == K.PASS:
        return state.clans[seat].rage
    if kind == K.CHALLENGE:
        return CHALLENGE_RAGE
    if kind == K.INVADE_FROM_VALHALLA:
        return VALHALLA_INVADE_RAGE
    return 0


def _destination(state: GameState, action: Action, where: int) -> int:
    """Where a figure of ``action`` goes: its area argument, or the march's or battle's."""
    if where:
        return int(action[where])
    if action[0] == K.MARCH_MORE and state.march is not None:
        return state.march[1]
    if action[0] == K.CALL_TO_BATTLE and state.battle is not None:
        return state.battle.province
    return EMPTY


def _strength(state: GameState, seat: int, unit: int, area: int) -> int:
    """The STR one figure of ``unit`` has in ``area`` (a warrior alone: an upgrade may make
    two warriors together worth more)."""
    if unit == Unit.WARRIOR:
        return state.clans[seat].warrior_strength()[0]
    return state.figure_strength(seat, unit_fig(unit), area if 0 <= area < NUM_AREAS else 0)


def choice_details(state: GameState, seat: int, action: Action) -> dict[str, Any]:
    """What ``action`` of ``seat`` costs and is about, before it is applied: ``rage_cost``;
    ``unit``, ``area`` and ``strength`` of a figure it places or moves (``area`` also the
    province an accepted or declined offer concerns); ``card``, ``slot`` (``cards.Slot``)
    and ``replaces`` of an upgrade; ``offer`` for an accept or decline. Only the keys that
    apply are present."""
    out: dict[str, Any] = {}
    cost = rage_cost(state, seat, action)
    if cost:
        out["rage_cost"] = cost
    kind = action[0]
    place = _PLACES.get(kind)
    if place is not None:
        unit = int(action[place[0]])
        area = _destination(state, action, place[1])
        out["unit"] = unit
        if area >= 0:
            out["area"] = area
        out["strength"] = _strength(state, seat, unit, area)
    elif kind == K.MOVE_LEADER:
        out["unit"] = int(Unit.LEADER)
        out["area"] = int(action[1])
        out["strength"] = _strength(state, seat, Unit.LEADER, action[1])
    elif kind == K.UPGRADE:
        card = int(action[1])
        d = card_of(card)
        replaced = state.clans[seat].slots[SLOT_BASE[d.slot] + action[2]]
        out["card"] = card
        out["slot"] = int(d.slot)
        if replaced != EMPTY:
            out["replaces"] = replaced
    elif kind in (K.ACCEPT, K.DECLINE):
        out["offer"] = offer_name(state)
        prompt = _prompt(state)
        if prompt is None:
            battle = state.battle
            if battle is not None:
                out["area"] = battle.province
        elif prompt.kind in (PromptKind.THORS_DOMAIN, PromptKind.SUCCOR, PromptKind.BLESSING):
            out["area"] = prompt.a
        elif prompt.kind == PromptKind.FREE_INVADE:
            out["unit"] = prompt.a
        elif prompt.kind == PromptKind.WITCH_RETREAT:
            out["unit"] = int(Unit.VOLUR_WITCH)
            out["area"] = int(Area.YGGDRASIL)
    return out


def _area(area: int) -> str:
    return AREA_NAMES[area] if 0 <= area < NUM_AREAS else "?"


def choice_label(state: GameState, seat: int, action: Action) -> str:
    """The action described for its seat, saying what an ``accept`` or ``decline`` answers
    (the rules' ``describe`` says the rest)."""
    kind = action[0]
    if kind != K.ACCEPT and kind != K.DECLINE:
        return describe(action)
    accept = kind == K.ACCEPT
    prompt = _prompt(state)
    if prompt is None:
        battle = state.battle
        where = f" in {_area(battle.province)}" if battle is not None else ""
        return f"decline the Call to Battle{where}" if not accept else "accept"
    pk = prompt.kind
    if pk == PromptKind.THORS_DOMAIN:
        if accept:
            return f"Thor's Domain: pay {THORS_DOMAIN_RAGE} Rage to pillage {_area(prompt.a)} now"
        return f"decline Thor's Domain (do not pillage {_area(prompt.a)})"
    if pk == PromptKind.WITCH_RETREAT:
        here = _area(state.clans[prompt.seat].loc[monster_fig(Unit.VOLUR_WITCH)])
        if accept:
            return f"Volur Witch: retreat from {here} to Yggdrasil"
        return f"decline the Volur Witch's retreat (she stays in {here})"
    if accept:
        return "accept"
    if pk == PromptKind.FREE_INVADE:
        return f"decline the free invade (your {unit_display_name(prompt.a)} stays in reserve)"
    if pk == PromptKind.SUCCOR:
        return f"decline Frigga's Succor (no free warrior in {_area(prompt.a)})"
    if pk == PromptKind.BLESSING:
        return f"decline Loki's Blessing (no free warrior in {_area(prompt.a)})"
    if pk == PromptKind.LATE_CARD:
        return "play no card late"
    if pk == PromptKind.PROTECT:
        return "save no figure (Frigga's Protection)"
    if pk == PromptKind.PROWESS:
        return "keep no revealed card (Tyr's Prowess)"
    if pk == PromptKind.MOVE_LEADER:
        return "leave your leader where it is (Lord of Hammers)"
    return "decline"
