"""Build the accelerated copy of the engine and the bots: the same source, compiled with mypyc.

The engine and the bots are plain typed Python, and stay so: this script copies ``engine/`` and
``clients/`` into ``build/accel/`` and compiles the hot modules there with mypyc (C extensions
next to their sources). Putting ``build/accel`` first on ``PYTHONPATH`` then runs the compiled
modules; without it nothing changes. ``make accel`` runs this; ``make strength`` and
``make tournament`` use the result (an ISMCTS bot gets about three times the search per
decision), and ``make test-accel`` runs the engine, rules, card and bot tests against it.

The build is skipped when ``build/accel/.built`` records the same sources, module list and
compiler versions (a digest), so a fresh build happens exactly when something changed.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEST = ROOT / "build" / "accel"
STAMP = DEST / ".built"

# Compiled: the modules a game or a search spends its time in. The rest (data tables, views,
# snapshots, scenarios, the CLI) is copied and runs interpreted.
COMPILED = (
    "engine/blood_rage/actions.py",
    "engine/blood_rage/action_phase.py",
    "engine/blood_rage/board.py",
    "engine/blood_rage/cards.py",
    "engine/blood_rage/ids.py",
    "engine/blood_rage/battle.py",
    "engine/blood_rage/card_effects.py",
    "engine/blood_rage/destruction.py",
    "engine/blood_rage/determinize.py",
    "engine/blood_rage/draft.py",
    "engine/blood_rage/effects.py",
    "engine/blood_rage/end_of_age.py",
    "engine/blood_rage/figures.py",
    "engine/blood_rage/flow.py",
    "engine/blood_rage/playout.py",
    "engine/blood_rage/prompts.py",
    "engine/blood_rage/results.py",
    "engine/core/rng.py",
    "engine/blood_rage/setup.py",
    "engine/blood_rage/state.py",
    "clients/blood_rage/bots/duct.py",
    "clients/blood_rage/bots/evaluate.py",
    "clients/blood_rage/bots/ismcts.py",
    "clients/blood_rage/bots/knowledge.py",
    "clients/blood_rage/bots/policy.py",
)
# Copied: every Python file of these packages (clients/ts and clients/go hold no Python).
PACKAGES = ("engine", "clients")


def _sources() -> list[Path]:
    files = []
    for package in PACKAGES:
        files.extend(
            p
            for p in sorted((ROOT / package).rglob("*.py"))
            if "node_modules" not in p.parts and "__pycache__" not in p.parts
        )
    return files


def _digest(files: list[Path]) -> str:
    h = hashlib.sha256()
    for name in ("mypy", "setuptools"):
        h.update(f"{name}={importlib.metadata.version(name)}\n".encode())
    h.update(sys.version.encode())
    h.update("\n".join(COMPILED).encode())
    for path in files:
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def main() -> int:
    files = _sources()
    digest = _digest(files)
    if STAMP.exists() and STAMP.read_text().strip() == digest:
        print(f"build_accel: {DEST.relative_to(ROOT)} is up to date")
        return 0
    if DEST.exists():
        shutil.rmtree(DEST)
    for path in files:
        target = DEST / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    print(f"build_accel: compiling {len(COMPILED)} modules with mypyc (about a minute)")
    done = subprocess.run(
        [sys.executable, "-m", "mypyc", *COMPILED],
        cwd=DEST,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        print("build_accel: mypyc failed (output above)", file=sys.stderr)
        return 1
    shutil.rmtree(DEST / "build", ignore_errors=True)  # mypyc's C sources and objects
    compiled = sorted(DEST.rglob("*.so"))
    missing = [m for m in COMPILED if not list((DEST / m).parent.glob(Path(m).stem + ".*.so"))]
    if missing:
        print(f"build_accel: no extension built for {missing}", file=sys.stderr)
        return 1
    STAMP.write_text(digest + "\n")
    print(f"build_accel: {len(compiled)} extension(s) in {DEST.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
