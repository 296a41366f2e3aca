"""Say *why* an action is illegal, in words a player understands ("Invade needs 2 Rage, you
have 1"), so that the API can answer a rejected action with a useful message."""

from __future__ import annotations

from engine.blood_rage.actions import Action, ActionKind, describe
from engine.blood_rage.cards import NUM_INSTANCES, card_of
from engine.blood_rage.figures import invade_cost, reserve_figure
from engine.blood_rage.ids import AREA_NAMES, NUM_UNITS, UNIT_NAMES, Step
from engine.blood_rage.state import GameState


def _kind_name(kind: int) -> str:
    try:
        return ActionKind(kind).name.lower()
    except ValueError:
        return f"unknown kind {kind}"


def why_illegal(state: GameState, seat: int, action: Action, legal: list[Action]) -> str:
    kind, a, b, _c = action
    kinds = sorted({x[0] for x in legal})
    if kind not in kinds:
        allowed = ", ".join(_kind_name(k) for k in kinds)
        step = Step(state.step).name
        return f"{_kind_name(kind)} is not possible now (step {step}); allowed: {allowed}"
    clan = state.clans[seat]
    if kind in (ActionKind.INVADE, ActionKind.FREE_INVADE):
        if not 0 <= a < NUM_UNITS:
            return f"no unit {a}"
        if reserve_figure(state, seat, a) < 0:
            return f"you have no {UNIT_NAMES[a]} in your reserve"
        if clan.on_board() >= clan.horns:
            return (
                f"your figures on the board ({clan.on_board()}) already equal "
                f"your Horns ({clan.horns})"
            )
        cost = invade_cost(state, seat, a)
        if kind == ActionKind.INVADE and cost > clan.rage:
            return f"Invade with a {UNIT_NAMES[a]} needs {cost} Rage, you have {clan.rage}"
        if not 0 <= b < len(AREA_NAMES) - 3:
            return f"no area {b}"
        return (
            f"a {UNIT_NAMES[a]} cannot invade {AREA_NAMES[b]} "
            "(destroyed, full or the wrong kind of area)"
        )
    if kind in (
        ActionKind.UPGRADE,
        ActionKind.QUEST,
        ActionKind.BATTLE_CARD,
        ActionKind.KEEP_CARD,
        ActionKind.DRAFT_PICK,
    ):
        if not 0 <= a < NUM_INSTANCES:
            return f"no card #{a}"
        where = "pack" if kind == ActionKind.DRAFT_PICK else "hand"
        pool = state.packs[seat] if kind == ActionKind.DRAFT_PICK else clan.hand
        if a not in pool:
            return f"{card_of(a).name} [#{a}] is not in your {where}"
        if kind == ActionKind.UPGRADE:
            return (
                f"{card_of(a).name} cannot go to slot {b + 1}, "
                f"or you lack the Rage for it (you have {clan.rage})"
            )
        return f"{card_of(a).name} cannot be played as {_kind_name(kind)}"
    if kind == ActionKind.MARCH and clan.rage < 1:
        return "March needs 1 Rage, you have 0"
    if kind == ActionKind.PILLAGE and 0 <= a < 9:
        if state.destroyed[a]:
            return f"{AREA_NAMES[a]} is destroyed"
        if state.pillaged[a]:
            return f"{AREA_NAMES[a]} was already pillaged this Age"
        return f"you have no figure in {AREA_NAMES[a]} or a fjord supporting it"
    return f"{describe(action)} is not a legal choice now"
