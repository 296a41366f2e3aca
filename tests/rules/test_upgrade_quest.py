"""§5 Upgrade (cost, slots, replacement, monsters, free invade) and Quest (free commit)."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import (
    BOX,
    FIG_LEADER,
    FIG_SHIP,
    RESERVE,
    VALHALLA,
    Area,
    Unit,
    monster_fig,
)

SLOT_LEADER, SLOT_WARRIOR, SLOT_SHIP, SLOT_MON = 0, 1, 2, (3, 4)
SLOT_CLAN = (5, 6, 7)


@pytest.mark.parametrize(
    ("key", "cost", "slot"),
    [
        ("lord_of_hammers", 3, SLOT_LEADER),
        ("brothers_in_arms", 1, SLOT_WARRIOR),
        ("lokis_dragons", 2, SLOT_SHIP),
        ("thors_glory", 2, SLOT_CLAN[0]),
        ("friggas_charm", 0, SLOT_CLAN[0]),
        ("troll", 2, SLOT_MON[0]),
        ("sea_serpent", 3, SLOT_MON[0]),
        ("dwarf_chieftain", 0, SLOT_MON[0]),
    ],
)
def test_upgrade_costs_its_value_and_fills_its_slot(h, key, cost, slot):
    """§5 Upgrade: pay Rage equal to the card's value (cards.md: Dwarf Chieftain costs 0) and
    put it into the matching slot."""
    state = h.scenario(3, [{"hand": [key]}, {}, {}])
    card = h.card(state, 0, key)
    h.act(state, 0, h.K.UPGRADE, card, 0)
    assert state.clans[0].rage == 6 - cost
    assert state.clans[0].slots[slot] == card
    assert card not in state.clans[0].hand


def test_upgrade_needs_enough_rage(h):
    state = h.scenario(3, [{"hand": ["lord_of_hammers", "lokis_domain"], "rage": 2}, {}, {}])
    hammers = h.card(state, 0, "lord_of_hammers")
    assert not any(a.kind == h.K.UPGRADE and a.a == hammers for a in h.legal(state, 0))
    h.assert_illegal(state, 0, (h.K.UPGRADE, hammers, 0))
    assert any(a.kind == h.K.UPGRADE for a in h.legal(state, 0)), "Loki's Domain costs 1"


def test_replacing_an_upgrade_discards_the_old_card(h):
    """§5: if the slot is taken, the old card is discarded and replaced."""
    state = h.scenario(3, [{"upgrades": ["brothers_in_arms"], "hand": ["experts_in_arms"]}, {}, {}])
    old = state.clans[0].slots[SLOT_WARRIOR]
    new = h.card(state, 0, "experts_in_arms")
    h.act(state, 0, h.K.UPGRADE, new, 0)
    assert state.clans[0].slots[SLOT_WARRIOR] == new
    assert old in state.discard
    assert state.clans[0].rage == 4
    assert state.clans[0].warrior_strength() == (2, 4)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("lord_of_hammers", "lord_of_axes"),
        ("brothers_in_arms", "experts_in_arms"),
        ("lokis_dragons", "fire_dragons"),
        ("thors_glory", "friggas_protection"),
    ],
)
def test_replacing_a_non_monster_upgrade_moves_no_figure(h, old, new):
    """Only a replaced monster card takes a figure out of the game (cards.md Rulings); a
    leader, warrior, ship or clan upgrade replaced leaves every figure where it was, on
    the board and in the reserve (issue 30, gap 10)."""
    clan = {
        "upgrades": [old],
        "hand": [new],
        "figures": {"Elvagar": ["leader", "warrior"], "North fjord": ["ship"]},
    }
    if new == "friggas_protection":  # three clan upgrades: the new one replaces one
        clan["upgrades"] = [old, "lokis_eminence", "tyrs_prowess"]
    state = h.scenario(3, [clan, {}, {}], age=2)
    before = h.view(state, 1)["clans"][0]["figures"]
    assert len(before) == 10, "leader, 8 warriors, ship"
    h.act(state, 0, h.K.UPGRADE, h.card(state, 0, new), 0)
    seen = h.view(state, 1)
    assert seen["clans"][0]["figures"] == before
    assert [c["card"] for c in seen["discard"]] == [f"{old}_1"]
    # The free invade: a warrior waits in the reserve; the leader and the ship are out.
    offer = seen["prompt"]["unit"] if seen["prompt"] else None
    assert offer == ("warrior" if new == "experts_in_arms" else None)


def test_player_chooses_which_clan_slot_to_replace(h):
    """§5 (seeds/000_3142a3a5a8184f45.txt, ΑΝΑΒΑΘΜΙΣΗ example): with three clan upgrades, the
    player discards the one of its choice to make room for the new one."""
    state = h.scenario(
        3,
        [
            {
                "upgrades": ["lokis_domain", "friggas_succor", "thors_glory"],
                "hand": ["lokis_eminence"],
            },
            {},
            {},
        ],
    )
    succor = state.clans[0].slots[SLOT_CLAN[1]]
    eminence = h.card(state, 0, "lokis_eminence")
    slots = sorted(a.b for a in h.legal(state, 0) if a.kind == h.K.UPGRADE and a.a == eminence)
    assert slots == [0, 1, 2]
    h.act(state, 0, h.K.UPGRADE, eminence, 1)
    assert state.clans[0].slots[SLOT_CLAN[1]] == eminence
    assert h.keys([x for x in state.clans[0].slots if x >= 0]) == [
        "lokis_domain",
        "lokis_eminence",
        "thors_glory",
    ]
    assert succor in state.discard
    assert state.clans[0].rage == 4


def test_monster_upgrade_brings_its_figure_to_the_reserve(h):
    """§5: a Monster upgrade brings the monster figure into the reserve (it is then the clan's
    figure), with a free invade offered at once."""
    state = h.scenario(3, [{"hand": ["troll"]}, {}, {}])
    troll = monster_fig(Unit.TROLL)
    assert state.clans[0].loc[troll] == BOX
    h.act(state, 0, h.K.UPGRADE, h.card(state, 0, "troll"), 0)
    assert state.clans[0].loc[troll] == RESERVE
    prompt = h.view(state)["prompt"]
    assert (prompt["kind"], prompt["seat"], prompt["unit"]) == ("free_invade", 0, "troll")
    assert h.awaiting(state) == [0]
    h.act(state, 0, h.K.FREE_INVADE, Unit.TROLL, Area.HORGR)
    assert state.clans[0].loc[troll] == Area.HORGR
    assert state.clans[0].rage == 4, "only the upgrade was paid"
    assert state.turn == 1
    assert state.strength_in(0, Area.HORGR) == 2


def test_at_most_two_monsters_and_replaced_monster_goes_to_the_box_from_the_board(h):
    """§5 / cards.md rulings: at most 2 monsters; replacing a monster card sends the old
    monster figure back to the box wherever it was (here: on the board)."""
    state = h.scenario(
        3,
        [
            {
                "upgrades": ["troll", "dwarf_chieftain"],
                "hand": ["valkyrie"],
                "figures": {"Elvagar": ["troll", "warrior"]},
            },
            {},
            {},
        ],
    )
    valk = h.card(state, 0, "valkyrie")
    slots = sorted(a.b for a in h.legal(state, 0) if a.kind == h.K.UPGRADE and a.a == valk)
    assert slots == [0, 1], "no third monster slot"
    troll_card = state.clans[0].slots[SLOT_MON[0]]
    h.act(state, 0, h.K.UPGRADE, valk, 0)
    assert state.clans[0].loc[monster_fig(Unit.TROLL)] == BOX
    assert state.occupancy[Area.ELVAGAR] == 1
    assert troll_card in state.discard
    assert state.clans[0].loc[monster_fig(Unit.VALKYRIE)] == RESERVE
    assert state.clans[0].loc[monster_fig(Unit.DWARF_CHIEFTAIN)] == RESERVE
    assert state.clans[0].slots[SLOT_MON[0]] == valk
    h.act(state, 0, h.K.DECLINE)
    assert state.clans[0].loc[monster_fig(Unit.VALKYRIE)] == RESERVE


def test_replaced_monster_in_valhalla_goes_to_the_box(h):
    state = h.scenario(
        3,
        [
            {
                "upgrades": ["troll", "dwarf_chieftain"],
                "hand": ["valkyrie"],
                "figures": {"Valhalla": ["dwarf_chieftain"]},
            },
            {},
            {},
        ],
    )
    h.act(state, 0, h.K.UPGRADE, h.card(state, 0, "valkyrie"), 1)
    assert state.clans[0].loc[monster_fig(Unit.DWARF_CHIEFTAIN)] == BOX
    assert h.valhalla(state, 0) == 0


@pytest.mark.parametrize(
    ("key", "unit", "target"),
    [
        ("lord_of_hammers", Unit.LEADER, Area.GIMLE),
        ("brothers_in_arms", Unit.WARRIOR, Area.GIMLE),
        ("lokis_dragons", Unit.SHIP, Area.WEST_FJORD),
    ],
)
def test_free_invade_after_leader_warrior_ship_upgrade(h, key, unit, target):
    """§5: after a Leader/Warrior/Ship upgrade the player may invade at once, for free, with
    that figure from the reserve (before the next player's turn)."""
    state = h.scenario(3, [{"hand": [key]}, {}, {}])
    card = h.card(state, 0, key)
    h.act(state, 0, h.K.UPGRADE, card, 0)
    rage = state.clans[0].rage
    assert h.awaiting(state) == [0]
    legal = h.legal(state, 0)
    assert h.A(h.K.DECLINE) in legal
    assert {a.kind for a in legal} == {h.K.FREE_INVADE, h.K.DECLINE}
    assert all(a.a == unit for a in legal if a.kind == h.K.FREE_INVADE)
    if unit == Unit.SHIP:
        assert all(a.b >= 9 for a in legal if a.kind == h.K.FREE_INVADE)
    else:
        assert all(1 <= a.b <= 8 for a in legal if a.kind == h.K.FREE_INVADE)
    h.assert_illegal(state, 0, (h.K.FREE_INVADE, unit, Area.YGGDRASIL))
    h.act(state, 0, h.K.FREE_INVADE, unit, target)
    assert h.count_at(state, 0, target, unit) == 1
    assert state.clans[0].rage == rage
    assert state.turn == 1


def test_free_invade_can_be_declined(h):
    state = h.scenario(3, [{"hand": ["lord_of_hammers"]}, {}, {}])
    h.act(state, 0, h.K.UPGRADE, h.card(state, 0, "lord_of_hammers"), 0)
    h.act(state, 0, h.K.DECLINE)
    assert state.clans[0].loc[FIG_LEADER] == RESERVE
    assert state.clans[0].rage == 3
    assert state.turn == 1


def test_free_invade_not_offered_without_the_figure_in_reserve_or_over_horns(h):
    """§5: the free invade needs the figure in the reserve, and Horns still apply; a clan
    upgrade offers none."""
    on_board = h.scenario(
        3, [{"hand": ["lokis_dragons"], "figures": {"North fjord": ["ship"]}}, {}, {}]
    )
    h.act(on_board, 0, h.K.UPGRADE, h.card(on_board, 0, "lokis_dragons"), 0)
    assert on_board.prompts == [] and on_board.turn == 1

    horns = h.scenario(
        3,
        [
            {
                "hand": ["lord_of_hammers"],
                "figures": {"Gimle": ["warrior"] * 3, "North fjord": ["ship"]},
            },
            {},
            {},
        ],
    )
    h.act(horns, 0, h.K.UPGRADE, h.card(horns, 0, "lord_of_hammers"), 0)
    assert horns.prompts == [] and horns.turn == 1
    assert horns.clans[0].loc[FIG_LEADER] == RESERVE

    dead = h.scenario(3, [{"hand": ["lokis_dragons"], "figures": {"Valhalla": ["ship"]}}, {}, {}])
    h.act(dead, 0, h.K.UPGRADE, h.card(dead, 0, "lokis_dragons"), 0)
    assert dead.prompts == [] and dead.clans[0].loc[FIG_SHIP] == VALHALLA

    clan = h.scenario(3, [{"hand": ["thors_glory"]}, {}, {}])
    h.act(clan, 0, h.K.UPGRADE, h.card(clan, 0, "thors_glory"), 0)
    assert clan.prompts == [] and clan.turn == 1


def test_quest_commit_is_free_and_secret(h):
    """§5 Quest: commit a quest face down; free; any number, duplicates allowed; others see
    only how many (§11)."""
    idle = {"rage": 0}
    state = h.scenario(4, [{"hand": ["manheim_1", "manheim_1", "tyrs_bash"]}, idle, idle, idle])
    first, second = [c for c in state.clans[0].hand if h.key(c) == "manheim"]
    h.act(state, 0, h.K.QUEST, first)
    assert state.clans[0].rage == 6
    assert state.clans[0].quests == [first]
    assert first not in state.clans[0].hand
    h.act(state, 0, h.K.QUEST, second)
    assert state.clans[0].quests == [first, second]
    assert state.clans[0].rage == 6
    public = h.view(state, 1)["clans"][0]
    assert public["quest_count"] == 2 and public["hand_count"] == 1
    assert '"manheim_1"' not in h.view_text(state, 1)
    assert [q["card"] for q in h.view(state, 0)["private"]["quests"]] == ["manheim_1"] * 2


def test_only_quest_cards_can_be_committed_and_battle_cards_are_not_upgrades(h):
    state = h.scenario(3, [{"hand": ["tyrs_bash", "troll"]}, {}, {}])
    bash = h.card(state, 0, "tyrs_bash")
    troll = h.card(state, 0, "troll")
    h.assert_illegal(state, 0, (h.K.QUEST, bash))
    h.assert_illegal(state, 0, (h.K.QUEST, troll))
    h.assert_illegal(state, 0, (h.K.UPGRADE, bash, 0))


def test_free_invade_follows_the_figures_invade_rules(h):
    """§5: the free invade is an Invade without the cost: the Sea Serpent (a ship, cards.md)
    may only go to a fjord."""
    state = h.scenario(3, [{"hand": ["sea_serpent"]}, {}, {}])
    h.act(state, 0, h.K.UPGRADE, h.card(state, 0, "sea_serpent"), 0)
    targets = sorted(a.b for a in h.legal(state, 0) if a.kind == h.K.FREE_INVADE)
    assert targets == [Area.NORTH_FJORD, Area.EAST_FJORD, Area.SOUTH_FJORD, Area.WEST_FJORD]
    h.act(state, 0, h.K.FREE_INVADE, Unit.SEA_SERPENT, Area.SOUTH_FJORD)
    assert state.clans[0].rage == 3
    assert state.strength_in(0, Area.UTGARD) == 3 and state.strength_in(0, Area.ANDLANG) == 3


def test_no_free_invade_is_offered_where_no_province_has_room(h):
    """Five provinces destroyed, the three Ragnarok ones full: the leader waiting in the
    reserve has nowhere to go, so Lord of Hammers brings no offer."""
    state = h.scenario(
        3,
        [
            {"hand": ["lord_of_hammers"]},
            {
                "stats": {"horns": 6},
                "figures": {"Muspelheim": ["leader"] + ["warrior"] * 4, "Gimle": ["warrior"] * 4},
            },
            {"figures": {"Gimle": ["warrior"], "Myrkulor": ["leader", "warrior", "warrior"]}},
        ],
        destroyed=["Elvagar", "Angerboda", "Horgr", "Utgard", "Andlang"],
    )
    h.act(state, 0, h.K.UPGRADE, h.card(state, 0, "lord_of_hammers"), 0)
    assert state.prompts == [] and h.view(state)["prompt"] is None
    assert h.awaiting(state) == [1], "the turn passes on"
