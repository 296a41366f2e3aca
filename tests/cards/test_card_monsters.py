"""Monster upgrades (cards.md, Age 1–3 "Monster" rows and the Rulings on Troll, Fire Giant,
Dark Elf and monster replacement)."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import BOX, FIG_SHIP, RESERVE, Area, Step, Unit
from engine.blood_rage.snapshot import to_snapshot
from engine.blood_rage.state import PromptKind

E, ANG, GIM, YGG = Area.ELVAGAR, Area.ANGERBODA, Area.GIMLE, Area.YGGDRASIL


# -- Troll: "When it invades a province, every enemy warrior there is destroyed." ----------


def _troll_targets(**seat0):
    """Angerboda (5 villages) holds an own warrior, an enemy leader + warrior and a third
    clan's warrior; one village is free."""
    base = {"figures": {"Angerboda": ["warrior"]}}
    base.update(seat0)
    return [
        base,
        {"figures": {"Angerboda": ["leader", "warrior"]}},
        {"figures": {"Angerboda": ["warrior"]}},
    ]


def test_troll_invade_action_destroys_every_enemy_warrior(g):
    s = g.state(3, _troll_targets(upgrades=["troll"], figures={"Angerboda": ["warrior"]}))
    g.act(s, 0, g.K.INVADE, Unit.TROLL, ANG)
    assert g.at(s, 0, ANG) == ["troll", "warrior"], "own warrior untouched"
    assert g.at(s, 1, ANG) == ["leader"], "enemy leader is not a warrior"
    assert g.valhalla(s, 1) == ["warrior"]
    assert g.at(s, 2, ANG) == [] and g.valhalla(s, 2) == ["warrior"]
    assert s.clans[0].rage == 4, "invading costs the Troll's STR (2)"


def test_troll_free_invade_after_upgrade_triggers(g):
    s = g.state(3, _troll_targets(hand=["troll"], figures={"Angerboda": ["warrior"]}))
    g.act(s, 0, g.K.UPGRADE, g.card(s, 0, "troll"), 0)
    assert s.clans[0].rage == 4
    assert g.prompt(s) == (0, 0)  # FREE_INVADE for seat 0
    assert g.A(g.K.FREE_INVADE, Unit.TROLL, ANG) in g.legal(s, 0)
    g.act(s, 0, g.K.FREE_INVADE, Unit.TROLL, ANG)
    assert s.clans[0].rage == 4
    assert g.valhalla(s, 1) == ["warrior"] and g.valhalla(s, 2) == ["warrior"]
    assert g.at(s, 1, ANG) == ["leader"]


def test_troll_invade_from_valhalla_with_friggas_domain_triggers(g):
    """Troll triggers on free/card invades too: Frigga's Domain brings it from Valhalla."""
    clans = _troll_targets(
        upgrades=["troll", "friggas_domain"],
        figures={"Angerboda": ["warrior"], "Valhalla": ["troll"]},
    )
    s = g.state(3, clans, age=3)
    g.act(s, 0, g.K.INVADE_FROM_VALHALLA, Unit.TROLL, ANG)
    assert s.clans[0].rage == 5
    assert g.at(s, 0, ANG) == ["troll", "warrior"]
    assert g.valhalla(s, 1) == ["warrior"] and g.valhalla(s, 2) == ["warrior"]


def test_troll_then_friggas_succor_warrior_takes_a_freed_village(g):
    """The Troll's invade also triggers Frigga's Succor; the Troll clears Elvagar (full before)
    so the free warrior has room."""
    s = g.state(
        3,
        [
            {"upgrades": ["troll", "friggas_succor"]},
            {"figures": {"Elvagar": ["warrior", "warrior", "warrior"]}},
            {},
        ],
    )
    g.act(s, 0, g.K.INVADE, Unit.TROLL, E)
    assert g.valhalla(s, 1) == ["warrior"] * 3
    assert g.legal(s, 0) == [g.A(g.K.FREE_INVADE, Unit.WARRIOR, E), g.A(g.K.DECLINE)]
    g.act(s, 0, g.K.FREE_INVADE, Unit.WARRIOR, E)
    assert g.at(s, 0, E) == ["troll", "warrior"]
    assert s.clans[0].rage == 4


