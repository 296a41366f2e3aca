"""The wire contract: what one game's conversion between its rules and the API provides.

The API is game-agnostic (proto/yggdrasil/v1/game.proto): its envelopes (options, actions,
views, events, results) carry one game's payload in a ``oneof game`` whose field is named
after the game (``blood_rage``). Everything outside a game's own folder builds the envelopes
(``protocol.envelopes``) and asks the game's :class:`Wire` for the payload; a second game is
a second implementation (``protocol/<game>/``), found through ``protocol.registry``.

Engine values go in as the rules hand them out: views are the dicts of ``Rules.view`` (with
the common keys ``engine.core.contract.VIEW_KEYS``), events the ``(audience, payload)`` pairs a
decision records, results ``engine.core.contract.Result``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from google.protobuf.message import Message

from engine.core.contract import Action, Result, Rules
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["ConversionError", "ConvertedEvent", "ServerOption", "ViewEnvelope", "Wire"]


class ConversionError(ValueError):
    """A request message cannot be turned into an engine value (malformed input)."""


@dataclass(slots=True)
class ConvertedEvent:
    """One event for the game's log: ``full`` for its audience, ``public`` for the others.

    ``audience`` is -1 (everyone sees ``full``) or a seat; then every other viewer gets
    ``public`` (a filtered copy, or no payload at all when ``public`` is None).
    """

    audience: int
    full: gp.Event
    public: gp.Event | None = None


@dataclass(frozen=True, slots=True)
class ViewEnvelope:
    """What the host adds around a game's view: ids, status, seats, clock, result, and the
    game's own options (some views show them: the draft round depends on the draft mode)."""

    game_id: str
    status: gp.GameStatus.ValueType
    seats: Sequence[gp.SeatInfo]
    last_sequence: int
    game_options: Mapping[str, Any]
    deadline_unix_ms: int = 0
    result: gp.GameResult | None = None
    seed_chosen_by: str = ""  # who chose the game's seed ("": the server dealt it)


@dataclass(frozen=True, slots=True)
class ServerOption:
    """A setting of the server that one game needs (Fire & Axe: the data packs it offers).

    The server knows no game: it gives every option a registered game's wire declares a flag
    and an environment variable beside its own (``server.config``), checks the value when it
    is read, and hands the values to the wire's :meth:`Wire.configure` when it starts, before
    any game is restored."""

    name: str
    """``data_pack``: the flag ``--data-pack`` and the variable ``YGGDRASIL_DATA_PACK``; unique
    among every game's options and the server's own."""
    help: str
    """For ``--help`` (the variable's name is added)."""
    metavar: str
    check: Callable[[str], str]
    """The value as the game will get it, from the text given; ValueError says what is wrong
    (a bad value stops the server before it starts)."""


class Wire(Protocol):
    """One game's conversion between its rules and the API's messages."""

    rules: Rules
    """The game's rules (``engine.registry``); ``rules.name`` names the envelopes' field."""
    kind: int
    """Its ``GameKind`` number."""

    # -- options -------------------------------------------------------------------------

    def options_from_pb(self, options: gp.GameOptions) -> dict[str, Any]:
        """The game's own options from a CreateGame's ``GameOptions`` (its payload field, or
        the defaults when unset), as ``Rules.options`` reads them; ConversionError names a
        value the API cannot express in the engine."""
        ...

    def options_to_pb(
        self, game_options: Mapping[str, Any], out: gp.GameOptions, full: bool = False
    ) -> None:
        """Set the game's payload of ``out`` from its stored options. ``full``: everything a
        replay needs to set the game up again (GetReplay; Fire & Axe: the text of a pack of
        its own); otherwise what a GameSummary shows, without bulky parts."""
        ...

    def privileged_options(self, options: gp.GameOptions) -> str | None:
        """What in a CreateGame's options only an admin may ask for (in words, for the
        refusal), or None: an option that makes the server parse and keep content a caller
        supplies (Fire & Axe: a data pack of its own)."""
        ...

    # -- server settings -----------------------------------------------------------------

    def server_options(self) -> Sequence[ServerOption]:
        """The server settings this game needs (most games: none)."""
        ...

    def configure(self, values: Mapping[str, str]) -> None:
        """The values of :meth:`server_options` for this server, each as its ``check`` returned
        it ("" when not set), once at start before games are restored (they may need them).
        A later call replaces what an earlier one set (tests start several servers)."""
        ...

    # -- actions -------------------------------------------------------------------------

    def action_from_pb(self, message: gp.Action) -> Action:
        """A client's decision as the engine's action (its shape only: legality is the
        rules' business); ConversionError if malformed."""
        ...

    def action_to_pb(self, action: Action) -> gp.Action:
        """An engine action as the API's (unfiltered: for its own seat and replays);
        ConversionError if the API cannot name it."""
        ...

    def action_kind(self, action: Action) -> str:
        """A short label of the action's kind for metrics and logs (``invade``)."""
        ...

    def label(self, state: Any, action: Action) -> str | None:
        """The action's description in ``state``'s game when it depends on more than the
        action (Fire & Axe names the places and Runes of the game's data pack), else None:
        the rules' ``describe``, which a host may cache per action code."""
        ...

    # -- views and results ---------------------------------------------------------------

    def fill_view(self, view: Mapping[str, Any], envelope: ViewEnvelope, out: gp.View) -> None:
        """Set ``out``'s game payload from the rules' view of one viewer."""
        ...

    def fill_result(
        self, result: Result, final_view: Mapping[str, Any], out: gp.GameResult
    ) -> None:
        """Set the game's details of a finished game's result (``final_view`` is the final
        spectator view)."""
        ...

    def catalog(self) -> Message:
        """The game's static data (cards, board …) for GetCatalog."""
        ...

    # -- events --------------------------------------------------------------------------

    def public_facts(self, state: Any) -> Any:
        """The public facts of a state that event conversion compares around a decision
        (cheap: taken once per decision)."""
        ...

    def convert_events(
        self,
        raw: Iterable[tuple[int, Mapping[str, Any]]],
        before: Any,
        after: Any,
        by_timeout: bool = False,
        final_view: Mapping[str, Any] | None = None,
    ) -> list[ConvertedEvent]:
        """One decision's engine events as API events, in the order they happened (sequence
        numbers not yet set). ``before``/``after`` are :meth:`public_facts` around it;
        ``final_view`` the spectator view once the decision ended the game. Raises if the
        engine recorded something the API cannot report faithfully."""
        ...
