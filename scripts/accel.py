"""Run a module with the accelerated (mypyc-compiled) engine and bots from ``build/accel``.

    python scripts/accel.py -m bench.strength --games-ismcts 100

``PYTHONPATH=build/accel`` is not enough for ``python -m`` from the repository root: the
current directory comes first on ``sys.path`` and its ``engine/`` would win. This puts
``build/accel`` first, checks that the compiled modules are the ones imported (a stale or
missing build fails loudly instead of silently running interpreted), then runs the module
as ``__main__``. Worker processes forked by the module inherit the same imports.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ACCEL = ROOT / "build" / "accel"
# One compiled module of each package is enough to tell the build is the one in use.
PROBES = ("engine.blood_rage.state", "clients.blood_rage.bots.policy")


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] != "-m":
        sys.exit("usage: python scripts/accel.py -m MODULE [ARGS...]")
    if not (ACCEL / ".built").exists():
        sys.exit(f"accel: no build in {ACCEL}; run `make accel` first")
    module = sys.argv[2]
    sys.path[:] = [str(ACCEL), str(ROOT), *(p for p in sys.path[1:] if p not in ("", str(ROOT)))]
    for name in PROBES:
        loaded = __import__(name, fromlist=["_"])
        path = getattr(loaded, "__file__", "") or ""
        if not path.startswith(str(ACCEL)) or path.endswith(".py"):
            sys.exit(f"accel: {name} was imported from {path}, not compiled from {ACCEL}")
    print(f"accel: engine and bots compiled with mypyc ({ACCEL.relative_to(ROOT)})", flush=True)
    sys.argv = [module, *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
