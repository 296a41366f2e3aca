"""Card texts, prompts and extra actions are registered once each: registering a second one
under the same name is a programming error, refused at import (a silent replacement would
change a card's text)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.blood_rage.actions import ActionKind
from engine.blood_rage.effects import HOOKS, register
from engine.blood_rage.prompts import EXTRA_ACTIONS, PROMPTS, register_action, register_prompt
from engine.blood_rage.state import PromptKind


@pytest.fixture
def tables() -> Iterator[None]:
    """Whatever a test registers is taken back (the tables are the engine's own)."""
    hooks = {moment: dict(table) for moment, table in HOOKS.items()}
    prompts, actions = dict(PROMPTS), dict(EXTRA_ACTIONS)
    yield
    HOOKS.clear()
    HOOKS.update(hooks)
    PROMPTS.clear()
    PROMPTS.update(prompts)
    EXTRA_ACTIONS.clear()
    EXTRA_ACTIONS.update(actions)


def test_a_card_text_is_registered_once(tables: None) -> None:
    troll = HOOKS["on_invade"]["troll"]
    with pytest.raises(ValueError, match="troll already has a on_invade effect"):
        register("on_invade", "troll")(lambda *a, **k: None)
    assert HOOKS["on_invade"]["troll"] is troll


def test_a_prompt_and_an_extra_action_are_registered_once(tables: None) -> None:
    protect = PROMPTS[PromptKind.PROTECT]
    with pytest.raises(ValueError, match="registered twice"):
        register_prompt(PromptKind.PROTECT, protect[0], protect[1])
    challenge = EXTRA_ACTIONS[ActionKind.CHALLENGE]
    with pytest.raises(ValueError, match="registered twice"):
        register_action(ActionKind.CHALLENGE, challenge)
    assert (
        PROMPTS[PromptKind.PROTECT] == protect and EXTRA_ACTIONS[ActionKind.CHALLENGE] is challenge
    )
