"""Yggdrasil's game rules: pure Python, deterministic, every decision an enumerated choice.

Layout: ``engine.core`` holds the contract every game implements (OpenSpiel style: who is
awaited, legal actions, apply, views per seat, result, snapshots), the seeded generator and the
errors; each game is a folder beside it (``engine.blood_rage``); ``engine.registry`` lists the
games. Nothing here imports anything but the standard library and ``engine`` itself::

    from engine import registry
    rules = registry.rules("blood_rage")
    state = rules.new_game(rules.options(players=4, seed=7, game_options={}))
    seat = rules.awaiting(state)[0]
    rules.apply(state, seat, rules.legal_actions(state, seat)[0])  # checked
    rules.view(state, seat)                                        # what that seat may see

A game is a pure function of (options, seed, decisions); ``state.state_hash()`` is stable
across processes, and ``state.copy()`` is cheap for search.
"""

from engine.core.contract import SPECTATOR, Action, Event, Options, Result, Rules, State
from engine.core.errors import (
    EngineError,
    GameOverError,
    IllegalActionError,
    NotYourDecisionError,
    OptionsError,
    ScenarioError,
)

__all__ = [
    "SPECTATOR",
    "Action",
    "EngineError",
    "Event",
    "GameOverError",
    "IllegalActionError",
    "NotYourDecisionError",
    "Options",
    "OptionsError",
    "Result",
    "Rules",
    "ScenarioError",
    "State",
]
