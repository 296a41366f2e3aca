"""The registry of prompt kinds: who may answer an interrupting decision, and how.

Phase modules and card effects register their prompts here; ``flow`` only looks them up, so
a card that creates a new choice adds a prompt kind without touching the phase machine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.blood_rage.actions import Action
from engine.blood_rage.state import GameState, Prompt

PromptLegal = Callable[[GameState, Prompt], list[Action]]
PromptApply = Callable[[GameState, Prompt, Action], None]

PROMPTS: Final[dict[int, tuple[PromptLegal, PromptApply]]] = {}


def register_prompt(kind: int, legal: PromptLegal, apply: PromptApply) -> None:
    if kind in PROMPTS:
        raise ValueError(f"prompt kind {kind} registered twice")
    PROMPTS[kind] = (legal, apply)


# Actions that card upgrades add to the Action phase (Tyr's Challenge, …): kind -> apply.
ActionApply = Callable[[GameState, int, Action], None]
EXTRA_ACTIONS: Final[dict[int, ActionApply]] = {}


def register_action(kind: int, apply: ActionApply) -> None:
    if kind in EXTRA_ACTIONS:
        raise ValueError(f"action kind {kind} registered twice")
    EXTRA_ACTIONS[kind] = apply
