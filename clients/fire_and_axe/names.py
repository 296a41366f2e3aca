"""The names a Fire & Axe screen needs: places, Runes and Sagas of the game's data pack.

Views, actions and events name places, Runes and Sagas by their index in the game's pack;
``GetCatalog`` holds the packs (``FireAndAxeCatalog``). :class:`Catalog` keeps them by digest
and :class:`Names` reads one pack, falling back on ``#index`` when the catalog lacks it (a
server that did not answer GetCatalog: the screen still works, with numbers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from yggdrasil.v1 import fire_and_axe_pb2 as fa

__all__ = [
    "COLOURS",
    "GOODS",
    "ITEMS",
    "SEAT_STYLES",
    "ZONES",
    "Catalog",
    "Names",
    "seat_name",
]

COLOURS = ("Red", "Blue", "Yellow", "Green", "Purple")
"""Seat labels (the engine's: Red, Blue, Yellow from the rulebook, then Green and Purple)."""
SEAT_STYLES = ("bold red", "bold bright_blue", "bold yellow", "bold green", "bold magenta")
GOODS: dict[int, str] = {
    fa.FIRE_AND_AXE_GOOD_TUSK: "tusk",
    fa.FIRE_AND_AXE_GOOD_FISH: "fish",
    fa.FIRE_AND_AXE_GOOD_FUR: "fur",
}
GOOD_SHORT: dict[int, str] = {
    fa.FIRE_AND_AXE_GOOD_TUSK: "Tu",
    fa.FIRE_AND_AXE_GOOD_FISH: "Fi",
    fa.FIRE_AND_AXE_GOOD_FUR: "Fu",
}
ITEMS: dict[int, str] = {**GOODS, fa.FIRE_AND_AXE_ITEM_CREW: "crew"}
ZONES: dict[int, str] = {
    fa.FIRE_AND_AXE_ZONE_NORTH: "North",
    fa.FIRE_AND_AXE_ZONE_EAST: "East",
    fa.FIRE_AND_AXE_ZONE_SOUTH: "South",
    fa.FIRE_AND_AXE_ZONE_WEST: "West",
}
HOMELANDS: dict[int, str] = {
    fa.FIRE_AND_AXE_HOMELAND_DENMARK: "Denmark",
    fa.FIRE_AND_AXE_HOMELAND_NORWAY: "Norway",
    fa.FIRE_AND_AXE_HOMELAND_SWEDEN: "Sweden",
}
SAGA_TYPES: dict[int, str] = {
    fa.FIRE_AND_AXE_SAGA_TYPE_RAID: "raid",
    fa.FIRE_AND_AXE_SAGA_TYPE_TRADE: "trade",
    fa.FIRE_AND_AXE_SAGA_TYPE_SETTLE: "settle",
}
AGES: dict[int, str] = {1: "I", 2: "II", 3: "III"}


def seat_name(seat: int) -> str:
    return COLOURS[seat] if 0 <= seat < len(COLOURS) else f"seat {seat}"


def seat_style(seat: int) -> str:
    return SEAT_STYLES[seat] if 0 <= seat < len(SEAT_STYLES) else "bold"


@dataclass
class Names:
    """One pack's names (``pack`` None: numbers only)."""

    pack: fa.FireAndAxePack | None = None

    def place(self, index: int) -> str:
        pack = self.pack
        if pack is not None and 0 <= index < len(pack.locations):
            return pack.locations[index].name
        return f"place #{index}"

    def short(self, index: int) -> str:
        """A place's name cut to fit a crowded board (unique within the pack)."""
        return self._shorts.get(index, f"#{index}")

    @cached_property
    def _shorts(self) -> dict[int, str]:
        if self.pack is None:
            return {}
        words = {
            loc.index: re.sub(r"[^A-Za-z0-9]", "", re.sub(r"^The ", "", loc.name))
            or f"#{loc.index}"
            for loc in self.pack.locations
        }
        size = 6
        while True:
            cut = {i: w[:size] for i, w in words.items()}
            if len(set(cut.values())) == len(cut) or size > 30:
                return cut
            size += 1

    def location(self, index: int) -> fa.FireAndAxeLocation | None:
        pack = self.pack
        if pack is not None and 0 <= index < len(pack.locations):
            return pack.locations[index]
        return None

    def rune(self, index: int) -> str:
        card = self.rune_card(index)
        return card.name if card is not None else f"Rune #{index}"

    def rune_card(self, index: int) -> fa.FireAndAxeRune | None:
        pack = self.pack
        if pack is not None and 0 <= index < len(pack.runes):
            return pack.runes[index]
        return None

    def saga(self, index: int) -> fa.FireAndAxeSaga | None:
        pack = self.pack
        if pack is not None and 0 <= index < len(pack.sagas):
            return pack.sagas[index]
        return None

    def saga_name(self, index: int) -> str:
        card = self.saga(index)
        return card.name if card is not None else f"Saga #{index}"

    def choice_kind(self, rune: int) -> str:
        """The kind of the card's effect that asks a choice ("" if none asks)."""
        card = self.rune_card(rune)
        if card is None:
            return ""
        for effect in card.effects:
            if effect.kind in _CHOOSING:
                return effect.kind
        return ""


_CHOOSING = (
    "change_demand",
    "gain_goods",
    "turn_dial",
    "opponent_loses_crew",
    "opponent_loses_goods",
)


@dataclass
class Catalog:
    """Every pack the server offers or hosts a game on, by digest; ``current`` is the pack of
    the game on screen (the last view drawn names it; until then the server's default)."""

    packs: dict[str, fa.FireAndAxePack] = field(default_factory=dict)
    current: str = ""
    _names: dict[str, Names] = field(default_factory=dict, repr=False)

    @classmethod
    def from_pb(cls, catalog: fa.FireAndAxeCatalog) -> Catalog:
        return cls({p.info.digest: p for p in catalog.packs}, catalog.default_pack)

    def names(self, digest: str | None = None) -> Names:
        """The names of pack ``digest`` (None: the current pack)."""
        key = digest if digest is not None else self.current
        if key not in self._names:
            self._names[key] = Names(self.packs.get(key))
        return self._names[key]

    def use(self, digest: str) -> None:
        """Name things by pack ``digest`` from now on (the game on screen plays on it)."""
        if digest:
            self.current = digest
