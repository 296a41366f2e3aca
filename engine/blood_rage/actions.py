"""Actions: one small immutable value per decision a player takes.

An action is a ``(kind, a, b, c)`` tuple of ints: cheap to build, hash and compare in the hot
path, with a stable integer code for bots and ML and a readable text form. What ``a``, ``b`` and
``c`` mean depends on the kind (see ``ActionKind``).
"""

from __future__ import annotations

from enum import IntEnum
from functools import lru_cache
from typing import Final, NamedTuple

from engine.blood_rage.cards import NUM_INSTANCES, card_of, unit_display_name
from engine.blood_rage.ids import AREA_NAMES, STAT_NAMES


class ActionKind(IntEnum):
    DRAFT_PICK = 0  # a=card: keep this card of the pack
    PASS = 1  # give up the rest of your Rage
    INVADE = 2  # a=unit b=area
    MARCH = 3  # a=from b=to c=unit: start a march with one figure
    MARCH_MORE = 4  # a=unit: one more figure of the ongoing march
    MARCH_DONE = 5
    UPGRADE = 6  # a=card b=slot index (0 for single slots)
    QUEST = 7  # a=card
    PILLAGE = 8  # a=province
    FREE_INVADE = 9  # a=unit b=area: the free invade offered by an effect
    DECLINE = 10  # decline an optional offer or a Call to Battle
    CALL_TO_BATTLE = 11  # a=from b=unit: move one figure into the battle
    BATTLE_CARD = 12  # a=card
    KEEP_CARD = 13  # a=card: keep it for the next Age
    KEEP_NONE = 14
    RAISE_STAT = 15  # a=stat
    # Choices that card texts create (cards.md):
    LATE_CARD = 16  # a=card: play Heimdall's Eye / Gaze after the reveal
    SAVE_FIGURE = 17  # a=unit b=area: Frigga's Protection, pay 1 Rage to save that figure
    ACCEPT = 18  # yes to the optional offer the prompt describes (Volur Witch, Thor's Domain…)
    KEEP_REVEALED = 19  # a=card: Tyr's Prowess, keep a revealed card for 1 Rage
    KEEP_FIGURE = 20  # a=unit b=area: Odin's Tide, the one figure you keep
    MOVE_LEADER = 21  # a=area: Lord of Hammers, move the leader to an adjacent province
    CHALLENGE = 22  # a=province: Tyr's Challenge, pay 2 Rage to pillage it again
    SACRIFICE = 23  # a=unit b=area: Frigga's Sacrifice, destroy this figure of yours
    INVADE_FROM_VALHALLA = 24  # a=unit b=area: Frigga's Domain, 1 Rage


class Action(NamedTuple):
    kind: int
    a: int = 0
    b: int = 0
    c: int = 0

    def code(self) -> int:
        """A stable non-negative integer for this action (kind in the low 5 bits)."""
        return self.kind | (self.a << 5) | (self.b << 13) | (self.c << 21)

    @staticmethod
    def from_code(code: int) -> Action:
        return Action(code & 31, (code >> 5) & 255, (code >> 13) & 255, (code >> 21) & 255)

    def __str__(self) -> str:
        return describe(self)


def _card(instance: int) -> str:
    if 0 <= instance < NUM_INSTANCES:
        return f"{card_of(instance).name} [#{instance}]"
    return f"no card #{instance}"


def _named(names: tuple[str, ...], index: int, what: str) -> str:
    return names[index] if 0 <= index < len(names) else f"no {what} {index}"


def _unit(index: int) -> str:
    return unit_display_name(index)


def _area(index: int) -> str:
    return _named(AREA_NAMES, index, "area")


