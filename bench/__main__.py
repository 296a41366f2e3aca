"""``make bench``: run the benchmarks and print one table (``--json`` for machines)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from bench import engine_bench


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--games", type=int, default=200, help="random 4-player games to play")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    result = engine_bench.run(args.games)
    if args.json:
        print(json.dumps({"engine": asdict(result)}, indent=2))
        return 0
    print("== engine (one core) ==")
    for name, value, note in result.rows():
        print(f"  {name:<36} {value:>12}   {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
