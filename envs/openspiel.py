"""Every game with an encoding as an OpenSpiel Python game, registered with
``pyspiel.register_game`` when this module is imported:

    import envs.openspiel  # registers yggdrasil_blood_rage (and every other such game)
    game = pyspiel.load_game("yggdrasil_blood_rage", {"players": 4, "reward": "win"})

The game is the engine's, as the engine has it:

* **dynamics**: simultaneous. Where the rules let seats choose in secret at once (Blood Rage's
  draft, battle cards, the card kept) the node is simultaneous (``current_player()`` is
  ``SIMULTANEOUS``; a seat with nothing to decide there has one action, the no-op, the last
  index); everywhere else one seat decides and the node is an ordinary player node.
* **chance**: explicit, once. All of a game's randomness follows from its seed (the deal, and
  any roll during play), so the one chance node is the first: it draws the seed, uniformly
  among ``deals`` values (parameter, default 65,536).
* **information**: imperfect. A seat's observation tensor is the game's encoding
  (:mod:`envs.encoding`, the same as the PettingZoo environments'); its observation string
  names the tensor's non-zero fields. The information state (perfect recall) is, as a
  string, the seat's own actions and every distinct observation it had since the deal, in
  order; as a tensor, the observation followed by its running maximum since the deal (every
  0/1 feature the seat has ever seen set: the cards it saw pass, what was revealed and
  later left the table), a fixed-size summary of what it remembers.
* **utility**: paid at the end only (terminal rewards), by the ``reward`` parameter
  (:mod:`envs.rewards`): ``win`` is constant-sum (1), ``score`` zero-sum, ``rank`` general-sum.

Parameters: ``players`` (default 4), ``reward`` (``win``), ``deals`` (65536), ``options``
(the game's own options as a JSON object, default ``{}``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pyspiel

from envs import rewards
from envs.games import GameSpec, available, spec
from envs.table import Table

__all__ = ["DEFAULT_DEALS", "GAME_PREFIX", "register", "short_name"]

GAME_PREFIX = "yggdrasil_"
DEFAULT_DEALS = 1 << 16
_UTILITY = {
    "win": pyspiel.GameType.Utility.CONSTANT_SUM,
    "rank": pyspiel.GameType.Utility.GENERAL_SUM,
    "score": pyspiel.GameType.Utility.ZERO_SUM,
}


_UTILITY_SUM: dict[str, float | None] = {"win": 1.0, "rank": None, "score": 0.0}


def short_name(game: str) -> str:
    """The name OpenSpiel knows a game by (``yggdrasil_blood_rage``)."""
    return GAME_PREFIX + game


def _game_type(game: GameSpec, utility: Any) -> pyspiel.GameType:
    rules = game.rules
    return pyspiel.GameType(
        short_name=short_name(game.name),
        long_name=f"Yggdrasil {rules.title}",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=rules.max_players,
        min_num_players=rules.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": 4,
            "reward": "win",
            "deals": DEFAULT_DEALS,
            "options": "{}",
        },
    )


class _Game(pyspiel.Game):  # type: ignore[misc]
    """One engine game for OpenSpiel (its name decides which: see :func:`_register`)."""

    spec: GameSpec

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.players = int(params.get("players", 4))
        self.reward = rewards.check(str(params.get("reward", "win")))
        self.deals = int(params.get("deals", DEFAULT_DEALS))
        if self.deals <= 0:
            raise ValueError(f"deals must be positive, not {self.deals}")
        options = json.loads(str(params.get("options", "{}")))
        if not isinstance(options, dict):
            raise ValueError("options must be a JSON object")
        self.options = options
        rules, encoding = self.spec.rules, self.spec.encoding
        self.table = Table(self.spec, self.players, options)  # checks players and options
        low, high = rewards.bounds(self.reward, encoding.max_score(self.players))
        super().__init__(
            _game_type(self.spec, _UTILITY[self.reward]),
            pyspiel.GameInfo(
                num_distinct_actions=self.table.num_actions,
                max_chance_outcomes=self.deals,
                num_players=self.players,
                min_utility=low,
                max_utility=high,
                utility_sum=_UTILITY_SUM[self.reward],
                max_game_length=encoding.max_decisions(self.players),
            ),
            {
                "players": self.players,
                "reward": self.reward,
                "deals": self.deals,
                "options": json.dumps(options, sort_keys=True),
            },
        )
        self.title = rules.title

    def new_initial_state(self) -> _State:
        return _State(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> _Observer:
        if isinstance(iig_obs_type, dict):  # OpenSpiel passes the params alone positionally
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = iig_obs_type is not None and bool(iig_obs_type.perfect_recall)
        return _Observer(self, recall)


class _State(pyspiel.State):  # type: ignore[misc]
    """One node: before the deal (chance), then the engine's state."""

    def __init__(self, game: _Game) -> None:
        super().__init__(game)
        self._table = Table(game.spec, game.players, game.options)
        self._reward = game.reward
        self._deals = game.deals
        self._dealt = False
        self._returns = [0.0] * game.players
        # Per seat: its own actions and each distinct observation it had, in order (the
        # information-state string), and the running maximum of its observations.
        self._trail: list[list[str]] = [[] for _ in range(game.players)]
        self._recall: list[np.ndarray[Any, Any] | None] = [None] * game.players

    # -- whose move ----------------------------------------------------------------------

    def current_player(self) -> int:
        if not self._dealt:
            return int(pyspiel.PlayerId.CHANCE)
        table = self._table
        waiting = table.awaiting()
        if not waiting:
            return int(pyspiel.PlayerId.TERMINAL)
        if table.simultaneous():
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return waiting[0]

    def is_terminal(self) -> bool:
        return self._dealt and not self._table.awaiting()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert not self._dealt
        p = 1.0 / self._deals
        return [(seed, p) for seed in range(self._deals)]

    def _legal_actions(self, player: int) -> list[int]:
        if not self._dealt:
            return list(range(self._deals)) if player == pyspiel.PlayerId.CHANCE else []
        if player < 0 or self.is_terminal():
            return []
        table = self._table
        if table.simultaneous():
            return table.legal_indices(player)
        return sorted(table.legal(player))

    # -- moves ---------------------------------------------------------------------------

    def _apply_action(self, action: int) -> None:
        if not self._dealt:
            if not 0 <= action < self._deals:
                raise ValueError(f"deal {action} is not one of 0 … {self._deals - 1}")
            self._table.start(action)
            self._dealt = True
        else:
            seat = self.current_player()
            if seat < 0:
                raise ValueError("no single player is to move here")
            self._table.play(seat, action)
            self._trail[seat].append(f"a{action}")
        self._settle()

    def _apply_actions(self, actions: list[int]) -> None:
        table = self._table
        if len(actions) != table.players:
            raise ValueError(f"{len(actions)} actions for {table.players} players")
        for seat, index in enumerate(actions):  # check every one before applying any
            legal = table.legal(seat)
            if (index not in legal) if legal else (index != table.noop):
                raise ValueError(f"action {index} is not legal for player {seat} here")
        for seat, index in enumerate(actions):
            if index != table.noop:
                table.play(seat, index)
                self._trail[seat].append(f"a{index}")
        self._settle()

    def _settle(self) -> None:
        """After a move: every seat's recall, and the returns once the game is over."""
        table = self._table
        for seat in range(table.players):
            obs = table.observe(seat)
            digest = hashlib.blake2b(obs.tobytes(), digest_size=8).hexdigest()
            trail = self._trail[seat]
            if not trail or trail[-1] != digest:
                trail.append(digest)
            held = self._recall[seat]
            self._recall[seat] = obs.copy() if held is None else np.maximum(held, obs)
        result = table.result()
        if result is not None:
            self._returns = rewards.final_rewards(result, self._reward)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return self._table.describe(action)

    # -- outcome -------------------------------------------------------------------------

    def returns(self) -> list[float]:
        return list(self._returns)

    def rewards(self) -> list[float]:
        return list(self._returns) if self.is_terminal() else [0.0] * len(self._returns)

    def __str__(self) -> str:
        if not self._dealt:
            return "before the deal"
        table = self._table
        state = table.state
        assert state is not None
        return (
            f"decision {table.decisions}, awaiting {table.awaiting()}, state {state.state_hash()}"
        )


