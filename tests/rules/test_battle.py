"""§5 Pillage 2–3: secret battle cards, strength, ties, losers to Valhalla, rewards, Glory.

Only battle cards without text (Tyr's Bash/Smash/Crush/Smite/Rage) and upgrade or quest cards
(which add nothing in battle) are played here, so card texts never change the outcome.
"""

from __future__ import annotations

import pytest

from engine.blood_rage.flow import is_simultaneous
from engine.blood_rage.ids import FIG_SHIP, VALHALLA, Area, Phase, Step, Unit
from engine.blood_rage.snapshot import to_snapshot
from engine.core.errors import NotYourDecisionError


def test_andlang_pillage_example(h):
    """seeds/000_3142a3a5a8184f45.txt, ΛΕΗΛΑΣΙΑ (Pillage) worked example (Wolf = red, Raven = blue,
    Serpent = yellow): Wolf pillages Andlang with only its ship in the adjacent fjord. Raven
    (Wolf's left) calls a warrior from Gimle; Serpent cannot bring its leader from Horgr (not
    adjacent); Wolf calls a warrior from Yggdrasil; Raven fills the last village with a warrior
    from Yggdrasil; Wolf cannot add more. Wolf has 3 STR (ship 2 + warrior 1), Raven 2. Wolf
    reveals a +4 card, Raven an upgrade card: 7 vs 2. Raven's two warriors die and its card
    returns to hand; Wolf flips the token, raises Axes from 3 to 4, then gains 4 Glory and
    discards its card."""
    state = h.scenario(
        4,
        [
            {
                "hand": ["tyrs_crush"],
                "figures": {"South fjord": ["ship"], "Yggdrasil": ["warrior", "warrior"]},
            },
            {
                "hand": ["lokis_domain", "tyrs_bash"],
                "figures": {"Gimle": ["warrior"], "Yggdrasil": ["warrior"]},
            },
            {"figures": {"Horgr": ["leader"]}},
            {},
        ],
        pillaged=["Horgr"],
    )
    assert state.token[Area.ANDLANG] == 2  # axes (fixed layout in conftest)
    h.act(state, 0, h.K.PILLAGE, Area.ANDLANG)
    assert h.awaiting(state) == [1]
    h.act(state, 1, h.K.CALL_TO_BATTLE, Area.GIMLE, Unit.WARRIOR)
    assert h.awaiting(state) == [0], "Serpent (Horgr) and Bear cannot answer: skipped"
    h.act(state, 0, h.K.CALL_TO_BATTLE, Area.YGGDRASIL, Unit.WARRIOR)
    assert h.awaiting(state) == [1], "second round"
    h.act(state, 1, h.K.CALL_TO_BATTLE, Area.YGGDRASIL, Unit.WARRIOR)
    # Andlang (3 villages) is full: the call is over, Wolf cannot bring its second warrior.
    assert state.occupancy[Area.ANDLANG] == 3
    assert h.count_at(state, 0, Area.YGGDRASIL) == 1
    assert state.strength_in(0, Area.ANDLANG) == 3
    assert state.strength_in(1, Area.ANDLANG) == 2
    assert state.step == Step.BATTLE_CARDS
    assert sorted(h.awaiting(state)) == [0, 1]
    crush = h.card(state, 0, "tyrs_crush")
    domain = h.card(state, 1, "lokis_domain")
    h.act(state, 0, h.K.BATTLE_CARD, crush)
    h.act(state, 1, h.K.BATTLE_CARD, domain)
    assert h.valhalla(state, 1) == 2
    assert h.count_at(state, 1, Area.ANDLANG) == 0
    assert sorted(state.clans[1].hand) == sorted([domain, h.card(state, 1, "tyrs_bash")])
    assert state.pillaged[Area.ANDLANG]
    assert state.clans[0].axes == 4
    assert state.clans[0].glory == 4
    assert crush in state.discard and crush not in state.clans[0].hand
    assert h.units_at(state, 0, Area.ANDLANG) == ["warrior"]
    assert state.clans[0].loc[FIG_SHIP] == Area.SOUTH_FJORD
    assert state.clans[1].glory == 0
    assert state.turn == 1


