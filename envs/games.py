"""The games the learning environments can play: each registered game's rules and encoding.

``engine.registry`` lists the games, one line each; its ``envs`` column names the module
(``envs.<game>``) whose ``ENCODING`` is the game's :class:`envs.encoding.Encoding`. A game
without one is still playable everywhere else; asking for its environment says what is
missing.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache

from engine import registry
from engine.core.contract import Rules
from envs.encoding import Encoding

__all__ = ["GameSpec", "available", "spec"]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """What an environment plays: a game's rules and its encoding."""

    rules: Rules
    encoding: Encoding

    @property
    def name(self) -> str:
        return self.rules.name


@cache
def spec(name: str = registry.DEFAULT) -> GameSpec:
    """The rules and encoding of the game called ``name`` (``KeyError``: unknown game, or a
    game without an encoding)."""
    entry = registry.entry(name)
    if entry.envs is None:
        raise KeyError(
            f"{name} has no observation encoding for the learning environments yet: add "
            f"envs/{name}/ with an ENCODING (envs.encoding.Encoding) and name it in its "
            "engine/registry.py entry (envs=...)"
        )
    encoding: Encoding = importlib.import_module(entry.envs).ENCODING
    return GameSpec(registry.rules(name), encoding)


def available() -> list[str]:
    """The registered games that have an encoding."""
    return [g.name for g in registry.GAMES if g.envs is not None]
