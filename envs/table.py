"""One game played through the rules contract, in the encoding's action indices: the engine
room every environment (PettingZoo's two, OpenSpiel's, the benchmarks) drives.

A :class:`Table` holds the state and answers, per seat, the legal actions as catalogue
indices, the action mask and the observation; :meth:`Table.play` applies a seat's index.
Besides the game's own catalogue it has one more action, :attr:`Table.noop` (the last
index): "nothing to decide". It is the whole mask of a seat whose decision is not awaited
(PettingZoo's Parallel API and OpenSpiel's simultaneous nodes ask every seat for an action)
and is never in the mask of an awaited seat, whose mask is exactly its legal list.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.core.contract import Action, Result, State
from envs.encoding import Layout, Observation
from envs.games import GameSpec

__all__ = ["IllegalIndex", "Mask", "Table"]

Mask = npt.NDArray[np.int8]
"""1 where an action index is legal, else 0."""


class IllegalIndex(ValueError):
    """An action index a seat may not play now (the state is unchanged)."""


class Table:
    """One game of ``game`` for ``players`` seats; :meth:`start` deals it."""

    def __init__(
        self, game: GameSpec, players: int, game_options: Mapping[str, Any] | None = None
    ) -> None:
        self.game = game
        self.rules = game.rules
        self.encoding = game.encoding
        self.players = players
        self.game_options = dict(game_options or {})
        self.rules.options(players, 0, self.game_options)  # OptionsError now, not at start
        self.layout: Layout = self.encoding.layout(players)
        self.noop = self.encoding.num_actions
        self.num_actions = self.noop + 1
        table = getattr(self.encoding, "index_table", None)
        self._index: Mapping[Any, int] | None = table() if table is not None else None
        self._mask_indices: Callable[[Sequence[Action], bytearray], list[int]] | None = getattr(
            self.encoding, "mask_indices", None
        )
        self._mask_zeros = bytes(self.num_actions)
        self.state: State | None = None
        self.decisions = 0
        self._awaiting: list[int] | None = None
        self._lists: dict[int, tuple[list[int], Sequence[Action]]] = {}
        self._legal: dict[int, dict[int, Action]] = {}  # made from _lists when asked
        self._masks: dict[int, bytearray] = {}  # made with the legal actions, handed out once

    # -- the game ----------------------------------------------------------------------

    def start(self, seed: int) -> None:
        """A new game from ``seed`` (every card of the deal follows from it)."""
        options = self.rules.options(self.players, seed, self.game_options)
        self.state = self.rules.new_game(options)
        self.decisions = 0
        self._forget()

    def _live(self) -> State:
        if self.state is None:
            raise RuntimeError("no game yet: start() it first")
        return self.state

    def awaiting(self) -> list[int]:
        """The seats whose decision is awaited now (empty once the game is over)."""
        waiting = self._awaiting
        if waiting is None:
            waiting = self._awaiting = self.rules.awaiting(self._live())
        return waiting

    def result(self) -> Result | None:
        return self.rules.result(self._live())

    def simultaneous(self) -> bool:
        return self.rules.is_simultaneous(self._live())

    # -- actions as indices --------------------------------------------------------------

    def _found(self, seat: int) -> tuple[list[int], Sequence[Action]]:
        """The seat's legal indices and actions, in the rules' order (asked once a state)."""
        found = self._lists.get(seat)
        if found is None:
            state = self.state
            if state is None:
                raise RuntimeError("no game yet: start() it first")
            actions = self.rules.legal_actions(state, seat)
            if self._mask_indices is not None:  # the game's own, which makes the mask too
                mask = bytearray(self._mask_zeros)
                indices = self._mask_indices(actions, mask)
                self._masks[seat] = mask
            else:
                index = self._index
                if index is not None:
                    indices = [index[a] for a in actions]
                else:
                    indices = [self.encoding.action_index(a) for a in actions]
                if len(set(indices)) != len(indices):
                    raise RuntimeError(f"two legal actions share a catalogue index: {actions}")
            found = self._lists[seat] = (indices, actions)
        return found

    def legal(self, seat: int) -> dict[int, Action]:
        """The seat's legal actions by catalogue index, in the rules' order (empty when its
        decision is not awaited)."""
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._legal[seat] = dict(zip(*self._found(seat), strict=True))
        return legal

    def legal_indices(self, seat: int) -> list[int]:
        """The seat's legal indices, ascending; ``[noop]`` when it has nothing to decide."""
        indices = self._found(seat)[0]
        return sorted(indices) if indices else [self.noop]

    def mask(self, seat: int) -> Mask:
        """The seat's action mask (``num_actions`` entries)."""
        indices = self._found(seat)[0]
        m = self._masks.pop(seat, None)  # the game's, made with the legal list (once)
        if m is None:
            m = bytearray(self._mask_zeros)
            for i in indices:
                m[i] = 1
        if not indices:
            m[self.noop] = 1
        return np.frombuffer(m, np.int8)

    def observe(self, seat: int) -> Observation:
        return self.encoding.encode(self._live(), seat, self.awaiting())

    def default_index(self, seat: int) -> int:
        """The index the server would play for the seat if its time ran out."""
        legal = self.legal(seat)
        if not legal:
            return self.noop
        action = self.rules.default_action(self._live(), seat)
        return next(i for i, a in legal.items() if a == action)

    def play(self, seat: int, index: int) -> None:
        """Apply the seat's action at catalogue ``index``. :attr:`noop` is accepted (and
        changes nothing) from a seat with nothing to decide; anything not in the seat's mask
        raises :class:`IllegalIndex` and changes nothing."""
        indices, actions = self._found(seat)
        if not indices:
            if index == self.noop:
                return
            raise IllegalIndex(
                f"seat {seat} has nothing to decide now (awaited: {self.awaiting()}); "
                f"its only action is {self.noop} (no-op), not {index}"
            )
        try:
            action = actions[indices.index(index)]
        except ValueError:
            raise IllegalIndex(
                f"action {index} is not legal for seat {seat} now ({len(indices)} legal: "
                f"{sorted(indices)[:12]}{' …' if len(indices) > 12 else ''})"
            ) from None
        self.rules.apply_unchecked(self._live(), seat, action)
        self.decisions += 1
        self._awaiting = None
        self._lists = {}
        self._legal = {}
        self._masks = {}

    def describe(self, index: int) -> str:
        """The action at ``index`` for people."""
        if index == self.noop:
            return "no-op"
        return self.rules.describe(self.encoding.action_at(index))

    def _forget(self) -> None:
        self._awaiting = None
        self._lists = {}
        self._legal = {}
        self._masks = {}

    # -- copies (OpenSpiel clones a state with copy.deepcopy and serializes it with pickle) --

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        """An independent table on a copy of the state (the rules and encoding are shared:
        they hold no game)."""
        twin = copy.copy(self)
        twin.state = self.state.copy() if self.state is not None else None
        twin._forget()
        return twin

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the game (its rules and encoding, by reference to their classes) and
        the rules' snapshot of the state."""
        snapshot = self.rules.to_snapshot(self.state) if self.state is not None else None
        return (_restored, (self.game, self.players, self.game_options, snapshot, self.decisions))


def _restored(
    game: GameSpec,
    players: int,
    game_options: dict[str, Any],
    snapshot: dict[str, Any] | None,
    decisions: int,
) -> Table:
    table = Table(game, players, game_options)
    if snapshot is not None:
        table.state = table.rules.from_snapshot(snapshot)
    table.decisions = decisions
    return table
