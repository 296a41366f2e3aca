"""The bot interface every game's bots implement, and the one bot every game has.

A bot sees exactly what the gRPC API gives a seat: the view dict of the game's rules
(``Rules.view``), with at least the common keys of ``engine.core.contract.VIEW_KEYS``, and,
when asked with ``include_state=True``, ``view["engine_state"]``: the redacted state, every card
the seat cannot see blanked. It answers with an index into ``view["legal_actions"]``. Bots never
receive the true state; a game's own bots (``clients/<game>/bots``) rebuild states from the
view only."""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

__all__ = ["Bot", "RandomBot", "View", "has_state", "view_seat"]

View = dict[str, Any]


@runtime_checkable
class Bot(Protocol):
    """A strategy: picks one of the seat's legal actions from its view."""

    name: str

    def choose(self, view: View, rng: random.Random) -> int:
        """The index (into ``view["legal_actions"]``) of the action to take."""
        ...


# A bot may say ``wants_state = False`` (a class attribute) when it never reads
# ``view["engine_state"]``: the SDK then does not ask the server for it, which spares the
# server a full view per decision. Bots that do not say anything get it.


def view_seat(view: View) -> int:
    return int(view["viewer"])


def has_state(view: View) -> bool:
    """Was the view asked with the redacted engine state (``include_state=True``)?
    Bots that search need it; without it they fall back to a random choice."""
    return isinstance(view.get("engine_state"), dict)


class RandomBot:
    """Uniform over the legal actions (any game)."""

    name = "random"
    wants_state = False

    def choose(self, view: View, rng: random.Random) -> int:
        return rng.randrange(len(view["legal_actions"]))
