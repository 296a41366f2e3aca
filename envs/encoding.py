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
    """One named run of a layout: ``size`` numbers, each within [``low``, ``high``]. A
    ``per_seat`` field has one such run per seat, inside the seats' block."""

    name: str
    size: int
    low: float
    high: float
    doc: str
    per_seat: bool = False


class Layout:
    """The fields of an observation, in order, and where each starts.

    Fields that are ``per_seat`` (declared one after the other) form the *seats' block*: one
    run of all of them per seat, seat after seat (egocentric: the viewer first, when the game
    says so), ``stride`` numbers each. A field of the block starts at ``offsets[name]`` for
    the first seat and ``stride`` further on for each next one. :meth:`values` reads any
    field out of an observation.
    """

    def __init__(self, fields: Sequence[Field], seats: int = 0) -> None:
        names = [f.name for f in fields]
        if len(set(names)) != len(names):
            raise ValueError(f"a layout names a field twice: {names}")
        flags = [f.per_seat for f in fields]
        if any(flags):
            first = flags.index(True)
            last = len(flags) - 1 - flags[::-1].index(True)
            if not all(flags[first : last + 1]):
                raise ValueError("the per-seat fields must be declared one after the other")
            if seats <= 0:
                raise ValueError("a layout with per-seat fields needs its number of seats")
        self.fields: tuple[Field, ...] = tuple(fields)
        self.seats = seats
        self.offsets: dict[str, int] = {}
        self.block = -1  # where the seats' block starts (-1: none)
        self.stride = sum(f.size for f in fields if f.per_seat)
        at = 0
        for f in fields:
            if f.size <= 0 or f.low > f.high:
                raise ValueError(f"field {f.name}: size {f.size}, bounds [{f.low}, {f.high}]")
            if f.per_seat:
                if self.block < 0:
                    self.block = at
                    at += self.stride * seats
                self.offsets[f.name] = self.block + self._within(f.name)
            else:
                self.offsets[f.name] = at
                at += f.size
        self.size = at

    def _within(self, name: str) -> int:
        at = 0
        for f in self.fields:
            if f.name == name:
                return at
            if f.per_seat:
                at += f.size
        raise KeyError(name)

    def __getitem__(self, name: str) -> int:
        return self.offsets[name]

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def slice(self, name: str) -> slice:
        """Where a field that is not per seat lies in an observation."""
        f = self.field(name)
        if f.per_seat:
            raise ValueError(f"{name} has one run per seat: read it with values()")
        start = self.offsets[name]
        return slice(start, start + f.size)

    def values(self, obs: Observation, name: str) -> Observation:
        """A field's numbers in ``obs``: shape (size,), or (seats, size) for a per-seat field."""
        f = self.field(name)
        if not f.per_seat:
            return obs[self.slice(name)]
        block = obs[self.block : self.block + self.seats * self.stride].reshape(self.seats, -1)
        within = self.offsets[name] - self.block
        return block[:, within : within + f.size]

    def parts(self) -> list[tuple[str, int, tuple[int, ...]]]:
        """The observation cut into consecutive named pieces, in order: (name, start,
        shape); the seats' block is one piece, ``seats`` of shape (seats, stride)."""
        out: list[tuple[str, int, tuple[int, ...]]] = []
        for f in self.fields:
            if not f.per_seat:
                out.append((f.name, self.offsets[f.name], (f.size,)))
            elif f.name == next(g.name for g in self.fields if g.per_seat):
                out.append(("seats", self.block, (self.seats, self.stride)))
        return out

    def _bounds(self, high: bool) -> Observation:
        out = np.zeros(self.size, np.float32)
        for f in self.fields:
            value = f.high if high else f.low
            if f.per_seat:
                self.values(out, f.name)[:] = value
            else:
                out[self.slice(f.name)] = value
        return out

    @cached_property
    def low(self) -> Observation:
        return self._bounds(False)

    @cached_property
    def high(self) -> Observation:
        return self._bounds(True)

    def markdown(self) -> str:
        """The layout as a Markdown table (docs/bots.md carries Blood Rage's)."""
        rows = [
            "| offset | field | size | range | what it holds |",
            "| --- | --- | --- | --- | --- |",
        ]
        for f in self.fields:
            at = str(self.offsets[f.name])
            if f.per_seat:
                at += f" + {self.stride}·k"
            size = f"{f.size} × {self.seats}" if f.per_seat else str(f.size)
            rows.append(f"| {at} | `{f.name}` | {size} | {_num(f.low)}–{_num(f.high)} | {f.doc} |")
        rows.append(f"| {self.size} | (end) | | | |")
        return "\n".join(rows)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class Encoding(Protocol):
    """One game's tensors for the learning environments (see the module's docstring).

    Two optional fast paths, which ``envs.table.Table`` uses when a game has them: an
    ``index_table()`` (the mapping from action to index) and a ``mask_indices`` attribute, a
    function ``(legal actions, zeroed mask bytes) -> their indices`` that also sets each
    index to 1 in the mask (Blood Rage's is in C)."""

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

    def encode(self, state: State, seat: int, awaited: Sequence[int] | None = None) -> Observation:
        """``seat``'s observation of ``state``: a fresh float32 array of the layout's size,
        built only from what the seat's view shows. ``awaited``: the seats the rules await in
        ``state`` (``Rules.awaiting``) when the caller has them at hand, as the environments
        do (None: the encoder asks the rules)."""
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
