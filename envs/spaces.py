"""The Gymnasium spaces and settings both PettingZoo environments share.

An agent is a seat: ``player_0`` … ``player_{n-1}``. Its observation is a dict of
``observation`` (the game's float32 tensor, :mod:`envs.encoding`) and ``action_mask`` (int8,
one entry per action index, the no-op last); its action is a ``Discrete`` index.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from engine import registry
from envs import rewards
from envs.games import GameSpec, spec
from envs.table import Table

__all__ = ["ILLEGAL", "Settings", "agent_name", "game_seed"]

ILLEGAL: tuple[str, ...] = ("raise", "default")
"""What an action outside the mask does: ``raise`` (``envs.table.IllegalIndex``, nothing
changes) or ``default`` (the rules' default decision is played instead, what the server does
for a seat whose time ran out, and the agent's info says ``illegal_action``)."""


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class Settings:
    """What both environments are made from: the table, the agents and their spaces."""

    def __init__(
        self,
        game: str | GameSpec,
        players: int,
        game_options: Mapping[str, Any] | None,
        reward: str,
        illegal_action: str,
        max_decisions: int | None,
    ) -> None:
        if illegal_action not in ILLEGAL:
            raise ValueError(f"illegal_action must be one of {ILLEGAL}, not {illegal_action!r}")
        if max_decisions is not None and max_decisions <= 0:
            raise ValueError(f"max_decisions must be positive, not {max_decisions}")
        self.reward = rewards.check(reward)
        self.illegal_action = illegal_action
        self.max_decisions = max_decisions
        self.game = spec(game) if isinstance(game, str) else game
        self.table = Table(self.game, players, game_options)
        self.agents = [agent_name(s) for s in range(players)]
        self.seat_of = {a: s for s, a in enumerate(self.agents)}
        layout = self.table.layout
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(layout.low, layout.high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (self.table.num_actions,), dtype=np.int8),
                }
            )
            for a in self.agents
        }
        self.action_spaces = {a: spaces.Discrete(self.table.num_actions) for a in self.agents}
        self.np_random, _ = seeding.np_random(None)

    def metadata(self) -> dict[str, Any]:
        return {
            "name": f"yggdrasil_{self.game.name}_v0",
            "render_modes": ["ansi"],
            "is_parallelizable": True,
        }

    def new_game(self, seed: int | None) -> None:
        """Deal the next game: from ``seed`` (which also reseeds the games after it), else
        from the environment's generator."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.table.start(game_seed(self.np_random))

    def play(self, seat: int, action: Any) -> int | None:
        """Play the seat's action; the index actually refused, if ``default`` replaced it."""
        if action is None:
            raise ValueError(f"{agent_name(seat)} must act (None is only for a finished agent)")
        index = int(action)
        try:
            self.table.play(seat, index)
        except ValueError:
            if self.illegal_action == "raise":
                raise
            self.table.play(seat, self.table.default_index(seat))
            return index
        return None

    def truncated(self) -> bool:
        return self.max_decisions is not None and self.table.decisions >= self.max_decisions

    def final_rewards(self) -> list[float]:
        result = self.table.result()
        assert result is not None
        return rewards.final_rewards(result, self.reward)

    def render(self) -> str:
        table = self.table
        result = table.result()
        if result is not None:
            return (
                f"{table.rules.title}: over after {table.decisions} decisions; "
                f"{table.rules.score_name} {list(result.scores)}, winners {list(result.winners)}"
            )
        return (
            f"{table.rules.title}: decision {table.decisions + 1}, awaiting seats "
            f"{table.awaiting()}{' (in secret)' if table.simultaneous() else ''}"
        )


def game_seed(generator: Any) -> int:
    """A game's seed from a NumPy generator (or any ``random.Random``)."""
    if isinstance(generator, random.Random):
        return generator.getrandbits(63)
    return int(generator.integers(0, 2**63 - 1))


DEFAULT_GAME = registry.DEFAULT
