"""The /metrics endpoint times out idle and half-sent connections and bounds its threads."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request

import pytest
from prometheus_client import CollectorRegistry, Counter

from server.ops import metrics_http


def _closed_by_server(sock: socket.socket, within_s: float) -> bool:
    sock.settimeout(within_s)
    try:
        while sock.recv(4096):
            pass  # an error answer may come first; then the end
    except (TimeoutError, OSError):
        return False
    return True


def test_idle_and_half_sent_connections_are_closed_and_scrapes_go_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metrics_http, "REQUEST_DEADLINE_S", 0.6)
    monkeypatch.setattr(metrics_http._Handler, "timeout", 0.4)
    registry = CollectorRegistry()
    Counter("probe_total", "A counter.", registry=registry).inc()
    server = metrics_http.start_metrics_http_server(0, registry=registry)
    threads_before = threading.active_count()
    idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(20)]
    slow = socket.create_connection(("127.0.0.1", server.port))
    slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finishes its headers
    try:
        body = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=5).read()
        assert b"probe_total 1.0" in body
        assert all(_closed_by_server(s, 5) for s in [*idle, slow])
        for _ in range(100):  # their threads are gone too
            if threading.active_count() <= threads_before:
                break
            time.sleep(0.05)
        assert threading.active_count() <= threads_before
        body = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=5).read()
        assert b"probe_total 1.0" in body
    finally:
        for s in [*idle, slow]:
            s.close()
        server.close()


def test_connections_past_the_limit_are_closed_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics_http, "MAX_CONNECTIONS", 3)
    server = metrics_http.start_metrics_http_server(0, registry=CollectorRegistry())
    held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(3)]
    try:
        time.sleep(0.2)
        extra = socket.create_connection(("127.0.0.1", server.port))
        assert _closed_by_server(extra, 2)
        assert server.server.refused >= 1
        extra.close()
    finally:
        for s in held:
            s.close()
        server.close()