def test_troll_marching_in_does_not_trigger(g):
    s = g.state(
        3,
        [
            {"upgrades": ["troll"], "figures": {"Gimle": ["troll"]}},
            {"figures": {"Angerboda": ["leader", "warrior"]}},
            {"figures": {"Angerboda": ["warrior"]}},
        ],
    )
    g.act(s, 0, g.K.MARCH, GIM, ANG, Unit.TROLL)
    assert g.at(s, 0, ANG) == ["troll"]
    assert g.at(s, 1, ANG) == ["leader", "warrior"] and g.at(s, 2, ANG) == ["warrior"]
    assert g.valhalla(s, 1) == [] and g.valhalla(s, 2) == []


# -- Dwarf Chieftain / Soldier of Hel: "Costs 0 Rage to upgrade and 0 Rage to invade." -----


@pytest.mark.parametrize(
    "age,key,unit,strength",
    [
        (1, "dwarf_chieftain", Unit.DWARF_CHIEFTAIN, 2),
        (3, "soldier_of_hel", Unit.SOLDIER_OF_HEL, 3),
    ],
)
def test_free_monster_costs_nothing_to_upgrade_or_invade(g, age, key, unit, strength):
    s = g.state(3, [{"hand": [key], "rage": 1}, {"rage": 0}, {"rage": 0}], age=age)
    g.act(s, 0, g.K.UPGRADE, g.card(s, 0, key), 0)
    assert s.clans[0].rage == 1, "upgrading costs 0"
    g.act(s, 0, g.K.DECLINE)  # the free invade offered after the upgrade
    assert s.step == Step.ACTION and s.turn == 0
    assert g.A(g.K.INVADE, unit, E) in g.legal(s, 0)
    g.act(s, 0, g.K.INVADE, unit, E)
    assert s.clans[0].rage == 1, "invading costs 0"
    assert s.strength_in(0, E) == strength


# -- Sea Serpent: counts as a ship ---------------------------------------------------------


def test_sea_serpent_invades_fjords_only(g):
    s = g.state(3, [{"hand": ["sea_serpent"]}])
    g.act(s, 0, g.K.UPGRADE, g.card(s, 0, "sea_serpent"), 0)
    assert s.clans[0].rage == 3
    assert sorted(g.legal(s, 0)) == sorted(
        [g.A(g.K.FREE_INVADE, Unit.SEA_SERPENT, f) for f in (9, 10, 11, 12)] + [g.A(g.K.DECLINE)]
    )
    g.act(s, 0, g.K.FREE_INVADE, Unit.SEA_SERPENT, Area.NORTH_FJORD)
    assert g.at(s, 0, Area.NORTH_FJORD) == ["sea_serpent"]


def test_sea_serpent_never_marches_and_supports_both_provinces(g):
    s = g.state(
        3,
        [
            {
                "upgrades": ["sea_serpent"],
                "figures": {"North fjord": ["sea_serpent"], "Gimle": ["warrior"]},
            },
            {"figures": {"Angerboda": ["warrior", "warrior"]}},
        ],
    )
    legal = g.legal(s, 0)
    marches = [a for a in legal if a.kind == g.K.MARCH]
    assert marches and all(a.c != Unit.SEA_SERPENT for a in marches)
    assert g.A(g.K.PILLAGE, E) in legal and g.A(g.K.PILLAGE, ANG) in legal
    g.pillage(s, 0, ANG)
    winner, totals = g.result(s)
    assert (winner, totals) == (0, {0: 3, 1: 2}), "the serpent fights with STR 3"
    assert g.valhalla(s, 1) == ["warrior", "warrior"]
    assert g.steps(s, 0) == [2, 1, 1]  # Angerboda's Rage reward


# -- Valkyrie: 2 Glory per enemy figure destroyed in her battle, even if destroyed ----------


