"""``make readme-check``: type the README's command blocks into a shell, as a newcomer would.

Every code block of README.md runs, in order, in ONE bash session (so ``. .venv/bin/activate``
and ``GAME=...`` carry over from block to block, as in a person's terminal), unless the line
just above it is a marker:

    <!-- readme-check: skip: why this block is not typed here -->

The session starts in a scratch directory that mirrors the repository (a symlink to each of
its top-level entries, but not ``data/`` and the like), with a scratch ``$HOME``, so that what
the recipes write (``./data``, ``game.json``, ``runs/``, ``~/.yggdrasil``) stays out of the
checkout. The server is what the README says to run: ``make serve``, on 127.0.0.1:50051 with
metrics on :9464. Standard input is empty (``yggdrasil play`` quits at once), and the jobs a
block leaves in the background are ended before the next block, as closing a terminal would.
A block fails the check if any command in it fails (``set -eo pipefail``).

    .venv/bin/python scripts/readme_check.py [--list] [--port 50051 --metrics-port 9464]

``--port``/``--metrics-port`` move the server elsewhere when those ports are taken on a shared
machine (the README's ``127.0.0.1:50051`` is replaced, and ``$YGGDRASIL_SERVER`` set); CI runs
it as written.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DEFAULT_ADDRESS = "127.0.0.1:50051"
MARKER = re.compile(r"^<!--\s*readme-check:\s*skip:\s*(?P<why>.+?)\s*-->\s*$")
# Left out of the scratch mirror: what the recipes write (and local state a checkout may hold).
NOT_MIRRORED = frozenset({".git", "data", "runs", "tournament-out", "game.json"})


@dataclass(frozen=True)
class Block:
    """A code block of the README: where it starts (1-based line), its text, why it is
    skipped ("" if it runs)."""

    line: int
    text: str
    skip: str


def blocks(markdown: str) -> list[Block]:
    """The README's code blocks: indented by four spaces after a blank line, or fenced."""
    lines = markdown.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fenced = line.startswith("```")
        indented = line.startswith("    ") and (i == 0 or not lines[i - 1].strip())
        if not (fenced or indented):
            i += 1
            continue
        start = i
        body: list[str] = []
        if fenced:
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            i += 1
        else:
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
        while body and not body[-1].strip():
            body.pop()
        above = next((lines[k] for k in range(start - 1, -1, -1) if lines[k].strip()), "")
        marker = MARKER.match(above.strip())
        found.append(Block(start + 1, "\n".join(body), marker["why"] if marker else ""))
    return found


def _mirror(scratch: Path) -> Path:
    tree = scratch / "repo"
    tree.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in NOT_MIRRORED:
            (tree / entry.name).symlink_to(entry)
    return tree


class _Server:
    """``make serve`` in the mirror, in a process group of its own."""

    def __init__(self, tree: Path, env: dict[str, str], args: str) -> None:
        command = ["make", "--no-print-directory", "serve"] + ([f"ARGS={args}"] if args else [])
        self.process = subprocess.Popen(
            command,
            cwd=tree,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            if "gRPC on" in line:
                self.ready.set()
        self.ready.set()

    def wait_ready(self, timeout: float) -> None:
        if not self.ready.wait(timeout) or self.process.poll() is not None:
            raise SystemExit(
                "readme-check: `make serve` did not start:\n" + "".join(self.lines[-30:])
            )

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGINT)  # Ctrl-C, as the README says
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def _script(runnable: list[Block], address: str) -> str:
    """One bash session: each block in turn, announced, its background jobs ended after it."""
    parts = ["set -eo pipefail"]
    for block in runnable:
        text = block.text.replace(DEFAULT_ADDRESS, address)
        parts.append(f"echo '>>> README.md line {block.line}'")
        parts.append(text)
        parts.append("for job in $(jobs -p); do kill $job 2>/dev/null || true; done")
        parts.append("wait 2>/dev/null || true")
    parts.append("echo '>>> every block ran'")
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="readme_check.py", description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true", help="list the blocks and what is done")
    parser.add_argument("--port", type=int, default=None, help="serve here instead of 50051")
    parser.add_argument("--metrics-port", type=int, default=None, help="instead of 9464")
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds for every block")
    args = parser.parse_args(argv)
    found = blocks(README.read_text(encoding="utf-8"))
    runnable = [b for b in found if not b.skip]
    if args.list:
        for block in found:
            first = block.text.splitlines()[0] if block.text else ""
            print(f"line {block.line}: {'skip: ' + block.skip if block.skip else 'run'}: {first}")
        return 0
    if not runnable:
        print("readme-check: the README has no block to run", file=sys.stderr)
        return 1
    address = DEFAULT_ADDRESS if args.port is None else f"127.0.0.1:{args.port}"
    serve_args = " ".join(
        f"--{name} {value}"
        for name, value in (("port", args.port), ("metrics-port", args.metrics_port))
        if value is not None
    )
    with tempfile.TemporaryDirectory(prefix="readme-check-") as scratch_dir:
        scratch = Path(scratch_dir)
        tree = _mirror(scratch)
        home = scratch / "home"
        home.mkdir()
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("YGGDRASIL_") and key not in ("VIRTUAL_ENV", "PYTHONPATH")
        }
        env["HOME"] = str(home)
        if args.port is not None:
            env["YGGDRASIL_SERVER"] = address  # the README's way to point the client elsewhere
        server = _Server(tree, env, serve_args)
        try:
            server.wait_ready(timeout=180)
            started = time.monotonic()
            done = subprocess.run(
                ["bash", "-c", _script(runnable, address)],
                cwd=tree,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=args.timeout,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired as exc:
            output = exc.output if isinstance(exc.output, str) else ""
            print(output[-6000:])
            print(f"readme-check: the blocks took more than {args.timeout:.0f} s", file=sys.stderr)
            return 1
        finally:
            server.stop()
        shown = done.stdout
        print(shown if len(shown) < 20000 else shown[:4000] + "\n[...]\n" + shown[-12000:])
        reached = re.findall(r"^>>> README\.md line (\d+)$", done.stdout, re.MULTILINE)
        if done.returncode != 0:
            where = f"the block at README.md line {reached[-1]}" if reached else "the first block"
            print(f"readme-check: {where} failed (exit {done.returncode})", file=sys.stderr)
            return 1
        elapsed = time.monotonic() - started
        print(
            f"readme-check: {len(runnable)} blocks ran ({len(found) - len(runnable)} skipped, "
            f"each with its reason) in {elapsed:.0f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
