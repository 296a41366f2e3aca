"""The map, tokens and tracks of ``shared/rules/board.md``, as data.

Everything here is built once at import; the rules read these tables and never hard-code a
province. Values the board notes flag as thinly sourced (stat track steps 5 and 6) live only here.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from engine.blood_rage.ids import Area

UNLIMITED: Final = 99  # Yggdrasil has no villages: any number of figures

VILLAGES: Final[tuple[int, ...]] = (UNLIMITED, 3, 4, 5, 5, 4, 3, 3, 5)


class Region(IntEnum):
    NONE = 0
    MANHEIM = 1
    JOTUNHEIM = 2
    ALFHEIM = 3


REGION: Final[tuple[int, ...]] = (
    Region.NONE,
    Region.MANHEIM,
    Region.MANHEIM,
    Region.MANHEIM,
    Region.JOTUNHEIM,
    Region.JOTUNHEIM,
    Region.JOTUNHEIM,
    Region.ALFHEIM,
    Region.ALFHEIM,
)
REGION_PROVINCES: Final[dict[int, tuple[int, ...]]] = {
    r: tuple(p for p in range(9) if REGION[p] == r)
    for r in (Region.MANHEIM, Region.JOTUNHEIM, Region.ALFHEIM)
}


def _ring_neighbours(p: int) -> tuple[int, ...]:
    ring = p - 1
    return (1 + (ring - 1) % 8, 1 + (ring + 1) % 8)


# Adjacency matters for the Call to Battle only (March goes anywhere).
ADJACENT: Final[tuple[tuple[int, ...], ...]] = (
    tuple(range(1, 9)),
    *((Area.YGGDRASIL, *_ring_neighbours(p)) for p in range(1, 9)),
)

FJORD_SUPPORTS: Final[dict[int, tuple[int, int]]] = {
    Area.NORTH_FJORD: (Area.ELVAGAR, Area.ANGERBODA),
    Area.EAST_FJORD: (Area.MUSPELHEIM, Area.HORGR),
    Area.SOUTH_FJORD: (Area.UTGARD, Area.ANDLANG),
    Area.WEST_FJORD: (Area.GIMLE, Area.MYRKULOR),
}
# The fjords supporting each province (Yggdrasil has none).
SUPPORTING_FJORDS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(f for f, ps in FJORD_SUPPORTS.items() if p in ps) for p in range(9)
)


class Token(IntEnum):
    """Pillage rewards."""

    ALL_STATS = 0  # Yggdrasil: +1 Rage, Axes and Horns
    RAGE = 1
    AXES = 2
    HORNS = 3
    GLORY5 = 4


OUTER_TOKENS: tuple[int, ...] = (
    Token.RAGE,
    Token.RAGE,
    Token.RAGE,
    Token.AXES,
    Token.AXES,
    Token.HORNS,
    Token.HORNS,
    Token.GLORY5,
)
TOKEN_NAMES: tuple[str, ...] = ("all_stats", "rage", "axes", "horns", "glory5")
TOKEN_GLORY: Final = 5

# Stat tracks: value at step index 0..5 (steps 1..6 of board.md).
STAT_TRACK: Final[tuple[tuple[int, ...], ...]] = (
    (6, 7, 8, 9, 12, 12),  # Rage
    (3, 4, 5, 6, 8, 8),  # Axes
    (4, 5, 6, 7, 10, 10),  # Horns
)
LAST_STEP: Final = 5
# End-game Glory for a stat at each step: 4th/5th step +10, last step +20 (not cumulative).
END_GAME_BONUS: Final[tuple[int, ...]] = (0, 0, 0, 10, 10, 20)

RAGNAROK_GLORY: Final[dict[int, int]] = {1: 2, 2: 3, 3: 4}
SETUP_DESTROYED: Final[dict[int, int]] = {2: 3, 3: 2, 4: 1, 5: 0}

LEADER_STR: Final = 3
WARRIOR_STR: Final = 1
SHIP_STR: Final = 2
WARRIORS_PER_CLAN: Final = 8
MAX_MONSTERS: Final = 2
CLAN_SLOTS: Final = 3
HAND_DEAL: Final = 8
DRAFT_KEEP: Final = 6
