"""The registry of game kinds: one line per game, naming its part in every layer.

Adding a game is one folder per layer (its rules in ``engine/<game>/``, its wire conversion in
``protocol/<game>/``, its bots and terminal renderer in ``clients/<game>/``, optionally its
observation encoding in ``envs/<game>/``) and one :class:`GameEntry` below. Each layer
resolves only its own column, by module path, so the engine never imports what sits above
it: ``engine.registry.rules`` here, ``protocol.registry`` for the wire, ``clients.games`` for
bots and renderers, ``envs.games`` for the learning environments.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import cast

from engine.core.contract import Rules

__all__ = ["DEFAULT", "GAMES", "GameEntry", "entry", "entry_for_kind", "rules"]


@dataclass(frozen=True, slots=True)
class GameEntry:
    """One game kind and where each layer finds its part of it."""

    name: str
    """Stable id, stored with every game (``"blood_rage"``)."""
    kind: int
    """The API's ``GameKind`` number (proto/yggdrasil/v1/game.proto)."""
    rules: str
    """Module whose ``RULES`` implements ``engine.core.contract.Rules``."""
    wire: str
    """Module whose ``WIRE`` converts the game to and from protobuf (``protocol``)."""
    client: str
    """Module whose ``CLIENT`` holds the game's bots and terminal renderer (``clients``)."""
    envs: str | None = None
    """Module whose ``ENCODING`` gives the learning environments the game's observation
    tensor and action catalogue (``envs``); None: the game has none yet."""


GAMES: tuple[GameEntry, ...] = (
    GameEntry(
        "blood_rage",
        1,
        "engine.blood_rage.rules",
        "protocol.blood_rage",
        "clients.blood_rage",
        envs="envs.blood_rage",
    ),
    GameEntry(
        "fire_and_axe",
        2,
        "engine.fire_and_axe.rules",
        "protocol.fire_and_axe",
        "clients.fire_and_axe",
    ),
)

DEFAULT = GAMES[0].name
"""The game of a request or record that names none (everything before there were two)."""


def entry(name: str) -> GameEntry:
    """The entry of the game called ``name`` (``KeyError`` names the known ones)."""
    for game in GAMES:
        if game.name == name:
            return game
    raise KeyError(f"no game {name!r}; known: {', '.join(g.name for g in GAMES)}")


def entry_for_kind(kind: int) -> GameEntry:
    """The entry of the API's ``GameKind`` number ``kind`` (``KeyError`` if unknown)."""
    for game in GAMES:
        if game.kind == kind:
            return game
    raise KeyError(f"no game of kind {kind}")


@cache
def rules(name: str = DEFAULT) -> Rules:
    """The rules of the game called ``name``, imported on first use."""
    module = importlib.import_module(entry(name).rules)
    return cast(Rules, module.RULES)
