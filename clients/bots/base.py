"""The bot interface and the helpers every bot shares.

A bot sees exactly what the gRPC API gives a seat: the view dict of
``engine.blood_rage.view.view`` asked with ``include_state=True`` (so ``view["engine_state"]``
holds the redacted snapshot, where every card the seat cannot see is blanked). It answers with an
index into ``view["legal_actions"]``. Bots never receive the true engine state; the helpers here
rebuild states from the view only."""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

from engine.blood_rage.actions import Action
from engine.blood_rage.determinize import sample_from_redacted
from engine.blood_rage.snapshot import from_snapshot
from engine.blood_rage.state import GameState

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


def view_actions(view: View) -> list[Action]:
    """The legal actions of a view as engine ``Action`` tuples, in the view's order."""
    return [Action(a["kind"], *a["args"]) for a in view["legal_actions"]]


def view_seat(view: View) -> int:
    return int(view["viewer"])


def has_state(view: View) -> bool:
    """Was the view asked with the redacted engine state (``include_state=True``)?
    The heuristic and search bots need it; without it they fall back to a random choice."""
    return isinstance(view.get("engine_state"), dict)


def redacted_state(view: View) -> GameState:
    """A state built from the redacted snapshot as is: every card the seat cannot see stays
    blanked (-1 in hands, packs and decks; -3 for hidden battle/keep choices). Only the seat's
    own cards and public facts may be read from it; it must not be played on."""
    return from_snapshot(view["engine_state"])


def sampled_state(view: View, rng: random.Random) -> GameState:
    """A complete, playable state consistent with the view (hidden cards dealt at random)."""
    return sample_from_redacted(view["engine_state"], rng)


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"
    wants_state = False

    def choose(self, view: View, rng: random.Random) -> int:
        return rng.randrange(len(view["legal_actions"]))
