"""A restart leaves the games it restored out of later garbage collections
(server.games.recovery.keep_out_of_collections): a full collection over a hundred thousand
games would stop the event loop for seconds."""

from __future__ import annotations

import gc
from pathlib import Path

from bench.durability_bench import populate_direct
from server.games.recovery import restore_games
from server.games.registry import GameRegistry
from server.ops.metrics import Metrics, new_registry
from server.stores.sqlite import SqliteStore


async def test_restored_games_are_kept_out_of_collections(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    await populate_direct(path, 20, 3)
    store = SqliteStore(path)
    store.open()
    registry = GameRegistry(store, Metrics(new_registry(process_collectors=False)))
    try:
        frozen_before = gc.get_freeze_count()
        report = await restore_games(store, registry)
        assert report.restored == 20
        assert gc.get_freeze_count() > frozen_before
        game = next(iter(registry.games.values()))
        tracked = {id(o) for o in gc.get_objects()}
        assert id(game) not in tracked and id(game.state) not in tracked
        assert gc.isenabled()  # collections go on for everything else
    finally:
        gc.unfreeze()  # the rest of the test session collects as usual
        registry.close()
        store.close()
