"""A server in a thread of its own whose decision clock moves only for seats whose bot is gone.

The tournament runner's ``main`` runs its own event loop, so this server runs in another
thread with its own. Its games' decision clock is a ManualClock, and a driver in the server's
loop moves it to the next deadline only when every seat the game waits for is in ``gone``
(seats whose bot the test knows has exited). A bot that is still playing can then never run
out of time however loaded the machine is, and a bot that is gone always does: which
decisions the server takes is decided by the test, not by the scheduler.
"""

from __future__ import annotations

import asyncio
import threading
import time
from types import TracebackType

from server.config import ServerConfig
from server.games.decision_clock import ManualClock
from server.games.record import Status
from server.main import RunningServer, start_server
from server.ops.metrics import Metrics, new_registry

# Polling the games is only how often the driver looks; it decides nothing by time.
POLL_S = 0.002
# No decision at all for this long (real time) means the game is stuck: the server stops, so
# the runner fails instead of waiting for ever.
STALL_S = 120.0


class ClockedServer:
    def __init__(self) -> None:
        self.clock = ManualClock()
        self.gone: set[int] = set()
        self.address = ""
        self.stalled = ""
        self.expiries = 0
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._error: BaseException | None = None

    def __enter__(self) -> ClockedServer:
        self._thread.start()
        if not self._ready.wait(30) or not self.address:
            raise RuntimeError(f"the clocked server did not start: {self._error!r}")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(30)

    async def _main(self) -> None:
        try:
            running = await start_server(
                ServerConfig(port=0, metrics_port=-1, store="memory"),
                metrics=Metrics(new_registry(process_collectors=False)),
                clock=self.clock,
            )
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            raise
        self.address = f"127.0.0.1:{running.port}"
        self._ready.set()
        try:
            await self._drive(running)
        finally:
            await running.shutdown(0)

    async def _drive(self, running: RunningServer) -> None:
        progress = (0, time.monotonic())
        while not self._stop.is_set():
            await asyncio.sleep(POLL_S)
            decisions = 0
            for game in list(running.games.games.values()):
                decisions += game.version
                if game.status != Status.IN_PROGRESS:
                    continue
                waiting = game.awaiting()
                if waiting and all(seat in self.gone for seat in waiting):
                    self.expiries += self.clock.advance_to_next()
            if decisions != progress[0]:
                progress = (decisions, time.monotonic())
            elif time.monotonic() - progress[1] > STALL_S:
                self.stalled = f"no decision for {STALL_S:.0f} s; the server stopped"
                return