def _duel(h, pillager_hand, defender_hand, **extra):
    """Seat 0 (leader in Gimle) pillages Gimle; seat 1 holds 2 warriors there."""
    return h.scenario(
        3,
        [
            {"hand": pillager_hand, "figures": {"Gimle": ["leader"]}},
            {"hand": defender_hand, "figures": {"Gimle": ["warrior", "warrior"]}},
            {},
        ],
        **extra,
    )


def test_battle_cards_are_simultaneous_secret_and_forced(h):
    """§5 Pillage 2: every participant holding cards must choose one, secretly; all reveal
    together."""
    state = _duel(h, ["tyrs_bash", "tyrs_smash"], ["tyrs_smite"])
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    h.decline_calls(state)
    assert state.step == Step.BATTLE_CARDS
    assert is_simultaneous(state)
    assert h.awaiting(state) == [0, 1]
    assert {a.kind for a in h.legal(state, 0)} == {h.K.BATTLE_CARD}
    h.assert_illegal(state, 0, (h.K.DECLINE,))
    h.assert_not_yours(state, 2, (h.K.DECLINE,))
    smash = h.card(state, 0, "tyrs_smash")
    h.act(state, 0, h.K.BATTLE_CARD, smash)
    assert h.awaiting(state) == [1]
    for other in (1, 2, -1):
        assert f'"instance": {smash},' not in h.view_text(state, other)
    assert h.view(state, 0)["private"]["battle_card"]["instance"] == smash
    with pytest.raises(NotYourDecisionError):
        h.act(state, 0, h.K.BATTLE_CARD, h.card(state, 0, "tyrs_bash"))
    h.act(state, 1, h.K.BATTLE_CARD, h.card(state, 1, "tyrs_smite"))
    assert state.phase == Phase.ACTION and state.step == Step.ACTION


def test_strength_plus_card_decides_and_winner_discards_loser_takes_back(h):
    """§5 Pillage 3: total = figures' STR + card; the highest wins; the winner discards its
    card, the loser takes its card back and its figures go to Valhalla."""
    state = _duel(h, ["tyrs_smash"], ["tyrs_bash"])
    bash = h.card(state, 1, "tyrs_bash")
    smash = h.card(state, 0, "tyrs_smash")
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    h.decline_calls(state)
    h.play_cards(state, {0: "tyrs_smash", 1: "tyrs_bash"})
    # 3 + 3 = 6 against 2 + 2 = 4.
    assert smash in state.discard and smash not in state.clans[0].hand
    assert state.clans[1].hand == [bash]
    assert h.valhalla(state, 1) == 2 and h.valhalla(state, 0) == 0
    assert h.units_at(state, 0, Area.GIMLE) == ["leader"]
    assert state.pillaged[Area.GIMLE]
    assert state.clans[0].steps == [0, 1, 0]
    assert state.clans[0].glory == 4, "Glory = Axes after the Axes reward (3 → 4)"


