"""What a viewer sees of one game: its current view per viewer, and the views of earlier
moments a resuming watcher or a retried decision is answered with.

A view is the engine's view for one viewer (a seat, or SPECTATOR: ``engine.blood_rage.view``, so
nobody sees another seat's hidden cards) in the API's form, with the game's envelope (status,
seats, last event sequence, the viewer's decision deadline, the result once finished). The
current view of each viewer is kept until anything it shows may have changed; earlier views (a
state version and the last event at that moment) are rebuilt by replaying the log and kept in a
small cache, which publication fills in advance for those watching views (``WatchGame`` with
views on)."""

from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.blood_rage.results import result as engine_result
from engine.blood_rage.state import GameState
from engine.blood_rage.view import view as engine_view
from server import convert, convert_views
from server.convert import ViewPb
from server.convert_views import ViewEnvelope
from server.games.record import Status

if TYPE_CHECKING:
    from server.games.game import Game

__all__ = ["VIEW_CACHE_SIZE", "GameViews"]

VIEW_CACHE_SIZE = 64


def _seen(
    state: GameState, viewer: int, status: Status, include_state: bool = False
) -> dict[str, Any]:
    """The engine's view for ``viewer``; nobody is awaited while the game is not in progress
    (still OPEN: its decisions would be refused)."""
    d = engine_view(state, viewer, include_state)
    if status != Status.IN_PROGRESS:
        d["awaiting"] = []
        d["committed"] = []
        d["legal_actions"] = []
    return d


class GameViews:
    """The views of one game (kept by :class:`server.games.game.Game` as ``views``)."""

    def __init__(self, game: Game) -> None:
        self._game = game
        self._then: OrderedDict[tuple[int, int, int], ViewPb] = OrderedDict()
        self._live: dict[int, tuple[tuple[int, ...], ViewPb]] = {}

    def _envelope(self, viewer: int, last_sequence: int, status: Status) -> ViewEnvelope:
        game = self._game
        deadline = game.deadlines.shown_to(viewer) if status == Status.IN_PROGRESS else 0
        return ViewEnvelope(
            game_id=game.id,
            status=convert.status_to_pb(status),
            seats=convert.seat_infos(game.names, game.claimed()),
            last_sequence=last_sequence,
            draft_mode=game.settings.draft_mode,
            deadline_unix_ms=deadline,
            result=game.result if status == Status.FINISHED else None,
        )

    def current(self, viewer: int, include_state: bool = False) -> ViewPb:
        """The current view of ``viewer`` (see ``Game.view``)."""
        game = self._game
        env = self._envelope(viewer, game.last_sequence, game.status)
        if include_state:
            return convert_views.view_to_pb(_seen(game.state, viewer, game.status, True), env)
        key = (game.state.version, env.last_sequence, env.status, env.deadline_unix_ms)
        cached = self._live.get(viewer)
        if cached is not None and cached[0] == key:
            return cached[1]
        view = convert_views.view_to_pb(_seen(game.state, viewer, game.status), env)
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
        elif engine_result(state) is not None:
            status = Status.FINISHED
        else:
            status = Status.IN_PROGRESS
        env = replace(
            self._envelope(viewer, sequence, status),
            seats=convert.seat_infos(names, claimed),
            deadline_unix_ms=0,
        )
        view = convert_views.view_to_pb(_seen(state, viewer, status), env)
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
