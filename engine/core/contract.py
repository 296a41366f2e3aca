"""The contract every game's rules implement: what the server, the bots and the learning
environments may ask of a game, and nothing more.

It follows OpenSpiel's split of a game into *rules* (fixed facts: names, player counts, how
to start) and *states* (one position each), and python-chess's habit of a checked entry point
beside an unchecked fast path. Everything outside a game's own folder talks to it through
:class:`Rules` and the values defined here; a second game is a second implementation of the
same protocol (``engine.registry`` lists them).

A game is a pure function of (options, seed, decisions): every random draw comes from the
seed (``engine.core.rng``), so replaying the decision log reproduces :meth:`State.state_hash`
exactly, in any process.

Seats are ints ``0 … players-1``; :data:`SPECTATOR` views public information only. An action
is a hashable value with a stable integer :meth:`Action.code`; the legal list of a seat is
the enumeration of its choices, so every decision is an index into it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Self, runtime_checkable

__all__ = [
    "SPECTATOR",
    "VIEW_KEYS",
    "Action",
    "Event",
    "Options",
    "Result",
    "Rules",
    "State",
    "ranks_of",
]

SPECTATOR = -1
"""The viewer of public information only (a seat that holds no cards)."""

VIEW_KEYS: tuple[str, ...] = ("viewer", "version", "awaiting", "committed", "legal_actions")
"""The keys every game's view has: ``viewer`` (the seat, or SPECTATOR), ``version`` (the
state's), ``awaiting`` (the seats whose decision is awaited now, as :meth:`Rules.awaiting`),
``committed`` (the seats that already chose in secret in this round of a simultaneous decision,
ascending), ``legal_actions`` (the viewer's, in order: dicts with at least ``index``, ``code``
and ``label``; empty for spectators and seats not awaited)."""

Event = tuple[int, dict[str, Any]]
"""One engine event: ``(audience, payload)``. The audience is a seat (the event is that seat's
secret: its own draft pick, its battle card) or ``SPECTATOR`` (everyone may see it); the
payload is a JSON-able dict whose ``"type"`` names it. What a payload holds is the game's own
(its wire conversion turns it into protobuf). Recorded only while ``State.events`` is a
list."""


@runtime_checkable
class Action(Protocol):
    """One decision of one seat. Equal actions have equal codes in every state."""

    def code(self) -> int:
        """The action's stable non-negative integer (bots, ML and the stored log key on it)."""
        ...

    def __hash__(self) -> int: ...


class State(Protocol):
    """One position of a game. Mutable: :meth:`Rules.apply` changes it in place."""

    @property
    def players(self) -> int:
        """The number of seats."""
        ...

    @property
    def version(self) -> int:
        """0 at the start; grows by exactly 1 with every applied decision."""
        ...

    events: list[Event] | None
    """``None``: events are not recorded (the fast path of search). A list: every event the
    rules emit from now on is appended to it, in the order the rules did things."""

    def copy(self) -> Self:
        """An independent copy, cheap enough for search (fields copied by hand)."""
        ...

    def state_hash(self) -> str:
        """A digest of everything that decides the game's future; equal in every process."""
        ...


