"""ListGames: the hosted games and the finished (or aborted) games only in the store, in one order.

A finished game leaves memory after its retention, and a restarted server hosts only the
unfinished games; both kinds stay in the store and answer GetResult and GetReplay by id, so
they are listed too. Every game has a place in the creation order (``GameRegistry`` numbers
new games, the store keeps the number as the game's row id, a restart continues after the
highest); pages run newest first by it, and the page token is ``p<number>``: the place of
the last game listed, so the next page starts below it whether its games are in memory or in
the store, before or after a restart.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from protocol import envelopes
from protocol import registry as wires
from server.cluster.ownership import STORE_ERRORS, store_unavailable
from server.games.dormant import Dormant
from server.games.game import Game
from server.games.record import GameSettings, Status, settings_from_record
from server.games.refusal import Refusal
from server.games.registry import GameRegistry
from server.stores.contract import (
    NO_ACCESS,
    GameAccess,
    GameStore,
    ListViewer,
    StoredListing,
    StoreError,
)
from yggdrasil.v1 import game_pb2

__all__ = ["ListedGame", "list_games", "listed", "summary"]

# Store rows read per query while hosted games are skipped (finished games still in memory).
_STORE_BATCH = 200


@dataclass(frozen=True, slots=True)
class ListedGame:
    """What a GameSummary shows of a game, hosted or stored."""

    game_id: str
    status: Status
    settings: GameSettings
    names: Sequence[str]
    claimed: Sequence[bool]
    state_version: int
    last_sequence: int
    created_unix_ms: int
    from_scenario: bool
    access: GameAccess = NO_ACCESS


def listed(game: Game | Dormant) -> ListedGame:
    """What a hosted game's summary shows: a dormant one's (not rebuilt since a restart) from
    the store's index, alike."""
    if isinstance(game, Dormant):
        return ListedGame(
            game.id,
            game.status,
            game.settings,
            game.names,
            game.claimed(),
            game.version,
            game.last_sequence,
            game.created_unix_ms,
            game.from_scenario,
            game.access,
        )
    return ListedGame(
        game.id,
        game.status,
        game.settings,
        list(game.names),
        game.claimed(),
        game.version,
        game.last_sequence,
        game.record.created_unix_ms,
        bool(game.record.scenario_json),
        game.record.access,
    )


def _stored(row: StoredListing, status: Status = Status.FINISHED) -> ListedGame | None:
    try:
        settings = settings_from_record(row.settings)
    except (KeyError, TypeError, ValueError):
        return None  # a damaged record: GetResult by id reports it
    names = list(settings.seat_names) + [""] * (settings.players - len(settings.seat_names))
    for seat, name in row.seat_names.items():
        if 0 <= seat < settings.players:
            names[seat] = name
    return ListedGame(
        row.game_id,
        Status.ABORTED if row.aborted else status,
        settings,
        names,
        [seat in row.seat_names for seat in range(settings.players)],
        row.state_version,
        row.last_sequence,
        row.created_unix_ms,
        row.from_scenario,
        row.access,
    )


def summary(game: ListedGame) -> game_pb2.GameSummary:
    """A game's public summary (the seed only once the game is finished)."""
    s = game.settings
    wire = wires.wire(s.game)
    options = game_pb2.GameOptions(
        player_count=s.players,
        decision_time_limit_ms=s.decision_time_limit_ms,
        seat_names=list(s.seat_names),
    )
    wire.options_to_pb(s.options, options)
    if game.status == Status.FINISHED:
        options.seed = s.seed
    return game_pb2.GameSummary(
        game_id=game.game_id,
        kind=game_pb2.GameKind.ValueType(wire.kind),
        status=envelopes.status_to_pb(game.status),
        options=options,
        seats=envelopes.seat_infos(
            game.names, game.claimed, [r.seat for r in game.access.reservations]
        ),
        state_version=game.state_version,
        last_sequence=game.last_sequence,
        created_unix_ms=game.created_unix_ms,
        from_scenario=game.from_scenario,
        seed_chosen=bool(s.seed_chosen_by),
        seed_chosen_by=s.seed_chosen_by,
        unlisted=game.access.unlisted,
    )


