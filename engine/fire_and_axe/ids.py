"""The small fixed vocabularies of Fire & Axe as ints with names (fire-and-axe.md F0.5).

Everything the board and the cards add (locations, regions, Runes, Sagas) comes from a data
pack (``data_pack``); what is here is fixed by the rulebook itself: the goods, the Weather
Zones in compass order, the kinds of location, the Saga types and the component counts.
"""

from __future__ import annotations

from typing import Final

# -- goods and the items a Longship carries (F1.6, F5.1) -----------------------------------
TUSK: Final = 0
FISH: Final = 1
FUR: Final = 2
GOODS: Final = (TUSK, FISH, FUR)
GOOD_NAMES: Final = ("tusk", "fish", "fur")
CREW: Final = 3
"""An item on a Longship is a goods type (0-2) or a crewmember (3): losses name one."""
ITEM_NAMES: Final = ("tusk", "fish", "fur", "crew")

GOODS_PER_TYPE: Final = 11  # F1.6
CREW_PER_PLAYER: Final = 15  # F1.5
HAND_LIMIT: Final = 3  # F5.5
DAYS_PER_TURN: Final = 7  # F4.3
BASE_SLOTS: Final = 5  # F5.2: 5 plain slots; the 6th in Age II, the 7th in Age III
MAX_ATTACK_ROLLS: Final = 3  # F7.4a: at most 3 Raid rolls; F7.5b: at most 3 Settle dice
DIE_SIDES: Final = 6  # F1.7 / A20: d6
DEMAND_BONUS: Final = 2  # F7.3a
TOWN_VP: Final = 3  # F13.2 Bloodiest Axe: 3 VP per town figure
SAGA_FIRST_VP: Final = 10  # F13.4
SAGA_SECOND_VP: Final = 5  # F13.4
FINAL_MARKERS: Final = 3  # F1.10
SAGA_SPACES: Final = 3  # F3.4
SAGAS_REMOVED_PER_AGE: Final = 3  # F3.4

# -- Weather Zones, in compass order (F2.3, F6.1) -------------------------------------------
# In this order one clockwise quarter turn of the Wind Dial cover moves the blue hole from a
# zone to the next one (S -> W -> N -> E -> S, F6.1): blue = (blue + 1) % 4, red opposite.
NORTH: Final = 0
EAST: Final = 1
SOUTH: Final = 2
WEST: Final = 3
ZONE_NAMES: Final = ("north", "east", "south", "west")
DIAL_START: Final = SOUTH  # F3.3: the blue hole over the South quadrant at set-up

# -- locations (F2.1) -----------------------------------------------------------------------
WATER: Final = 0
PORT: Final = 1
HOMELAND: Final = 2
KIND_NAMES: Final = ("water", "port", "homeland")
WINTERING: Final = -1
"""A ship's location when it is in the Wintering Zone (off the map, F2.1)."""
INDEPENDENT: Final = -1
"""The region of a port that belongs to none (grey ring or large port, F2.5)."""
HOMELANDS: Final = ("denmark", "norway", "sweden")
"""The three Homelands every pack has (F2.1), by id; Denmark's Sagas are green, Sweden's red,
Norway's blue (F1.3)."""

# -- Sagas (F11.2) --------------------------------------------------------------------------
RAID: Final = 0
TRADE: Final = 1
SETTLE: Final = 2
SAGA_TYPE_NAMES: Final = ("raid", "trade", "settle")

# -- component counts a pack must match (F1.3, F1.4, F1.12) ---------------------------------
RUNE_CARDS: Final = 33
CONFLICT_RUNES: Final = 9
SAGA_CARDS: Final = 27
SMALL_TOWNS: Final = 12
LARGE_TOWNS: Final = 3

# -- seats (F1.14) --------------------------------------------------------------------------
COLOUR_NAMES: Final = ("Red", "Blue", "Yellow", "Green", "Purple")
"""Seat labels. Red, Blue and Yellow are named in the rulebook's examples; the other two
colours are not named there (F1.14 [GAP]), so "Green" and "Purple" are this engine's own
labels, not a claim about the published components."""
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 5