def test_tie_below_the_highest_total_does_not_matter(h):
    """§5 Pillage 3: only a tie for the *highest* total makes everyone lose; a third clan
    above two tied ones wins (here a non-pillager with a ship in the fjord)."""
    state = h.scenario(
        3,
        [
            {"hand": ["tyrs_bash"], "figures": {"Gimle": ["leader"]}},
            {"hand": ["tyrs_smash"], "figures": {"Gimle": ["warrior", "warrior"]}},
            {"hand": ["tyrs_smite"], "figures": {"West fjord": ["ship"]}},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    h.decline_calls(state)
    assert state.battle.participants == [0, 1, 2]
    bash, smash = h.card(state, 0, "tyrs_bash"), h.card(state, 1, "tyrs_smash")
    h.act(state, 0, h.K.BATTLE_CARD, bash)
    h.act(state, 1, h.K.BATTLE_CARD, smash)
    smite = h.card(state, 2, "tyrs_smite")
    h.act(state, 2, h.K.BATTLE_CARD, smite)
    # Totals: 3+2 = 5, 2+3 = 5, 2+5 = 7 → seat 2 wins.
    assert state.clans[2].glory == 3
    assert h.valhalla(state, 0) == 1 and h.valhalla(state, 1) == 2
    assert state.clans[2].loc[FIG_SHIP] == Area.WEST_FJORD
    assert smite in state.discard
    assert state.clans[0].hand == [bash] and state.clans[1].hand == [smash]
    assert not state.pillaged[Area.GIMLE]


def test_tie_for_highest_everyone_loses(h):
    """§5 Pillage 3: on a tie for the highest total everyone loses: all figures in the battle
    die, every card goes back to its owner's hand, nobody pillages, nobody gains Glory."""
    state = h.scenario(
        3,
        [
            {"hand": ["tyrs_bash"], "figures": {"Gimle": ["leader"]}},
            {"hand": ["tyrs_smash"], "figures": {"Gimle": ["warrior", "warrior"]}},
            {"hand": ["lokis_domain"], "figures": {"West fjord": ["ship"]}},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    h.decline_calls(state)
    bash, smash = h.card(state, 0, "tyrs_bash"), h.card(state, 1, "tyrs_smash")
    domain = h.card(state, 2, "lokis_domain")
    h.play_cards(state, {0: "tyrs_bash", 1: "tyrs_smash", 2: "lokis_domain"})
    # Totals 5, 5, 2: a tie for the highest → all three lose.
    assert [h.valhalla(state, s) for s in range(3)] == [1, 2, 1]
    assert state.clans[2].loc[FIG_SHIP] == VALHALLA
    assert state.occupancy[Area.GIMLE] == 0 and state.occupancy[Area.WEST_FJORD] == 0
    assert state.clans[0].hand == [bash]
    assert state.clans[1].hand == [smash]
    assert state.clans[2].hand == [domain]
    assert not state.pillaged[Area.GIMLE]
    assert [c.glory for c in state.clans] == [0, 0, 0]
    assert [c.steps for c in state.clans] == [[0, 0, 0]] * 3
    assert bash not in state.discard and smash not in state.discard


def test_two_way_tie_without_cards(h):
    """A tie on figures alone (nobody holds a card): both lose, no pillage."""
    state = h.scenario(
        2,
        [{"figures": {"Elvagar": ["warrior", "warrior"]}}, {"figures": {"North fjord": ["ship"]}}],
    )
    h.act(state, 0, h.K.PILLAGE, Area.ELVAGAR)
    assert state.step == Step.ACTION
    assert h.valhalla(state, 0) == 2 and h.valhalla(state, 1) == 1
    assert not state.pillaged[Area.ELVAGAR]
    assert [c.glory for c in state.clans] == [0, 0]


def test_losing_ship_in_a_supporting_fjord_dies(h):
    """§5 Pillage 3: every loser's figures in the battle, fjords included, go to Valhalla;
    a ship in a fjord that does not support the province is untouched."""
    state = h.scenario(
        3,
        [
            {"hand": ["tyrs_smite"], "figures": {"Myrkulor": ["leader", "warrior"]}},
            {"hand": ["tyrs_bash"], "figures": {"West fjord": ["ship"], "Myrkulor": ["warrior"]}},
            {"hand": ["tyrs_smash"], "figures": {"North fjord": ["ship"]}},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.MYRKULOR)
    h.decline_calls(state)
    assert state.battle.participants == [0, 1]
    h.play_cards(state, {0: "tyrs_smite", 1: "tyrs_bash"})
    assert state.clans[1].loc[FIG_SHIP] == VALHALLA
    assert h.valhalla(state, 1) == 2
    assert state.clans[2].loc[FIG_SHIP] == Area.NORTH_FJORD
    assert len(state.clans[2].hand) == 1
    assert state.clans[0].glory == 3
    assert state.clans[0].steps == [1, 0, 0]


def test_non_pillager_winner_gains_glory_but_no_reward(h):
    """§5 Pillage 3: if the pillager loses, the province stays unpillaged and nobody gets the
    reward; the winner still gains Glory equal to its Axes; anyone may pillage it again."""
    state = h.scenario(
        3,
        [
            {"hand": ["tyrs_bash"], "figures": {"Gimle": ["warrior"]}},
            {"stats": {"axes": 3}, "hand": ["tyrs_smite"], "figures": {"Gimle": ["warrior"]}},
            {},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    h.decline_calls(state)
    h.play_cards(state, {0: "tyrs_bash", 1: "tyrs_smite"})
    assert state.clans[1].glory == 5
    assert state.clans[1].steps == [0, 2, 0], "no Axes reward for a non-pillager"
    assert not state.pillaged[Area.GIMLE]
    assert state.clans[0].glory == 0 and h.valhalla(state, 0) == 1
    assert state.turn == 1
    assert h.A(h.K.PILLAGE, Area.GIMLE) in h.legal(state, 1)
    h.act(state, 1, h.K.PILLAGE, Area.GIMLE)
    assert state.pillaged[Area.GIMLE]
    assert state.clans[1].steps == [0, 3, 0]
    assert state.clans[1].glory == 5, "unopposed: no battle Glory"


def test_pillager_who_lost_may_try_again(h):
    state = h.scenario(
        2,
        [
            {
                "hand": ["tyrs_bash"],
                "figures": {"Gimle": ["warrior"], "Yggdrasil": ["leader", "warrior"]},
            },
            {"hand": ["tyrs_smite"], "figures": {"Gimle": ["warrior"]}, "rage": 0},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    h.decline_calls(state)
    h.play_cards(state, {0: "tyrs_bash", 1: "tyrs_smite"})
    assert not state.pillaged[Area.GIMLE]
    h.act(state, 0, h.K.MARCH, Area.YGGDRASIL, Area.GIMLE, Unit.LEADER)
    h.act(state, 0, h.K.MARCH_DONE)
    assert h.A(h.K.PILLAGE, Area.GIMLE) in h.legal(state, 0)


def test_participant_without_cards_fights_with_strength_only(h):
    """§5 Pillage 2: a clan with an empty hand plays nothing but stays in the battle."""
    state = h.scenario(
        3,
        [
            {"hand": ["tyrs_bash"], "figures": {"Horgr": ["warrior"]}},
            {"figures": {"Horgr": ["leader"]}},
            {},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.HORGR)
    h.decline_calls(state)
    assert h.awaiting(state) == [0]
    h.play_cards(state, {0: "tyrs_bash"})
    # 1 + 2 = 3 against the leader's 3: a tie, both lose.
    assert h.valhalla(state, 0) == 1 and h.valhalla(state, 1) == 1
    assert len(state.clans[0].hand) == 1


def test_quest_and_upgrade_cards_add_nothing(h):
    """§5 Pillage 2: quest and upgrade cards add no STR when revealed."""
    state = h.scenario(
        3,
        [
            {"hand": ["manheim"], "figures": {"Horgr": ["warrior", "warrior"]}},
            {"hand": ["thors_glory"], "figures": {"Horgr": ["warrior"]}},
            {},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.HORGR)
    h.decline_calls(state)
    h.play_cards(state, {0: "manheim", 1: "thors_glory"})
    assert h.valhalla(state, 1) == 1
    assert state.clans[0].glory == 3
    assert state.clans[0].steps == [1, 0, 0]
    assert h.keys(state.clans[1].hand) == ["thors_glory"]


@pytest.mark.parametrize(
    ("upgrade", "warriors", "strength"),
    [
        (None, 3, 3),
        ("brothers_in_arms", 2, 3),
        ("brothers_in_arms", 3, 4),
        ("experts_in_arms", 3, 6),
        ("masters_in_arms", 2, 6),
        ("masters_in_arms", 3, 8),
    ],
)
def test_warrior_upgrade_strength_numbers(h, upgrade, warriors, strength):
    """cards.md: Brothers in Arms pairs count 3; Experts in Arms warriors 2; Masters in Arms
    warriors 2 and pairs 6 (STR counted per province)."""
    ups = [upgrade] if upgrade else []
    state = h.scenario(
        3,
        [
            {
                "upgrades": ups,
                "figures": {"Angerboda": ["warrior"] * warriors, "Gimle": ["warrior"]},
            },
            {},
            {},
        ],
    )
    assert state.strength_in(0, Area.ANGERBODA) == strength
    single = 2 if upgrade in ("experts_in_arms", "masters_in_arms") else 1
    assert state.strength_in(0, Area.GIMLE) == single


def test_figure_and_monster_strength_numbers(h):
    """board.md: leader 3, ship 2 (in each province its fjord supports); cards.md monster STR;
    the Dark Elf is STR 3 in Yggdrasil."""
    state = h.scenario(
        3,
        [
            {
                "upgrades": ["troll", "fire_giant"],
                "figures": {
                    "Elvagar": ["leader", "troll"],
                    "North fjord": ["ship"],
                    "Horgr": ["fire_giant"],
                },
            },
            {
                "upgrades": ["dark_elf", "frost_giant"],
                "figures": {"Yggdrasil": ["dark_elf"], "Gimle": ["frost_giant"]},
            },
            {"upgrades": ["valkyrie"], "figures": {"Utgard": ["valkyrie"]}},
        ],
    )
    assert state.strength_in(0, Area.ELVAGAR) == 3 + 2 + 2
    assert state.strength_in(0, Area.ANGERBODA) == 2
    assert state.strength_in(0, Area.HORGR) == 4
    assert state.strength_in(1, Area.YGGDRASIL) == 3
    assert state.strength_in(1, Area.GIMLE) == 4
    assert state.strength_in(2, Area.UTGARD) == 2
    assert state.strength_in(2, Area.GIMLE) == 0


def test_zero_rage_defender_must_still_play_a_card(h):
    """§5: a 0-Rage clan still reacts: it is in the battle and must play a card it holds."""
    state = h.scenario(
        3,
        [
            {"hand": ["tyrs_bash"], "figures": {"Gimle": ["leader"]}},
            {"rage": 0, "hand": ["tyrs_smite", "manheim"], "figures": {"Gimle": ["warrior"]}},
            {},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    h.decline_calls(state)
    assert h.awaiting(state) == [0, 1]
    assert {a.kind for a in h.legal(state, 1)} == {h.K.BATTLE_CARD}
    h.play_cards(state, {0: "tyrs_bash", 1: "tyrs_smite"})
    # 3 + 2 = 5 against 1 + 5 = 6: the 0-Rage defender wins.
    assert state.clans[1].glory == 3
    assert h.valhalla(state, 0) == 1
    assert state.clans[1].rage == 0


# -- What the texts and the rules do not do (issue 30's operators) -------------------------


def test_an_upgrade_card_in_battle_is_worth_0_even_with_tyrs_domain(h):
    """Tyr's Domain makes a quest card a +3 card; an upgrade card played stays +0."""
    state = h.scenario(
        3,
        [
            {
                "upgrades": ["tyrs_domain"],
                "hand": ["lokis_domain"],
                "figures": {"Elvagar": ["leader"]},
            },
            {"hand": ["tyrs_bash"], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.ELVAGAR)
    h.decline_calls(state)
    h.play_cards(state, {0: "lokis_domain", 1: "tyrs_bash"})
    assert h.view(state)["battle"] is None
    assert h.units_at(state, 0, VALHALLA) == ["leader"], "3 + 0 against 2 + 2"


def test_the_battle_lists_its_monsters_not_its_ships(h):
    """A battle records which monsters took part (the Valkyrie asks); a ship in a supporting
    fjord is no monster. The snapshot (a stored game) shows it."""
    state = h.scenario(
        3,
        [
            {"upgrades": ["troll"], "figures": {"Elvagar": ["troll"], "North fjord": ["ship"]}},
            {"hand": ["tyrs_bash"], "figures": {"Elvagar": ["warrior"]}},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.ELVAGAR)
    h.decline_calls(state)
    assert state.step == Step.BATTLE_CARDS
    assert to_snapshot(state)["battle"]["monsters"] == [0 * 32 + Unit.TROLL]
