"""Small queries other packages ask the engine (bots, clients, scenarios): which upgrades a
clan has, what an area is called, which card a name means."""

from __future__ import annotations

import pytest

from engine.blood_rage.cards import find_card
from engine.blood_rage.ids import Area, area_name
from engine.blood_rage.scenario import from_scenario


def test_has_upgrade_by_card_key():
    state = from_scenario({"players": 2, "clans": [{"upgrades": ["troll", "lokis_domain"]}, {}]})
    assert state.clans[0].slots.count(0) == 1, "the Troll is card instance 0"
    assert state.clans[0].has_upgrade("troll")
    assert state.clans[0].has_upgrade("lokis_domain")
    assert not state.clans[0].has_upgrade("thors_glory")
    assert not state.clans[1].has_upgrade("troll")


def test_area_names():
    assert area_name(Area.YGGDRASIL) == "Yggdrasil"
    assert area_name(Area.GIMLE) == "Gimle"
    assert area_name(Area.NORTH_FJORD) == "North fjord"


def test_find_card_by_id_key_or_printed_name():
    assert find_card("tyrs_smash_2").id == "tyrs_smash_2"
    assert find_card("tyrs_smash", 1).id == "tyrs_smash_1"
    assert find_card("troll").id == "troll_1", "one Age only: no Age needed"
    assert find_card("Tyr's Smash", 2).id == "tyrs_smash_2"
    assert find_card("  Loki's Poison ").id == "lokis_poison_3"
    assert find_card("Frigga's Grace").key == "friggas_grace"


def test_find_card_says_what_is_wrong():
    with pytest.raises(KeyError, match="unknown card 'Excalibur'"):
        find_card("Excalibur")
    with pytest.raises(KeyError, match=r"ambiguous: say which Age \(tyrs_smash_1, tyrs_smash_2\)"):
        find_card("tyrs_smash", 3)
