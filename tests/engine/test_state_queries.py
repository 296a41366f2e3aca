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


def test_an_empty_slot_holds_no_upgrade():
    """Empty slots (-1) are no card, not the last card of the table (Loki's Poison)."""
    state = from_scenario({"players": 2, "clans": [{}, {}]})
    assert not any(state.clans[0].has_upgrade(key) for key in ("lokis_poison", "troll"))


def test_fjords_hold_any_number_of_ships_and_provinces_their_villages():
    state = from_scenario(
        {"players": 2, "clans": [{"figures": {"North fjord": ["ship"], "Elvagar": ["leader"]}}, {}]}
    )
    assert state.free_villages(Area.ELVAGAR) == 4 - 1
    for fjord in (Area.NORTH_FJORD, Area.WEST_FJORD):
        assert state.free_villages(fjord) >= 5 * 19, "more than all figures of five clans"


def test_a_monster_in_yggdrasil_has_its_printed_str_but_the_dark_elf():
    """Troll STR 2 anywhere; the Dark Elf STR 1, and 3 in Yggdrasil (cards.md)."""
    state = from_scenario(
        {
            "players": 2,
            "age": 2,
            "clans": [
                {"upgrades": ["troll"], "figures": {"Yggdrasil": ["troll"]}},
                {"upgrades": ["dark_elf"], "figures": {"Yggdrasil": ["dark_elf"]}},
            ],
        }
    )
    assert [state.strength_in(s, Area.YGGDRASIL) for s in (0, 1)] == [2, 3]
