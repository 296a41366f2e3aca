"""One seat played over PlaySession against a live server, with the observations and action
indices of the local environments, so a policy trained locally plays there unchanged.

Two ways in, both on the SDK (``clients.sdk.BotClient``: one PlaySession stream, reconnects,
idempotent resends):

* :class:`RemoteSeat`, a loop like a single agent's environment::

      seat = RemoteSeat("127.0.0.1:50051", game_id, seat=1)
      obs, info = seat.reset()                     # waits for the seat's first decision
      while True:
          obs, reward, terminated, truncated, info = seat.step(policy(obs))
          if terminated:
              break

* :class:`PolicyBot`, a ``clients.bots.base.Bot`` around a policy (``policy(obs) -> index``),
  for ``clients.sdk.play_seat`` and for tournaments: ``python -m envs.remote --policy
  mymodule:policy`` is a complete external bot (``yggdrasil-tournament 'cmd:python -m
  envs.remote --policy mymodule:policy' heuristic …`` appends ``--server``, ``--game`` and
  ``--seat``).

The observation is built from what the server sends the seat: the redacted engine state of
its view (``Encoding.seat_state``) and its legal actions, whose codes become catalogue
indices. Its ``observation`` equals what ``envs.aec`` gives the same seat in the same
position, and its ``action_mask`` the server's legal actions (tests/envs check both against
a replay of the server's log).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import queue
import random
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from clients.bots.base import View
from clients.sdk import BotClient, DecisionRefused, Result
from engine import registry
from engine.core.contract import Result as GameResult
from envs import rewards
from envs.games import GameSpec, spec

__all__ = [
    "ObsDict",
    "Policy",
    "PolicyBot",
    "RemoteSeat",
    "main",
    "observation_of",
    "random_policy",
]

ObsDict = dict[str, np.ndarray[Any, Any]]
Policy = Callable[[ObsDict], int]
"""A policy: an observation dict in, a catalogue index (one the mask allows) out."""


def observation_of(game: GameSpec, view: View) -> tuple[ObsDict, list[int]]:
    """The observation dict of a seat's view as the SDK gives it (with the engine state), and
    the catalogue index of each of the view's legal actions, in the view's order."""
    encoding = game.encoding
    seat = int(view["viewer"])
    state = encoding.seat_state(view)
    indices = [
        encoding.action_index(game.rules.action_from_code(int(entry["code"])))
        for entry in view["legal_actions"]
    ]
    if len(set(indices)) != len(indices):
        raise ValueError(f"two legal actions share a catalogue index: {indices}")
    noop = encoding.num_actions
    mask = np.zeros(noop + 1, np.int8)
    mask[indices or [noop]] = 1
    return {"observation": encoding.encode(state, seat), "action_mask": mask}, indices


def random_policy(seed: int | None = None) -> Policy:
    """Uniform over the mask (a stand-in for a trained policy)."""
    rng = random.Random(seed)

    def policy(obs: ObsDict) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[rng.randrange(len(legal))])

    return policy


class PolicyBot:
    """A ``Bot`` that plays ``policy`` on the local environments' observations."""

    wants_state = True  # the observation is built from the redacted engine state

    def __init__(self, policy: Policy, game: str = registry.DEFAULT, name: str = "policy") -> None:
        self.policy = policy
        self.game = spec(game)
        self.name = name

    def choose(self, view: View, rng: random.Random) -> int:
        obs, indices = observation_of(self.game, view)
        index = int(self.policy(obs))
        if index not in indices:
            raise ValueError(f"the policy chose {index}, which is not in the seat's mask")
        return indices.index(index)


class _Closed(Exception):
    """The seat was closed before its game ended."""


class _Bridge:
    """The bot the SDK plays: it hands each view to :class:`RemoteSeat`'s caller and waits for
    the answer (the SDK calls ``choose`` in a worker thread)."""

    name = "remote"
    wants_state = True

    def __init__(self) -> None:
        self.views: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.answers: queue.Queue[int | None] = queue.Queue()

    def choose(self, view: View, rng: random.Random) -> int:
        self.views.put(("decide", view))
        answer = self.answers.get()
        if answer is None:
            raise _Closed()
        return answer


