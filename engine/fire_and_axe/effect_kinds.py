"""The vocabulary of Rune effects: every kind of effect a Rune card of a data pack may have.

The rulebook prints no Rune text (fire-and-axe-data.md D9): it names one card (Change of
Demand, F8.3a) and says that «each card describes when and how it can be used and its
effects» (p.2). A data pack therefore describes each card as a list of effects drawn from this
vocabulary, and the engine executes them (``rune_effects`` implements each kind, keyed by its
name; a test checks that every kind here has an implementation). The kinds are the operations
the rules themselves define — the Goods in Demand, the Wind Dial, the Days track, crew and
goods aboard, the losses chart, the one-Task-per-port limit, attacks, VP and the Rune deck —
so a real card's text can be transcribed with them. A card that needs something else is
refused by the pack loader until that kind is added here, with its code and its tests.

This module is data only: the loader (``data_pack``) validates parameters against it without
importing the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# What the player chooses when playing a card with an effect of that kind (one per card at
# most, so a Play action carries it in one integer, ``actions.Action.c``).
NO_CHOICE: Final = 0
CHOOSE_GOOD: Final = 1  # c = a goods type (ids.GOODS)
CHOOSE_DIRECTION: Final = 2  # c = 1 clockwise, 2 counter-clockwise
CHOOSE_OPPONENT: Final = 3  # c = an opponent's seat
CHOOSE_OPPONENT_GOOD: Final = 4  # c = seat * 4 + goods type

# Where a card may be played from (the card's own limit, F8.1). A ship in a Homeland can never
# play or discard a Rune (F5.5, F8.1), whatever the card says.
WHERE: Final = ("anywhere", "map", "port", "water", "wintering")
# When: "any" follows the rule «at any time» (F8.1) as the game's ``rune_timing`` option
# reads it (A8); "own_turn" limits the card to its owner's turn whatever the option.
WHEN: Final = ("any", "own_turn")


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of an effect: an int in [low, high], or one of ``values`` (a string)."""

    name: str
    default: int | str | None = None  # None: required
    low: int = 0
    high: int = 0
    values: tuple[str, ...] = ()

    def check(self, value: object) -> str | None:
        """What is wrong with ``value`` for this parameter, or None."""
        if self.values:
            if not isinstance(value, str) or value not in self.values:
                return f"{self.name} must be one of {list(self.values)}, not {value!r}"
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{self.name} must be an integer, not {value!r}"
        if not self.low <= value <= self.high:
            return f"{self.name} must be in {self.low}..{self.high}, not {value}"
        return None


@dataclass(frozen=True, slots=True)
class EffectKind:
    """One kind of effect: its parameters, the choice it asks for, and its limits."""

    name: str
    rules: str  # the rule ids it operates on
    doc: str
    params: tuple[Param, ...] = ()
    choice: int = NO_CHOICE
    own_turn_only: bool = False  # acts on the Days track, the turn's Tasks or its attacks
    needs_where: str = ""  # the card's ``where`` it requires, if any


EFFECT_KINDS: Final[dict[str, EffectKind]] = {
    k.name: k
    for k in (
        EffectKind(
            "change_demand",
            "F8.3a, F7.3a",
            "Return the Goods-in-Demand token to the supply and put a token of another type, "
            "chosen by the player, from the supply in its place (the rulebook's «Αλλαγή "
            "Ζήτησης»). Only types other than the current one with a token in the supply "
            "can be chosen.",
            choice=CHOOSE_GOOD,
        ),
        EffectKind(
            "turn_dial",
            "F6.1, F8.2",
            "Turn the Wind Dial cover `quarters` quarter turns, in the direction the player "
            "chooses (two quarter turns give the same result either way). This is on top of "
            "the optional quarter turn every play or discard allows (F8.2).",
            (Param("quarters", 1, 1, 2),),
            choice=CHOOSE_DIRECTION,
        ),
        EffectKind(
            "days_back",
            "F4.3",
            "Move the turn's `marker` (sailing or preparation) back `days` Days, not below 0: "
            "more Actions this turn, and (sailing) less excess at the next weather check. "
            "Skulls already covered stay covered.",
            (Param("marker", values=("sailing", "preparation")), Param("days", 1, 1, 7)),
            own_turn_only=True,
        ),
        EffectKind(
            "recover_crew",
            "F9.1, F5.2",
            "Move up to `amount` crew from the player's supply onto the ship, into free slots "
            "of the current Age (F5.2).",
            (Param("amount", 1, 1, 7),),
        ),
        EffectKind(
            "gain_goods",
            "F5.1, F5.2",
            "Take up to `amount` goods of one type the player chooses from the general supply "
            "onto the ship, into free slots of the current Age (F5.2).",
            (Param("amount", 1, 1, 7),),
            choice=CHOOSE_GOOD,
        ),
        EffectKind(
            "opponent_loses_crew",
            "F9.1, F9.2",
            "An opponent chosen by the player, whose ship is on the map with at least 2 crew, "
            "returns up to `amount` crew from the ship to their supply; never the last one "
            "(a ship at sea always keeps one, F9.2).",
            (Param("amount", 1, 1, 7),),
            choice=CHOOSE_OPPONENT,
        ),
        EffectKind(
            "opponent_loses_goods",
            "F9.1",
            "An opponent chosen by the player, whose ship is on the map, discards up to "
            "`amount` goods of a type the player chooses (they carry it) to the general supply.",
            (Param("amount", 1, 1, 7),),
            choice=CHOOSE_OPPONENT_GOOD,
        ),
        EffectKind(
            "attack_bonus",
            "F7.4c, F7.4a, F7.5b",
            "Add `amount` to every die of the player's attacks (Raid and Settle alike, F7.4c) "
            "until the end of the next attack this turn, or of the one under way.",
            (Param("amount", 1, 1, 5),),
            own_turn_only=True,
        ),
        EffectKind(
            "extra_task",
            "F7.2",
            "The player may do one more Task this turn at the port the ship is in (lifts the "
            "one-Task-per-port limit there once).",
            own_turn_only=True,
            needs_where="port",
        ),
        EffectKind(
            "gain_vp",
            "F13.1",
            "The player gains `amount` VP.",
            (Param("amount", 1, 1, 10),),
        ),
        EffectKind(
            "draw_runes",
            "F5.4, F5.5",
            "The player draws up to `amount` Runes from the Rune deck (reshuffling the discard "
            "pile if it runs out), never above the hand limit of 3.",
            (Param("amount", 1, 1, 3),),
        ),
        EffectKind(
            "recover_losses",
            "F6.4, F6.6",
            "Every item the player's ship lost to the Losses chart this turn goes back onto "
            "the ship (the skulls stay covered).",
            own_turn_only=True,
        ),
        EffectKind(
            "calm_weather",
            "F6.3",
            "The player's next Sail action this turn has no weather check.",
            own_turn_only=True,
        ),
    )
}
