"""A TCP relay that can go silent, for tests of connections that die without closing.

A host that crashes, or a network path that drops, closes nothing: no FIN, no RST reaches
either end, and each side's sockets stay open and writable. ``SilentLink`` relays bytes
between a client and a server until :meth:`go_silent`; from then on the connections it carries
stay open and nothing crosses them. Connections made after that are relayed normally (a
client that reconnects finds a working path).
"""

from __future__ import annotations

import asyncio
import contextlib


class SilentLink:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self._target = (target_host, target_port)
        self._server: asyncio.Server | None = None
        self._silenced: list[asyncio.Event] = []  # one per connection, set to go silent
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []
        self.connections = 0

    async def start(self) -> int:
        """Listen on a free loopback port and return it."""
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    def go_silent(self) -> None:
        """Stop relaying on every connection open now, without closing any."""
        for silenced in self._silenced:
            silenced.set()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for writer in self._writers:
            writer.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _relay(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self.connections += 1
        server_r, server_w = await asyncio.open_connection(*self._target)
        self._writers += [client_w, server_w]
        silenced = asyncio.Event()
        self._silenced.append(silenced)
        for source, sink in ((client_r, server_w), (server_r, client_w)):
            task = asyncio.get_running_loop().create_task(self._pump(source, sink, silenced))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _pump(
        source: asyncio.StreamReader, sink: asyncio.StreamWriter, silenced: asyncio.Event
    ) -> None:
        while not silenced.is_set():
            read = asyncio.ensure_future(source.read(65536))
            gone_silent = asyncio.ensure_future(silenced.wait())
            await asyncio.wait({read, gone_silent}, return_when=asyncio.FIRST_COMPLETED)
            gone_silent.cancel()
            if silenced.is_set():
                read.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await read
                break
            data = read.result()
            if not data:  # one end closed: pass that on
                with contextlib.suppress(OSError):
                    sink.close()
                return
            sink.write(data)
            with contextlib.suppress(OSError, ConnectionError):
                await sink.drain()
        await asyncio.Event().wait()  # silent: hold both sockets open until closed
