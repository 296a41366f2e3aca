"""Every upgrade card costs the Rage printed in cards.md's "cost / STR" column (Dwarf
Chieftain and Soldier of Hel: 0 by their text), paid when it is played."""

from __future__ import annotations

import pytest

# key, age, cost, players needed for its marking
UPGRADES = [
    ("troll", 1, 2, 3),
    ("dwarf_chieftain", 1, 0, 3),
    ("sea_serpent", 1, 3, 3),
    ("lord_of_hammers", 1, 3, 3),
    ("brothers_in_arms", 1, 1, 3),
    ("lokis_dragons", 1, 2, 3),
    ("lokis_domain", 1, 1, 3),
    ("friggas_charm", 1, 0, 3),
    ("thors_glory", 1, 2, 3),
    ("friggas_succor", 1, 2, 3),
    ("tyrs_domain", 1, 0, 3),
    ("lokis_blessing", 1, 1, 4),
    ("valkyrie", 2, 2, 3),
    ("dark_elf", 2, 1, 3),
    ("fire_giant", 2, 4, 3),
    ("lord_of_axes", 2, 3, 3),
    ("experts_in_arms", 2, 2, 3),
    ("fire_dragons", 2, 2, 3),
    ("odins_inspiration", 2, 2, 3),
    ("tyrs_challenge", 2, 0, 3),
    ("friggas_protection", 2, 0, 3),
    ("lokis_eminence", 2, 2, 3),
    ("tyrs_prowess", 2, 2, 3),
    ("thors_domain", 2, 1, 4),
    ("frost_giant", 3, 4, 3),
    ("soldier_of_hel", 3, 0, 3),
    ("volur_witch", 3, 3, 3),
    ("lord_of_spears", 3, 3, 3),
    ("masters_in_arms", 3, 2, 3),
    ("eternal_dragons", 3, 2, 3),
    ("friggas_domain", 3, 0, 3),
    ("odins_throne", 3, 2, 3),
    ("thors_conquest", 3, 3, 3),
    ("friggas_sacrifice", 3, 1, 3),
    ("tyrs_wrath", 3, 1, 3),
    ("lokis_wrath", 3, 3, 4),
]


@pytest.mark.parametrize("key,age,cost,players", UPGRADES)
def test_upgrade_costs_its_printed_rage(g, key, age, cost, players):
    s = g.state(players, [{"hand": [key], "rage": 5}], age=age)
    card = g.card(s, 0, key)
    g.act(s, 0, g.K.UPGRADE, card, 0)
    assert s.clans[0].rage == 5 - cost
    assert card in s.clans[0].slots and card not in s.clans[0].hand


@pytest.mark.parametrize("key,age,cost,players", [u for u in UPGRADES if u[2] >= 2])
def test_upgrade_unaffordable_is_illegal(g, key, age, cost, players):
    """One Rage short: the Upgrade action is not offered (a 1-cost card cannot be one short,
    since a clan with 0 Rage takes no action at all)."""
    s = g.state(players, [{"hand": [key], "rage": cost - 1}], age=age)
    assert g.A(g.K.UPGRADE, g.card(s, 0, key), 0) not in g.legal(s, 0)
