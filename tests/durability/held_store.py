"""A SQLite store whose writer thread a test can hold just before it commits (imported as a
plain module).

A write the store holds is in flight exactly as a slow fsync would keep it: queued, handed to
the writer thread, not yet committed, and committed as soon as the test releases it. So a
test can cancel the task waiting for it at a point it knows, with no sleep that passes by
luck.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

from server.stores.sqlite import SqliteStore

APPEND = "INSERT INTO actions"
CLAIM = "INSERT INTO seats"
FINISH = "UPDATE games SET finished_unix_ms"
ABORT = "UPDATE games SET aborted_unix_ms"

_WAIT_S = 30.0  # a test that forgets to release fails instead of hanging for ever


class HeldStore(SqliteStore):
    """``hold(sql)``: the next transaction with a statement starting with ``sql`` waits on
    the writer thread until ``release()``; ``held()`` returns once one is waiting."""

    def __init__(self, path: Path, *, fsync: bool = True) -> None:
        super().__init__(path, fsync=fsync)
        self._hold: str | None = None
        self._holding = threading.Event()
        self._release = threading.Event()
        self.closing = threading.Event()  # close() was called

    def hold(self, sql: str) -> None:
        self._release.clear()
        self._holding.clear()
        self._hold = sql

    def release(self) -> None:
        self._hold = None
        self._release.set()

    async def held(self, timeout: float = _WAIT_S) -> None:
        """Return once a held transaction waits on the writer thread."""
        if not await asyncio.to_thread(self._holding.wait, timeout):
            raise AssertionError("no write reached the store's writer thread")

    async def closed_soon(self, timeout: float = _WAIT_S) -> None:
        """Return once ``close()`` has been called."""
        if not await asyncio.to_thread(self.closing.wait, timeout):
            raise AssertionError("the store was not closed")

    def _commit(self, conn: sqlite3.Connection, batch: list) -> list:  # the writer thread
        hold = self._hold
        if hold is not None and any(sql.startswith(hold) for w, _ in batch for sql, _ in w):
            self._holding.set()
            self._release.wait(_WAIT_S)
        return SqliteStore._commit(conn, batch)

    def close(self) -> None:
        self.closing.set()
        super().close()


def stored_log(path: Path, game_id: str) -> list[object]:
    """The game's log as committed to the file (read with a connection of its own)."""
    stored = SqliteStore(path).load_game(game_id)
    assert stored is not None
    return list(stored.actions)