@lru_cache(maxsize=8192)
def describe(action: Action) -> str:
    """A one-line human description, e.g. ``invade warrior -> Elvagar`` (cached: every
    applied action is described for the event log, and games repeat the same few hundred).

    Total over any four ints: a refused action is described in its refusal, and a client may
    send numbers that name no card, area or unit (they read as ``no area 200``)."""
    k, a, b, c = action
    if k not in ActionKind._value2member_map_:
        return f"unknown action kind {k} ({a}, {b}, {c})"
    kind = ActionKind(k)
    if kind in (
        ActionKind.DRAFT_PICK,
        ActionKind.QUEST,
        ActionKind.BATTLE_CARD,
        ActionKind.KEEP_CARD,
    ):
        verb = {
            ActionKind.DRAFT_PICK: "pick",
            ActionKind.QUEST: "commit quest",
            ActionKind.BATTLE_CARD: "play",
            ActionKind.KEEP_CARD: "keep",
        }[kind]
        return f"{verb} {_card(a)}"
    if kind in (ActionKind.INVADE, ActionKind.FREE_INVADE):
        free = "free " if kind == ActionKind.FREE_INVADE else ""
        return f"{free}invade {_unit(a)} -> {_area(b)}"
    if kind == ActionKind.MARCH:
        return f"march {_unit(c)} {_area(a)} -> {_area(b)}"
    if kind == ActionKind.MARCH_MORE:
        return f"march another {_unit(a)}"
    if kind == ActionKind.UPGRADE:
        return f"upgrade {_card(a)} (slot {b + 1})"
    if kind == ActionKind.PILLAGE:
        return f"pillage {_area(a)}"
    if kind == ActionKind.CALL_TO_BATTLE:
        return f"call {_unit(b)} from {_area(a)} to battle"
    if kind == ActionKind.RAISE_STAT:
        return f"raise {_named(STAT_NAMES, a, 'stat')}"
    if kind == ActionKind.LATE_CARD:
        return f"play {_card(a)} late"
    if kind == ActionKind.KEEP_REVEALED:
        return f"keep {_card(a)} for 1 Rage"
    if kind == ActionKind.SAVE_FIGURE:
        return f"pay 1 Rage to save {_unit(a)} in {_area(b)}"
    if kind == ActionKind.KEEP_FIGURE:
        return f"keep {_unit(a)} in {_area(b)}"
    if kind == ActionKind.SACRIFICE:
        return f"sacrifice {_unit(a)} in {_area(b)}"
    if kind == ActionKind.INVADE_FROM_VALHALLA:
        return f"invade {_unit(a)} from Valhalla -> {_area(b)}"
    if kind == ActionKind.MOVE_LEADER:
        return f"move leader to {_area(a)}"
    if kind == ActionKind.CHALLENGE:
        return f"Tyr's Challenge: pillage {_area(a)} again"
    return {
        ActionKind.PASS: "pass",
        ActionKind.MARCH_DONE: "end march",
        ActionKind.DECLINE: "decline",
        ActionKind.KEEP_NONE: "keep no card",
        ActionKind.ACCEPT: "accept",
    }[kind]


PASS: Final = Action(ActionKind.PASS)
MARCH_DONE: Final = Action(ActionKind.MARCH_DONE)
DECLINE: Final = Action(ActionKind.DECLINE)
KEEP_NONE: Final = Action(ActionKind.KEEP_NONE)


def _table3(kind: int, na: int, nb: int, nc: int) -> list[list[list[Action]]]:
    return [[[Action(kind, a, b, c) for c in range(nc)] for b in range(nb)] for a in range(na)]


# Prebuilt actions for the kinds the Action phase lists by the hundred, so legal-action
# generation indexes a table instead of allocating (actions are immutable, so sharing is safe).
MARCH_TABLE: Final = _table3(ActionKind.MARCH, 9, 9, 12)  # [from][to][unit]
INVADE_TABLE: Final = [[Action(ActionKind.INVADE, u, a) for a in range(13)] for u in range(12)]
CARD_ACTIONS: Final = {
    kind: [Action(kind, i) for i in range(NUM_INSTANCES)]
    for kind in (
        ActionKind.DRAFT_PICK,
        ActionKind.BATTLE_CARD,
        ActionKind.QUEST,
        ActionKind.KEEP_CARD,
    )
}
# The same for the kinds every Action phase, battle and march lists: no NamedTuple is built
# while listing (in the compiled build that runs interpreted code, its ``__new__``).
QUEST_ACTIONS: Final = CARD_ACTIONS[ActionKind.QUEST]
KEEP_ACTIONS: Final = CARD_ACTIONS[ActionKind.KEEP_CARD]
UPGRADE_TABLE: Final = [
    [Action(ActionKind.UPGRADE, card, slot) for slot in range(3)] for card in range(NUM_INSTANCES)
]  # [card][slot index]
PILLAGE_ACTIONS: Final = [Action(ActionKind.PILLAGE, p) for p in range(9)]
CALL_TABLE: Final = [
    [Action(ActionKind.CALL_TO_BATTLE, area, unit) for unit in range(12)] for area in range(13)
]  # [from][unit]
MARCH_MORE_ACTIONS: Final = [Action(ActionKind.MARCH_MORE, unit) for unit in range(12)]
