"""The ports the local cluster gives its nodes, Envoy and PostgreSQL are free and outside the
range the kernel hands to outgoing connections (where a connection could take one between the
pick and the bind: a node once failed to start so in CI)."""

from __future__ import annotations

import socket

import pytest

from localcluster import postgres
from localcluster.postgres import free_port


def test_a_free_port_is_below_the_ephemeral_range_and_can_be_bound() -> None:
    low, _ = postgres._ephemeral_range()
    ports = {free_port() for _ in range(20)}
    assert len(ports) > 1, "picked at random"
    for port in ports:
        assert 1024 <= port < low
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


def test_a_port_in_use_is_never_given(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        taken = int(held.getsockname()[1])
        held.listen()
        monkeypatch.setattr(postgres, "_LOW_PORTS", taken)
        monkeypatch.setattr(postgres, "_ephemeral_range", lambda: (taken + 1000, taken + 2000))
        assert all(free_port() != taken for _ in range(50))


def test_without_room_below_the_range_the_kernel_picks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres, "_ephemeral_range", lambda: (postgres._LOW_PORTS + 10, 60999))
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
