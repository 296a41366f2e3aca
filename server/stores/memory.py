"""The store that keeps nothing: games' logs in dicts, for tests, benchmarks and a server run
without ``--data-dir``.

It implements ``server.stores.contract.GameStore`` like the durable stores beside it
(``server.stores.sqlite.SqliteStore``, ``server.stores.postgres.PostgresStore``) but is not
``durable``: no snapshots, and a game that is over is dropped (there is nothing to recover from
memory)."""

from __future__ import annotations

from typing import Any

from server.stores.contract import (
    NO_ACCESS,
    AbortRecord,
    GameAccess,
    ListViewer,
    StoredAction,
    StoredListing,
)
from server.stores.token_hashes import new_token_key

__all__ = ["MemoryStore"]


class MemoryStore:
    """A GameStore in dicts: no durability. A finished game's records are dropped (there is
    nothing to recover), so long runs do not grow without bound. Its writes never suspend,
    which ``server.games.game.Game`` relies on: with this store a change cannot be cancelled
    half-way, so it runs inline (no task per decision)."""

    durable = False
    lists_every_game = False

    def __init__(self) -> None:
        self.token_key = new_token_key()  # lives as long as the games: this process
        self.games: dict[str, tuple[int, dict[str, Any], str]] = {}
        self.claims: dict[str, dict[int, tuple[str, str]]] = {}
        self.logs: dict[str, list[StoredAction]] = {}

    async def create(
        self,
        game_id: str,
        created_unix_ms: int,
        settings: dict[str, Any],
        scenario_json: str,
        order: int | None = None,
        creator: str = "",
        creator_token_hash: str = "",
        open_limit: float | None = None,  # (one node counts open games in memory)
        access: GameAccess = NO_ACCESS,
    ) -> None:
        self.games[game_id] = (created_unix_ms, settings, scenario_json)
        self.claims[game_id] = {}
        self.logs[game_id] = []

    async def claim(
        self,
        game_id: str,
        seat: int,
        name: str,
        token_hash: str,
        sequence: int = 0,
        unix_ms: int = 0,
        chain: str = "",
    ) -> None:
        self.claims[game_id][seat] = (name, token_hash)

    async def append(self, game_id: str, entry: StoredAction) -> None:
        self.logs[game_id].append(entry)

    async def snapshot(self, game_id: str, version: int, data: dict[str, Any]) -> None:
        return None  # nothing to recover from memory

    async def finish(self, game_id: str, finished_unix_ms: int, result: dict[str, Any]) -> None:
        self.games.pop(game_id, None)
        self.claims.pop(game_id, None)
        self.logs.pop(game_id, None)

    async def abort(self, game_id: str, record: AbortRecord) -> None:
        await self.finish(game_id, record.unix_ms, {})

    async def list_games(
        self, status: int, before: int | None, limit: int, viewer: ListViewer | None = None
    ) -> list[tuple[StoredListing, int]]:
        """None: a game that is over leaves nothing behind here."""
        return []