class RemoteSeat:
    """One seat of a hosted game as a single agent's environment (see the module's
    docstring). ``reward`` as in :mod:`envs.rewards`, paid when the game ends; the last
    observation is then repeated, its mask holding only the no-op."""

    def __init__(
        self,
        address: str,
        game_id: str,
        *,
        seat: int | None = None,
        token: str | None = None,
        game: str = registry.DEFAULT,
        reward: str = "win",
        name: str = "",
        api_key: str | None = None,
        timeout_s: float = 600.0,
    ) -> None:
        self.game = spec(game)
        self.reward = rewards.check(reward)
        self.timeout_s = timeout_s
        self._bridge = _Bridge()
        self._client = BotClient(
            address, game_id, self._bridge, seat=seat, token=token, name=name, api_key=api_key
        )
        self._thread: threading.Thread | None = None
        self._indices: list[int] = []
        self._obs: ObsDict | None = None
        self.view: View | None = None
        self.result: Result | None = None

    @property
    def seat(self) -> int | None:
        return self._client.seat

    def _run(self) -> None:
        try:
            self._bridge.views.put(("over", asyncio.run(self._client.run())))
        except BaseException as error:  # handed to the caller, who raises it
            self._bridge.views.put(("error", error))

    def reset(
        self, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """Join (or resume) the seat and wait for its first decision. A hosted game is
        dealt by its server: ``seed`` and ``options`` are not used."""
        if self._thread is not None:
            raise RuntimeError("a remote seat plays one game: make a new RemoteSeat")
        self._thread = threading.Thread(target=self._run, name="remote-seat", daemon=True)
        self._thread.start()
        obs, _, _, info = self._next()
        return obs, info

    def step(self, action: int) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        """Send the seat's action (a catalogue index in its mask) and wait for its next
        decision or the end of the game."""
        if self._obs is None or self.result is not None:
            raise RuntimeError("no decision is awaited: reset() first, or the game is over")
        index = int(action)
        if index not in self._indices:
            raise ValueError(f"action {index} is not in the seat's mask; nothing was sent")
        self._bridge.answers.put(self._indices.index(index))
        obs, reward, terminated, info = self._next()
        return obs, reward, terminated, False, info

    def _next(self) -> tuple[ObsDict, float, bool, dict[str, Any]]:
        try:
            kind, value = self._bridge.views.get(timeout=self.timeout_s)
        except queue.Empty:
            raise TimeoutError(f"no word from the server in {self.timeout_s} s") from None
        if kind == "error":
            raise value
        if kind == "decide":
            self.view = value
            obs, self._indices = observation_of(self.game, value)
            self._obs = obs
            return obs, 0.0, False, {"state_version": value["version"]}
        result: Result = value
        self.result = result
        seat = result.seat
        final = GameResult(tuple(result.scores), tuple(result.winners), tuple(result.ranks))
        paid = rewards.final_rewards(final, self.reward)[seat] if result.scores else 0.0
        encoding = self.game.encoding
        last = self._obs or {  # (a game that ended before this seat had a decision)
            "observation": np.zeros(encoding.layout(len(result.scores)).size, np.float32),
            "action_mask": np.zeros(encoding.num_actions + 1, np.int8),
        }
        mask = np.zeros_like(last["action_mask"])
        mask[-1] = 1
        self._obs = {"observation": last["observation"], "action_mask": mask}
        info = {"status": result.status, "scores": result.scores, "winners": result.winners}
        return self._obs, paid, True, info

    def close(self) -> None:
        """Stop playing (a game not over is left to the server's timeouts)."""
        if self._thread is not None and self._thread.is_alive():
            self._bridge.answers.put(None)
            self._thread.join(timeout=10)


def _load_policy(spec_text: str) -> Policy:
    """``module:attribute`` (a policy, or a zero-argument factory called ``make_policy``),
    or ``random``."""
    if spec_text == "random":
        return random_policy()
    module_name, _, attr = spec_text.partition(":")
    if not module_name or not attr:
        raise ValueError(f"--policy takes module:attribute or random, not {spec_text!r}")
    target = getattr(importlib.import_module(module_name), attr)
    policy: Policy = target() if attr.startswith("make_") else target
    return policy


def main(argv: Sequence[str] | None = None) -> int:
    """Play one seat with a policy (what a tournament's ``cmd:`` bot runs)."""
    parser = argparse.ArgumentParser(
        prog="python -m envs.remote", description="Play one seat with a policy over PlaySession."
    )
    parser.add_argument("--server", required=True, help="host:port")
    parser.add_argument("--game", required=True, help="game id")
    parser.add_argument("--seat", type=int, default=None, help="seat to join (default: any)")
    parser.add_argument("--token", default=None, help="an existing seat token instead")
    parser.add_argument(
        "--policy", default="random", help="module:attribute of the policy, or random"
    )
    parser.add_argument("--kind", default=registry.DEFAULT, help="the game's name (blood_rage)")
    parser.add_argument("--name", default="policy", help="display name")
    args = parser.parse_args(argv)
    try:
        bot = PolicyBot(_load_policy(args.policy), args.kind, args.name)
    except (ValueError, ImportError, AttributeError, KeyError) as error:
        parser.error(str(error))
    from clients.sdk import play_seat

    try:
        result = asyncio.run(
            play_seat(args.server, args.game, bot, seat=args.seat, token=args.token, name=args.name)
        )
    except DecisionRefused as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(
        json.dumps(
            {
                "game_id": result.game_id,
                "seat": result.seat,
                "status": result.status,
                "scores": result.scores,
                "winners": result.winners,
            }
        )
    )
    return 0 if result.status == "FINISHED" else 1


if __name__ == "__main__":
    sys.exit(main())
