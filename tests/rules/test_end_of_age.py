"""§6 Discard, §7 Quest, §8 Ragnarök, §9 Release Valhalla and the end of an Age."""

from __future__ import annotations

import pytest

from engine.blood_rage.flow import is_simultaneous
from engine.blood_rage.ids import FIG_SHIP, RESERVE, VALHALLA, Area, Phase, Stat, Step, Unit
from engine.core.errors import NotYourDecisionError

# -- §6 Discard -------------------------------------------------------------------------


def test_discard_keep_at_most_one_card_simultaneously(h):
    """§6: each player keeps at most 1 card for the next Age and discards the rest; the choice
    is secret and simultaneous (a player with no card has nothing to choose)."""
    state = h.scenario(
        3,
        [{"hand": ["tyrs_bash", "tyrs_smite", "troll"]}, {"hand": ["manheim"]}, {}],
        phase="discard",
    )
    assert state.phase == Phase.DISCARD and state.step == Step.DISCARD
    assert is_simultaneous(state)
    assert h.awaiting(state) == [0, 1]
    smite = h.card(state, 0, "tyrs_smite")
    assert {a.kind for a in h.legal(state, 0)} == {h.K.KEEP_CARD, h.K.KEEP_NONE}
    assert len(h.legal(state, 0)) == 4
    h.act(state, 0, h.K.KEEP_CARD, smite)
    assert h.awaiting(state) == [1]
    with pytest.raises(NotYourDecisionError):
        h.act(state, 0, h.K.KEEP_CARD, h.card(state, 0, "tyrs_bash"))
    assert f'"instance": {smite},' not in h.view_text(state, 1)
    assert h.view(state, 1)["private"]["keep"] is None
    assert h.view(state, 0)["private"]["keep"]["instance"] == smite
    h.act(state, 1, h.K.KEEP_NONE)
    assert state.clans[0].hand == [smite]
    assert state.clans[1].hand == []
    assert state.age == 2 and state.phase == Phase.DRAFT


def test_age_three_discards_every_card(h):
    """§6: in Age 3 everyone discards every card, with no decision to take."""
    state = h.scenario(
        3,
        [{"hand": ["tyrs_rage_3", "tyrs_crush_3"]}, {"hand": ["manheim_3"]}, {}],
        age=3,
        phase="discard",
    )
    assert all(c.hand == [] for c in state.clans)
    assert state.step == Step.GAME_OVER


# -- §7 Quest -------------------------------------------------------------------------


def quest_state(h, players, clans, **kw):
    kw.setdefault("phase", "quest")
    return h.scenario(players, clans, **kw)


def test_manheim_quest_example_ship_breaks_one_tie_and_wins_the_other(h):
    """seeds/000_3142a3a5a8184f45.txt / seeds/004_98acbb221e078b57.txt (Phase IV), Quest example:
    Serpent (yellow) reveals Manheim. In Elvagar red's two warriors (2) tie yellow's ship in the
    adjacent fjord (2), so Elvagar fails; the ship also supports Angerboda, where blue has a
    single warrior (1): the quest succeeds, yellow gains 5 Glory and raises Horns one step."""
    state = quest_state(
        h,
        3,
        [
            {"figures": {"Elvagar": ["warrior", "warrior"]}},
            {"figures": {"Angerboda": ["warrior"]}},
            {"quests": ["manheim"], "figures": {"North fjord": ["ship"]}},
        ],
    )
    assert state.clans[2].glory == 5
    assert h.awaiting(state) == [2]
    assert {a.kind for a in h.legal(state, 2)} == {h.K.RAISE_STAT}
    h.act(state, 2, h.K.RAISE_STAT, Stat.HORNS)
    assert state.clans[2].steps == [0, 0, 1]
    assert state.clans[2].horns == 5
    assert state.clans[2].quests == []


def test_quest_tie_everywhere_fails(h):
    """§7: a tie with any enemy fails; a failed quest gives and costs nothing."""
    state = quest_state(
        h,
        3,
        [
            {"figures": {"Elvagar": ["warrior", "warrior"]}},
            {"figures": {"Angerboda": ["warrior", "warrior"]}},
            {"quests": ["manheim"], "figures": {"North fjord": ["ship"]}, "glory": 4},
        ],
    )
    assert state.clans[2].glory == 4
    assert state.clans[2].steps == [0, 0, 0]
    assert state.prompts == []
    assert state.age == 2, "nothing to decide: the Age ran to its end"


