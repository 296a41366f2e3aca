"""``python -m server.replay FILE...``: re-play JSON replays with the engine and check them.

Each file (see docs/replay.md) is re-played decision by decision with the engine (every
decision checked for legality); the final state's hash and the scores must equal what the file
records. Exit status: 0 if every file checks out, 1 if one does not reproduce, 2 if one cannot
be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from server.replay_json import ReplayFormatError, loads, verify_replay


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m server.replay",
        description="Re-play Yggdrasil JSON replays with the engine and check hash and scores.",
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
    parser.add_argument("--json", action="store_true", help="print one JSON line per file")
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    status = 0
    for path in args.files:
        try:
            document = loads(path.read_text(encoding="utf-8"))
        except (OSError, ReplayFormatError) as e:
            print(f"{path}: cannot read: {e}", file=sys.stderr)
            status = max(status, 2)
            continue
        check = verify_replay(document)
        if args.json:
            print(
                json.dumps(
                    {
                        "file": str(path),
                        "ok": check.ok,
                        "actions": check.actions,
                        "final_state_hash": check.final_state_hash,
                        "glory": check.glory,
                        "problems": check.problems,
                        "warnings": check.warnings,
                    }
                )
            )
        elif check.ok:
            print(
                f"{path}: OK: {check.actions} decisions reproduce hash "
                f"{check.final_state_hash}, glory {check.glory}"
            )
        else:
            print(f"{path}: MISMATCH after {check.actions} decisions", file=sys.stderr)
        for problem in check.problems:
            print(f"  problem: {problem}", file=sys.stderr)
        for warning in check.warnings:
            print(f"  warning: {warning}", file=sys.stderr)
        if not check.ok:
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
