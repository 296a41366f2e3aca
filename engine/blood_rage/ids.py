"""Typed integer ids for everything the rules talk about.

The hot paths of the engine handle plain ints; these IntEnums give them names for
readers, views and error messages (python-chess style: ``Square = int`` plus name tables).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final


class Area(IntEnum):
    """Provinces (0–8) and fjords (9–12). Yggdrasil is the centre; the ring runs clockwise."""

    YGGDRASIL = 0
    MYRKULOR = 1
    ELVAGAR = 2
    ANGERBODA = 3
    MUSPELHEIM = 4
    HORGR = 5
    UTGARD = 6
    ANDLANG = 7
    GIMLE = 8
    NORTH_FJORD = 9
    EAST_FJORD = 10
    SOUTH_FJORD = 11
    WEST_FJORD = 12


# Locations a figure can be in besides an area.
RESERVE: Final = 13
VALHALLA: Final = 14
BOX: Final = 15  # not in the game (a monster nobody has, or one whose card was replaced)

NUM_AREAS: Final = 13
PROVINCES: Final[tuple[int, ...]] = tuple(range(9))
OUTER_PROVINCES: Final[tuple[int, ...]] = tuple(range(1, 9))
FJORDS: Final[tuple[int, ...]] = (9, 10, 11, 12)


class Unit(IntEnum):
    """Kinds of figure. Monsters are figures whose STR and abilities come from their card."""

    LEADER = 0
    WARRIOR = 1
    SHIP = 2
    TROLL = 3
    DWARF_CHIEFTAIN = 4
    SEA_SERPENT = 5
    VALKYRIE = 6
    DARK_ELF = 7
    FIRE_GIANT = 8
    FROST_GIANT = 9
    SOLDIER_OF_HEL = 10
    VOLUR_WITCH = 11


NUM_UNITS: Final = 12

# Each clan owns 19 figure slots: 0 leader, 1–8 warriors, 9 ship, 10–18 one per monster kind.
FIG_LEADER: Final = 0
FIG_WARRIORS: Final[tuple[int, ...]] = tuple(range(1, 9))
FIG_SHIP: Final = 9
NUM_FIGS: Final = 19
FIG_UNIT: Final[tuple[int, ...]] = (0,) + (1,) * 8 + (2,) + tuple(range(3, 12))


def monster_fig(unit: int) -> int:
    """The figure slot of a monster unit."""
    return unit + 7


class Stat(IntEnum):
    RAGE = 0
    AXES = 1
    HORNS = 2


class Clan(IntEnum):
    """Seat i plays clan i."""

    WOLF = 0
    RAVEN = 1
    SERPENT = 2
    BEAR = 3
    RAM = 4


class Phase(IntEnum):
    DRAFT = 0
    ACTION = 1
    DISCARD = 2
    QUEST = 3
    RAGNAROK = 4
    RELEASE_VALHALLA = 5
    GAME_OVER = 6


class Step(IntEnum):
    """Where the phase machine stands. Steps named ``*_START``/``*_RESOLVE`` run by themselves;
    the others wait for a decision."""

    DRAFT_DEAL = 0
    DRAFT_PICK = 1
    ACTION_START = 2
    ACTION = 3
    MARCH = 4
    CALL_TO_BATTLE_NEXT = 5
    CALL_TO_BATTLE = 6
    BATTLE_CARDS_START = 7
    BATTLE_CARDS = 8
    BATTLE_RESOLVE = 9
    TURN_END = 10
    DISCARD_START = 11
    DISCARD = 12
    QUEST_START = 13
    RAGNAROK = 14
    RELEASE_VALHALLA = 15
    AGE_END = 16
    GAME_OVER = 17
    RAGNAROK_DESTROY = 18


class DraftMode(IntEnum):
    NORMAL = 0
    NO_DRAFT = 1  # 003 "first game": keep 6 of the 8 dealt


def area_name(area: int) -> str:
    """'Yggdrasil', 'North fjord', … — the names used in scenarios and messages."""
    return AREA_NAMES[area]


AREA_NAMES: tuple[str, ...] = (
    "Yggdrasil",
    "Myrkulor",
    "Elvagar",
    "Angerboda",
    "Muspelheim",
    "Horgr",
    "Utgard",
    "Andlang",
    "Gimle",
    "North fjord",
    "East fjord",
    "South fjord",
    "West fjord",
    "reserve",
    "Valhalla",
    "box",
)
UNIT_NAMES: tuple[str, ...] = (
    "leader",
    "warrior",
    "ship",
    "troll",
    "dwarf_chieftain",
    "sea_serpent",
    "valkyrie",
    "dark_elf",
    "fire_giant",
    "frost_giant",
    "soldier_of_hel",
    "volur_witch",
)
STAT_NAMES: tuple[str, ...] = ("rage", "axes", "horns")
CLAN_NAMES: tuple[str, ...] = ("Wolf", "Raven", "Serpent", "Bear", "Ram")