@pytest.mark.parametrize(
    ("quest", "province", "ok"),
    [
        ("alfheim", "Andlang", True),
        ("alfheim", "Horgr", False),
        ("jotunheim", "Horgr", True),
        ("jotunheim", "Gimle", False),
        ("manheim", "Myrkulor", True),
        ("manheim", "Utgard", False),
    ],
)
def test_region_quests(h, quest, province, ok):
    """§7 / cards.md: most STR in at least one province of the quest's region."""
    state = quest_state(
        h, 3, [{"quests": [quest], "figures": {province: ["warrior"]}, "glory": 1}, {}, {}]
    )
    assert state.clans[0].glory == (6 if ok else 1)
    assert bool(state.prompts) == ok


def test_quest_needs_strictly_more_and_some_strength(h):
    state = quest_state(
        h,
        3,
        [
            {"quests": ["jotunheim"], "figures": {"Horgr": ["warrior"], "Utgard": ["leader"]}},
            {"figures": {"Horgr": ["warrior", "warrior"], "Utgard": ["leader"]}},
            {"quests": ["alfheim"]},
        ],
    )
    assert state.clans[0].glory == 0 and state.clans[2].glory == 0
    assert state.prompts == []


def test_yggdrasil_quest(h):
    """cards.md: Yggdrasil quest — most STR in Yggdrasil."""
    state = quest_state(
        h,
        3,
        [
            {"quests": ["yggdrasil"], "figures": {"Yggdrasil": ["leader"]}},
            {"figures": {"Yggdrasil": ["warrior", "warrior"]}},
            {},
        ],
    )
    assert state.clans[0].glory == 6
    failed = quest_state(
        h,
        3,
        [
            {"quests": ["yggdrasil"], "figures": {"Yggdrasil": ["leader"]}},
            {"figures": {"Yggdrasil": ["warrior", "warrior", "warrior"]}},
            {},
        ],
    )
    assert failed.clans[0].glory == 0


@pytest.mark.parametrize(("dead", "ok"), [(4, True), (3, False)])
def test_glorious_death_quest(h, dead, ok):
    """cards.md: Glorious Death — at least 4 of your figures in Valhalla (before Ragnarök)."""
    units = ["leader", "ship", "warrior", "warrior"][:dead]
    state = quest_state(
        h, 3, [{"quests": ["glorious_death"], "figures": {"Valhalla": units}}, {}, {}]
    )
    assert state.clans[0].glory == (6 if ok else 0)


def test_glorious_death_counts_before_ragnarok(h):
    """Figures about to die in this Age's Ragnarök are not yet in Valhalla."""
    state = quest_state(
        h,
        3,
        [
            {
                "quests": ["glorious_death"],
                "figures": {
                    "Valhalla": ["leader", "warrior", "warrior"],
                    "Muspelheim": ["warrior"],
                },
            },
            {},
            {},
        ],
    )
    assert state.clans[0].glory == 2, "no quest Glory; 2 for the warrior dying in Ragnarök"


@pytest.mark.parametrize(("provinces", "ok"), [(2, True), (1, False)])
def test_widespread_quest(h, provinces, ok):
    """cards.md: Widespread (5 players) — most STR in at least 2 different provinces."""
    figures = (
        {"Gimle": ["warrior"], "Horgr": ["warrior"]}
        if provinces == 2
        else {"Gimle": ["warrior", "warrior"]}
    )
    state = quest_state(h, 5, [{"quests": ["widespread"], "figures": figures}, {}, {}, {}, {}])
    assert state.clans[0].glory == (7 if ok else 0)


@pytest.mark.parametrize(("age", "glory"), [(1, 5), (2, 7), (3, 9)])
def test_quest_glory_by_age(h, age, glory):
    state = quest_state(
        h,
        3,
        [{"quests": [f"alfheim_{age}"], "figures": {"Andlang": ["warrior"]}}, {}, {}],
        age=age,
    )
    assert state.clans[0].glory == glory


