"""Actions: one small immutable value per decision (fire-and-axe.md Appendix A, "Legal moves").

An action is a ``(kind, a, b, c)`` tuple of ints with a stable integer code (kind in the low 5
bits, then 8 bits each for a, b and c). Locations and Runes are the indices of the game's data
pack (``board.Board``), so the same code means the same decision in every game on that pack.

===============  ==========================================================  ===============
kind             a, b, c                                                     rule
===============  ==========================================================  ===============
LOAD_CREW        -                                                           F5.1
LOAD_GOOD        a = goods type                                              F5.1
LEAVE_WINTERING  a = the Homeland (location)                                 F5.3
DRAW_RUNE        -                                                           F5.4
SAIL             a = the adjacent location                                   F5.6
TRADE            a = goods type                                              F7.3
RAID             - (rolls the first die)                                     F7.4
RAID_AGAIN       - (rolls the next die after a failure)                      F7.4a
RAID_STOP        -                                                           F7.4b
SETTLE           a = number of dice                                          F7.5
CONVERT          - (the last crewmember becomes the Settlement)              F7.5b.5
DECLINE          - (keep the last crewmember aboard)                         F7.5b.5
LOSE             a = item (goods type, or ids.CREW)                          F6.4-F6.5
PLAY_RUNE        a = Rune, b = dial turn (0, 1 cw, 2 ccw), c = the choice    F8.1-F8.3
DISCARD_RUNE     a = Rune, b = dial turn                                     F8.1-F8.3
WINTER           - (voluntary return to the Wintering Zone)                  F8.4
END_TURN         - (declare the turn over)                                   F10.2c
PASS             - (play no more Runes in another player's turn)             A8
===============  ==========================================================  ===============
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from engine.fire_and_axe.ids import GOOD_NAMES, ITEM_NAMES


class ActionKind(IntEnum):
    LOAD_CREW = 0
    LOAD_GOOD = 1
    LEAVE_WINTERING = 2
    DRAW_RUNE = 3
    SAIL = 4
    TRADE = 5
    RAID = 6
    RAID_AGAIN = 7
    RAID_STOP = 8
    SETTLE = 9
    CONVERT = 10
    DECLINE = 11
    LOSE = 12
    PLAY_RUNE = 13
    DISCARD_RUNE = 14
    WINTER = 15
    END_TURN = 16
    PASS = 17


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


DIAL_TURN_NAMES = ("", "clockwise", "counter-clockwise")


def _named(names: tuple[str, ...], index: int, what: str) -> str:
    return names[index] if 0 <= index < len(names) else f"no {what} {index}"


def describe(
    action: Action,
    locations: tuple[str, ...] = (),
    runes: tuple[str, ...] = (),
) -> str:
    """A one-line text, e.g. ``sail -> Kiev``. Without the pack's ``locations`` and ``runes``
    names (``Rules.describe`` has no state) places and cards read as numbers.

    Total over any four ints: a refused action is described in its refusal."""
    k, a, b, c = action
    if k not in ActionKind._value2member_map_:
        return f"unknown action kind {k} ({a}, {b}, {c})"
    kind = ActionKind(k)

    def place(i: int) -> str:
        return locations[i] if 0 <= i < len(locations) else f"location #{i}"

    def rune(i: int) -> str:
        return runes[i] if 0 <= i < len(runes) else f"Rune #{i}"

    def dial(turn: int) -> str:
        if turn == 0:
            return ""
        return f", turning the dial {_named(DIAL_TURN_NAMES, turn, 'turn')}"

    if kind == ActionKind.LOAD_GOOD:
        return f"load {_named(GOOD_NAMES, a, 'goods type')}"
    if kind == ActionKind.LEAVE_WINTERING:
        return f"leave the Wintering Zone for {place(a)}"
    if kind == ActionKind.SAIL:
        return f"sail -> {place(a)}"
    if kind == ActionKind.TRADE:
        return f"trade {_named(GOOD_NAMES, a, 'goods type')}"
    if kind == ActionKind.SETTLE:
        return f"settle with {a} dice"
    if kind == ActionKind.LOSE:
        return f"lose {_named(ITEM_NAMES, a, 'item')}"
    if kind == ActionKind.PLAY_RUNE:
        return f"play {rune(a)}{dial(b)} (choice {c})"
    if kind == ActionKind.DISCARD_RUNE:
        return f"discard {rune(a)}{dial(b)}"
    return {
        ActionKind.LOAD_CREW: "load crew",
        ActionKind.DRAW_RUNE: "draw a Rune",
        ActionKind.RAID: "raid",
        ActionKind.RAID_AGAIN: "roll again",
        ActionKind.RAID_STOP: "stop raiding",
        ActionKind.CONVERT: "settle with the last crewmember",
        ActionKind.DECLINE: "keep the last crewmember aboard",
        ActionKind.WINTER: "return to the Wintering Zone",
        ActionKind.END_TURN: "end the turn",
        ActionKind.PASS: "pass",
    }[kind]


LOAD_CREW = Action(ActionKind.LOAD_CREW)
DRAW_RUNE = Action(ActionKind.DRAW_RUNE)
RAID = Action(ActionKind.RAID)
RAID_AGAIN = Action(ActionKind.RAID_AGAIN)
RAID_STOP = Action(ActionKind.RAID_STOP)
CONVERT = Action(ActionKind.CONVERT)
DECLINE = Action(ActionKind.DECLINE)
WINTER = Action(ActionKind.WINTER)
END_TURN = Action(ActionKind.END_TURN)
PASS = Action(ActionKind.PASS)
LOAD_GOOD = tuple(Action(ActionKind.LOAD_GOOD, g) for g in range(3))
TRADE = tuple(Action(ActionKind.TRADE, g) for g in range(3))
LOSE = tuple(Action(ActionKind.LOSE, i) for i in range(4))
SETTLE = tuple(Action(ActionKind.SETTLE, n) for n in range(4))  # SETTLE[n]: n dice
SAIL = tuple(Action(ActionKind.SAIL, loc) for loc in range(256))
LEAVE = tuple(Action(ActionKind.LEAVE_WINTERING, loc) for loc in range(256))
