"""Typed errors of the engine. All are ``ValueError`` so callers can catch input problems."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""


class NotYourDecisionError(EngineError):
    """The seat is not among those whose decision is awaited."""


class IllegalActionError(EngineError):
    """The action is not in the seat's current legal list; the state is unchanged."""


class GameOverError(EngineError):
    """The game has ended; nothing more can be applied."""


class ScenarioError(EngineError):
    """A scenario (position) cannot be built: impossible or malformed."""


class OptionsError(EngineError):
    """Game options out of range (e.g. 6 players)."""
