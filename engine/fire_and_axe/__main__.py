"""``python -m engine.fire_and_axe validate FILE``: check a Fire & Axe data pack.

Prints the pack's name, digest and contents when it is valid (exit 0), or every problem found,
one per line, each naming the file, the entry and the fault (exit 1). ``yggdrasil data validate
FILE`` runs the same :func:`validate_command`. ``python -m engine.fire_and_axe validate --demo``
checks the built-in demo pack.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from engine.fire_and_axe.data_pack import DEMO_RESOURCE, Pack, validate_file
from engine.fire_and_axe.ids import PORT, WATER


def summary(pack: Pack) -> str:
    ports = sum(1 for loc in pack.locations if loc.kind == PORT)
    waters = sum(1 for loc in pack.locations if loc.kind == WATER)
    lines = [
        f"OK: {pack.name} (id {pack.id}, format {pack.format})",
        f"  digest {pack.digest}",
        f"  {ports} ports, {waters} water spaces, 3 Homelands, {len(pack.edges)} edges",
        f"  {sum(r.count for r in pack.runes)} Rune cards ({len(pack.runes)} different), "
        f"{len(pack.sagas)} Saga cards",
    ]
    if pack.demo:
        lines.append("  DEMO DATA: invented where the rulebook is silent, NOT the published game")
    return "\n".join(lines)


def validate_command(path: str, out: TextIO | None = None) -> int:
    """Validate the pack in ``path``; 0 if it is valid, 1 if not (problems printed)."""
    out = out if out is not None else sys.stdout
    pack, problems = validate_file(path)
    if pack is None:
        for problem in problems:
            print(problem, file=out)
        print(f"{len(problems)} problem(s): {path} is not a usable data pack", file=out)
        return 1
    print(summary(pack), file=out)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.fire_and_axe", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("validate", help="check a data pack file")
    group = check.add_mutually_exclusive_group(required=True)
    group.add_argument("file", nargs="?", help="the pack (TOML)")
    group.add_argument("--demo", action="store_true", help="check the built-in demo pack")
    args = parser.parse_args(argv)
    if args.demo:
        from importlib import resources

        with resources.as_file(
            resources.files("engine.fire_and_axe").joinpath(DEMO_RESOURCE)
        ) as path:
            return validate_command(str(path))
    return validate_command(args.file)


if __name__ == "__main__":
    sys.exit(main())
