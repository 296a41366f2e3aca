"""Small queries other packages ask the engine (bots, clients): which upgrades a clan has,
what an area is called."""

from __future__ import annotations

from engine.ids import Area, area_name
from engine.scenario import from_scenario


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
