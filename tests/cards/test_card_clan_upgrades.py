"""Clan upgrades of cards.md: Loki's Domain/Eminence/Wrath, Frigga's Charm/Succor/Protection/
Domain/Sacrifice, Thor's Glory/Domain/Conquest, Tyr's Domain/Challenge/Prowess/Wrath, Odin's
Inspiration/Throne, Loki's Blessing."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import FIG_LEADER, Area, Phase, Step, Unit
from engine.blood_rage.state import PromptKind

E, ANG, HOR = Area.ELVAGAR, Area.ANGERBODA, Area.HORGR


# -- Loki's Domain / Eminence / Wrath: Glory per figure released from Valhalla ------------


@pytest.mark.parametrize(
    "key,age,per", [("lokis_domain", 1, 1), ("lokis_eminence", 2, 2), ("lokis_wrath", 3, 3)]
)
def test_loki_release_glory(g, key, age, per):
    s = g.state(
        4,
        [
            {"upgrades": [key], "figures": {"Valhalla": ["leader", "warrior", "warrior"]}},
            {"figures": {"Valhalla": ["warrior", "warrior"]}},
            {"upgrades": [], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=age,
        phase="release",
    )
    assert s.clans[0].glory == 3 * per
    assert s.clans[1].glory == 0
    assert g.valhalla(s, 0) == [] and "leader" in g.reserve(s, 0)


def test_loki_release_glory_nothing_in_valhalla(g):
    s = g.state(
        4,
        [{"upgrades": ["lokis_wrath"], "figures": {"Elvagar": ["warrior"]}}],
        age=3,
        phase="release",
    )
    assert s.clans[0].glory == 0


# -- Frigga's Charm: upgrades cost 1 Rage less --------------------------------------------


def test_friggas_charm_makes_upgrades_cheaper(g):
    s = g.state(
        3, [{"upgrades": ["friggas_charm"], "hand": ["lord_of_hammers", "troll"], "rage": 2}]
    )
    hammers = g.card(s, 0, "lord_of_hammers")
    assert g.A(g.K.UPGRADE, hammers, 0) in g.legal(s, 0), "3 - 1 = 2 Rage"
    g.act(s, 0, g.K.UPGRADE, hammers, 0)
    assert s.clans[0].rage == 0


def test_without_friggas_charm_full_cost(g):
    s = g.state(3, [{"hand": ["lord_of_hammers"], "rage": 2}])
    assert all(a.kind != g.K.UPGRADE for a in g.legal(s, 0))


def test_friggas_charm_never_below_zero(g):
    s = g.state(3, [{"upgrades": ["friggas_charm"], "hand": ["tyrs_domain"], "rage": 1}])
    g.act(s, 0, g.K.UPGRADE, g.card(s, 0, "tyrs_domain"), 0)
    assert s.clans[0].rage == 1


# -- Thor's Glory: 2 Glory when at least 2 enemy figures die in your battle ---------------


def test_thors_glory_two_enemy_kills(g):
    s = g.state(
        3,
        [
            {"upgrades": ["thors_glory"], "figures": {"Elvagar": ["leader"]}},
            {"figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    assert g.result(s)[0] == 0
    assert s.clans[0].glory == 3 + 2


def test_thors_glory_one_enemy_kill_is_not_enough(g):
    s = g.state(
        3,
        [
            {"upgrades": ["thors_glory"], "figures": {"Elvagar": ["leader"]}},
            {"figures": {"Elvagar": ["warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    assert s.clans[0].glory == 3


def test_thors_glory_while_losing(g):
    """Three-way battle: seat 0 loses, but seat 2's two warriors die too."""
    s = g.state(
        3,
        [
            {"upgrades": ["thors_glory"], "figures": {"Angerboda": ["warrior"]}},
            {"figures": {"Angerboda": ["leader", "warrior"]}},
            {"figures": {"Angerboda": ["warrior", "warrior"]}},
        ],
        turn=1,
    )
    g.pillage(s, 1, ANG)
    assert g.result(s) == (1, {0: 1, 1: 4, 2: 2})
    assert s.clans[0].glory == 2


# -- Frigga's Succor: a free warrior follows any invade ------------------------------------


