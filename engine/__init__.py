"""Yggdrasil's Blood Rage rules engine: pure Python, deterministic, every decision enumerated.

The contract, OpenSpiel style::

    state = engine.new_game(players=4, seed=7)
    seat = engine.awaiting(state)[0]
    actions = engine.legal_actions(state, seat)
    engine.apply(state, seat, actions[0])      # checked; raises IllegalActionError
    engine.view(state, seat)                   # what that seat may see

A game is a pure function of (options, seed, [(seat, action), …]); ``state.state_hash()``
is stable across processes, and ``state.copy()`` is cheap for search.
"""

from engine.actions import Action, ActionKind, describe
from engine.errors import (
    EngineError,
    GameOverError,
    IllegalActionError,
    NotYourDecisionError,
    OptionsError,
    ScenarioError,
)
from engine.flow import apply, apply_unchecked, awaiting, is_simultaneous, legal_actions
from engine.ids import Area, Clan, DraftMode, Phase, Stat, Step, Unit
from engine.results import Result, result
from engine.setup import GameOptions, initial_state, new_game
from engine.state import GameState

__all__ = [
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