def _plays(game: ListedGame, name: str | None) -> bool:
    """Whether a listed game plays the game called ``name`` (None: any)."""
    return name is None or game.settings.game == name


async def _stored_newest_first(
    store: GameStore,
    before: int | None,
    wanted: int,
    hosted: set[str],
    status: int,
    viewer: ListViewer | None,
    name: str | None = None,
) -> list[tuple[int, ListedGame]]:
    """Up to ``wanted`` games of the store (as ``status`` asks: 0 any; of the game called
    ``name``: None any) that are not hosted and ``viewer`` may see, newest first."""
    out: list[tuple[int, ListedGame]] = []
    while len(out) < wanted:
        rows = await store.list_games(status, before, _STORE_BATCH, viewer)
        for row, row_status in rows:
            game = _stored(row, Status(row_status)) if row.game_id not in hosted else None
            if game is not None and _plays(game, name):
                out.append((row.order, game))
        if len(rows) < _STORE_BATCH:
            break
        before = rows[-1][0].order
    return out[:wanted]


async def _cluster_page(
    store: GameStore,
    status: int,
    page_size: int,
    before: int | None,
    viewer: ListViewer | None,
    name: str | None,
) -> tuple[list[game_pb2.GameSummary], int | None]:
    """A cluster lists every game from the store: each node hosts only some of them, and the
    store has every acknowledged change (a write is committed before it is answered)."""
    if name is None:
        try:
            rows = await store.list_games(status, before, page_size + 1, viewer)
        except STORE_ERRORS as exc:
            raise store_unavailable(exc) from None
        page = [
            (row.order, game)
            for row, row_status in rows
            if (game := _stored(row, Status(row_status))) is not None
        ]
        more = len(rows) > page_size
        page = page[:page_size]
        cursor = rows[page_size - 1][0].order if more else None
        return [summary(game) for _, game in page], cursor
    # Of one game only: read on until a page of it is found (or the store ends).
    try:
        found = await _stored_newest_first(
            store, before, page_size + 1, set(), status, viewer, name
        )
    except STORE_ERRORS as exc:
        raise store_unavailable(exc) from None
    more = len(found) > page_size
    found = found[:page_size]
    return [summary(game) for _, game in found], found[-1][0] if more else None


def _access(game: Game | Dormant) -> tuple[GameAccess, str]:
    """Who may see a hosted game: its access and creator."""
    if isinstance(game, Dormant):
        return game.access, game.creator
    return game.record.access, game.record.creator


async def list_games(
    registry: GameRegistry,
    status: int,
    page_size: int,
    before: int | None,
    viewer: ListViewer | None = None,
    name: str | None = None,
) -> tuple[list[game_pb2.GameSummary], int | None]:
    """One page of games of ``status`` (0: any) and of the game called ``name`` (None: any)
    created before cursor ``before``, newest first, that ``viewer`` may see (None: every
    game); returns (summaries, the cursor of the next page or None on the last one)."""
    store = registry.store
    if store.lists_every_game:
        return await _cluster_page(store, status, page_size, before, viewer, name)
    # Taken together, with no await in between: a game that leaves memory while the store is
    # read is still counted as hosted (listed from memory, skipped in the store).
    hosted = set(registry.games) | set(registry.dormant)
    visible = (
        (order, game)
        for order, game in registry.hosted_newest_first(status, before)
        if (viewer is None or viewer.sees(*_access(game)))
        and (name is None or game.settings.game == name)
    )
    page = [(order, listed(game)) for order, game in itertools.islice(visible, page_size + 1)]
    try:
        page += await _stored_newest_first(
            store, before, page_size + 1, hosted, status, viewer, name
        )
    except StoreError as exc:
        raise Refusal("DATA_LOSS", f"finished games cannot be listed: {exc}") from None
    page.sort(key=lambda entry: entry[0], reverse=True)
    more = len(page) > page_size
    page = page[:page_size]
    return [summary(game) for _, game in page], page[-1][0] if more else None
