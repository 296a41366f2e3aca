"""The ``/metrics`` endpoint: prometheus_client's WSGI app on a server that times clients out.

prometheus_client's own ``start_http_server`` gives every connection a thread and waits for
its request for ever: idle or half-sent connections (a scanner, a slow loris) each hold a
thread until the process ends. Here each connection has ``REQUEST_DEADLINE_S`` in all to send
its request and take the answer (a socket timeout bounds each read and write, and a timer
closes a connection that is still there at the deadline), and at most ``MAX_CONNECTIONS`` are
served at once: past that a new connection is closed at once instead of getting a thread.
A scrape takes milliseconds, so neither limit touches Prometheus.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import REGISTRY, CollectorRegistry, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer

__all__ = [
    "MAX_CONNECTIONS",
    "REQUEST_DEADLINE_S",
    "MetricsHttpServer",
    "start_metrics_http_server",
]

REQUEST_DEADLINE_S = 10.0
IO_TIMEOUT_S = 5.0
MAX_CONNECTIONS = 128


class _Handler(WSGIRequestHandler):
    timeout = IO_TIMEOUT_S  # StreamRequestHandler.setup sets it on the socket

    def setup(self) -> None:
        super().setup()
        self._deadline = threading.Timer(REQUEST_DEADLINE_S, self._expire)
        self._deadline.daemon = True
        self._deadline.start()

    def _expire(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def finish(self) -> None:
        self._deadline.cancel()
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """No access log on standard error (the server logs JSON on standard output)."""


class _BoundedServer(ThreadingWSGIServer):
    """At most MAX_CONNECTIONS connections at once; one thread each, never kept."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.refused = 0
        super().__init__(*args, **kwargs)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self.refused += 1
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that timed out or hung up: nothing to report."""


class MetricsHttpServer:
    """A running ``/metrics`` HTTP endpoint (served from a daemon thread)."""

    def __init__(self, server: _BoundedServer, thread: threading.Thread) -> None:
        self.server = server
        self.thread = thread
        self.port: int = server.server_port

    def close(self) -> None:
        """Stop serving and release the socket."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_metrics_http_server(
    port: int, host: str = "127.0.0.1", registry: CollectorRegistry | None = None
) -> MetricsHttpServer:
    """Serve ``registry`` (default: prometheus_client's global one) over HTTP on a daemon
    thread; ``port`` 0 picks a free port (the bound one is ``result.port``)."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]

    class Server(_BoundedServer):
        address_family = family

    app = make_wsgi_app(REGISTRY if registry is None else registry)
    httpd = make_server(host, port, app, Server, handler_class=_Handler)
    thread = threading.Thread(target=httpd.serve_forever, name="metrics-http", daemon=True)
    thread.start()
    return MetricsHttpServer(httpd, thread)
