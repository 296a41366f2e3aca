"""What Blood Rage's bots read from a seat's view: its legal actions as the engine's ``Action``
tuples, and states rebuilt from the redacted snapshot (never the true state)."""

from __future__ import annotations

import random

from clients.bots.base import View
from engine.blood_rage.actions import Action
from engine.blood_rage.determinize import sample_from_redacted
from engine.blood_rage.snapshot import from_snapshot
from engine.blood_rage.state import GameState

__all__ = ["redacted_state", "sampled_state", "view_actions"]


def view_actions(view: View) -> list[Action]:
    """The legal actions of a view as engine ``Action`` tuples, in the view's order (decoded
    from each entry's code, the same in every view and on the wire)."""
    return [Action.from_code(int(a["code"])) for a in view["legal_actions"]]


def redacted_state(view: View) -> GameState:
    """A state built from the redacted snapshot as is: every card the seat cannot see stays
    blanked (-1 in hands, packs and decks; -3 for hidden battle/keep choices). Only the seat's
    own cards and public facts may be read from it; it must not be played on."""
    return from_snapshot(view["engine_state"])


def sampled_state(view: View, rng: random.Random) -> GameState:
    """A complete, playable state consistent with the view (hidden cards dealt at random)."""
    return sample_from_redacted(view["engine_state"], rng)