def test_valkyrie_gains_per_enemy_figure_destroyed(g):
    s = g.state(
        3,
        [
            {"upgrades": ["valkyrie"], "figures": {"Elvagar": ["valkyrie", "leader"]}},
            {"figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    assert g.result(s) == (0, {0: 5, 1: 2})
    assert s.clans[0].glory == 2 * 2 + 3  # Valkyrie + Axes
    assert g.steps(s, 0) == [1, 1, 2]


def test_valkyrie_gains_even_when_she_is_destroyed(g):
    """Three-way battle won by seat 1: the Valkyrie dies, seat 2's two warriors too."""
    s = g.state(
        3,
        [
            {"upgrades": ["valkyrie"], "figures": {"Elvagar": ["valkyrie"]}},
            {"figures": {"Elvagar": ["leader"], "Gimle": ["warrior"]}},
            {"figures": {"Angerboda": ["warrior", "warrior"]}},
        ],
        age=2,
        turn=1,
    )
    # Seat 2's warriors join from adjacent Angerboda.
    g.act(s, 1, g.K.PILLAGE, E)
    assert g.awaiting(s) == [2]
    g.act(s, 2, g.K.CALL_TO_BATTLE, ANG, Unit.WARRIOR)
    g.decline_calls(s)
    winner, totals = g.result(s)
    assert winner == 1 and totals == {0: 2, 1: 3, 2: 1}
    assert g.valhalla(s, 0) == ["valkyrie"]
    assert s.clans[0].glory == 2, "one enemy figure (seat 2's) destroyed; her own death not"


# -- Dark Elf: invades Yggdrasil for 1 Rage; STR 3 there -----------------------------------


def test_dark_elf_upgrade_offers_yggdrasil_and_is_str_3_there(g):
    s = g.state(3, [{"hand": ["dark_elf"]}], age=2)
    g.act(s, 0, g.K.UPGRADE, g.card(s, 0, "dark_elf"), 0)
    assert s.clans[0].rage == 5
    assert g.A(g.K.FREE_INVADE, Unit.DARK_ELF, YGG) in g.legal(s, 0)
    g.act(s, 0, g.K.FREE_INVADE, Unit.DARK_ELF, YGG)
    assert s.strength_in(0, YGG) == 3


def test_dark_elf_invade_action_into_yggdrasil_costs_1(g):
    s = g.state(3, [{"upgrades": ["dark_elf"], "rage": 2}], age=2)
    g.act(s, 0, g.K.INVADE, Unit.DARK_ELF, YGG)
    assert s.clans[0].rage == 1
    assert g.at(s, 0, YGG) == ["dark_elf"]


def test_dark_elf_is_str_1_outside_yggdrasil_and_3_in_its_battle(g):
    s = g.state(
        3,
        [
            {"upgrades": ["dark_elf"], "figures": {"Yggdrasil": ["dark_elf"]}},
            {"figures": {"Yggdrasil": ["warrior", "warrior"], "Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, YGG)
    assert g.result(s) == (0, {0: 3, 1: 2})
    assert g.steps(s, 0) == [2, 2, 2], "Yggdrasil's reward: every stat"
    s2 = g.state(3, [{"upgrades": ["dark_elf"], "figures": {"Elvagar": ["dark_elf"]}}], age=2)
    assert s2.strength_in(0, E) == 1


# -- Fire Giant: every enemy non-monster figure there (fjords too) is destroyed -------------


def _fire_giant_clans(**seat0):
    base = {"figures": {"North fjord": ["ship"]}}
    base.update(seat0)
    return [
        base,
        {
            "upgrades": ["troll"],
            "figures": {"Elvagar": ["leader", "warrior", "troll"], "North fjord": ["ship"]},
        },
        {
            "upgrades": ["sea_serpent"],
            "figures": {
                "East fjord": ["ship"],
                "North fjord": ["sea_serpent"],
                "Angerboda": ["warrior"],
            },
        },
    ]


def test_fire_giant_invade_kills_enemy_non_monsters_and_fjord_ships(g):
    s = g.state(
        3, _fire_giant_clans(upgrades=["fire_giant"], figures={"North fjord": ["ship"]}), age=2
    )
    g.act(s, 0, g.K.INVADE, Unit.FIRE_GIANT, E)
    assert s.clans[0].rage == 2
    assert g.at(s, 1, E) == ["troll"], "monsters survive"
    assert g.valhalla(s, 1) == ["leader", "ship", "warrior"], "ship in North fjord too"
    assert g.at(s, 2, Area.NORTH_FJORD) == ["sea_serpent"], "an enemy monster survives"
    assert g.at(s, 2, Area.EAST_FJORD) == ["ship"], "East fjord does not support Elvagar"
    assert g.at(s, 2, ANG) == ["warrior"]
    assert s.clans[0].loc[FIG_SHIP] == Area.NORTH_FJORD, "own ship untouched"


def test_fire_giant_free_invade_after_upgrade_triggers(g):
    s = g.state(3, _fire_giant_clans(hand=["fire_giant"], figures={"North fjord": ["ship"]}), age=2)
    g.act(s, 0, g.K.UPGRADE, g.card(s, 0, "fire_giant"), 0)
    g.act(s, 0, g.K.FREE_INVADE, Unit.FIRE_GIANT, E)
    assert s.clans[0].rage == 2
    assert g.valhalla(s, 1) == ["leader", "ship", "warrior"]


def test_fire_giant_marching_in_does_not_trigger(g):
    s = g.state(
        3, _fire_giant_clans(upgrades=["fire_giant"], figures={"Horgr": ["fire_giant"]}), age=2
    )
    g.act(s, 0, g.K.MARCH, Area.HORGR, E, Unit.FIRE_GIANT)
    assert g.at(s, 0, E) == ["fire_giant"]
    assert g.valhalla(s, 1) == [] and g.at(s, 1, E) == ["leader", "troll", "warrior"]


# -- Frost Giant: the pillage reward twice if it is in the battle ---------------------------


def test_frost_giant_doubles_the_reward(g):
    s = g.state(
        3,
        [
            {"upgrades": ["frost_giant"], "figures": {"Elvagar": ["frost_giant"]}},
            {"figures": {"Elvagar": ["warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, E)
    assert g.result(s) == (0, {0: 4, 1: 1})
    assert g.steps(s, 0) == [1, 1, 3], "Horns twice"
    assert s.clans[0].glory == 3


def test_frost_giant_doubles_five_glory_without_a_battle(g):
    s = g.state(
        3,
        [{"upgrades": ["frost_giant"], "figures": {"Muspelheim": ["frost_giant"]}}],
        age=3,
        ragnarok=["Horgr", "Gimle", "Myrkulor"],
    )
    g.pillage(s, 0, Area.MUSPELHEIM)
    assert s.clans[0].glory == 10


def test_frost_giant_elsewhere_gives_single_reward(g):
    s = g.state(
        3,
        [
            {
                "upgrades": ["frost_giant"],
                "figures": {"Angerboda": ["frost_giant"], "Elvagar": ["leader"]},
            }
        ],
        age=3,
    )
    g.pillage(s, 0, E)
    assert g.steps(s, 0) == [1, 1, 2]


# -- Volur Witch: may retreat to Yggdrasil instead of dying in an outer province ------------


def _witch_battle(g):
    s = g.state(
        3,
        [
            {"upgrades": ["volur_witch"], "figures": {"Angerboda": ["volur_witch", "warrior"]}},
            {"figures": {"Angerboda": ["leader", "warrior", "warrior"]}},
        ],
        age=3,
        turn=1,
    )
    g.pillage(s, 1, ANG)
    assert g.result(s) == (1, {0: 4, 1: 5})
    assert g.prompt(s)[1] == 0
    assert g.legal(s, 0) == [g.A(g.K.ACCEPT), g.A(g.K.DECLINE)]
    return s


def test_volur_witch_retreats_to_yggdrasil(g):
    s = _witch_battle(g)
    g.act(s, 0, g.K.ACCEPT)
    assert g.at(s, 0, YGG) == ["volur_witch"]
    assert g.valhalla(s, 0) == ["warrior"]


def test_volur_witch_may_decline_and_die(g):
    s = _witch_battle(g)
    g.act(s, 0, g.K.DECLINE)
    assert g.valhalla(s, 0) == ["volur_witch", "warrior"]


def test_volur_witch_in_yggdrasil_dies_as_usual(g):
    s = g.state(
        3,
        [
            {"upgrades": ["volur_witch"], "figures": {"Yggdrasil": ["volur_witch"]}},
            {"figures": {"Yggdrasil": ["leader", "warrior"]}},
        ],
        age=3,
        turn=1,
    )
    g.pillage(s, 1, YGG)
    assert g.prompt(s) is None
    assert g.valhalla(s, 0) == ["volur_witch"]


def test_volur_witch_escapes_ragnarok(g):
    s = g.state(
        3,
        [{"upgrades": ["volur_witch"], "figures": {"Myrkulor": ["volur_witch", "warrior"]}}],
        age=3,
        phase="ragnarok",
    )
    assert g.prompt(s)[1] == 0
    g.act(s, 0, g.K.ACCEPT)
    assert s.clans[0].loc[Unit.VOLUR_WITCH + 7] == YGG
    assert s.clans[0].glory == 4, "only the warrior died in Ragnarök (Age 3: 4 each)"


def test_volur_witch_declining_dies_in_ragnarok(g):
    s = g.state(
        3,
        [{"upgrades": ["volur_witch"], "figures": {"Myrkulor": ["volur_witch", "warrior"]}}],
        age=3,
        phase="ragnarok",
    )
    g.act(s, 0, g.K.DECLINE)
    assert s.clans[0].loc[Unit.VOLUR_WITCH + 7] == RESERVE  # died, then released
    assert s.clans[0].glory == 8


def test_the_witch_is_asked_during_ragnarok_in_the_ragnarok_phase(g):
    """Played up to Ragnarök from the Action phase (issue 30, gap 9): the last clan with
    Rage passes, the Discard and Quest phases pass, and the Witch's question comes in the
    Ragnarök phase, as every seat's view says."""
    s = g.state(
        3,
        [
            {
                "upgrades": ["volur_witch"],
                "rage": 1,
                "figures": {"Myrkulor": ["volur_witch", "warrior"]},
            },
            {"rage": 0},
            {"rage": 0},
        ],
        age=3,
    )
    assert g.view(s)["phase"] == "action"
    g.act(s, 0, g.K.PASS)
    assert g.prompt(s) == (PromptKind.WITCH_RETREAT, 0)
    for seat in (-1, 0, 1, 2):
        seen = g.view(s, seat)
        assert (seen["phase"], seen["prompt"]["kind"]) == ("ragnarok", "witch_retreat")
    g.act(s, 0, g.K.ACCEPT)
    assert g.view(s)["phase"] == "game_over"


# -- Replacing a monster card (Rulings) ---------------------------------------------------


@pytest.mark.parametrize("where", ["Elvagar", "Valhalla", "reserve"])
def test_replacing_a_monster_sends_the_old_figure_to_the_box(g, where):
    figs = {"Gimle": ["dwarf_chieftain"]}
    if where != "reserve":
        figs[where] = ["troll"]
    s = g.state(
        3, [{"upgrades": ["troll", "dwarf_chieftain"], "hand": ["sea_serpent"], "figures": figs}]
    )
    serpent = g.card(s, 0, "sea_serpent")
    slots = [a.b for a in g.legal(s, 0) if a.kind == g.K.UPGRADE]
    assert sorted(slots) == [0, 1], "both monster slots are full: replace one"
    g.act(s, 0, g.K.UPGRADE, serpent, 0)  # slot 0 holds the Troll
    assert s.clans[0].loc[Unit.TROLL + 7] == BOX
    assert s.occupancy[E] == 0 and g.valhalla(s, 0) == []
    assert g.discard(s) == ["troll"]
    assert s.clans[0].loc[Unit.DWARF_CHIEFTAIN + 7] == GIM, "the other monster stays"
    assert s.clans[0].loc[Unit.SEA_SERPENT + 7] == RESERVE
    assert s.clans[0].slots[3] == serpent


def test_fire_giant_invade_from_valhalla_with_friggas_domain_triggers(g):
    s = g.state(
        3,
        _fire_giant_clans(
            upgrades=["fire_giant", "friggas_domain"],
            figures={"North fjord": ["ship"], "Valhalla": ["fire_giant"]},
        ),
        age=3,
    )
    g.act(s, 0, g.K.INVADE_FROM_VALHALLA, Unit.FIRE_GIANT, E)
    assert s.clans[0].rage == 5
    assert g.valhalla(s, 1) == ["leader", "ship", "warrior"] and g.at(s, 1, E) == ["troll"]


# -- Every monster's STR and invade cost (cards.md "cost / STR" column) ------------------

MONSTERS = [
    # key, age, unit, STR, invade cost, players needed for its marking
    ("troll", 1, Unit.TROLL, 2, 2, 3),
    ("dwarf_chieftain", 1, Unit.DWARF_CHIEFTAIN, 2, 0, 3),
    ("valkyrie", 2, Unit.VALKYRIE, 2, 2, 3),
    ("dark_elf", 2, Unit.DARK_ELF, 1, 1, 3),
    ("fire_giant", 2, Unit.FIRE_GIANT, 4, 4, 3),
    ("frost_giant", 3, Unit.FROST_GIANT, 4, 4, 3),
    ("soldier_of_hel", 3, Unit.SOLDIER_OF_HEL, 3, 0, 3),
    ("volur_witch", 3, Unit.VOLUR_WITCH, 3, 3, 3),
]


@pytest.mark.parametrize("key,age,unit,strength,cost,players", MONSTERS)
def test_monster_strength_and_invade_cost(g, key, age, unit, strength, cost, players):
    s = g.state(players, [{"upgrades": [key], "rage": 5}], age=age)
    g.act(s, 0, g.K.INVADE, unit, Area.HORGR)
    assert s.clans[0].rage == 5 - cost
    assert s.strength_in(0, Area.HORGR) == strength


def test_sea_serpent_strength_and_cost(g):
    s = g.state(3, [{"upgrades": ["sea_serpent"], "rage": 5}])
    g.act(s, 0, g.K.INVADE, Unit.SEA_SERPENT, Area.EAST_FJORD)
    assert s.clans[0].rage == 2
    assert s.strength_in(0, Area.HORGR) == 3 and s.strength_in(0, Area.MUSPELHEIM) == 3


# -- Edges: the last province, warriors elsewhere, the Witch's questions ---------------------


@pytest.mark.parametrize(
    ("unit", "key", "age"), [("troll", "troll", 1), ("fire_giant", "fire_giant", 2)]
)
def test_a_troll_or_fire_giant_invading_gimle_kills_there_only(g, unit, key, age):
    """Gimle is the last province by number; an enemy warrior in Myrkulor, next door,
    stays."""
    s = g.state(
        3,
        [
            {"upgrades": [key]},
            {"figures": {"Gimle": ["warrior"], "Myrkulor": ["warrior"]}},
        ],
        age=age,
        ragnarok=["Muspelheim", "Horgr", "Myrkulor"],
    )
    g.act(s, 0, g.K.INVADE, getattr(Unit, unit.upper()), GIM)
    assert g.valhalla(s, 1) == ["warrior"]
    assert g.at(s, 1, Area.MYRKULOR) == ["warrior"] and g.at(s, 1, GIM) == []


def test_the_witch_is_not_asked_when_other_figures_of_hers_die(g):
    """A Troll kills the Witch owner's warrior in Angerboda; the Witch, in Elvagar, is not
    doomed: no question."""
    s = g.state(
        3,
        [
            {"upgrades": ["troll"]},
            {
                "upgrades": ["volur_witch"],
                "figures": {"Angerboda": ["warrior"], "Elvagar": ["volur_witch"]},
            },
        ],
        age=3,
    )
    g.act(s, 0, g.K.INVADE, Unit.TROLL, ANG)
    assert g.prompt(s) is None and g.valhalla(s, 1) == ["warrior"]


def test_the_witch_away_from_the_ragnarok_province_is_not_asked(g):
    s = g.state(
        3,
        [{"upgrades": ["volur_witch"], "figures": {"Elvagar": ["volur_witch"]}}],
        age=3,
        phase="ragnarok",
    )
    assert g.prompt(s) is None
    assert g.at(s, 0, E) == ["volur_witch"]


def test_the_witchs_ragnarok_question_is_stored_with_its_arguments(g):
    """The question before Ragnarök (b = 1: she is not doomed yet) as a snapshot holds it."""
    s = g.state(
        3,
        [{"upgrades": ["volur_witch"], "figures": {"Myrkulor": ["volur_witch"]}}],
        age=3,
        phase="ragnarok",
    )
    assert to_snapshot(s)["prompts"] == [[PromptKind.WITCH_RETREAT, 0, 0, 1]]


def test_the_witch_marches_and_answers_a_call_like_any_figure(g):
    """The Volur Witch is the clan's last figure: she may march out of a province."""
    s = g.state(
        3,
        [{"upgrades": ["volur_witch"], "figures": {"Elvagar": ["volur_witch"]}}],
        age=3,
    )
    assert g.A(g.K.MARCH, E, ANG, Unit.VOLUR_WITCH) in g.legal(s, 0)


def test_the_witch_follows_a_march_and_answers_a_call(g):
    """The Witch is the last of a clan's figures (unit 11): a march's follow-ups and a Call
    to Battle list her beside a warrior."""
    clans = [{"upgrades": ["volur_witch"], "figures": {"Elvagar": ["volur_witch", "warrior"]}}]
    s = g.state(3, clans, age=3)
    g.act(s, 0, g.K.MARCH, E, ANG, Unit.WARRIOR)
    assert g.A(g.K.MARCH_MORE, Unit.VOLUR_WITCH) in g.legal(s, 0)
    clans = [*clans, {"figures": {"Angerboda": ["warrior"]}}]
    s = g.state(3, clans, age=3, first_player=1)
    g.act(s, 1, g.K.PILLAGE, ANG)
    calls = {a for a in g.legal(s, 0) if a.kind == g.K.CALL_TO_BATTLE}
    assert calls == {
        g.A(g.K.CALL_TO_BATTLE, E, Unit.WARRIOR),
        g.A(g.K.CALL_TO_BATTLE, E, Unit.VOLUR_WITCH),
    }
