"""A PettingZoo AEC environment of any game with an encoding: one seat acts per step.

    from envs.aec import env
    e = env("blood_rage", players=4)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else pick(obs["observation"], obs["action_mask"])
        e.step(action)

The agent to act is the first seat whose decision is awaited. While seats choose in secret
(Blood Rage's draft picks, battle cards, the card kept), each of them is selected in turn and
each choice is applied at once, hidden from the others exactly as the rules hide it (their
observations show only that it was made: the ``committed`` fields). Rewards are paid when the
game ends (:mod:`envs.rewards`); every agent is then terminated and steps with ``None`` once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from envs.games import GameSpec
from envs.spaces import DEFAULT_GAME, Settings

__all__ = ["GameEnv", "env"]

ObsDict = dict[str, np.ndarray[Any, Any]]


class GameEnv(AECEnv[str, ObsDict, int]):  # type: ignore[misc]
    """The AEC environment (see the module's docstring).

    ``reward``: ``win``, ``rank`` or ``score`` (:mod:`envs.rewards`); ``illegal_action``:
    ``raise`` or ``default`` (:data:`envs.spaces.ILLEGAL`); ``max_decisions``: truncate a
    game after that many decisions (None: play every game to its end).
    """

    def __init__(
        self,
        game: str | GameSpec = DEFAULT_GAME,
        players: int = 4,
        *,
        game_options: Mapping[str, Any] | None = None,
        reward: str = "win",
        illegal_action: str = "raise",
        max_decisions: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._s = Settings(game, players, game_options, reward, illegal_action, max_decisions)
        self.metadata = self._s.metadata()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.table = self._s.table
        self.possible_agents = list(self._s.agents)
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._s.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._s.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game (``options`` is accepted for the API's sake and unused)."""
        self._s.new_game(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self._s.agents[self.table.awaiting()[0]]

    def observe(self, agent: str) -> ObsDict:
        seat = self._s.seat_of[agent]
        return {"observation": self.table.observe(seat), "action_mask": self.table.mask(seat)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        refused = self._s.play(self._s.seat_of[agent], action)
        self._cumulative_rewards[agent] = 0.0
        if refused is not None:
            self.infos[agent] = {"illegal_action": refused}
        elif self.infos[agent]:
            self.infos[agent] = {}
        waiting = self.table.awaiting()
        if not waiting:  # the game is over: everyone is paid, once
            for a, r in zip(self._s.agents, self._s.final_rewards(), strict=True):
                self.rewards[a] = r
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
            self._accumulate_rewards()
        elif self._s.max_decisions is not None and self._s.truncated():
            self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        else:
            # Mid-game every reward is 0 (and was already): nothing to clear or accumulate.
            self.agent_selection = self._s.agents[waiting[0]]

    def render(self) -> str:
        return self._s.render()

    def close(self) -> None:
        """Nothing to release (the game lives in this process)."""


def env(game: str | GameSpec = DEFAULT_GAME, players: int = 4, **kwargs: Any) -> GameEnv:
    """The AEC environment of ``game`` (keyword arguments: see :class:`GameEnv`)."""
    return GameEnv(game, players, **kwargs)
