"""What a game gives the learning environments: its observation tensor and its action indices.

The environments (PettingZoo, OpenSpiel, the remote seat) are the same for every game: they
drive the game through the rules contract (``engine.core.contract.Rules``) and never name a
game. All a game adds is an :class:`Encoding`, found through the registry's ``envs`` column
(``engine.registry.GameEntry.envs`` names a module whose ``ENCODING`` it is):

* a fixed **layout** per player count: named fields of a flat ``float32`` tensor, each with
  its bounds and a sentence saying what it holds (``python -m envs.layout GAME PLAYERS``
  prints it; docs/bots.md shows Blood Rage's);
* :meth:`Encoding.encode`: a seat's observation from a state, reading **only what that seat's
  view shows** (tests hold every game's encoding to it: the observation of the true state
  equals that of the state rebuilt from the seat's redacted view, and that of any state that
  differs only in what the seat cannot see);
* a fixed **action catalogue**: every action the game can ever offer has one index in
  ``0 … num_actions-1`` (:meth:`Encoding.action_index`), so a policy's output layer and the
  action mask have one meaning per position in every state;
* :meth:`Encoding.seat_state`: the state as a seat knows it, from the view the API gives it
  (with the redacted engine state), which is what the remote environment encodes: a policy
  trained locally sees the same tensor when it plays over the network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from engine.core.contract import Action, State

__all__ = ["Encoding", "Field", "Layout", "Observation"]

Observation = npt.NDArray[np.float32]
"""A seat's observation: a flat float32 tensor in its game's :class:`Layout`."""


@dataclass(frozen=True, slots=True)
class Field:
    """One named run of a layout: ``size`` numbers, each within [``low``, ``high``]."""

    name: str
    size: int
    low: float
    high: float
    doc: str


class Layout:
    """The fields of an observation, in order, and where each starts."""

    def __init__(self, fields: Sequence[Field]) -> None:
        names = [f.name for f in fields]
        if len(set(names)) != len(names):
            raise ValueError(f"a layout names a field twice: {names}")
        self.fields: tuple[Field, ...] = tuple(fields)
        self.offsets: dict[str, int] = {}
        at = 0
        for f in fields:
            if f.size <= 0 or f.low > f.high:
                raise ValueError(f"field {f.name}: size {f.size}, bounds [{f.low}, {f.high}]")
            self.offsets[f.name] = at
            at += f.size
        self.size = at

    def __getitem__(self, name: str) -> int:
        return self.offsets[name]

    def field(self, name: str) -> Field:
        return self.fields[[f.name for f in self.fields].index(name)]

    def slice(self, name: str) -> slice:
        """Where a field lies in an observation (``obs[layout.slice("hand")]``)."""
        start = self.offsets[name]
        return slice(start, start + self.field(name).size)

    @cached_property
    def low(self) -> Observation:
        return np.concatenate([np.full(f.size, f.low, np.float32) for f in self.fields])

    @cached_property
    def high(self) -> Observation:
        return np.concatenate([np.full(f.size, f.high, np.float32) for f in self.fields])

    def markdown(self) -> str:
        """The layout as a Markdown table (docs/bots.md carries Blood Rage's)."""
        rows = [
            "| offset | field | size | range | what it holds |",
            "| --- | --- | --- | --- | --- |",
        ]
        for f in self.fields:
            rows.append(
                f"| {self.offsets[f.name]} | `{f.name}` | {f.size} | "
                f"{_num(f.low)}–{_num(f.high)} | {f.doc} |"
            )
        rows.append(f"| {self.size} | (end) | | | |")
        return "\n".join(rows)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class Encoding(Protocol):
    """One game's tensors for the learning environments (see the module's docstring)."""

    game: str
    """The game's registry name (``"blood_rage"``)."""

    def layout(self, players: int) -> Layout:
        """The observation layout for a player count (the same object on every call)."""
        ...

    @property
    def num_actions(self) -> int:
        """How many actions the catalogue holds: indices are ``0 … num_actions-1``."""
        ...

    def action_index(self, action: Action) -> int:
        """The catalogue index of an action the rules offer (``KeyError`` if it has none:
        a game whose catalogue misses an action is a bug the conformance tests catch)."""
        ...

    def action_at(self, index: int) -> Action:
        """The action at a catalogue index (``IndexError`` outside the catalogue)."""
        ...

    def encode(self, state: State, seat: int) -> Observation:
        """``seat``'s observation of ``state``: a fresh float32 array of the layout's size,
        built only from what the seat's view shows."""
        ...

    def seat_state(self, view: Mapping[str, Any]) -> State:
        """The state as the viewing seat knows it, from its view as the API gives it to a bot
        (``clients.sdk.proto_view_to_bot_view``, asked with the engine state): what
        :meth:`encode` reads for a seat played over the network."""
        ...

    def max_score(self, players: int) -> int:
        """A bound on the absolute value of any seat's final score (the Glory-difference
        reward's range, OpenSpiel's utility bounds)."""
        ...

    def max_decisions(self, players: int) -> int:
        """A bound on the decisions of one game (OpenSpiel's maximum game length)."""
        ...
