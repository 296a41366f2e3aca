"""A PettingZoo Parallel environment of any game with an encoding: every seat acts per step.

    from envs.parallel import parallel_env
    e = parallel_env("blood_rage", players=4)
    observations, infos = e.reset(seed=7)
    while e.agents:
        actions = {a: pick(o["observation"], o["action_mask"]) for a, o in observations.items()}
        observations, rewards, terminations, truncations, infos = e.step(actions)

Every step takes an action from each live agent. The seats whose decision is awaited act;
the others have nothing to decide, and their mask holds only the no-op (the last index),
which is what they send (leaving them out of ``actions`` means the same). Where the Parallel
API fits the game best is its secret simultaneous choices (Blood Rage's draft, battle cards
and the card kept): all the awaited seats choose in one step, each from its own observation,
none seeing another's choice. Between them the game is sequential and a step moves one seat.

A step checks every action before it applies any: an action outside its agent's mask raises
``envs.table.IllegalIndex`` and changes nothing (or, with ``illegal_action="default"``, is
replaced by the rules' default decision and reported in that agent's info). Rewards come at
the end (:mod:`envs.rewards`); then every agent is terminated and ``agents`` is empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from envs.games import GameSpec
from envs.spaces import DEFAULT_GAME, Settings, agent_name
from envs.table import IllegalIndex

__all__ = ["ParallelGameEnv", "parallel_env"]

ObsDict = dict[str, np.ndarray[Any, Any]]


class ParallelGameEnv(ParallelEnv[str, ObsDict, int]):  # type: ignore[misc]
    """The Parallel environment (see the module's docstring; settings as ``envs.aec``)."""

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
        self._s = Settings(game, players, game_options, reward, illegal_action, max_decisions)
        self.metadata = self._s.metadata()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.table = self._s.table
        self.possible_agents = list(self._s.agents)
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._s.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._s.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        """A new game (``options`` is accepted for the API's sake and unused)."""
        self._s.new_game(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def _observations(self) -> dict[str, ObsDict]:
        table = self.table
        return {
            a: {
                "observation": table.observe(self._s.seat_of[a]),
                "action_mask": table.mask(self._s.seat_of[a]),
            }
            for a in self.agents
        }

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, ObsDict],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        if not self.agents:
            raise RuntimeError("the game is over: reset() the environment first")
        unknown = set(actions) - set(self.agents)
        if unknown:
            raise ValueError(f"actions for agents not in the game: {sorted(unknown)}")
        table = self.table
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        moves: list[tuple[int, int]] = []
        for agent in self.agents:
            seat = self._s.seat_of[agent]
            legal = table.legal(seat)
            action = actions.get(agent)
            if action is None:
                if legal:
                    self._refuse(agent, f"{agent} must act: its decision is awaited")
                    moves.append((seat, table.default_index(seat)))
                    infos[agent]["illegal_action"] = None
                continue
            index = int(action)
            if legal and index in legal:
                moves.append((seat, index))
            elif not legal and index == table.noop:
                continue
            else:
                self._refuse(agent, f"action {index} is not in {agent}'s mask")
                infos[agent]["illegal_action"] = index
                if legal:
                    moves.append((seat, table.default_index(seat)))
        for seat, index in moves:  # simultaneous choices do not change each other's legality
            table.play(seat, index)
        rewards = dict.fromkeys(self.agents, 0.0)
        observations = self._observations()
        over = not table.awaiting()
        truncated = not over and self._s.truncated()
        if over:
            for seat, r in enumerate(self._s.final_rewards()):
                rewards[agent_name(seat)] = r
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, truncated)
        if over or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _refuse(self, agent: str, why: str) -> None:
        if self._s.illegal_action == "raise":
            raise IllegalIndex(f"{why}; nothing was applied")

    def render(self) -> str:
        return self._s.render()

    def close(self) -> None:
        """Nothing to release (the game lives in this process)."""


def parallel_env(
    game: str | GameSpec = DEFAULT_GAME, players: int = 4, **kwargs: Any
) -> ParallelGameEnv:
    """The Parallel environment of ``game`` (keyword arguments: see ``envs.aec.GameEnv``)."""
    return ParallelGameEnv(game, players, **kwargs)