def test_each_success_gives_glory_and_its_own_stat_raise_and_all_quests_are_discarded(h):
    """§7: every fulfilled quest gives its Glory and one step in a stat of the player's choice;
    failed quests nothing; every revealed quest is discarded."""
    state = quest_state(
        h,
        3,
        [
            {
                "quests": ["alfheim", "jotunheim", "manheim"],
                "figures": {"Gimle": ["warrior"], "Horgr": ["warrior"]},
            },
            {"quests": ["glorious_death"]},
            {},
        ],
    )
    quests = [*state.discard]
    assert h.keys(quests) == ["alfheim", "glorious_death", "jotunheim", "manheim"]
    assert state.clans[0].glory == 10
    assert state.clans[0].quests == [] and state.clans[1].quests == []
    assert h.awaiting(state) == [0]
    h.act(state, 0, h.K.RAISE_STAT, Stat.AXES)
    assert h.awaiting(state) == [0], "a second raise for the second success"
    h.act(state, 0, h.K.RAISE_STAT, Stat.AXES)
    assert state.clans[0].steps == [0, 2, 0]
    assert state.clans[1].glory == 0 and state.clans[1].steps == [0, 0, 0]
    assert state.age == 2


def test_quest_prompts_follow_the_first_player(h):
    state = quest_state(
        h,
        3,
        [
            {"quests": ["alfheim"], "figures": {"Gimle": ["warrior"]}},
            {"quests": ["jotunheim"], "figures": {"Horgr": ["warrior"]}},
            {},
        ],
        first_player=1,
    )
    assert h.awaiting(state) == [1]
    h.assert_not_yours(state, 0, (h.K.RAISE_STAT, Stat.RAGE))
    h.act(state, 1, h.K.RAISE_STAT, Stat.RAGE)
    assert h.awaiting(state) == [0]
    h.act(state, 0, h.K.RAISE_STAT, Stat.HORNS)
    assert state.clans[1].steps == [1, 0, 0] and state.clans[0].steps == [0, 0, 1]


# -- §8 Ragnarök ------------------------------------------------------------------------


@pytest.mark.parametrize(("age", "per_figure"), [(1, 2), (2, 3), (3, 4)])
def test_ragnarok_glory_per_figure_by_age(h, age, per_figure):
    """§8: the Age's province is destroyed; every figure in it and in its supporting fjords
    (monsters included) dies, for 2/3/4 Glory each in Age 1/2/3."""
    province = h.RAGNAROK[age - 1]
    fjord = {"Muspelheim": "East fjord", "Gimle": "West fjord", "Myrkulor": "West fjord"}[province]
    state = h.scenario(
        3,
        [
            {"upgrades": ["troll"], "figures": {province: ["leader", "troll"], fjord: ["ship"]}},
            {"figures": {province: ["warrior"], "Andlang": ["leader"]}},
            {"figures": {"Andlang": ["warrior"]}},
        ],
        age=age,
        phase="ragnarok",
    )
    assert state.clans[0].glory == 3 * per_figure
    assert state.clans[1].glory == per_figure
    assert state.clans[2].glory == 0
    p = getattr(Area, province.upper())
    assert state.destroyed[p]
    assert state.occupancy[p] == 0
    assert state.clans[0].loc[FIG_SHIP] == RESERVE, "died, then released"
    assert h.units_at(state, 1, Area.ANDLANG) == ["leader"]
    assert h.units_at(state, 2, Area.ANDLANG) == ["warrior"]


def test_gimle_ragnarok_example(h):
    """seeds/000_3142a3a5a8184f45.txt, ΡΑΓΚΝΑΡΟΚ worked example: the Age 2 Ragnarök token shows
    Gimle; every figure in Gimle and its fjord dies: 2 red and 2 blue figures, 3 Glory each in
    Age 2, so both players gain 6 Glory. Then the Doom token moves to the next Age's province."""
    state = h.scenario(
        3,
        [
            {"figures": {"Gimle": ["warrior"], "West fjord": ["ship"]}, "glory": 10},
            {"figures": {"Gimle": ["leader", "warrior"]}, "glory": 1},
            {"figures": {"Andlang": ["warrior"]}},
        ],
        age=2,
        phase="discard",
        ragnarok=["Muspelheim", "Gimle", "Horgr"],
    )
    # Nobody holds a card or a quest: the Age runs through Ragnarök and Release at once.
    assert state.step == Step.DRAFT_PICK and state.age == 3
    assert [c.glory for c in state.clans] == [16, 7, 0]
    v = h.view(state)
    gimle = v["provinces"][Area.GIMLE]
    assert gimle["destroyed"] is True
    assert gimle["pillage_token"] is None
    assert v["doom"] == "Horgr"
    assert state.clans[0].loc[FIG_SHIP] == RESERVE
    assert h.count_at(state, 1, Area.GIMLE) == 0
    assert h.units_at(state, 2, Area.ANDLANG) == ["warrior"]