class _Observer:
    """OpenSpiel's py observer: the observation tensor, or with ``recall`` the information
    state (observation, then its running maximum since the deal)."""

    def __init__(self, game: _Game, recall: bool) -> None:
        self.recall = recall
        layout = game.table.layout
        self.size = layout.size
        self.tensor = np.zeros(2 * layout.size if recall else layout.size, np.float32)
        self.dict: dict[str, np.ndarray[Any, Any]] = {}
        for name, start, shape in layout.parts():
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[start : start + size].reshape(shape)
        if recall:
            self.dict["recall"] = self.tensor[layout.size :]
        self.layout = layout

    def set_from(self, state: _State, player: int) -> None:
        if not state._dealt:
            self.tensor.fill(0.0)
            return
        obs = state._table.observe(player)
        self.tensor[: self.size] = obs
        if self.recall:
            held = state._recall[player]
            self.tensor[self.size :] = obs if held is None else held

    def string_from(self, state: _State, player: int) -> str:
        if self.recall:
            return f"p{player}:" + " ".join(state._trail[player])
        if not state._dealt:
            return "before the deal"
        obs = state._table.observe(player)
        parts = []
        for f in self.layout.fields:
            run = self.layout.values(obs, f.name).reshape(-1)
            nonzero = np.flatnonzero(run)
            if len(nonzero):
                parts.append(f"{f.name}=" + ",".join(f"{i}:{run[i]:g}" for i in nonzero.tolist()))
        return " ".join(parts)


def register(game: GameSpec) -> str:
    """Register a game with OpenSpiel (once; every game with an encoding in the registry is
    registered when this module is imported); its OpenSpiel name."""
    name = short_name(game.name)
    if name not in pyspiel.registered_names():
        cls = type(f"Game_{game.name}", (_Game,), {"spec": game})
        pyspiel.register_game(_game_type(game, _UTILITY["win"]), cls)
    return name


for _name in available():
    register(spec(_name))