class Options(Protocol):
    """A game's fixed options. ``players`` and ``seed`` are common to all games."""

    @property
    def players(self) -> int: ...

    @property
    def seed(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of a finished game, as data.

    ``scores`` are the game's own points (Blood Rage: Glory; Fire & Axe: victory points).
    ``ranks`` are 1 = best; seats that share a rank share it fully (1, 1, 3 …) after the
    game's own tie-breakers, and ``winners`` are the seats ranked 1.
    """

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    ranks: tuple[int, ...]


def ranks_of(keys: Sequence[Any]) -> tuple[int, ...]:
    """Competition ranks (1, 1, 3 …) of seats ordered by ``keys``, higher is better: a key is
    the score, or a tuple (score, tie-breaker, …) compared in order."""
    return tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)


class Rules(Protocol):
    """One game's rules: the only door through which anything outside the game reaches it.

    Methods that take a ``seat`` take a seat of the state (``0 … players-1``). The checked
    :meth:`apply` raises an ``engine.core.errors.EngineError`` subclass and leaves the state
    unchanged; :meth:`apply_unchecked` trusts that the action came from :meth:`legal_actions`
    of the same state and seat.
    """

    name: str
    """The game's stable id (``"blood_rage"``): the registry key, stored with every game."""
    title: str
    """Its name for people (``"Blood Rage"``)."""
    min_players: int
    max_players: int
    score_name: str
    """What the result's scores count, for people (``"Glory"``)."""

    # -- starting ------------------------------------------------------------------------

    def options(self, players: int, seed: int, game_options: Mapping[str, Any]) -> Options:
        """The game's options from the common ones and its own (JSON-able, as
        :meth:`options_record` writes them); ``OptionsError`` names what is out of range."""
        ...

    def options_of(self, state: State) -> Options:
        """The options a state was started with (a scenario's, once it is built)."""
        ...

    def options_record(self, options: Options) -> dict[str, Any]:
        """The game's own options (not players and seed) as a JSON-able dict: what a store
        keeps and a replay carries. :meth:`options` reads it back."""
        ...

    def new_game(self, options: Options) -> State:
        """A new game, dealt and advanced to its first decision."""
        ...

    def from_scenario(self, text: str) -> State:
        """A position from the game's scenario JSON (``ScenarioError`` says what is wrong)."""
        ...

    # -- playing -------------------------------------------------------------------------

    def awaiting(self, state: State) -> list[int]:
        """The seats whose decision is awaited now, ascending (several while seats choose at
        the same time); empty once the game is over."""
        ...

    def is_simultaneous(self, state: State) -> bool:
        """True while several seats choose in secret at once: each seat's choice is hidden
        from the others until every one of them has chosen."""
        ...

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        """The seat's legal decisions now, in a stable order (empty if not awaited)."""
        ...

    def apply(self, state: State, seat: int, action: Action) -> None:
        """Apply ``action`` after checking it; on error the state is unchanged."""
        ...

    def apply_unchecked(self, state: State, seat: int, action: Action) -> None:
        """Apply an action taken from :meth:`legal_actions` of this state and seat."""
        ...

    def default_action(self, state: State, seat: int) -> Action:
        """The decision applied for ``seat`` when its time runs out (the seat is awaited)."""
        ...

    def result(self, state: State) -> Result | None:
        """The result once the game is over, else None."""
        ...

    def phase(self, state: State) -> int:
        """A number that changes whenever the game moves on to its next phase: a natural
        checkpoint (hosts take a snapshot there)."""
        ...

    # -- seeing --------------------------------------------------------------------------

    def view(
        self, state: State, viewer: int = SPECTATOR, include_state: bool = False
    ) -> dict[str, Any]:
        """Everything ``viewer`` may see, as JSON-able data: public facts plus that seat's own
        secrets, never another seat's. Every game's view has the keys of :data:`VIEW_KEYS`
        (what the API's envelope shows of any game); the rest is the game's own.
        ``include_state`` adds ``"engine_state"``: the viewer's redacted state for bots that
        search (every card it cannot see blanked)."""
        ...

    def seat_label(self, seat: int) -> str:
        """A seat's name for people when it has no player name (Blood Rage: its clan)."""
        ...

    # -- actions as data -----------------------------------------------------------------

    def action_from_code(self, code: int) -> Action:
        """The action with this :meth:`Action.code` (``ValueError`` if none)."""
        ...

    def describe(self, action: Action) -> str:
        """A short text for people, e.g. ``"invade warrior -> Elvagar"``."""
        ...

    # -- keeping -------------------------------------------------------------------------

    def to_snapshot(self, state: State) -> dict[str, Any]:
        """The whole state as JSON-able data; :meth:`from_snapshot` rebuilds an equal one."""
        ...

    def from_snapshot(self, data: Mapping[str, Any]) -> State:
        """A state back from :meth:`to_snapshot` (``EngineError`` if malformed)."""
        ...