def test_friggas_succor_accept(g):
    s = g.state(3, [{"upgrades": ["friggas_succor"]}])
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)
    assert g.prompt(s) == (PromptKind.SUCCOR, 0)
    assert g.legal(s, 0) == [g.A(g.K.FREE_INVADE, Unit.WARRIOR, E), g.A(g.K.DECLINE)]
    g.act(s, 0, g.K.FREE_INVADE, Unit.WARRIOR, E)
    assert g.at(s, 0, E) == ["leader", "warrior"]
    assert s.clans[0].rage == 6
    assert g.prompt(s) is None and s.turn == 1, "Succor's own warrior brings no other"


def test_friggas_succor_decline(g):
    s = g.state(3, [{"upgrades": ["friggas_succor"]}])
    g.act(s, 0, g.K.INVADE, Unit.WARRIOR, E)
    g.act(s, 0, g.K.DECLINE)
    assert g.at(s, 0, E) == ["warrior"] and s.clans[0].rage == 5


def test_friggas_succor_respects_horns(g):
    s = g.state(
        3,
        [{"upgrades": ["friggas_succor"], "figures": {"Horgr": ["warrior", "warrior", "warrior"]}}],
    )
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)
    assert g.prompt(s) is None and s.turn == 1


# -- Tyr's Domain / Tyr's Wrath: a quest card in battle counts +3 / +5 --------------------


@pytest.mark.parametrize(
    "key,age,value", [(None, 1, 0), ("tyrs_domain", 1, 3), ("tyrs_wrath", 3, 5)]
)
def test_tyr_quest_card_as_battle_card(g, key, age, value):
    s = g.state(
        3,
        [
            {
                "upgrades": [key] if key else [],
                "hand": ["manheim"],
                "figures": {"Angerboda": ["leader"]},
            },
            {
                "hand": ["tyrs_smash_1"] if age == 1 else ["tyrs_crush"],
                "figures": {"Angerboda": ["warrior", "warrior"]},
            },
        ],
        age=age,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "manheim", 1: "tyrs_smash" if age == 1 else "tyrs_crush"})
    enemy = 2 + (3 if age == 1 else 4)
    winner, totals = g.result(s)
    assert totals == {0: 3 + value, 1: enemy}
    assert winner == (0 if 3 + value > enemy else 1)
    if winner == 0:
        assert g.discard(s) == ["manheim"]
    else:
        assert g.hand(s, 0) == ["manheim"]


