"""Snapshots (engine/snapshot.py) hold the complete state, a battle under way included."""

from __future__ import annotations

from engine.actions import Action, ActionKind
from engine.flow import apply
from engine.ids import Area, Step, Unit
from engine.scenario import from_scenario
from engine.snapshot import from_snapshot, to_snapshot


def test_a_battle_records_every_monster_that_took_part():
    """Seat 0's Troll (the first monster figure) and seat 1's Valkyrie fight in Elvagar;
    seat 1's Dark Elf stays in Gimle. The battle keeps (seat * 32 + unit) of each monster
    there when the Call to Battle ended (what the Valkyrie's text looks at)."""
    state = from_scenario(
        {
            "players": 3,
            "age": 2,
            "clans": [
                {
                    "upgrades": ["troll"],
                    "hand": ["tyrs_bash_1"],
                    "figures": {"Elvagar": ["troll", "leader"]},
                },
                {
                    "upgrades": ["valkyrie", "dark_elf"],
                    "hand": ["tyrs_smash_1"],
                    "figures": {"Elvagar": ["warrior", "valkyrie"], "Gimle": ["dark_elf"]},
                },
                {},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    assert state.step == Step.BATTLE_CARDS
    snapshot = to_snapshot(state)
    assert snapshot["battle"]["monsters"] == [0 * 32 + Unit.TROLL, 1 * 32 + Unit.VALKYRIE]
    assert from_snapshot(snapshot).state_hash() == state.state_hash()
