"""The fixed pillage-token layout that scenario tests put on the board, so that every reward
is known in advance (Andlang gives Axes, as in the rulebook's pillage example; Yggdrasil,
which has no entry, always gives all three stats)."""

from __future__ import annotations

TOKENS: dict[str, str] = {
    "Myrkulor": "rage",
    "Elvagar": "horns",
    "Angerboda": "rage",
    "Muspelheim": "glory5",
    "Horgr": "rage",
    "Utgard": "horns",
    "Andlang": "axes",
    "Gimle": "axes",
}