def test_ragnarok_figures_pass_through_valhalla(h):
    """§8: the dead go to Valhalla (seen in the event log: they are released right after)."""
    state = h.scenario(
        3,
        [
            {
                "hand": ["tyrs_bash"],
                "figures": {"Muspelheim": ["warrior", "warrior"], "East fjord": ["ship"]},
            },
            {"figures": {"Horgr": ["warrior"]}},
            {},
        ],
        phase="discard",
    )
    state.events = []
    h.act(state, 0, h.K.KEEP_NONE)
    rag = [e for _, e in state.events if e.get("type") == "ragnarok"]
    assert len(rag) == 1
    deaths = {int(k): v for k, v in rag[0]["deaths"].items()}
    assert deaths == {0: 3}
    assert state.clans[0].glory == 6
    # The East fjord also supports Horgr, which lives on; the ship died all the same.
    assert state.clans[0].loc[FIG_SHIP] == RESERVE
    assert h.units_at(state, 1, Area.HORGR) == ["warrior"]


def test_doom_token_moves_after_each_ragnarok(h):
    """§2/§8: the Doom token marks this Age's province, then moves to the next Age's."""
    state = h.scenario(3, [{"hand": ["tyrs_bash"]}, {}, {}], phase="discard")
    assert h.view(state)["doom"] == "Muspelheim"
    h.act(state, 0, h.K.KEEP_NONE)
    assert state.age == 2
    assert h.view(state)["doom"] == "Gimle"
    assert h.view(state)["provinces"][Area.MUSPELHEIM]["destroyed"] is True


def test_destroyed_province_is_out_of_play_afterwards(h):
    """§3.4/§8: no figure may ever enter a destroyed province."""
    state = h.scenario(
        3,
        [{"figures": {"Horgr": ["warrior"]}}, {}, {}],
        age=2,
    )
    assert state.destroyed[Area.MUSPELHEIM]
    h.assert_illegal(state, 0, (h.K.INVADE, Unit.WARRIOR, Area.MUSPELHEIM))
    h.assert_illegal(state, 0, (h.K.MARCH, Area.HORGR, Area.MUSPELHEIM, Unit.WARRIOR))
    h.assert_illegal(state, 0, (h.K.PILLAGE, Area.MUSPELHEIM))


# -- §9 Release Valhalla and end of Age -------------------------------------------------


def test_release_valhalla_and_end_of_age(h):
    """§9: every figure in Valhalla returns to the reserve, figures on the board stay; pillage
    tokens flip back (they stay where they are); the first player token passes left; the next
    Age's Gods' Gifts begin."""
    state = h.scenario(
        3,
        [
            {"figures": {"Valhalla": ["leader", "warrior", "ship"], "Gimle": ["warrior"]}},
            {"figures": {"Valhalla": ["warrior"] * 5}},
            {},
        ],
        phase="release",
        first_player=2,
        pillaged=["Gimle", "Yggdrasil", "Horgr"],
    )
    tokens = [p["pillage_token"] for p in h.view(state)["provinces"]]
    assert state.age == 2 and state.phase == Phase.DRAFT
    assert all(VALHALLA not in c.loc for c in state.clans)
    assert h.reserve(state, 0) == 9 and h.units_at(state, 0, Area.GIMLE) == ["warrior"]
    assert h.reserve(state, 1) == 10
    assert state.pillaged == [False] * 9
    assert tokens[Area.GIMLE] == "axes" and tokens[Area.YGGDRASIL] == "all_stats"
    assert state.first_player == 0
    h.draft_all(state)
    assert state.turn == 0


def test_first_player_passes_left_each_age(h):
    state = h.scenario(4, [{}, {}, {}, {}], phase="release", first_player=1)
    assert state.first_player == 2
    assert state.age == 2


def test_no_stat_prompt_when_every_stat_is_on_its_last_step(h):
    state = quest_state(
        h,
        3,
        [
            {
                "quests": ["alfheim"],
                "figures": {"Gimle": ["warrior"]},
                "stats": {"rage": 6, "axes": 6, "horns": 6},
            },
            {},
            {},
        ],
    )
    assert state.clans[0].glory == 5
    assert state.prompts == []
    assert state.age == 2
