"""Each registered game's wire conversion, found by the API's ways of naming a game.

``engine.registry`` lists the games, one line each; this resolves that line's ``wire`` column
(``protocol.<game>``, whose ``WIRE`` implements :class:`~protocol.wire.Wire`) by the game's
name, its ``GameKind`` number, or the envelope field a message sets (the oneof field of a game
is named after it: ``GameOptions.blood_rage``).
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import cast

from engine import registry
from protocol.wire import ConversionError, Wire

__all__ = ["all_wires", "wire", "wire_for_field", "wire_for_kind"]


@cache
def wire(name: str = registry.DEFAULT) -> Wire:
    """The wire of the game called ``name`` (KeyError if there is none)."""
    module = importlib.import_module(registry.entry(name).wire)
    return cast(Wire, module.WIRE)


def wire_for_kind(kind: int) -> Wire:
    """The wire of the API's ``GameKind`` number (0, unspecified: the default game);
    ConversionError if no game has it."""
    if kind == 0:
        return wire()
    try:
        return wire(registry.entry_for_kind(kind).name)
    except KeyError:
        raise ConversionError(f"no game of kind {kind} is hosted here") from None


def wire_for_field(field: str | None) -> Wire:
    """The wire of the game whose envelope field is set (None: the default game);
    ConversionError if no game has that field."""
    if field is None:
        return wire()
    try:
        return wire(registry.entry(field).name)
    except KeyError:
        raise ConversionError(f"{field} is not a game hosted here") from None


def all_wires() -> list[Wire]:
    """Every registered game's wire, in registry order."""
    return [wire(game.name) for game in registry.GAMES]
