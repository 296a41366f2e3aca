"""Battle cards of cards.md (every Tyr card's +STR, Odin's Smite/Tide/Judgement, Thor's
Hammer/Oath/Ascension/Primacy, Loki's Trickery/Backstab/Poison, Frigga's Grace, Heimdall's
Sight; Heimdall's Eye/Gaze/Watch are in test_card_heimdall.py)."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import FIG_SHIP, VALHALLA, Area, Unit
from engine.blood_rage.state import PromptKind

E, ANG, YGG = Area.ELVAGAR, Area.ANGERBODA, Area.YGGDRASIL


def _duel(g, mine, theirs=None, age=1, players=3, defenders=("warrior", "warrior"), **kw):
    """Seat 0 (leader in Angerboda) pillages Angerboda against seat 1's figures there."""
    s = g.state(
        players,
        [
            {"hand": [mine], "figures": {"Angerboda": ["leader"]}, **kw},
            {"hand": [theirs] if theirs else [], "figures": {"Angerboda": list(defenders)}},
        ],
        age=age,
    )
    g.pillage(s, 0, ANG)
    return s


# -- Tyr's cards: plain +STR --------------------------------------------------------------

TYR = [
    (1, "tyrs_bash", 2, 3),
    (1, "tyrs_smash", 3, 3),
    (1, "tyrs_crush", 4, 4),
    (1, "tyrs_smite", 5, 3),
    (2, "tyrs_smash", 3, 4),
    (2, "tyrs_crush", 4, 3),
    (2, "tyrs_smite", 5, 3),
    (2, "tyrs_rage", 6, 3),
    (3, "tyrs_crush", 4, 3),
    (3, "tyrs_smite", 5, 4),
    (3, "tyrs_rage", 6, 3),
    (3, "tyrs_judgement", 8, 5),
    # Heimdall's Eye / Gaze played as the secret card add their STR too.
    (2, "heimdalls_eye", 2, 3),
    (3, "heimdalls_gaze", 3, 3),
]


@pytest.mark.parametrize("age,key,value,players", TYR)
def test_plain_battle_card_adds_its_str(g, age, key, value, players):
    s = _duel(g, f"{key}_{age}", age=age, players=players)
    g.play(s, {0: key})
    assert g.result(s) == (0, {0: 3 + value, 1: 2})
    assert g.discard(s) == [key] and g.hand(s, 0) == []


@pytest.mark.parametrize("age,key,value,players", TYR)
def test_plain_battle_card_exact_margin(g, age, key, value, players):
    """Against exactly leader + card STR the defender ties: everyone loses."""
    need = 3 + value
    defenders = ["warrior"] * need if need <= 8 else ["leader"] + ["warrior"] * (need - 3)
    s = g.state(
        players,
        [
            {"hand": [f"{key}_{age}"], "figures": {"Yggdrasil": ["leader"]}},
            {"figures": {"Yggdrasil": defenders}, "stats": {"horns": 6}},
        ],
        age=age,
    )
    g.pillage(s, 0, YGG)
    g.play(s, {0: key})
    assert g.result(s) == (-1, {0: need, 1: need})
    assert g.hand(s, 0) == [key], "a loser takes its card back"


# -- Odin's Smite: one warrior of each opponent destroyed before comparing -----------------


def test_odins_smite_kills_one_warrior_of_each_opponent(g):
    s = g.state(
        3,
        [
            {"hand": ["odins_smite"], "figures": {"Angerboda": ["leader", "warrior"]}},
            {"figures": {"Angerboda": ["warrior", "warrior"]}},
            {"figures": {"Angerboda": ["leader"], "Elvagar": ["warrior"]}},
        ],
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "odins_smite"})
    winner, totals = g.result(s)
    assert totals == {0: 3 + 1 + 1, 1: 1, 2: 3}, "seat 1 lost a warrior before the compare"
    assert winner == 0
    assert g.at(s, 0, ANG) == ["leader", "warrior"], "own warriors are safe"
    assert g.at(s, 2, E) == ["warrior"], "only warriors in the battle"
    assert g.valhalla(s, 1) == ["warrior", "warrior"] and g.valhalla(s, 2) == ["leader"]


