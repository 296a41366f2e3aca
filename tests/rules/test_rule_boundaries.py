"""Rules at their boundaries: the last Rage spent on a March, which upgrade slots are offered,
the quest order with three or more players, every step of the stat tracks, Yggdrasil's
neighbours and region.

Each test here was missing when mutation testing (``make mutation``) changed the line it
checks and the whole suite still passed (issue 18)."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import Area, Stat, Step, Unit
from engine.blood_rage.state import (
    SLOT_CLANS,
    SLOT_LEADER,
    SLOT_MONSTERS,
    SLOT_SHIP,
    SLOT_WARRIOR,
    PromptKind,
)

E, MYR, GIM, YGG = Area.ELVAGAR, Area.MYRKULOR, Area.GIMLE, Area.YGGDRASIL


# -- §5 March: 1 Rage ----------------------------------------------------------------------


def test_march_with_exactly_1_rage(h):
    state = h.scenario(3, [{"rage": 1, "figures": {"Elvagar": ["warrior"]}}])
    assert h.A(h.K.MARCH, E, YGG, Unit.WARRIOR) in h.legal(state, 0)
    h.act(state, 0, h.K.MARCH, E, YGG, Unit.WARRIOR)
    assert state.clans[0].rage == 0
    assert h.units_at(state, 0, YGG) == ["warrior"]


# -- §5 Upgrade: which slots are offered ---------------------------------------------------


def _upgrade_slots(h, state, key):
    card = h.card(state, 0, key)
    return sorted(a.b for a in h.legal(state, 0) if a.kind == h.K.UPGRADE and a.a == card)


def test_clan_upgrade_offers_every_occupied_slot_and_the_first_empty_one(h):
    """Two empty clan slots are alike: one of them is offered, with the occupied one."""
    state = h.scenario(3, [{"upgrades": ["lokis_domain"], "hand": ["thors_glory"]}])
    assert state.clans[0].slots[SLOT_CLANS[0]] >= 0
    assert _upgrade_slots(h, state, "thors_glory") == [0, 1]


def test_clan_upgrade_into_an_empty_sheet_is_offered_once(h):
    state = h.scenario(3, [{"hand": ["thors_glory"]}])
    assert _upgrade_slots(h, state, "thors_glory") == [0]


def test_monster_upgrade_next_to_one_monster(h):
    state = h.scenario(3, [{"upgrades": ["troll"], "hand": ["dwarf_chieftain"]}])
    assert state.clans[0].slots[SLOT_MONSTERS[0]] >= 0
    assert _upgrade_slots(h, state, "dwarf_chieftain") == [0, 1]


@pytest.mark.parametrize(
    ("age", "owned", "new", "slot", "after"),
    [
        (2, "lord_of_axes", "lord_of_hammers", SLOT_LEADER, SLOT_WARRIOR),
        (2, "experts_in_arms", "brothers_in_arms", SLOT_WARRIOR, SLOT_SHIP),
        (2, "fire_dragons", "lokis_dragons", SLOT_SHIP, SLOT_MONSTERS[0]),
    ],
)
def test_a_single_slot_is_only_ever_replaced(h, age, owned, new, slot, after):
    """Leader, Warrior and Ship have one slot each: a second upgrade of that kind replaces
    the first (slot 0), never spills into the next slot on the sheet (empty here)."""
    state = h.scenario(3, [{"upgrades": [owned], "hand": [new]}], age=age)
    assert state.clans[0].slots[slot] >= 0 and state.clans[0].slots[after] < 0
    assert _upgrade_slots(h, state, new) == [0]


# -- §7 Quest: first player first, also with three or more players -------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_quests_are_scored_from_the_first_player_clockwise(h, players):
    """Every clan fulfils a quest; the first player is seat 1, so the stat choices come in
    the order 1, 2, ..., 0."""
    fulfilled = [
        {"quests": ["alfheim"], "figures": {"Andlang": ["warrior"]}},
        {"quests": ["jotunheim"], "figures": {"Horgr": ["warrior"]}},
        {"quests": ["manheim"], "figures": {"Elvagar": ["warrior"]}},
        {"quests": ["alfheim"], "figures": {"Gimle": ["warrior"]}},
    ]
    state = h.scenario(players, fulfilled[:players], phase="quest", first_player=1)
    order = []
    while h.awaiting(state) and state.prompts:
        (seat,) = h.awaiting(state)
        order.append(seat)
        h.act(state, seat, h.K.RAISE_STAT, Stat.AXES)
    expected = [(1 + i) % players for i in range(players)]
    assert order == expected
    assert [c.glory for c in state.clans] == [5] * players


def test_a_manheim_quest_does_not_count_yggdrasil(h):
    """Yggdrasil belongs to no region: most STR there fulfils no region quest."""
    state = h.scenario(
        3, [{"quests": ["manheim"], "figures": {"Yggdrasil": ["leader"]}}], phase="quest"
    )
    assert state.clans[0].glory == 0 and not state.prompts


# -- board.md: stat tracks, Yggdrasil's neighbours -----------------------------------------


BOARD_TRACKS = {  # board.md, "Clan stat tracks": steps 1..6
    "rage": [6, 7, 8, 9, 12, 12],
    "axes": [3, 4, 5, 6, 8, 8],
    "horns": [4, 5, 6, 7, 10, 10],
}


@pytest.mark.parametrize("step", [1, 2, 3, 4, 5, 6])
def test_stat_values_at_every_step(h, step):
    state = h.scenario(3, [{"stats": {"rage": step, "axes": step, "horns": step}}])
    clan = state.clans[0]
    values = [clan.stat(Stat.RAGE), clan.stat(Stat.AXES), clan.stat(Stat.HORNS)]
    assert values == [BOARD_TRACKS[s][step - 1] for s in ("rage", "axes", "horns")]
    assert clan.rage == BOARD_TRACKS["rage"][step - 1]


@pytest.mark.parametrize("source", ["Myrkulor", "Gimle"])
def test_the_first_and_last_ring_provinces_answer_a_call_to_yggdrasil(h, source):
    """Yggdrasil is adjacent to every outer province, both ends of the ring included."""
    state = h.scenario(
        3,
        [
            {"figures": {"Yggdrasil": ["leader"]}},
            {"figures": {source: ["warrior"], "Yggdrasil": ["warrior"]}},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, YGG)
    assert h.awaiting(state) == [1]
    area = Area[source.upper()]
    assert h.legal(state, 1) == [h.A(h.K.CALL_TO_BATTLE, area, Unit.WARRIOR), h.A(h.K.DECLINE)]


# -- board.md: a fjord stays open while one of its provinces stands ------------------------


@pytest.mark.parametrize("destroyed", ["Utgard", "Andlang"])
def test_a_fjord_with_one_province_destroyed_is_still_open(h, destroyed):
    """South fjord supports Utgard and Andlang: either one standing keeps it open."""
    state = h.scenario(3, [{}], destroyed=[destroyed])
    assert h.A(h.K.INVADE, Unit.SHIP, Area.SOUTH_FJORD) in h.legal(state, 0)


# -- reactions to one destruction, clockwise from the pillager -----------------------------


def test_doom_reactions_come_clockwise_from_the_pillager(h):
    """Seat 1 wins in Elvagar and destroys seat 2's warrior (Frigga's Protection) and seat
    0's Volur Witch: seat 2 answers first, then seat 0 (clockwise from seat 1)."""
    state = h.scenario(
        4,
        [
            {"upgrades": ["volur_witch"], "figures": {"Elvagar": ["volur_witch"]}},
            {"figures": {"Elvagar": ["leader", "warrior"]}},
            {"upgrades": ["friggas_protection"], "figures": {"Elvagar": ["warrior"]}},
            {},
        ],
        turn=1,
        age=3,
    )
    h.act(state, 1, h.K.PILLAGE, E)
    h.decline_calls(state)
    assert [(p.kind, p.seat) for p in state.prompts] == [
        (PromptKind.PROTECT, 2),
        (PromptKind.WITCH_RETREAT, 0),
    ]


# -- §8 and §10: a province destroyed in the last Ragnarök ends the game unpillaged ----------


def test_the_last_ragnarok_province_is_destroyed_and_not_pillaged(h):
    state = h.scenario(
        3, [{"figures": {"Elvagar": ["warrior"]}}], age=3, phase="ragnarok", pillaged=["Myrkulor"]
    )
    assert state.step == Step.GAME_OVER
    myrkulor = next(p for p in h.view(state)["provinces"] if p["area"] == "Myrkulor")
    assert myrkulor["destroyed"] and not myrkulor["pillaged"]
    assert myrkulor["pillage_token"] is None
