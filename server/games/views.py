"""What a viewer sees of one game: its current view per viewer, and the views of earlier
moments a resuming watcher or a retried decision is answered with.

A view is the rules' view for one viewer (a seat, or SPECTATOR: ``Rules.view``, so nobody
sees another seat's hidden cards) in the API's form (``protocol.envelopes.view_to_pb`` and the
game's wire), with the game's envelope (status, seats, last event sequence, the viewer's
decision deadline, the result once finished). The
current view of each viewer is kept until anything it shows may have changed; earlier views (a
state version and the last event at that moment) are rebuilt by replaying the log and kept in a
small cache, which publication fills in advance for those watching views (``WatchGame`` with
views on)."""

from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import replace
from typing import Any, Protocol

from engine.core.contract import State
from protocol import envelopes
from protocol.envelopes import GameResultPb, ViewPb
from protocol.wire import ViewEnvelope, Wire
from server.games.deadlines import SeatDeadlines
from server.games.event_log import EventLog
from server.games.record import GameSettings, Status

__all__ = ["VIEW_CACHE_SIZE", "GameViews", "ViewedGame"]

VIEW_CACHE_SIZE = 64


class ViewedGame(Protocol):
    """What views read of a hosted game (``server.games.game.Game``)."""

    id: str
    settings: GameSettings
    names: list[str]
    result: GameResultPb | None
    wire: Wire
    events: EventLog
    deadlines: SeatDeadlines
    state: State
    status: Status
    reserved_seats: tuple[int, ...]  # seats only their holder may claim (server.games.access)

    @property
    def last_sequence(self) -> int: ...

    def claimed(self) -> list[bool]: ...

    def state_at(self, version: int) -> State: ...


def _seen(
    wire: Wire, state: State, viewer: int, status: Status, include_state: bool = False
) -> dict[str, Any]:
    """The rules' view for ``viewer``; nobody is awaited while the game is not in progress
    (still OPEN: its decisions would be refused)."""
    d = wire.rules.view(state, viewer, include_state)
    if status != Status.IN_PROGRESS:
        d["awaiting"] = []
        d["committed"] = []
        d["legal_actions"] = []
    return d


class GameViews:
    """The views of one game (kept by :class:`server.games.game.Game` as ``views``)."""

    def __init__(self, game: ViewedGame) -> None:
        self._game = game
        self._then: OrderedDict[tuple[int, int, int], ViewPb] = OrderedDict()
        self._live: dict[int, tuple[tuple[int, ...], ViewPb]] = {}

    def _envelope(self, viewer: int, last_sequence: int, status: Status) -> ViewEnvelope:
        game = self._game
        deadline = game.deadlines.shown_to(viewer) if status == Status.IN_PROGRESS else 0
        return ViewEnvelope(
            game_id=game.id,
            status=envelopes.status_to_pb(status),
            seats=envelopes.seat_infos(game.names, game.claimed(), game.reserved_seats),
            last_sequence=last_sequence,
            game_options=game.settings.options,
            deadline_unix_ms=deadline,
            result=game.result if status == Status.FINISHED else None,
            seed_chosen_by=game.settings.seed_chosen_by,
        )

    def current(self, viewer: int, include_state: bool = False) -> ViewPb:
        """The current view of ``viewer`` (see ``Game.view``)."""
        game = self._game
        env = self._envelope(viewer, game.last_sequence, game.status)
        if include_state:
            seen = _seen(game.wire, game.state, viewer, game.status, True)
            return envelopes.view_to_pb(game.wire, seen, env)
        key = (game.state.version, env.last_sequence, env.status, env.deadline_unix_ms)
        cached = self._live.get(viewer)
        if cached is not None and cached[0] == key:
            return cached[1]
        seen = _seen(game.wire, game.state, viewer, game.status)
        view = envelopes.view_to_pb(game.wire, seen, env)
        self._live[viewer] = (key, view)
        return view

    def at(self, viewer: int, version: int) -> ViewPb:
        """The view as it was right after ``version`` was reached (replays when needed)."""
        game = self._game
        if version >= game.state.version:
            return self.current(viewer)
        return self._then_view(viewer, version, game.events.last_at(version))

    def after(self, viewer: int, sequence: int) -> ViewPb:
        """The view right after the group of events ending at ``sequence`` (see
        ``Game.view_after``)."""
        game = self._game
        if sequence >= game.last_sequence:
            return self.current(viewer)
        return self._then_view(viewer, game.events.version_at(sequence), sequence)

    def _then_view(self, viewer: int, version: int, sequence: int) -> ViewPb:
        """The view of ``viewer`` when the state was at ``version`` and the last event was
        ``sequence``: seats claimed by then (their names then), the status then, no clock."""
        key = (version, sequence, viewer)
        cached = self._then.get(key)
        if cached is not None:
            return cached
        game = self._game
        state = game.state_at(version)
        claimed = game.events.claimed_by(len(game.names), sequence)
        defaults = list(game.settings.seat_names)
        names = [
            name if claimed[s] else (defaults[s] if s < len(defaults) else "")
            for s, name in enumerate(game.names)
        ]
        if not all(claimed):
            status = Status.OPEN
        elif game.wire.rules.result(state) is not None:
            status = Status.FINISHED
        else:
            status = Status.IN_PROGRESS
        env = replace(
            self._envelope(viewer, sequence, status),
            seats=envelopes.seat_infos(names, claimed, game.reserved_seats),
            deadline_unix_ms=0,
        )
        view = envelopes.view_to_pb(game.wire, _seen(game.wire, state, viewer, status), env)
        self._keep(key, view)
        return view

    def _keep(self, key: tuple[int, int, int], view: ViewPb) -> None:
        self._then[key] = view
        while len(self._then) > VIEW_CACHE_SIZE:
            self._then.popitem(last=False)

    def keep_watched(self, watchers: Counter[int]) -> None:
        """Keep the view each of ``watchers`` (viewer -> watch streams with views) has now,
        under the current version and last sequence: a watcher that is behind is then
        answered from the cache rather than by a replay."""
        game = self._game
        version = game.state.version
        last = game.last_sequence
        for viewer in list(watchers):
            if watchers[viewer] > 0:
                self._keep((version, last, viewer), self.current(viewer))

    def forget(self) -> None:
        self._then.clear()
        self._live.clear()
