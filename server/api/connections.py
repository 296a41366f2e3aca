"""How many client connections the server can hold, and how many it holds.

Each connection is a file descriptor. Processes start with a soft descriptor limit that is
often far below what the kernel allows them (1,024 against 1,048,576 on many systems), and a
server that runs out cannot accept a single new client, nor open a file. So at start the soft
limit is raised to the hard one (:func:`raise_file_limit`). The connection ceiling is that
limit less ``RESERVED_FDS`` kept for the store, the metrics endpoint and logs; it is logged at
start (``file_limit``) and exported as ``yggdrasil_connections_max``. To serve more, raise
the hard limit (``ulimit -Hn``, systemd's ``LimitNOFILE``, the container runtime's
``nofile``); idle connections are closed after ``--connection-idle-s`` anyway.

``yggdrasil_connections_open`` counts the established TCP connections to the gRPC port, read
from ``/proc/net/tcp{,6}`` at each scrape (Linux; elsewhere the metric is absent).
"""

from __future__ import annotations

import resource
from collections.abc import Iterator
from pathlib import Path

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector, CollectorRegistry

__all__ = [
    "RESERVED_FDS",
    "ConnectionCollector",
    "connection_ceiling",
    "open_connections",
    "raise_file_limit",
]

RESERVED_FDS = 64
# An "unlimited" hard limit is not a number setrlimit takes for the soft one everywhere.
_UNLIMITED_CAP = 1 << 20
_ESTABLISHED = "01"


def raise_file_limit() -> tuple[int, int]:
    """Raise the soft limit of open files to the hard one; returns (soft, hard) after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = _UNLIMITED_CAP if hard == resource.RLIM_INFINITY else hard
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft, hard
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):  # a platform that refuses: keep what we have
        return soft, hard
    return target, hard


def connection_ceiling() -> int:
    """The most client connections the server can hold with its soft file limit."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = _UNLIMITED_CAP
    return max(0, soft - RESERVED_FDS)


def open_connections(port: int, proc: Path = Path("/proc")) -> int | None:
    """Established TCP connections whose local port is ``port`` (None off Linux)."""
    wanted = f"{port:04X}"
    found = False
    count = 0
    for name in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / name).read_text().splitlines()[1:]
        except OSError:
            continue
        found = True
        for line in lines:
            fields = line.split(None, 4)
            if (
                len(fields) > 3
                and fields[3] == _ESTABLISHED
                and fields[1].rpartition(":")[2] == wanted
            ):
                count += 1
    return count if found else None


class ConnectionCollector(Collector):
    """``yggdrasil_connections_open`` and ``yggdrasil_connections_max`` at scrape time."""

    def __init__(self, port: int) -> None:
        self.port = port

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily(
            "yggdrasil_connections_max",
            "The most client connections the server can hold (its soft file limit less "
            f"{RESERVED_FDS} descriptors kept for itself).",
            value=float(connection_ceiling()),
        )
        count = open_connections(self.port)
        if count is not None:
            yield GaugeMetricFamily(
                "yggdrasil_connections_open",
                "Established TCP connections to the gRPC port.",
                value=float(count),
            )

    def register(self, registry: CollectorRegistry) -> None:
        registry.register(self)
