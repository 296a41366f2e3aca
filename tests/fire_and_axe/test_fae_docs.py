"""docs/fire-and-axe.md and the events module's table say what the code does."""

from __future__ import annotations

import re
from pathlib import Path

from engine.fire_and_axe import events
from engine.fire_and_axe.effect_kinds import EFFECT_KINDS

DOC = (Path(__file__).parents[2] / "docs" / "fire-and-axe.md").read_text(encoding="utf-8")


def test_the_vocabulary_table_lists_every_effect_kind() -> None:
    table = DOC[DOC.index("## The effect vocabulary") :]
    table = table[: table.index("\n\n", table.index("| kind |"))]
    listed = re.findall(r"^\| `([a-z_]+)` \|", table, re.M)
    assert listed == list(EFFECT_KINDS)


def test_the_events_table_lists_every_event_type() -> None:
    doc = events.__doc__ or ""
    table = doc[doc.index("type  ") :]
    listed = re.findall(r"^([a-z_]+)\s{2,}", table, re.M)
    assert listed[0] == "type" and listed[1:] == list(events.EVENT_KEYS)


def test_the_python_example_runs() -> None:
    block = re.search(r"```python\n(.*?)```", DOC, re.S)
    assert block is not None
    scope: dict[str, object] = {}
    exec(compile(block.group(1), "docs/fire-and-axe.md", "exec"), scope)
    assert scope["state"].version == 1  # type: ignore[attr-defined]


def test_every_option_is_documented() -> None:
    from engine.fire_and_axe.rules import _OPTION_KEYS

    for key in _OPTION_KEYS:
        assert f"| `{key}` |" in DOC
