"""``python -m mutation`` (``make mutation``): mutation testing of ``engine/``.

Prints, per module, how many mutants the tests kill, then every surviving mutant. Options:
``--module engine.blood_rage.battle`` (repeatable) to run some modules only, ``--jobs N`` (default:
the CPU count), ``--tests PATH ...`` (default: tests/rules tests/cards tests/engine
tests/fire_and_axe),
``--fail-under PCT`` to exit 1 below a score, ``--list`` to list the mutants without
running them, ``--json FILE`` to write every outcome.

Equivalent mutants (no test could tell them from the original) are listed with a reason in
``mutation/equivalent.toml`` and left out of the score; an entry that matches no mutant any
more is reported, so the list does not rot. ``--check-equivalent`` runs the listed ones instead
and fails if a test kills any (a test written later may make an entry wrong).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import tomllib
from pathlib import Path

from mutation.operators import Mutant, mutants
from mutation.report import table, write_json
from mutation.runner import ROOT, Outcome, Runner, measure_coverage, plan

DEFAULT_TESTS = ["tests/rules", "tests/cards", "tests/engine", "tests/fire_and_axe"]
EQUIVALENT = Path(__file__).with_name("equivalent.toml")


def load_equivalent(path: Path = EQUIVALENT) -> dict[str, str]:
    """key -> reason, from the checked-in list."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for entry in data.get("equivalent", []):
        key, reason = entry["mutant"], entry.get("reason", "").strip()
        if not reason:
            raise SystemExit(f"{path.name}: an equivalent mutant needs a reason: {key}")
        if key in out:
            raise SystemExit(f"{path.name}: listed twice: {key}")
        out[key] = reason
    return out


def engine_mutants(modules: list[str] | None) -> list[Mutant]:
    out: list[Mutant] = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if modules and name not in modules:
            continue
        rel = path.relative_to(ROOT).as_posix()
        out.extend(mutants(path.read_text(encoding="utf-8"), name, rel))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mutation", description=__doc__)
    parser.add_argument(
        "--module", action="append", help="e.g. engine.blood_rage.battle (repeatable)"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tests", nargs="+", default=DEFAULT_TESTS)
    parser.add_argument("--fail-under", type=float, default=0.0, help="minimum score, percent")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("--json", type=Path, help="write every outcome to this file")
    parser.add_argument("--match", help="only the mutants whose key contains this text")
    parser.add_argument(
        "--exclude", action="append", default=[], help="leave out mutants whose key has this"
    )
    parser.add_argument(
        "--survivors-of",
        type=Path,
        help="only the mutants that survived in this --json report (a quicker loop while "
        "writing tests; it assumes the mutants killed then are still killed)",
    )
    parser.add_argument(
        "--check-equivalent",
        action="store_true",
        help=f"run the mutants listed in {EQUIVALENT.name} (of the modules chosen) as any "
        "other and fail if a test kills one: it is not equivalent",
    )
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # the runner then kills its workers

    signal.signal(signal.SIGTERM, stop)

    started = time.monotonic()
    found = engine_mutants(args.module)
    if args.match:
        found = [m for m in found if args.match in m.key]
    for text in args.exclude:
        found = [m for m in found if text not in m.key]
    if args.survivors_of:
        report = json.loads(args.survivors_of.read_text(encoding="utf-8"))
        left = {o["key"] for o in report if o["status"] in ("survived", "not covered")}
        found = [m for m in found if m.key in left]
    if args.list:
        for m in found:
            where = "import" if m.at_import else "in place"
            print(f"{m.path}:{m.line} [{where}] {m.key}")
        return 0
    equivalent = load_equivalent()
    keys = {m.key for m in found}
    partial = bool(args.module or args.match or args.exclude or args.survivors_of)
    stale = [] if partial else [k for k in equivalent if k not in keys]
    if args.check_equivalent:
        found = [m for m in found if m.key in equivalent]
    coverage = measure_coverage(args.tests, log)
    jobs, known = plan(found, coverage, {} if args.check_equivalent else equivalent)
    log(f"{len(found)} mutants: {len(jobs)} to run, {len(known)} decided without running")
    outcomes = known + Runner(coverage, args.jobs, log).run(jobs)
    outcomes.sort(key=lambda o: (o.mutant.path, o.mutant.index))
    if args.check_equivalent:
        return _report_killed_equivalents(outcomes, time.monotonic() - started)
    score = table(outcomes, sys.stdout)
    for key in stale:
        print(f"stale entry in {EQUIVALENT.name} (no such mutant any more): {key}")
    print(f"\nmutation: {time.monotonic() - started:.0f} s with {args.jobs} jobs")
    if args.json:
        write_json(outcomes, args.json)
    if stale or any(o.status == "error" for o in outcomes):
        return 1
    return 1 if score < args.fail_under else 0


def _report_killed_equivalents(outcomes: list[Outcome], seconds: float) -> int:
    """--check-equivalent: every listed mutant should survive; list those a test kills."""
    killed = [o for o in outcomes if o.status == "killed"]
    errors = [o for o in outcomes if o.status == "error"]
    print(f"{len(outcomes)} listed equivalent mutants run: {len(killed)} killed")
    for o in killed:
        print(f"{o.mutant.path}:{o.mutant.line} killed by {o.by}\n    key: {o.mutant.key}")
    for o in errors:
        print(f"{o.mutant.path}:{o.mutant.line} could not be run: {o.by}\n    key: {o.mutant.key}")
    print(f"\nmutation --check-equivalent: {seconds:.0f} s")
    return 1 if killed or errors else 0


if __name__ == "__main__":
    sys.exit(main())
