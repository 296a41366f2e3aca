"""Snapshots of one game's state, written in the background so that a restart replays less.

The log is the truth (``server.games.recovery`` can rebuild any game from it alone); a snapshot
only shortens recovery. A durable store gets one every ``snapshot_every`` decisions and at every
phase change (``Rules.phase``), written by a task of its own after the decision is acknowledged:
the game's lock is never held for it, and a state, once installed, is never changed again, so the
task reads it safely. A failed snapshot is logged and counted, nothing more."""

from __future__ import annotations

import asyncio
import time

from structlog.typing import FilteringBoundLogger

from engine.core.contract import Rules, State
from server.ops.metrics import Metrics
from server.stores.contract import GameStore

__all__ = ["GameSnapshots"]


class GameSnapshots:
    """When one game's next snapshot is due, and the writes under way."""

    def __init__(
        self,
        game_id: str,
        rules: Rules,
        store: GameStore,
        metrics: Metrics,
        logger: FilteringBoundLogger,
        every: int,
        version: int,
    ) -> None:
        self.game_id = game_id
        self.rules = rules
        self.store = store
        self.metrics = metrics
        self.logger = logger
        self.every = every if store.durable else 0  # 0: none (a store that keeps nothing)
        self.version = version  # the newest snapshot scheduled (or the start)
        self.writing: set[asyncio.Task[None]] = set()

    def due(self, version: int, phase_changed: bool) -> bool:
        """Whether a decision that reached ``version`` (and ended a phase, or not) calls for a
        snapshot."""
        return bool(self.every) and (version - self.version >= self.every or phase_changed)

    def soon(self, state: State) -> None:
        """Write a snapshot of ``state`` (installed: never changed again) from a task."""
        self.version = state.version
        task = asyncio.get_running_loop().create_task(self._write(state))
        self.writing.add(task)
        task.add_done_callback(self.writing.discard)

    async def _write(self, state: State) -> None:
        started = time.perf_counter()
        try:
            await self.store.snapshot(self.game_id, state.version, self.rules.to_snapshot(state))
        except Exception as exc:  # the log still has everything: recovery just takes longer
            self.logger.warning(
                "snapshot_failed", game_id=self.game_id, version=state.version, error=str(exc)
            )
            self.metrics.snapshot_failures_total.inc()
            return
        self.metrics.snapshot_seconds.observe(time.perf_counter() - started)
