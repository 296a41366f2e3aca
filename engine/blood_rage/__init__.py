"""Blood Rage (2-5 players): the rules of blood-rage.md, cards.md and board.md.

A newcomer finds a rule by its module's name: ``setup`` (the deal), ``draft``, ``action_phase``
(invade, march, upgrade, quest, pillage), ``battle``, ``end_of_age`` (discard, quests,
Ragnarök, Valhalla), ``destruction``, ``card_effects`` (every card text, keyed by card id),
``view`` (what a seat may see), ``flow`` (the phase machine). ``rules.RULES`` puts them behind
the game contract (``engine.core.contract``); the functions below are the fast path that bots
and tests use directly::

    state = blood_rage.new_game(players=4, seed=7)
    seat = blood_rage.awaiting(state)[0]
    actions = blood_rage.legal_actions(state, seat)
    blood_rage.apply(state, seat, actions[0])      # checked; raises IllegalActionError

Imports only ``engine.core`` and its own modules.
"""

from engine.blood_rage.actions import Action, ActionKind, describe
from engine.blood_rage.flow import apply, apply_unchecked, awaiting, is_simultaneous, legal_actions
from engine.blood_rage.ids import Area, Clan, DraftMode, Phase, Stat, Step, Unit
from engine.blood_rage.results import Result, result
from engine.blood_rage.rules import RULES
from engine.blood_rage.setup import GameOptions, initial_state, new_game
from engine.blood_rage.state import GameState
from engine.core.errors import (
    EngineError,
    GameOverError,
    IllegalActionError,
    NotYourDecisionError,
    OptionsError,
    ScenarioError,
)

__all__ = [
    "RULES",
    "Action",
    "ActionKind",
    "Area",
    "Clan",
    "DraftMode",
    "EngineError",
    "GameOptions",
    "GameOverError",
    "GameState",
    "IllegalActionError",
    "NotYourDecisionError",
    "OptionsError",
    "Phase",
    "Result",
    "ScenarioError",
    "Stat",
    "Step",
    "Unit",
    "apply",
    "apply_unchecked",
    "awaiting",
    "describe",
    "initial_state",
    "is_simultaneous",
    "legal_actions",
    "new_game",
    "result",
]
