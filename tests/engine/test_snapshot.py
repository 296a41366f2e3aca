"""Snapshots (engine/blood_rage/snapshot.py) hold the complete state, a battle under way
included."""

from __future__ import annotations

import copy
import json

import pytest

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply, awaiting, legal_actions
from engine.blood_rage.ids import Area, Step, Unit
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.snapshot import from_snapshot, to_snapshot
from engine.blood_rage.state import EMPTY, PromptKind


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


def _copy_through_json(data):
    return json.loads(json.dumps(data))


def test_a_march_under_way_survives_a_snapshot():
    state = from_scenario(
        {"players": 2, "clans": [{"figures": {"Elvagar": ["leader", "warrior", "warrior"]}}, {}]}
    )
    apply(state, 0, Action(ActionKind.MARCH, Area.ELVAGAR, Area.ANGERBODA, Unit.WARRIOR))
    assert state.step == Step.MARCH and state.march == (Area.ELVAGAR, Area.ANGERBODA)
    back = from_snapshot(_copy_through_json(to_snapshot(state)))
    assert back.march == (Area.ELVAGAR, Area.ANGERBODA)
    assert legal_actions(back, 0) == legal_actions(state, 0)


def test_a_restored_battle_shares_no_list_with_its_snapshot():
    """The revealed cards of a restored battle are its own lists: playing on must not write
    into the snapshot it came from."""
    state = from_scenario(
        {
            "players": 2,
            "clans": [
                {"hand": ["tyrs_bash_1", "heimdalls_eye"], "figures": {"Elvagar": ["leader"]}},
                {"hand": ["tyrs_smash_1"], "figures": {"Elvagar": ["warrior"]}},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, state.clans[1].hand[0]))
    apply(state, 0, Action(ActionKind.BATTLE_CARD, state.clans[0].hand[0]))
    assert state.battle is not None and state.battle.revealed  # seat 0 may play its Eye late
    snapshot = _copy_through_json(to_snapshot(state))
    kept = copy.deepcopy(snapshot)
    back = from_snapshot(snapshot)
    eye = back.clans[0].hand[0]
    apply(back, 0, Action(ActionKind.LATE_CARD, eye))
    assert snapshot == kept
    assert from_snapshot(kept).state_hash() == state.state_hash()


def test_the_card_behind_a_pending_destruction_survives_a_snapshot():
    """Odin's Smite dooms a warrior of Frigga's Protection's owner, who is asked: the card
    that dooms it is kept (format 2), and reads as none from a format 1 snapshot."""
    state = from_scenario(
        {
            "players": 2,
            "age": 2,
            "clans": [
                {"hand": ["odins_smite"], "figures": {"Elvagar": ["leader"]}},
                {
                    "upgrades": ["friggas_protection"],
                    "hand": ["tyrs_bash_1"],
                    "figures": {"Elvagar": ["warrior", "warrior"]},
                },
            ],
        }
    )
    smite = state.clans[0].hand[0]
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    apply(state, 0, Action(ActionKind.BATTLE_CARD, smite))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, state.clans[1].hand[0]))
    assert state.prompts and state.doom_card == smite
    snapshot = _copy_through_json(to_snapshot(state))
    assert from_snapshot(snapshot).doom_card == smite
    old = dict(snapshot, format=1)
    del old["doom_card"], old["hash"]
    old["clans"] = [{k: v for k, v in c.items() if k != "kept"} for c in old["clans"]]
    assert from_snapshot(old).doom_card == EMPTY


def _clear_every_list(data):
    """Empty every list in ``data`` in place, nested ones first."""
    values = data.values() if isinstance(data, dict) else data if isinstance(data, list) else []
    for value in values:
        _clear_every_list(value)
    if isinstance(data, list):
        data.clear()


