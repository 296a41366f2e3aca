"""Card texts at their boundaries: a Rage cost paid with exactly that much Rage, the last free
village, a tie, 0 Glory, a seat other than 0, an effect's owner next to someone else's.

Each test here was missing when mutation testing (``make mutation``) changed the line it
checks and the whole suite still passed (issue 18)."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import FIG_LEADER, Area, Unit
from engine.blood_rage.state import PromptKind
from engine.blood_rage.view import view

E, ANG, MYR, HOR = Area.ELVAGAR, Area.ANGERBODA, Area.MYRKULOR, Area.HORGR


# -- Troll / Fire Giant act on their own invade only ---------------------------------------


def test_troll_owners_other_invades_destroy_nothing(g):
    """The Troll's text is about the Troll invading: its owner's warrior invading next to
    enemy warriors kills nobody."""
    s = g.state(
        3,
        [
            {"upgrades": ["troll"], "figures": {"Gimle": ["troll"]}},
            {"figures": {"Angerboda": ["warrior", "warrior"]}},
        ],
    )
    g.act(s, 0, g.K.INVADE, Unit.WARRIOR, ANG)
    assert g.at(s, 1, ANG) == ["warrior", "warrior"] and g.valhalla(s, 1) == []
    assert g.at(s, 0, ANG) == ["warrior"]


def test_fire_giant_owners_other_invades_destroy_nothing(g):
    s = g.state(
        3,
        [
            {"upgrades": ["fire_giant"], "figures": {"Gimle": ["fire_giant"]}},
            {"figures": {"Angerboda": ["leader", "warrior"], "North fjord": ["ship"]}},
        ],
        age=2,
    )
    g.act(s, 0, g.K.INVADE, Unit.LEADER, ANG)
    assert g.valhalla(s, 1) == []
    assert g.at(s, 1, ANG) == ["leader", "warrior"] and g.at(s, 1, Area.NORTH_FJORD) == ["ship"]


# -- Loki's Backstab / Loki's Poison -------------------------------------------------------


def test_lokis_backstab_takes_nothing_from_a_winner_on_0_glory(g):
    """**Decision** (card_effects): Backstab never takes a clan below 0 Glory; at 0 it takes
    nothing (the winner then gains its Axes as usual)."""
    s = g.state(
        3,
        [
            {"hand": ["tyrs_crush"], "glory": 0, "figures": {"Angerboda": ["leader"]}},
            {"hand": ["lokis_backstab"], "glory": 4, "figures": {"Angerboda": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "tyrs_crush", 1: "lokis_backstab"})
    assert g.result(s)[0] == 0
    assert g.glory(s)[:2] == [0 + 3, 4]


def test_lokis_poison_on_a_tie_takes_nothing(g):
    """A tie for the highest total: everyone loses, there is no winner whose cards Poison
    could take; each loser takes its own card back. The tied enemy is the last seat."""
    s = g.state(
        3,
        [
            {"hand": ["lokis_poison"], "figures": {"Angerboda": ["leader"]}},
            {},
            {"hand": ["tyrs_bash_1"], "figures": {"Angerboda": ["warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "lokis_poison", 2: "tyrs_bash"})
    assert g.result(s) == (-1, {0: 3, 2: 3})
    assert g.hand(s, 0) == ["lokis_poison"]
    assert g.hand(s, 2) == ["tyrs_bash"]
    assert g.discard(s) == []
    assert g.valhalla(s, 0) == ["leader"] and g.valhalla(s, 2) == ["warrior"]


# -- Rage costs paid with exactly that much Rage -------------------------------------------


def test_friggas_protection_with_exactly_1_rage(g):
    s = g.state(
        3,
        [
            {"figures": {"Elvagar": ["leader"]}},
            {
                "upgrades": ["friggas_protection"],
                "rage": 1,
                "figures": {"Elvagar": ["warrior", "warrior"]},
            },
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    assert g.prompt(s) == (PromptKind.PROTECT, 1)
    assert g.legal(s, 1) == [g.A(g.K.SAVE_FIGURE, Unit.WARRIOR, E), g.A(g.K.DECLINE)]
    g.act(s, 1, g.K.SAVE_FIGURE, Unit.WARRIOR, E)
    assert s.clans[1].rage == 0
    assert g.at(s, 1, E) == ["warrior"] and g.valhalla(s, 1) == ["warrior"]


def test_thors_domain_with_exactly_2_rage(g):
    s = g.state(
        4,
        [{"upgrades": ["thors_domain"], "rage": 2}, {"figures": {"Elvagar": ["warrior"]}}],
        age=2,
    )
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)  # the leader invades for 0 Rage
    assert g.prompt(s) == (PromptKind.THORS_DOMAIN, 0)
    g.act(s, 0, g.K.ACCEPT)
    assert s.clans[0].rage == 0
    assert g.result(s) == (0, {0: 3, 1: 1})
    assert s.pillaged[E]


def test_thors_domain_with_1_rage_is_not_offered(g):
    s = g.state(
        4,
        [{"upgrades": ["thors_domain"], "rage": 1}, {"figures": {"Elvagar": ["warrior"]}}],
        age=2,
    )
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)
    assert g.prompt(s) is None and s.turn == 1 and not s.pillaged[E]


def _challenge(g, rage):
    return g.state(
        3,
        [
            {"upgrades": ["tyrs_challenge"], "figures": {"Elvagar": ["leader"]}, "rage": rage},
            {"figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
        pillaged=["Elvagar"],
    )


def test_tyrs_challenge_with_exactly_2_rage(g):
    s = _challenge(g, 2)
    assert [a for a in g.legal(s, 0) if a.kind == g.K.CHALLENGE] == [g.A(g.K.CHALLENGE, E)]
    g.act(s, 0, g.K.CHALLENGE, E)
    assert s.clans[0].rage == 0
    g.decline_calls(s)
    assert g.result(s) == (0, {0: 3, 1: 1})


def test_friggas_domain_with_exactly_1_rage(g):
    s = g.state(
        3,
        [{"upgrades": ["friggas_domain"], "rage": 1, "figures": {"Valhalla": ["warrior"]}}],
        age=3,
    )
    assert g.A(g.K.INVADE_FROM_VALHALLA, Unit.WARRIOR, E) in g.legal(s, 0)
    g.act(s, 0, g.K.INVADE_FROM_VALHALLA, Unit.WARRIOR, E)
    assert s.clans[0].rage == 0
    assert g.at(s, 0, E) == ["warrior"] and g.valhalla(s, 0) == []


def test_friggas_sacrifice_with_exactly_2_figures(g):
    """Exactly two figures on the board (a third in Valhalla does not count): both go."""
    s = g.state(
        3,
        [
            {
                "upgrades": ["friggas_sacrifice"],
                "figures": {"Elvagar": ["leader"], "Horgr": ["warrior"], "Valhalla": ["warrior"]},
            }
        ],
        age=3,
    )
    assert sorted(a for a in g.legal(s, 0) if a.kind == g.K.SACRIFICE) == sorted(
        [g.A(g.K.SACRIFICE, Unit.LEADER, E), g.A(g.K.SACRIFICE, Unit.WARRIOR, HOR)]
    )
    g.act(s, 0, g.K.SACRIFICE, Unit.LEADER, E)
    assert g.legal(s, 0) == [g.A(g.K.SACRIFICE, Unit.WARRIOR, HOR)]
    g.act(s, 0, g.K.SACRIFICE, Unit.WARRIOR, HOR)
    g.act(s, 0, g.K.RAISE_STAT, g.AXES)
    assert g.steps(s, 0) == [1, 2, 1]
    assert g.valhalla(s, 0) == ["leader", "warrior", "warrior"]


# -- The last free village -----------------------------------------------------------------


def test_lord_of_hammers_moves_into_the_last_free_village(g):
    """Myrkulor (3 villages) holds two enemy warriors: its last village is a legal move."""
    s = g.state(
        3,
        [
            {"upgrades": ["lord_of_hammers"], "figures": {"Elvagar": ["leader"]}},
            {"figures": {"Myrkulor": ["warrior", "warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    assert g.A(g.K.MOVE_LEADER, MYR) in g.legal(s, 0)
    g.act(s, 0, g.K.MOVE_LEADER, MYR)
    assert s.clans[0].loc[FIG_LEADER] == MYR and s.free_villages(MYR) == 0


def test_friggas_succor_warrior_takes_the_last_free_village(g):
    """Myrkulor (3 villages): an enemy warrior, then the invading leader; one village left."""
    s = g.state(3, [{"upgrades": ["friggas_succor"]}, {"figures": {"Myrkulor": ["warrior"]}}])
    g.act(s, 0, g.K.INVADE, Unit.LEADER, MYR)
    assert g.prompt(s) == (PromptKind.SUCCOR, 0)
    assert g.legal(s, 0) == [g.A(g.K.FREE_INVADE, Unit.WARRIOR, MYR), g.A(g.K.DECLINE)]
    g.act(s, 0, g.K.FREE_INVADE, Unit.WARRIOR, MYR)
    assert g.at(s, 0, MYR) == ["leader", "warrior"] and s.free_villages(MYR) == 0


def test_friggas_succor_not_offered_into_a_full_province(g):
    s = g.state(
        3,
        [{"upgrades": ["friggas_succor"]}, {"figures": {"Myrkulor": ["warrior", "warrior"]}}],
    )
    g.act(s, 0, g.K.INVADE, Unit.LEADER, MYR)
    assert g.prompt(s) is None and s.turn == 1


def test_lokis_blessing_warrior_takes_the_last_free_village(g):
    """Elvagar (4 villages): the winner's three figures stay, the loser's warrior dies and
    leaves exactly one village for Blessing's warrior."""
    s = g.state(
        4,
        [
            {"figures": {"Elvagar": ["leader", "warrior", "warrior"]}},
            {"upgrades": ["lokis_blessing"], "figures": {"Elvagar": ["warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    assert g.result(s) == (0, {0: 5, 1: 1})
    assert g.prompt(s) == (PromptKind.BLESSING, 1)
    assert g.legal(s, 1) == [g.A(g.K.FREE_INVADE, Unit.WARRIOR, E), g.A(g.K.DECLINE)]
    g.act(s, 1, g.K.FREE_INVADE, Unit.WARRIOR, E)
    assert g.at(s, 1, E) == ["warrior"] and s.free_villages(E) == 0


# -- Seats other than 0 --------------------------------------------------------------------


def test_valkyrie_of_the_last_seat_took_part(g):
    """Seat 2's Valkyrie defends Elvagar against seat 1's pillage: 2 Glory for the enemy
    warrior destroyed, plus Axes for the win."""
    s = g.state(
        3,
        [
            {},
            {"figures": {"Elvagar": ["warrior"]}},
            {"upgrades": ["valkyrie"], "figures": {"Elvagar": ["valkyrie", "warrior"]}},
        ],
        age=2,
        turn=1,
    )
    g.pillage(s, 1, E)
    assert g.result(s) == (2, {1: 1, 2: 3})
    assert s.clans[2].glory == 2 * 1 + 3
    assert s.clans[1].glory == 0


def test_valkyrie_elsewhere_did_not_take_part(g):
    """Seat 2 wins a battle its Valkyrie was not in: no Valkyrie Glory."""
    s = g.state(
        3,
        [
            {},
            {"figures": {"Elvagar": ["warrior"]}},
            {"upgrades": ["valkyrie"], "figures": {"Elvagar": ["leader"], "Gimle": ["valkyrie"]}},
        ],
        age=2,
        turn=1,
    )
    g.pillage(s, 1, E)
    assert g.result(s) == (2, {1: 1, 2: 3})
    assert s.clans[2].glory == 3


def test_heimdalls_sight_ignores_its_owners_late_card(g):
    """Sight is worth the highest *enemy* card: seat 1's own late Heimdall's Eye (+2) counts
    for itself, not for its Sight (worth seat 0's Thor's Hammer, +1)."""
    s = g.state(
        3,
        [
            {"hand": ["thors_hammer", "tyrs_bash_1"], "figures": {"Angerboda": ["warrior"]}},
            {"hand": ["heimdalls_sight_1", "heimdalls_eye"], "figures": {"Angerboda": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "thors_hammer", 1: "heimdalls_sight"})
    assert g.awaiting(s) == [1]  # the pillager has no late card; seat 1 may play its Eye
    g.act(s, 1, g.K.LATE_CARD, g.card(s, 1, "heimdalls_eye"))
    assert g.result(s) == (1, {0: 1 + 1, 1: 1 + 1 + 2})


def test_the_view_counts_reveal_rounds(g):
    """The battle's ``reveal_round``: 0 while cards are chosen, 1 after the reveal, 2 after
    Heimdall's Watch made everyone play again (seen while seat 1 may play a late card)."""
    s = g.state(
        3,
        [
            {"hand": ["heimdalls_watch", "tyrs_crush"], "figures": {"Elvagar": ["leader"]}},
            {
                "hand": ["tyrs_bash_1", "tyrs_smash_1", "heimdalls_eye"],
                "figures": {"Elvagar": ["warrior"]},
            },
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    assert view(s, 1)["battle"]["reveal_round"] == 0
    g.play(s, {0: "heimdalls_watch", 1: "tyrs_bash"})
    assert g.prompt(s) == (PromptKind.LATE_CARD, 1)
    assert view(s, -1)["battle"]["reveal_round"] == 1
    g.act(s, 1, g.K.DECLINE)
    g.play(s, {0: "tyrs_crush", 1: "tyrs_smash"})
    assert g.prompt(s) == (PromptKind.LATE_CARD, 1)
    assert view(s, 0)["battle"]["reveal_round"] == 2
    g.act(s, 1, g.K.DECLINE)
    assert g.result(s) == (0, {0: 3 + 4, 1: 1 + 3})


def test_lord_of_hammers_leaves_yggdrasil_for_any_outer_province_with_room(g):
    """Yggdrasil is adjacent to every outer province (fjords are not provinces): after a
    successful pillage there, the leader may move to each outer province with a free
    village, here all but Myrkulor (full) and the destroyed Utgard."""
    s = g.state(
        3,
        [
            {"upgrades": ["lord_of_hammers"], "figures": {"Yggdrasil": ["leader"]}},
            {"figures": {"Myrkulor": ["warrior"] * 3}},
        ],
        destroyed=["Utgard"],
    )
    g.pillage(s, 0, Area.YGGDRASIL)
    assert s.pillaged[Area.YGGDRASIL]
    outer = [p for p in range(1, 9) if p not in (MYR, Area.UTGARD)]
    assert g.legal(s, 0) == [*(g.A(g.K.MOVE_LEADER, p) for p in outer), g.A(g.K.DECLINE)]


def test_thors_domain_is_not_offered_after_a_ship_invades_a_fjord(g):
    """A fjord is no province: there is nothing to pillage there."""
    s = g.state(4, [{"upgrades": ["thors_domain"]}], age=2)
    g.act(s, 0, g.K.INVADE, Unit.SHIP, Area.NORTH_FJORD)
    assert g.prompt(s) is None and s.turn == 1


def test_the_dark_elf_offers_yggdrasil_first(g):
    """Legal actions are answered by index: the Dark Elf's targets are Yggdrasil, then the
    live outer provinces in ring order (Muspelheim fell in Age 1)."""
    s = g.state(3, [{"upgrades": ["dark_elf"]}], age=2)
    targets = [a.b for a in g.legal(s, 0) if a.kind == g.K.INVADE and a.a == Unit.DARK_ELF]
    assert targets == [Area.YGGDRASIL, *[p for p in range(1, 9) if p != Area.MUSPELHEIM]]


# -- printed +STR of cards whose text acts after the comparison ------------------------------


@pytest.mark.parametrize(
    ("card", "age"), [("lokis_backstab", 2), ("thors_oath", 2), ("thors_ascension", 3)]
)
def test_a_card_acting_after_the_battle_adds_only_its_printed_str(g, card, age):
    """Seat 1 (leader, 3) plays the card against seat 2's two warriors and Tyr's Bash (2 + 2):
    with Backstab's 0 seat 2 wins 4 to 3; with Oath's or Ascension's 1 it is a 4-4 tie, which
    nobody wins."""
    s = g.state(
        3,
        [
            {},
            {"hand": [card], "figures": {"Angerboda": ["leader"]}},
            {"hand": ["tyrs_bash"], "figures": {"Angerboda": ["warrior", "warrior"]}},
        ],
        age=age,
        turn=1,
    )
    g.pillage(s, 1, ANG)
    g.play(s, {1: card, 2: "tyrs_bash"})
    printed = 0 if card == "lokis_backstab" else 1
    assert g.result(s) == (2 if printed == 0 else -1, {1: 3 + printed, 2: 4})
