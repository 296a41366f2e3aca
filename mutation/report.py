"""The score table and the list of surviving mutants."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import TextIO

from mutation.runner import Outcome


def table(outcomes: list[Outcome], out: TextIO) -> float:
    """Print the per-module table and the survivors; return the total score (percent)."""
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for o in outcomes:
        rows[o.mutant.path][o.status] += 1
    header = f"{'module':28} {'mutants':>7} {'equiv':>6} {'killed':>7} {'survived':>8} {'score':>7}"
    out.write(header + "\n" + "-" * len(header) + "\n")
    total: dict[str, int] = defaultdict(int)
    for path in sorted(rows):
        row = rows[path]
        for k, v in row.items():
            total[k] += v
        out.write(_row(path, row) + "\n")
    out.write("-" * len(header) + "\n" + _row("total", total) + "\n")
    errors = [o for o in outcomes if o.status == "error"]
    if errors:
        out.write(f"\n{len(errors)} mutants could not be run (a fault of the tool, not counted):\n")
        for o in errors:
            out.write(f"{o.mutant.path}:{o.mutant.line} {o.mutant.key}: {o.by}\n")
    survivors = [o for o in outcomes if o.status in ("survived", "not covered")]
    if survivors:
        out.write(f"\n{len(survivors)} surviving mutants:\n")
        for o in survivors:
            m = o.mutant
            note = " [not covered]" if o.status == "not covered" else ""
            out.write(f"{m.path}:{m.line} {m.scope or '<module>'}: {m.before} -> {m.after}{note}\n")
            out.write(f"    key: {m.key}\n")
    return _score(total)


def _score(row: dict[str, int]) -> float:
    counted = row["killed"] + row["survived"] + row["not covered"]
    return 100.0 * row["killed"] / counted if counted else 100.0


def _row(name: str, row: dict[str, int]) -> str:
    mutants = sum(row.values())
    survived = row["survived"] + row["not covered"]
    return (
        f"{name:28} {mutants:7d} {row['equivalent']:6d} {row['killed']:7d} {survived:8d} "
        f"{_score(row):6.1f}%"
    )


def write_json(outcomes: list[Outcome], path: Path) -> None:
    document = [
        {
            "key": o.mutant.key,
            "path": o.mutant.path,
            "line": o.mutant.line,
            "status": o.status,
            "by": o.by,
            "seconds": round(o.seconds, 3),
        }
        for o in outcomes
    ]
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