def test_a_restored_game_shares_no_list_with_the_data_it_came_from():
    """Mid-battle, after Odin's Smite destroyed one of seat 1's warriors (the battle lists it
    as [seat, figure, area]) and Odin's Tide asks seat 1 which figure it keeps. Whoever
    restored the game may reuse its data: emptying every list of it, nested ones included,
    changes nothing in the restored game."""
    state = from_scenario(
        {
            "players": 3,
            "age": 2,
            "clans": [
                {"hand": ["odins_smite"], "figures": {"Elvagar": ["leader"]}},
                {"hand": ["odins_tide"], "figures": {"Elvagar": ["warrior"] * 3}},
                {},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    apply(state, 0, Action(ActionKind.BATTLE_CARD, state.clans[0].hand[0]))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, state.clans[1].hand[0]))
    assert state.prompts and state.battle is not None
    assert state.battle.destroyed == [[1, 1, Area.ELVAGAR]]
    snapshot = _copy_through_json(to_snapshot(state))
    assert snapshot["prompts"] == [[PromptKind.TIDE_KEEP, 1, 0, 0]], "no arguments: zeros"
    kept = copy.deepcopy(snapshot)
    restored = from_snapshot(snapshot)
    _clear_every_list(snapshot)
    assert snapshot["battle"]["destroyed"] == []
    assert to_snapshot(restored) == kept
    assert restored.state_hash() == state.state_hash()


def _troll_invades(victim: bool):
    """Seat 0's Troll invades Elvagar, where seat 1 has a warrior (or nothing)."""
    state = from_scenario(
        {
            "players": 2,
            "clans": [
                {"upgrades": ["troll"]},
                {"figures": {"Elvagar": ["warrior"]} if victim else {"Angerboda": ["warrior"]}},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.INVADE, Unit.TROLL, Area.ELVAGAR))
    return state


def test_a_destruction_over_leaves_no_card_behind():
    """Once the Troll's victims are gone the snapshot names no card behind a destruction."""
    state = _troll_invades(victim=True)
    assert state.clans[1].loc.count(Area.ELVAGAR) == 0, "the warrior died"
    assert to_snapshot(state)["doom_card"] == EMPTY


def test_a_text_that_finds_no_victim_leaves_no_trace():
    """The Troll finds no enemy warrior: nothing is doomed, and the stored state says no
    cause and no card (as before the invasion)."""
    before = to_snapshot(_troll_invades(victim=False))
    assert (before["doom_cause"], before["doom_card"], before["doomed"]) == (0, EMPTY, [])


def test_a_snapshot_is_a_json_object():
    from engine.blood_rage.snapshot import SnapshotError

    for data in ([], "snapshot", 3):
        with pytest.raises(SnapshotError, match="a snapshot is a JSON object"):
            from_snapshot(data)  # type: ignore[arg-type]


def test_a_destruction_waiting_on_a_reaction_stores_its_cause_by_number():
    """While a reaction is asked (Frigga's Protection, the Volur Witch's retreat), the doomed
    figures wait with their cause, stored by number (a stored game from any build reads it
    back): 0 a lost battle, 1 an enemy's text (the Troll's), 2 the owner's own choice (Odin's
    Tide)."""
    battle = from_scenario(
        {
            "players": 3,
            "clans": [
                {"figures": {"Angerboda": ["leader"]}},
                {"upgrades": ["friggas_protection"], "figures": {"Angerboda": ["warrior"]}},
                {},
            ],
        }
    )
    apply(battle, 0, Action(ActionKind.PILLAGE, Area.ANGERBODA))
    while battle.step == Step.CALL_TO_BATTLE and not battle.prompts:
        apply(battle, awaiting(battle)[0], Action(ActionKind.DECLINE))
    while battle.step == Step.BATTLE_CARDS:
        seat = awaiting(battle)[0]
        apply(battle, seat, legal_actions(battle, seat)[0])
    assert [(p.kind, p.seat) for p in battle.prompts] == [(PromptKind.PROTECT, 1)]
    assert to_snapshot(battle)["doom_cause"] == 0
    effect = from_scenario(
        {
            "players": 2,
            "clans": [
                {"upgrades": ["troll"]},
                {"upgrades": ["friggas_protection"], "figures": {"Elvagar": ["warrior"]}},
            ],
        }
    )
    apply(effect, 0, Action(ActionKind.INVADE, Unit.TROLL, Area.ELVAGAR))
    assert [(p.kind, p.seat) for p in effect.prompts] == [(PromptKind.PROTECT, 1)]
    assert to_snapshot(effect)["doom_cause"] == 1
    tide = from_scenario(
        {
            "players": 3,
            "age": 3,
            "clans": [
                {"hand": ["tyrs_crush"], "figures": {"Elvagar": ["leader"]}},
                {
                    "hand": ["odins_tide_2"],
                    "upgrades": ["volur_witch"],
                    "figures": {"Elvagar": ["volur_witch", "warrior"]},
                },
                {},
            ],
        }
    )
    apply(tide, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    for seat in (0, 1):
        apply(tide, seat, Action(ActionKind.BATTLE_CARD, tide.clans[seat].hand[0]))
    assert [(p.kind, p.seat) for p in tide.prompts] == [(PromptKind.TIDE_KEEP, 1)]
    apply(tide, 1, Action(ActionKind.KEEP_FIGURE, Unit.WARRIOR, Area.ELVAGAR))
    assert [(p.kind, p.seat) for p in tide.prompts] == [(PromptKind.WITCH_RETREAT, 1)]
    assert to_snapshot(tide)["doom_cause"] == 2