def test_tyr_domain_and_wrath_together_count_once(g):
    """**Decision** (card_effects): with both upgrades the quest counts +5, not +8."""
    s = g.state(
        3,
        [
            {
                "upgrades": ["tyrs_domain", "tyrs_wrath"],
                "hand": ["manheim"],
                "figures": {"Angerboda": ["leader"]},
            },
            {"figures": {"Angerboda": ["warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "manheim"})
    assert g.result(s) == (0, {0: 8, 1: 1})


# -- Loki's Blessing: after losing a battle, a free warrior into that province -------------


def _blessing(g):
    s = g.state(
        4,
        [
            {"hand": ["tyrs_smite"], "figures": {"Elvagar": ["leader"]}},
            {"upgrades": ["lokis_blessing"], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_smite"})
    assert g.result(s) == (0, {0: 8, 1: 2})
    assert g.valhalla(s, 1) == ["warrior", "warrior"]
    assert g.prompt(s) == (PromptKind.BLESSING, 1)
    assert g.legal(s, 1) == [g.A(g.K.FREE_INVADE, Unit.WARRIOR, E), g.A(g.K.DECLINE)]
    return s


def test_lokis_blessing_accept(g):
    s = _blessing(g)
    g.act(s, 1, g.K.FREE_INVADE, Unit.WARRIOR, E)
    assert g.at(s, 1, E) == ["warrior"] and s.clans[1].rage == 6
    assert g.valhalla(s, 1) == ["warrior", "warrior"], "a warrior from the reserve"
    assert s.pillaged[E]


def test_lokis_blessing_decline(g):
    s = _blessing(g)
    g.act(s, 1, g.K.DECLINE)
    assert g.at(s, 1, E) == [] and s.turn == 1


def test_lokis_blessing_not_for_the_winner(g):
    s = g.state(
        4,
        [
            {"upgrades": ["lokis_blessing"], "figures": {"Elvagar": ["leader"]}},
            {"figures": {"Elvagar": ["warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    assert g.result(s)[0] == 0 and g.prompt(s) is None


# -- Odin's Inspiration: double Ragnarök Glory --------------------------------------------


def test_odins_inspiration_doubles_ragnarok_glory(g):
    s = g.state(
        3,
        [
            {
                "upgrades": ["odins_inspiration"],
                "figures": {"Gimle": ["warrior", "warrior"], "West fjord": ["ship"]},
            },
            {"figures": {"Gimle": ["warrior", "warrior"]}},
        ],
        age=2,
        phase="ragnarok",
    )
    assert s.clans[0].glory == 2 * (3 * 3), "three figures, 3 Glory each (Age 2), doubled"
    assert s.clans[1].glory == 2 * 3


# -- Tyr's Challenge: 2 Rage to pillage an already pillaged province ----------------------


def _challenge(g, rage=6):
    return g.state(
        3,
        [
            {"upgrades": ["tyrs_challenge"], "figures": {"Elvagar": ["leader"]}, "rage": rage},
            {"figures": {"Elvagar": ["warrior"]}},
            {"figures": {"Angerboda": ["warrior"]}},
        ],
        age=2,
        pillaged=["Elvagar"],
    )


def test_tyrs_challenge_repillage_gains_the_reward_again(g):
    s = _challenge(g)
    legal = g.legal(s, 0)
    assert g.A(g.K.CHALLENGE, E) in legal and g.A(g.K.PILLAGE, E) not in legal
    assert g.A(g.K.CHALLENGE, ANG) not in legal, "Angerboda is not pillaged yet"
    g.act(s, 0, g.K.CHALLENGE, E)
    assert s.clans[0].rage == 4
    assert g.decline_calls(s) == [2], "full Pillage sequence: a Call to Battle"
    assert g.result(s) == (0, {0: 3, 1: 1})
    assert g.steps(s, 0) == [1, 1, 2], "Elvagar's Horns again"
    assert s.clans[0].glory == 3 and g.valhalla(s, 1) == ["warrior"]


def test_tyrs_challenge_needs_2_rage(g):
    s = _challenge(g, rage=1)
    assert all(a.kind != g.K.CHALLENGE for a in g.legal(s, 0))


# -- Frigga's Protection: pay 1 Rage to save one figure ------------------------------------


def _protection(g):
    s = g.state(
        3,
        [
            {"figures": {"Elvagar": ["leader"]}},
            {"upgrades": ["friggas_protection"], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    assert g.prompt(s) == (PromptKind.PROTECT, 1)
    assert g.legal(s, 1) == [g.A(g.K.SAVE_FIGURE, Unit.WARRIOR, E), g.A(g.K.DECLINE)]
    return s


def test_friggas_protection_saves_a_figure(g):
    s = _protection(g)
    g.act(s, 1, g.K.SAVE_FIGURE, Unit.WARRIOR, E)
    assert g.at(s, 1, E) == ["warrior"] and g.valhalla(s, 1) == ["warrior"]
    assert s.clans[1].rage == 5


def test_friggas_protection_decline(g):
    s = _protection(g)
    g.act(s, 1, g.K.DECLINE)
    assert g.valhalla(s, 1) == ["warrior", "warrior"] and s.clans[1].rage == 6


def test_friggas_protection_against_a_troll(g):
    s = g.state(
        3,
        [
            {"upgrades": ["troll"]},
            {"upgrades": ["friggas_protection"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    g.act(s, 0, g.K.INVADE, Unit.TROLL, E)
    g.act(s, 1, g.K.SAVE_FIGURE, Unit.WARRIOR, E)
    assert g.at(s, 1, E) == ["warrior"] and s.clans[1].rage == 5


def test_friggas_protection_needs_rage(g):
    s = g.state(
        3,
        [
            {"figures": {"Elvagar": ["leader"]}},
            {"upgrades": ["friggas_protection"], "rage": 0, "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    assert g.prompt(s) is None and g.valhalla(s, 1) == ["warrior"]


def test_friggas_protection_offers_only_the_figures_doomed_now(g):
    """Two destructions in one Action phase (issue 30, gap 8): once the first battle's
    losers are gone nobody is doomed any more, and the Troll's later invasion asks to
    protect only the warrior it dooms, not again the two already in Valhalla."""
    s = g.state(
        3,
        [
            {"figures": {"Elvagar": ["leader"]}},
            {
                "upgrades": ["friggas_protection"],
                "hand": ["alfheim"],
                "figures": {"Elvagar": ["warrior", "warrior"], "Angerboda": ["warrior"]},
            },
            {"upgrades": ["troll"]},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {1: "alfheim"})  # a quest card fights for 0 and comes back to the loser
    assert g.view(s)["prompt"]["doomed"] == [_fig("warrior", "Elvagar")] * 2
    g.act(s, 1, g.K.DECLINE)
    seen = g.view(s)
    assert seen["doomed_count"] == 0 and seen["prompt"] is None
    assert g.valhalla(s, 1) == ["warrior", "warrior"]
    g.act(s, 1, g.K.QUEST, g.card(s, 1, "alfheim"))  # seat 1's turn; it keeps its Rage
    g.act(s, 2, g.K.INVADE, Unit.TROLL, ANG)
    seen = g.view(s)
    assert seen["doomed_count"] == 1
    assert seen["prompt"]["doomed"] == [_fig("warrior", "Angerboda")]
    assert g.legal(s, 1) == [g.A(g.K.SAVE_FIGURE, Unit.WARRIOR, ANG), g.A(g.K.DECLINE)]
    g.act(s, 1, g.K.DECLINE)
    assert g.view(s)["doomed_count"] == 0
    assert g.valhalla(s, 1) == ["warrior"] * 3


def _fig(unit: str, location: str) -> dict[str, str]:
    return {"unit": unit, "location": location}


# -- Tyr's Prowess: the winner may keep revealed cards for 1 Rage each ----------------------


def _prowess(g, rage=6, late=True):
    s = g.state(
        3,
        [
            {
                "upgrades": ["tyrs_prowess"],
                "hand": ["tyrs_crush", "heimdalls_eye"],
                "figures": {"Elvagar": ["leader"]},
                "rage": rage,
            },
            {"hand": ["tyrs_bash_1"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_crush", 1: "tyrs_bash"})
    assert g.prompt(s) == (PromptKind.LATE_CARD, 0)
    if late:
        g.act(s, 0, g.K.LATE_CARD, g.card(s, 0, "heimdalls_eye"))
    else:
        g.act(s, 0, g.K.DECLINE)
    assert g.result(s)[0] == 0
    return s


def test_tyrs_prowess_keep_one(g):
    s = _prowess(g, late=False)
    (crush,) = s.battle.played[0]
    assert g.prompt(s) == (PromptKind.PROWESS, 0)
    assert g.legal(s, 0) == [g.A(g.K.KEEP_REVEALED, crush), g.A(g.K.DECLINE)]
    g.act(s, 0, g.K.KEEP_REVEALED, crush)
    assert g.hand(s, 0) == ["heimdalls_eye", "tyrs_crush"]
    assert s.clans[0].rage == 5 and g.discard(s) == []


def test_tyrs_prowess_decline(g):
    s = _prowess(g, late=False)
    g.act(s, 0, g.K.DECLINE)
    assert g.discard(s) == ["tyrs_crush"] and s.clans[0].rage == 6


def test_tyrs_prowess_keep_several(g):
    s = _prowess(g)
    crush, eye = s.battle.played[0]
    g.act(s, 0, g.K.KEEP_REVEALED, eye)
    assert g.legal(s, 0) == [g.A(g.K.KEEP_REVEALED, crush), g.A(g.K.DECLINE)]
    g.act(s, 0, g.K.KEEP_REVEALED, crush)
    assert g.hand(s, 0) == ["heimdalls_eye", "tyrs_crush"] and s.clans[0].rage == 4


def test_tyrs_prowess_limited_by_rage(g):
    s = _prowess(g, rage=1)
    crush, _eye = s.battle.played[0]
    g.act(s, 0, g.K.KEEP_REVEALED, crush)
    assert g.prompt(s) is None
    assert g.hand(s, 0) == ["tyrs_crush"] and g.discard(s) == ["heimdalls_eye"]
    assert s.clans[0].rage == 0


def test_tyrs_prowess_is_not_offered_after_a_tie(g):
    """A tie for the highest total: everyone loses, so nobody keeps a card (issue 30, gap
    11). Seat 2, the last seat, owns Tyr's Prowess and played a card: no offer, its card
    comes back to its hand like every loser's."""
    s = g.state(
        3,
        [
            {"hand": ["tyrs_crush"], "figures": {"Elvagar": ["leader"]}},
            {},
            {
                "upgrades": ["tyrs_prowess"],
                "hand": ["heimdalls_eye"],
                "figures": {"Elvagar": ["leader", "warrior", "warrior"]},
            },
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_crush", 2: "heimdalls_eye"})
    assert g.result(s) == (-1, {0: 3 + 4, 2: 3 + 2 + 2})
    seen = g.view(s)
    assert seen["prompt"] is None and seen["battle"] is None
    assert seen["awaiting"] == [1] and seen["step"] == "action"
    assert g.hand(s, 0) == ["tyrs_crush"] and g.hand(s, 2) == ["heimdalls_eye"]
    assert s.clans[2].rage == 6 and g.discard(s) == []


# -- Thor's Domain: after invading, pay 2 Rage to pillage at once --------------------------


def _thors_domain(g):
    s = g.state(4, [{"upgrades": ["thors_domain"]}, {"figures": {"Elvagar": ["warrior"]}}], age=2)
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)
    assert g.prompt(s) == (PromptKind.THORS_DOMAIN, 0)
    assert g.legal(s, 0) == [g.A(g.K.ACCEPT), g.A(g.K.DECLINE)]
    return s


def test_thors_domain_accept_pillages_at_once(g):
    s = _thors_domain(g)
    g.act(s, 0, g.K.ACCEPT)
    assert s.clans[0].rage == 4
    assert g.result(s) == (0, {0: 3, 1: 1})
    assert s.pillaged[E] and g.steps(s, 0) == [1, 1, 2] and s.clans[0].glory == 3
    assert s.turn == 1 and s.step == Step.ACTION


def test_thors_domain_decline(g):
    s = _thors_domain(g)
    g.act(s, 0, g.K.DECLINE)
    assert s.clans[0].rage == 6 and not s.pillaged[E] and s.turn == 1
    assert g.events(s, "pillage_started") == []


# -- Frigga's Domain: as an invade, 1 Rage brings a figure back from Valhalla ---------------


@pytest.mark.parametrize(
    "unit,name,ups",
    [
        (Unit.WARRIOR, "warrior", ["masters_in_arms"]),
        (Unit.LEADER, "leader", []),
        (Unit.FROST_GIANT, "frost_giant", ["frost_giant"]),
    ],
)
def test_friggas_domain_invades_from_valhalla_for_1_rage(g, unit, name, ups):
    s = g.state(3, [{"upgrades": ["friggas_domain", *ups], "figures": {"Valhalla": [name]}}], age=3)
    legal = g.legal(s, 0)
    assert g.A(g.K.INVADE_FROM_VALHALLA, unit, E) in legal
    g.act(s, 0, g.K.INVADE_FROM_VALHALLA, unit, E)
    assert s.clans[0].rage == 5, "1 Rage instead of the usual cost"
    assert g.at(s, 0, E) == [name] and g.valhalla(s, 0) == []


def test_friggas_domain_needs_a_figure_in_valhalla(g):
    s = g.state(3, [{"upgrades": ["friggas_domain"]}], age=3)
    assert all(a.kind != g.K.INVADE_FROM_VALHALLA for a in g.legal(s, 0))


# -- Odin's Throne: double the printed Glory of completed quests ---------------------------


def test_odins_throne_doubles_printed_glory_only(g):
    s = g.state(
        4,
        [
            {
                "upgrades": ["odins_throne"],
                "quests": ["manheim"],
                "figures": {"Elvagar": ["leader"]},
            },
            {"quests": ["manheim"], "figures": {"Angerboda": ["leader"]}},
        ],
        age=3,
        phase="quest",
    )
    assert s.clans[0].glory == 18 and s.clans[1].glory == 9
    assert [p.seat for p in s.prompts] == [0, 1], "one stat step each, not two"
    g.answer(s, g.K.RAISE_STAT, g.AXES)
    g.answer(s, g.K.RAISE_STAT, g.AXES)
    assert g.steps(s, 0) == [1, 2, 1] and g.steps(s, 1) == [1, 2, 1]
    assert s.phase == Phase.GAME_OVER


# -- Thor's Conquest: 3 Glory per figure on the board at the end of the game ---------------


def test_thors_conquest_counts_figures_left_after_the_last_ragnarok(g):
    s = g.state(
        3,
        [
            {
                "upgrades": ["thors_conquest"],
                "figures": {
                    "Elvagar": ["leader", "warrior"],
                    "North fjord": ["ship"],
                    "Myrkulor": ["warrior"],
                },
            },
            {"figures": {"Elvagar": ["warrior"]}},
        ],
        age=3,
        phase="ragnarok",
    )
    assert s.phase == Phase.GAME_OVER
    assert s.clans[0].glory == 4 + 3 * 3, "the Myrkulor warrior died in Ragnarök (4)"
    assert s.clans[1].glory == 0


# -- Frigga's Sacrifice: destroy 2 own figures, raise one stat -----------------------------


def test_friggas_sacrifice(g):
    s = g.state(
        3,
        [
            {
                "upgrades": ["friggas_sacrifice"],
                "figures": {"Elvagar": ["leader", "warrior"], "Horgr": ["warrior"]},
            }
        ],
        age=3,
    )
    legal = g.legal(s, 0)
    assert {a for a in legal if a.kind == g.K.SACRIFICE} == {
        g.A(g.K.SACRIFICE, Unit.LEADER, E),
        g.A(g.K.SACRIFICE, Unit.WARRIOR, E),
        g.A(g.K.SACRIFICE, Unit.WARRIOR, HOR),
    }
    g.act(s, 0, g.K.SACRIFICE, Unit.WARRIOR, HOR)
    assert g.prompt(s) == (PromptKind.SACRIFICE, 0)
    assert sorted(g.legal(s, 0)) == sorted(
        [g.A(g.K.SACRIFICE, Unit.LEADER, E), g.A(g.K.SACRIFICE, Unit.WARRIOR, E)]
    )
    g.act(s, 0, g.K.SACRIFICE, Unit.LEADER, E)
    assert g.prompt(s) == (PromptKind.RAISE_STAT, 0)
    assert len(g.legal(s, 0)) == 3
    g.act(s, 0, g.K.RAISE_STAT, g.HORNS)
    assert g.steps(s, 0) == [1, 1, 2]
    assert g.valhalla(s, 0) == ["leader", "warrior"] and g.at(s, 0, E) == ["warrior"]
    assert s.clans[0].rage == 6 and s.turn == 1


def test_friggas_sacrifice_needs_two_figures(g):
    s = g.state(3, [{"upgrades": ["friggas_sacrifice"], "figures": {"Elvagar": ["leader"]}}], age=3)
    assert all(a.kind != g.K.SACRIFICE for a in g.legal(s, 0))
    assert s.clans[0].loc[FIG_LEADER] == E


# -- Edges of the clan upgrades (issue 30's operators) --------------------------------------


def test_friggas_succor_into_gimle(g):
    """Gimle, the last province by number, takes Succor's warrior like any other."""
    s = g.state(3, [{"upgrades": ["friggas_succor"]}])
    g.act(s, 0, g.K.INVADE, Unit.LEADER, Area.GIMLE)
    assert g.prompt(s) == (PromptKind.SUCCOR, 0)


def test_lokis_blessings_warrior_brings_frigga_succors(g):
    """Blessing's warrior is an invade: Succor may follow it with another warrior (only
    Succor's own warrior brings no other)."""
    s = g.state(
        4,
        [
            {"hand": ["tyrs_smite"], "figures": {"Elvagar": ["leader"]}},
            {
                "upgrades": ["lokis_blessing", "friggas_succor"],
                "figures": {"Elvagar": ["warrior", "warrior"]},
            },
        ],
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_smite"})
    assert g.prompt(s) == (PromptKind.BLESSING, 1)
    g.act(s, 1, g.K.FREE_INVADE, Unit.WARRIOR, E)
    assert g.prompt(s) == (PromptKind.SUCCOR, 1)
    g.act(s, 1, g.K.FREE_INVADE, Unit.WARRIOR, E)
    assert g.at(s, 1, E) == ["warrior", "warrior"] and g.prompt(s) is None


def test_lokis_blessing_needs_a_warrior_in_the_reserve(g):
    s = g.state(
        4,
        [
            {"hand": ["tyrs_smite"], "figures": {"Elvagar": ["leader"]}},
            {
                "upgrades": ["lokis_blessing"],
                "figures": {"Elvagar": ["warrior"], "Valhalla": ["warrior"] * 7},
            },
        ],
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_smite"})
    assert g.valhalla(s, 1) == ["warrior"] * 8
    assert g.prompt(s) is None and s.turn == 1


def test_tyrs_challenge_only_where_pillaged_and_present(g):
    """Elvagar: pillaged, the leader there. Myrkulor: a warrior there, not pillaged.
    Angerboda: pillaged, nobody of the clan there."""
    s = g.state(
        3,
        [
            {
                "upgrades": ["tyrs_challenge"],
                "figures": {"Elvagar": ["leader"], "Myrkulor": ["warrior"]},
            },
            {"figures": {"Angerboda": ["warrior"]}},
        ],
        age=2,
        pillaged=["Elvagar", "Angerboda"],
    )
    assert [a.a for a in g.legal(s, 0) if a.kind == g.K.CHALLENGE] == [E]


def test_friggas_protection_is_not_offered_against_odins_tide(g):
    """Odin's Tide: each clan destroys all its figures but one, by its own choice, which
    Frigga's Protection does not prevent (Decision)."""
    s = g.state(
        3,
        [
            {"hand": ["odins_tide"], "figures": {"Elvagar": ["leader", "warrior"]}},
            {"upgrades": ["friggas_protection"], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "odins_tide"})
    assert g.prompt(s) == (PromptKind.TIDE_KEEP, 0)
    g.act(s, 0, g.K.KEEP_FIGURE, Unit.LEADER, E)
    assert g.prompt(s) == (PromptKind.TIDE_KEEP, 1)
    g.act(s, 1, g.K.KEEP_FIGURE, Unit.WARRIOR, E)
    assert g.valhalla(s, 1)[:1] == ["warrior"], "the Tide took one warrior without a question"
    assert g.prompt(s) == (PromptKind.PROTECT, 1), "the lost battle's destruction is asked"


def test_thors_domain_after_invading_gimle(g):
    s = g.state(4, [{"upgrades": ["thors_domain"]}], age=2)
    g.act(s, 0, g.K.INVADE, Unit.LEADER, Area.GIMLE)
    assert g.prompt(s) == (PromptKind.THORS_DOMAIN, 0)


def test_thors_domain_not_into_a_province_pillaged_already(g):
    s = g.state(4, [{"upgrades": ["thors_domain"]}], age=2, pillaged=["Elvagar"])
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)
    assert g.prompt(s) is None and s.turn == 1


def test_thors_domain_is_not_asked_again_for_succors_warrior_in_the_battle(g):
    """Thor's Domain (first on the sheet) starts the pillage at once; Frigga's Succor's
    warrior, answered while the Call to Battle waits, comes into a battle already begun."""
    s = g.state(
        4,
        [
            {"upgrades": ["thors_domain", "friggas_succor"]},
            {"figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)
    assert g.prompt(s) == (PromptKind.THORS_DOMAIN, 0)
    g.act(s, 0, g.K.ACCEPT)
    assert g.prompt(s) == (PromptKind.SUCCOR, 0) and s.battle is not None
    g.act(s, 0, g.K.FREE_INVADE, Unit.WARRIOR, E)
    assert g.prompt(s) is None
    assert len(g.events(s, "pillage_started")) == 1


def test_friggas_domain_offers_each_unit_once(g):
    s = g.state(
        3, [{"upgrades": ["friggas_domain"], "figures": {"Valhalla": ["warrior"] * 3}}], age=3
    )
    back = [a for a in g.legal(s, 0) if a.kind == g.K.INVADE_FROM_VALHALLA]
    assert back and len(back) == len(set(back))
    assert {a.a for a in back} == {Unit.WARRIOR}
