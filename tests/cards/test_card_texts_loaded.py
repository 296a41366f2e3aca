"""Card texts must be active for anyone using the public engine API.

engine/blood_rage/card_effects.py registers every text of cards.md; a game built through
``engine`` (or ``engine.blood_rage.scenario``) must run them without the caller importing that
module by hand. Checked in a fresh interpreter, because this test process imports card_effects
(conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = r"""
import json
from engine.blood_rage import flow
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.ids import Area, Unit, VALHALLA
s = from_scenario({
    "players": 3, "ragnarok": ["Muspelheim", "Gimle", "Myrkulor"],
    "clans": [{"upgrades": ["troll"]},
              {"figures": {"Elvagar": ["warrior", "warrior"]}}, {}]})
flow.apply(s, 0, Action(ActionKind.INVADE, Unit.TROLL, Area.ELVAGAR))
print(json.dumps(sum(1 for x in s.clans[1].loc if x == VALHALLA)))
"""


def test_card_texts_run_through_the_public_api_in_a_fresh_process():
    """cards.md, Troll: 'When it invades a province, every enemy warrior there is
    destroyed.' — with nothing but ``import engine``."""
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2", "the Troll's text did not run: card_effects not loaded"
