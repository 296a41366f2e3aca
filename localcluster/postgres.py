"""A throwaway PostgreSQL cluster for tests, benchmarks and ``make cluster``.

``initdb`` refuses to run as root, so as root the cluster's directory is given to the
``postgres`` system user and every PostgreSQL command runs as that user (``runuser``); as
any other user it runs directly. The server listens on 127.0.0.1 only, with ``trust``
authentication (nothing but this machine can reach it) and ``fsync=off`` unless asked
otherwise: a killed *process* loses nothing committed without fsync (the kernel still has
the pages), only a power loss would. The cluster and its files go away with :meth:`stop`.

The binaries are looked up on ``PATH`` and in Debian's ``/usr/lib/postgresql/<version>/bin``;
``.ci/run`` installs Debian's ``postgresql`` package where they are missing
(:func:`find_bin_dir` says what to install when nothing is found).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import random
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PostgresNotFound", "ThrowawayPostgres", "find_bin_dir", "free_port"]

SYSTEM_USER = "postgres"


class PostgresNotFound(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


def find_bin_dir() -> Path:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres`` (newest version first)."""
    on_path = shutil.which("pg_ctl")
    if on_path is not None and shutil.which("initdb") is not None:
        return Path(on_path).resolve().parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
        reverse=True,
    )
    if versions:
        return versions[0].parent
    raise PostgresNotFound(
        "PostgreSQL is not installed: apt-get install postgresql (Debian), or put initdb "
        "and pg_ctl on PATH"
    )


# Where the kernel takes the local ports of outgoing connections (Linux's default).
_EPHEMERAL_DEFAULT = (32768, 60999)
_LOW_PORTS = 10000  # below: well-known and registered services' habits


def _ephemeral_range() -> tuple[int, int]:
    try:
        text = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text(encoding="ascii")
        low, high = (int(x) for x in text.split())
    except (OSError, ValueError):
        return _EPHEMERAL_DEFAULT
    return low, high


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now, outside the range the kernel hands out to
    outgoing connections.

    A port that is only free now is given to a process that binds it later (a node, Envoy,
    PostgreSQL). Taken from the kernel (bind to port 0) it comes from the ephemeral range, and
    in between any outgoing connection on the machine may get it as its local port: a node
    then fails with "address already in use" (seen once in CI). Below that range only another
    listener can take it, and a random pick makes two callers' clash unlikely."""
    low, _ = _ephemeral_range()
    if low - _LOW_PORTS >= 1000:
        rng = random.SystemRandom()
        for _ in range(200):
            port = rng.randrange(_LOW_PORTS, low)
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ThrowawayPostgres:
    """One PostgreSQL server in a temporary directory: :meth:`start`, :meth:`url`, :meth:`stop`."""

    port: int = 0
    fsync: bool = False
    base_dir: Path | None = None
    settings: dict[str, str] = field(default_factory=dict)
    _dir: Path | None = None
    _bin: Path | None = None
    _owned_dir: bool = False

    @property
    def data_dir(self) -> Path:
        assert self._dir is not None, "not started"
        return self._dir / "data"

    @property
    def as_root(self) -> bool:
        return os.geteuid() == 0

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        assert self._bin is not None
        command = [str(self._bin / args[0]), *args[1:]]
        if self.as_root:
            command = ["runuser", "-u", SYSTEM_USER, "--", *command]
        return subprocess.run(
            command, check=check, capture_output=True, text=True, timeout=120, cwd="/"
        )

    def start(self) -> ThrowawayPostgres:
        """initdb (once) and start the server; returns self once it accepts connections."""
        if self._dir is None:
            self._bin = find_bin_dir()
            self.port = self.port or free_port()
            self._dir = Path(tempfile.mkdtemp(prefix="ygg-pg-", dir=self.base_dir))
            self._owned_dir = True
            if self.as_root:
                user = pwd.getpwnam(SYSTEM_USER)
                os.chown(self._dir, user.pw_uid, user.pw_gid)
            self._dir.chmod(0o700)
            self._run(
                "initdb", "-D", str(self.data_dir), "-U", "postgres", "--auth=trust",
                "--no-sync", "-E", "UTF8", "--locale=C",
            )  # fmt: skip
        self._pg_ctl_start()
        return self

    def _options(self) -> str:
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self._dir}'",
            "fsync": "on" if self.fsync else "off",
            "synchronous_commit": "on",
            "full_page_writes": "on" if self.fsync else "off",
            "max_connections": "200",
            "shared_buffers": "64MB",
            **self.settings,
        }
        return " ".join(f"-c {k}={v}" for k, v in settings.items())

    def _pg_ctl_start(self) -> None:
        log = self._dir / "server.log" if self._dir is not None else None
        self._run(
            "pg_ctl", "-D", str(self.data_dir), "-l", str(log), "-w", "-t", "60",
            "-o", self._options(), "start",
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self, mode: str = "fast", *, remove: bool = True) -> None:
        """Stop the server (``mode`` immediate: as if it crashed) and, unless ``remove`` is
        False, delete its files."""
        if self._dir is None:
            return
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self._run("pg_ctl", "-D", str(self.data_dir), "-m", mode, "-w", "stop", check=False)
        if remove and self._owned_dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def restart(self, mode: str = "immediate") -> None:
        """Stop (by default like a crash: no checkpoint) and start again on the same files."""
        self.stop(mode, remove=False)
        self._pg_ctl_start()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new empty database; returns its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def __enter__(self) -> ThrowawayPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
