"""The scenario example in docs/engine.md builds and plays out as the rulebook says."""

from __future__ import annotations

import json
import re
from pathlib import Path

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply, awaiting
from engine.blood_rage.ids import Area, Stat
from engine.blood_rage.scenario import from_scenario


def test_documented_andlang_pillage() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "engine.md").read_text()
    match = re.search(r"```json\n(.*?)```", doc, re.S)
    assert match is not None
    state = from_scenario(json.loads(match.group(1)))
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ANDLANG))
    assert sorted(awaiting(state)) == [0, 1]
    apply(state, 0, Action(ActionKind.BATTLE_CARD, state.clans[0].hand[0]))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, state.clans[1].hand[0]))
    assert state.pillaged[Area.ANDLANG]
    assert state.clans[0].steps[Stat.AXES] == 1  # Axes 3 → 4
    assert state.clans[0].glory == 4  # Glory = the new Axes
    assert state.clans[1].glory == 0 and state.clans[1].on_board() == 0