def test_odins_smite_loser_still_takes_it_back(g):
    s = _duel(g, "odins_smite", "tyrs_smite", defenders=("warrior", "warrior"))
    g.play(s, {0: "odins_smite", 1: "tyrs_smite"})
    assert g.result(s) == (1, {0: 4, 1: 6})
    assert g.valhalla(s, 1) == ["warrior"] and g.at(s, 1, ANG) == ["warrior"]
    assert g.hand(s, 0) == ["odins_smite"]


# -- Odin's Tide: each player keeps one figure of its choice -------------------------------


def test_odins_tide_each_player_keeps_one(g):
    s = g.state(
        3,
        [
            {
                "hand": ["odins_tide"],
                "figures": {"Angerboda": ["leader", "warrior"], "North fjord": ["ship"]},
            },
            {"figures": {"Angerboda": ["warrior"] * 3}},
            {"figures": {"North fjord": ["ship"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "odins_tide"})
    assert g.prompt(s) == (PromptKind.TIDE_KEEP, 0), "the pillager chooses first"
    assert sorted(g.legal(s, 0)) == sorted(
        [
            g.A(g.K.KEEP_FIGURE, Unit.LEADER, ANG),
            g.A(g.K.KEEP_FIGURE, Unit.WARRIOR, ANG),
            g.A(g.K.KEEP_FIGURE, Unit.SHIP, Area.NORTH_FJORD),
        ]
    )
    g.act(s, 0, g.K.KEEP_FIGURE, Unit.SHIP, Area.NORTH_FJORD)
    assert g.valhalla(s, 0) == ["leader", "warrior"]
    assert g.prompt(s) == (PromptKind.TIDE_KEEP, 1), "seat 2 has one figure: not asked"
    assert g.legal(s, 1) == [g.A(g.K.KEEP_FIGURE, Unit.WARRIOR, ANG)]
    g.act(s, 1, g.K.KEEP_FIGURE, Unit.WARRIOR, ANG)
    assert g.result(s) == (0, {0: 2 + 1, 1: 1, 2: 2})
    assert s.clans[0].loc[FIG_SHIP] == Area.NORTH_FJORD
    assert g.valhalla(s, 1) == ["warrior"] * 3 and g.valhalla(s, 2) == ["ship"]
    assert s.pillaged[ANG] and g.steps(s, 0) == [2, 1, 1]


# -- Odin's Judgement: 2 Glory per figure destroyed in the battle (own included) ------------


def test_odins_judgement_winner(g):
    s = _duel(g, "odins_judgement", age=3)
    g.play(s, {0: "odins_judgement"})
    assert g.result(s) == (0, {0: 5, 1: 2})
    assert s.clans[0].glory == 2 * 2 + 3


def test_odins_judgement_counts_own_losses(g):
    s = _duel(g, "odins_judgement", "tyrs_rage", age=3)
    g.play(s, {0: "odins_judgement", 1: "tyrs_rage"})
    assert g.result(s) == (1, {0: 5, 1: 8})
    assert s.clans[0].glory == 2 * 1


# -- Thor's Hammer / Oath / Ascension: on a win ---------------------------------------------


def test_thors_hammer_win(g):
    s = _duel(g, "thors_hammer")
    g.play(s, {0: "thors_hammer"})
    assert g.result(s) == (0, {0: 4, 1: 2})
    assert s.clans[0].glory == 3 + 3


def test_thors_hammer_loss(g):
    s = _duel(g, "thors_hammer", "tyrs_smite")
    g.play(s, {0: "thors_hammer", 1: "tyrs_smite"})
    assert g.result(s)[0] == 1 and s.clans[0].glory == 0


def test_thors_oath_win_raises_a_stat(g):
    s = _duel(g, "thors_oath", age=2)
    g.play(s, {0: "thors_oath"})
    assert g.prompt(s) == (PromptKind.RAISE_STAT, 0)
    assert g.legal(s, 0) == [g.A(g.K.RAISE_STAT, st) for st in (0, 1, 2)]
    g.act(s, 0, g.K.RAISE_STAT, g.HORNS)
    assert g.steps(s, 0) == [2, 1, 2], "Angerboda's Rage reward and the Oath's Horns"


def test_thors_oath_loss(g):
    s = _duel(g, "thors_oath", "tyrs_rage", age=2)
    g.play(s, {0: "thors_oath", 1: "tyrs_rage"})
    assert g.prompt(s) is None and g.steps(s, 0) == [1, 1, 1]


def test_thors_ascension_win(g):
    s = _duel(g, "thors_ascension", age=3)
    g.play(s, {0: "thors_ascension"})
    assert s.clans[0].rage == 6 + 3
    assert s.clans[0].glory == 3 + 3


def test_thors_ascension_loss(g):
    s = _duel(g, "thors_ascension", "tyrs_rage", age=3)
    g.play(s, {0: "thors_ascension", 1: "tyrs_rage"})
    assert s.clans[0].rage == 6 and s.clans[0].glory == 0


# -- Thor's Primacy: cancels every opponent's revealed card text ----------------------------


def test_thors_primacy_cancels_judgement(g):
    s = _duel(g, "thors_primacy", "odins_judgement", age=3)
    g.play(s, {0: "thors_primacy", 1: "odins_judgement"})
    assert g.result(s) == (0, {0: 6, 1: 4})
    assert s.clans[1].glory == 0, "Judgement's 2 Glory per death cancelled"


def test_without_primacy_judgement_pays(g):
    s = _duel(g, "tyrs_rage", "odins_judgement", age=3)
    g.play(s, {0: "tyrs_rage", 1: "odins_judgement"})
    assert g.result(s)[0] == 0 and s.clans[1].glory == 4


def test_thors_primacy_cancels_smite(g):
    s = g.state(
        3,
        [
            {"hand": ["thors_primacy"], "figures": {"Angerboda": ["leader", "warrior"]}},
            {"hand": ["odins_smite_1"], "figures": {"Angerboda": ["leader"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "thors_primacy", 1: "odins_smite"})
    assert g.result(s) == (0, {0: 7, 1: 4}), "the Smite's STR still counts; its text not"
    assert g.valhalla(s, 0) == []


def test_thors_primacy_cancels_sight(g):
    s = _duel(g, "thors_primacy", "heimdalls_sight_1", age=3)
    g.play(s, {0: "thors_primacy", 1: "heimdalls_sight"})
    assert g.result(s) == (0, {0: 6, 1: 2})


def test_thors_primacy_cancels_the_pillagers_grace(g):
    """The pillager wins with Frigga's Grace, but the defender's Primacy cancelled its text:
    the reward only (Angerboda: Rage), no further stat."""
    s = _duel(g, "friggas_grace_1", "thors_primacy", age=3, defenders=("warrior",))
    g.play(s, {0: "friggas_grace", 1: "thors_primacy"})
    assert g.result(s) == (0, {0: 3 + 2, 1: 1 + 3})
    assert g.prompt(s) is None
    assert g.steps(s, 0) == [2, 1, 1], "the Rage reward alone"


# -- Loki's Trickery / Backstab / Poison: on a loss -----------------------------------------


def test_lokis_trickery_takes_1_rage(g):
    s = _duel(g, "tyrs_smash", "lokis_trickery")
    g.play(s, {0: "tyrs_smash", 1: "lokis_trickery"})
    assert g.result(s)[0] == 0
    assert g.rage(s)[:2] == [5, 7]
    assert g.hand(s, 1) == ["lokis_trickery"]


def test_lokis_trickery_winner_without_rage(g):
    s = g.state(
        3,
        [
            {"hand": ["lokis_trickery"], "figures": {"Angerboda": ["leader"]}},
            {"hand": ["tyrs_smite"], "rage": 0, "figures": {"Angerboda": ["warrior"]}},
        ],
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "lokis_trickery", 1: "tyrs_smite"})
    assert g.result(s)[0] == 1 and g.rage(s)[:2] == [6, 0]


def test_lokis_trickery_when_winning_does_nothing(g):
    s = _duel(g, "lokis_trickery")
    g.play(s, {0: "lokis_trickery"})
    assert g.result(s)[0] == 0 and g.rage(s)[:2] == [6, 6]


def test_lokis_backstab_takes_2_glory(g):
    s = g.state(
        3,
        [
            {"hand": ["tyrs_crush"], "glory": 10, "figures": {"Angerboda": ["leader"]}},
            {"hand": ["lokis_backstab"], "glory": 1, "figures": {"Angerboda": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "tyrs_crush", 1: "lokis_backstab"})
    assert g.result(s)[0] == 0
    assert g.glory(s)[:2] == [10 - 2 + 3, 1 + 2]


def test_lokis_backstab_never_below_zero(g):
    """**Decision** (card_effects): Backstab takes at most what the winner has."""
    s = g.state(
        3,
        [
            {"hand": ["tyrs_crush"], "glory": 1, "figures": {"Angerboda": ["leader"]}},
            {"hand": ["lokis_backstab"], "figures": {"Angerboda": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "tyrs_crush", 1: "lokis_backstab"})
    assert g.glory(s)[:2] == [0 + 3, 1]


def test_lokis_poison_takes_the_winners_cards(g):
    s = _duel(g, "tyrs_rage", "lokis_poison", age=3)
    g.play(s, {0: "tyrs_rage", 1: "lokis_poison"})
    assert g.result(s)[0] == 0
    assert g.hand(s, 1) == ["lokis_poison", "tyrs_rage"]
    assert g.discard(s) == [] and g.hand(s, 0) == []


def test_lokis_poison_when_winning_does_nothing(g):
    s = _duel(g, "lokis_poison", "friggas_domain", age=3, defenders=("warrior",))
    g.play(s, {0: "lokis_poison", 1: "friggas_domain"})
    assert g.result(s) == (0, {0: 3, 1: 1})
    assert g.hand(s, 0) == [] and g.hand(s, 1) == ["friggas_domain"]
    assert g.discard(s) == ["lokis_poison"]


# -- Frigga's Grace: another stat on a successful pillage -----------------------------------


@pytest.mark.parametrize(
    "province,options,reward",
    [
        ("Elvagar", [0, 1], [1, 1, 2]),  # Horns reward: Rage or Axes
        ("Angerboda", [1, 2], [2, 1, 1]),  # Rage reward: Axes or Horns
        ("Muspelheim", [0, 1, 2], [1, 1, 1]),  # 5 Glory: any stat
        ("Yggdrasil", [0, 1, 2], [2, 2, 2]),  # all stats: any stat
    ],
)
def test_friggas_grace_raises_another_stat(g, province, options, reward):
    s = g.state(
        3,
        [
            {"hand": ["friggas_grace"], "figures": {province: ["leader"]}},
            {"figures": {province: ["warrior"]}},
        ],
    )
    g.pillage(s, 0, Area[province.upper()])
    g.play(s, {0: "friggas_grace"})
    assert g.result(s) == (0, {0: 5, 1: 1})
    assert g.steps(s, 0) == reward
    assert g.prompt(s) == (PromptKind.RAISE_STAT, 0)
    assert g.legal(s, 0) == [g.A(g.K.RAISE_STAT, st) for st in options]
    g.act(s, 0, g.K.RAISE_STAT, options[-1])
    expected = list(reward)
    expected[options[-1]] += 1
    assert g.steps(s, 0) == expected


def test_friggas_grace_needs_a_successful_pillage(g):
    s = g.state(
        3,
        [
            {"hand": ["tyrs_smash"], "figures": {"Angerboda": ["leader"]}},
            {"hand": ["friggas_grace"], "figures": {"Angerboda": ["warrior", "warrior"]}},
        ],
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "tyrs_smash", 1: "friggas_grace"})
    assert g.result(s) == (0, {0: 6, 1: 4})
    assert g.prompt(s) is None and g.steps(s, 1) == [1, 1, 1]


def test_friggas_grace_defender_wins_no_stat(g):
    s = _duel(g, "lokis_trickery", "friggas_grace", defenders=("warrior", "warrior", "warrior"))
    g.play(s, {0: "lokis_trickery", 1: "friggas_grace"})
    assert g.result(s) == (1, {0: 3, 1: 5})
    assert g.prompt(s) is None and g.steps(s, 1) == [1, 1, 1]


# -- Heimdall's Sight: worth the highest enemy battle card revealed -------------------------


def test_heimdalls_sight_copies_the_highest_enemy_card(g):
    s = g.state(
        3,
        [
            {"hand": ["heimdalls_sight"], "figures": {"Angerboda": ["leader"]}},
            {"hand": ["tyrs_smash"], "figures": {"Angerboda": ["warrior"]}},
            {"hand": ["tyrs_smite"], "figures": {"Angerboda": ["warrior"]}},
        ],
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "heimdalls_sight", 1: "tyrs_smash", 2: "tyrs_smite"})
    assert g.result(s) == (0, {0: 3 + 5, 1: 1 + 3, 2: 1 + 5})


def test_heimdalls_sight_against_no_battle_card_is_zero(g):
    s = _duel(g, "heimdalls_sight", "lokis_domain")
    g.play(s, {0: "heimdalls_sight", 1: "lokis_domain"})
    assert g.result(s) == (0, {0: 3, 1: 2})


def test_heimdalls_sight_counts_a_late_eye(g):
    """Seat 1 reveals an upgrade (+0), then plays Heimdall's Eye late: Sight is worth 2."""
    s = g.state(
        3,
        [
            {"hand": ["heimdalls_sight_1"], "figures": {"Angerboda": ["leader"]}},
            {"hand": ["lokis_eminence", "heimdalls_eye"], "figures": {"Angerboda": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "heimdalls_sight", 1: "lokis_eminence"})
    g.act(s, 1, g.K.LATE_CARD, g.card(s, 1, "heimdalls_eye"))
    assert g.result(s) == (0, {0: 3 + 2, 1: 1 + 0 + 2})


def test_heimdalls_sight_counts_ship_fights_too(g):
    """Sight looks at cards, not figures: a lone ship's +4 card makes it +4."""
    s = g.state(
        4,
        [
            {"hand": ["heimdalls_sight"], "figures": {"Angerboda": ["leader"]}},
            {"hand": ["tyrs_crush"], "figures": {"North fjord": ["ship"]}},
        ],
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "heimdalls_sight", 1: "tyrs_crush"})
    assert g.result(s) == (0, {0: 7, 1: 6})
    assert s.clans[1].loc[FIG_SHIP] == VALHALLA


# -- Edges (issue 30's operators) ----------------------------------------------------------


def test_heimdalls_sight_is_worth_0_against_a_clan_without_cards(g):
    """The defender holds no card (it fights with its STR alone): Sight finds nothing."""
    s = _duel(g, "heimdalls_sight_1")
    g.play(s, {0: "heimdalls_sight"})
    assert g.result(s) == (0, {0: 3 + 0, 1: 2})


def test_lokis_backstab_takes_nothing_after_a_tie(g):
    """Everyone lost: there is no winner to stab, and the last seat keeps its Glory."""
    s = g.state(
        3,
        [
            {"hand": ["lokis_backstab"], "figures": {"Angerboda": ["leader"]}},
            {"hand": ["heimdalls_eye"], "figures": {"Angerboda": ["warrior"]}},
            {"glory": 10, "figures": {"Angerboda": ["leader"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "lokis_backstab", 1: "heimdalls_eye"})
    assert g.result(s)[0] == -1
    assert g.glory(s) == [0, 0, 10]


def test_lokis_backstab_takes_nothing_from_a_winner_below_0(g):
    """A scenario may start a clan below 0 Glory; Backstab never takes it further down."""
    s = _duel(g, "tyrs_crush", "lokis_backstab", age=2, glory=-5)
    g.play(s, {0: "tyrs_crush", 1: "lokis_backstab"})
    assert g.result(s)[0] == 0
    assert g.glory(s)[:2] == [-5 + 3, 0], "the winner's Axes only"
