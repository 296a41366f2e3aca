"""Each registered game's client side: its bots and how the terminal shows it.

``engine.registry`` lists the games, one line each; its ``client`` column names the module
(``clients.<game>``) whose ``CLIENT`` is a :class:`ClientKit`. The command line, the SDK and
the tournament runner find a game's kit here, by the game's name or by the API's ``GameKind``
of a view or summary, and never import a game's folder themselves.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol, TextIO

from rich.console import RenderableType

from clients.bots.base import Bot, RandomBot
from engine import registry
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

__all__ = ["ClientKit", "Screen", "Terminal", "kit", "kit_for_kind", "make_bot", "strategies"]


class Screen(Protocol):
    """A view fitted to a terminal: what to draw, and the page of actions it shows."""

    @property
    def renderable(self) -> RenderableType: ...

    @property
    def page(self) -> int: ...

    @property
    def pages(self) -> int: ...


class Terminal(Protocol):
    """How the terminal client (``yggdrasil play``/``watch``) shows one game."""

    def seat_name(self, seat: int) -> str:
        """A seat's name when it has no player name (Blood Rage: its clan)."""
        ...

    def catalog(self, reply: gs.GetCatalogResponse | None) -> Any:
        """The game's static data for names (None: the server gave none; render anyway)."""
        ...

    def render_view(
        self,
        view: gp.View,
        catalog: Any,
        *,
        events: Sequence[str] = (),
        notice: str | None = None,
        width: int = 100,
        story: Sequence[gp.Event] = (),
    ) -> RenderableType:
        """Everything the viewer may see, with its legal actions numbered from 1. ``story``:
        the events since the viewer's last decision, which the game sums up (what must not
        be missed: Blood Rage's battles, quest rounds and Ragnarök)."""
        ...

    def render_screen(
        self,
        view: gp.View,
        catalog: Any,
        *,
        width: int,
        height: int,
        events: Sequence[str] = (),
        notice: str | None = None,
        page: int = 0,
        story: Sequence[gp.Event] = (),
    ) -> Screen:
        """The same, fitted into ``height`` rows (the actions a page at a time)."""
        ...

    def help_screen(self) -> RenderableType: ...

    def own_cards(self, view: gp.View, catalog: Any) -> RenderableType | None:
        """The texts of the viewer's own cards (the ``c`` key), or None if it holds none."""
        ...

    def describe_event(
        self,
        event: gp.Event,
        names: Mapping[int, str] | None = None,
        catalog: Any = None,
        context: Sequence[gp.Event] = (),
    ) -> str:
        """One line for one event (``context``: the events of the same decision before it);
        "" for an event that adds nothing to the lines of the others."""
        ...

    def render_result(
        self, result: gp.GameResult, names: Mapping[int, str] | None = None
    ) -> RenderableType: ...


BotMaker = Callable[[str], Bot]
"""Makes a bot from the argument after a strategy's name (``ismcts:50`` → ``"50"``)."""


@dataclass(frozen=True, slots=True)
class ClientKit:
    """One game's client side."""

    name: str
    """The game's registry name."""
    terminal: Terminal
    bots: Mapping[str, BotMaker] = field(default_factory=dict)
    """The game's own strategies by name (``random`` is every game's)."""
    bots_help: str = ""
    """The game's strategies for ``--help`` (``heuristic, ismcts[:budget_ms]``)."""
    legal_fields: Callable[[int], dict[str, Any]] = lambda code: {}
    """Extra keys of a legal action in a bot's view, from its code (Blood Rage: kind, args)."""
    create_arguments: Callable[[argparse._ArgumentGroup], None] = lambda group: None
    """Add the game's own options to ``yggdrasil create`` (a group titled after the game)."""
    create_options: Callable[[argparse.Namespace, gp.GameOptions], None] = lambda a, o: None
    """Set the game's payload of CreateGame's options from the parsed arguments."""
    validate_data: Callable[[str, TextIO], int] | None = None
    """Check a data file of the game (``yggdrasil data validate FILE``; Fire & Axe: a data
    pack): print what was found to the stream, return the exit status (0: usable)."""


@cache
def kit(name: str = registry.DEFAULT) -> ClientKit:
    """The client kit of the game called ``name`` (KeyError if there is none)."""
    module = importlib.import_module(registry.entry(name).client)
    found: ClientKit = module.CLIENT
    return found


def kit_for_kind(kind: int) -> ClientKit:
    """The kit of the API's ``GameKind`` number (0, unspecified: the default game);
    KeyError if this client does not know the game."""
    return kit(registry.entry_for_kind(kind).name if kind else registry.DEFAULT)


def strategies(name: str = registry.DEFAULT) -> str:
    """The strategies a game's bots may be named by, for help texts."""
    own = kit(name).bots_help
    return "random" + (f", {own}" if own else "")


def make_bot(spec: str, game: str = registry.DEFAULT) -> Bot:
    """An in-process bot of ``game`` from its name: ``random`` (any game) or one of the game's
    own strategies, with an optional argument after a colon."""
    name, _, arg = spec.partition(":")
    name = name.strip().lower()
    if name == "random" and not arg:
        return RandomBot()
    maker = kit(game).bots.get(name)
    if maker is None:
        raise ValueError(f"unknown bot {spec!r} ({strategies(game)})")
    return maker(arg)
