"""§5 Pillage: who may pillage, the Call to Battle, automatic success, rewards."""

from __future__ import annotations

from engine.blood_rage.ids import FIG_SHIP, RESERVE, Area, Phase, Step, Unit


def pillage_targets(h, state, seat):
    return sorted(a.a for a in h.legal(state, seat) if a.kind == h.K.PILLAGE)


def test_pillage_needs_presence_in_the_province_or_a_supporting_fjord(h):
    """§5 Pillage: a figure in the province, or a ship in a fjord supporting it."""
    state = h.scenario(
        3,
        [{"figures": {"Gimle": ["warrior"], "North fjord": ["ship"]}}, {}, {}],
    )
    assert pillage_targets(h, state, 0) == [Area.ELVAGAR, Area.ANGERBODA, Area.GIMLE]
    h.assert_illegal(state, 0, (h.K.PILLAGE, Area.MYRKULOR))
    h.assert_illegal(state, 0, (h.K.PILLAGE, Area.YGGDRASIL))


def test_pillage_not_in_destroyed_or_already_pillaged_provinces(h):
    """§5 Pillage: not destroyed, not already successfully pillaged this Age."""
    state = h.scenario(
        3,
        [{"figures": {"Gimle": ["warrior"], "South fjord": ["ship"]}}, {}, {}],
        destroyed=["Utgard"],
        pillaged=["Gimle"],
    )
    assert pillage_targets(h, state, 0) == [Area.ANDLANG]
    msg = h.assert_illegal(state, 0, (h.K.PILLAGE, Area.GIMLE))
    assert "pillaged" in msg
    h.assert_illegal(state, 0, (h.K.PILLAGE, Area.UTGARD))


def test_pillage_is_free(h):
    state = h.scenario(3, [{"rage": 1, "figures": {"Gimle": ["warrior"]}}, {}, {}])
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    assert state.clans[0].rage == 1


def test_unopposed_pillage_succeeds_without_battle_glory(h):
    """§5 Pillage 1: with no enemy in the province or its fjords after the Call to Battle,
    the pillage succeeds at once: reward, token flipped, and no battle Glory."""
    state = h.scenario(
        3,
        [
            {"hand": ["tyrs_smite"], "figures": {"Gimle": ["warrior"]}},
            {"figures": {"Horgr": ["leader"]}},
            {},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    assert state.battle is None
    assert state.pillaged[Area.GIMLE]
    assert state.clans[0].steps == [0, 1, 0], "Gimle's token: +1 Axes"
    assert state.clans[0].glory == 0
    assert len(state.clans[0].hand) == 1, "no card was played"
    assert h.view(state)["provinces"][Area.GIMLE]["pillaged"] is True
    assert h.view(state)["provinces"][Area.GIMLE]["pillage_token"] == "axes"
    assert state.turn == 1


def test_call_to_battle_order_from_the_pillagers_left_pillager_last(h):
    """§5 Pillage 1: starting left of the pillager, clockwise, the pillager last in each
    round; rounds repeat until everyone declines in a round."""
    yggdrasil = {"figures": {"Yggdrasil": ["warrior", "warrior"]}}
    state = h.scenario(
        4,
        [
            yggdrasil,
            {
                "hand": ["tyrs_bash"],
                "figures": {"Yggdrasil": ["warrior", "warrior"], "Horgr": ["leader"]},
            },
            {"hand": ["tyrs_smash"], **yggdrasil},
            yggdrasil,
        ],
        first_player=1,
        turn=1,
    )
    h.act(state, 1, h.K.PILLAGE, Area.HORGR)
    seen = []
    # Round 1: seat 2 answers, the others decline.
    for seat, answer in ((2, True), (3, False), (0, False), (1, False)):
        assert h.awaiting(state) == [seat]
        seen.append(seat)
        if answer:
            h.act(state, seat, h.K.CALL_TO_BATTLE, Area.YGGDRASIL, Unit.WARRIOR)
        else:
            h.act(state, seat, h.K.DECLINE)
    # Someone answered, so there is a second round; everyone declines and it ends.
    for seat in (2, 3, 0, 1):
        assert h.awaiting(state) == [seat]
        h.act(state, seat, h.K.DECLINE)
    assert seen == [2, 3, 0, 1]
    assert state.battle is not None and state.battle.participants == [1, 2]
    assert h.count_at(state, 2, Area.HORGR) == 1


def test_call_to_battle_ends_when_the_province_is_full(h):
    """§5 Pillage 1: the Call ends once all villages are full (Andlang has 3)."""
    state = h.scenario(
        3,
        [
            {"hand": ["tyrs_bash"], "figures": {"Andlang": ["leader"]}},
            {"hand": ["tyrs_smash"], "figures": {"Gimle": ["warrior", "warrior", "warrior"]}},
            {"hand": ["tyrs_smite"], "figures": {"Utgard": ["warrior", "warrior", "warrior"]}},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.ANDLANG)
    h.act(state, 1, h.K.CALL_TO_BATTLE, Area.GIMLE, Unit.WARRIOR)
    h.act(state, 2, h.K.CALL_TO_BATTLE, Area.UTGARD, Unit.WARRIOR)
    assert state.occupancy[Area.ANDLANG] == 3
    assert state.step == Step.BATTLE_CARDS
    assert state.battle.participants == [0, 1, 2]
    assert h.count_at(state, 1, Area.GIMLE) == 2 and h.count_at(state, 2, Area.UTGARD) == 2


def test_yggdrasil_call_has_no_village_limit(h):
    """§5 (seeds/000_3142a3a5a8184f45.txt, Call to Battle note): Yggdrasil has no villages; any
    number of figures may join there."""
    state = h.scenario(
        2,
        [
            {"figures": {"Yggdrasil": ["leader"]}},
            {
                "stats": {"horns": 5},
                "figures": {"Gimle": ["warrior"] * 5, "Horgr": ["warrior"] * 3 + ["leader"]},
            },
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.YGGDRASIL)
    for _ in range(9):
        assert h.awaiting(state) == [1]
        if h.count_at(state, 1, Area.GIMLE):
            h.act(state, 1, h.K.CALL_TO_BATTLE, Area.GIMLE, Unit.WARRIOR)
        elif h.count_at(state, 1, Area.HORGR, Unit.WARRIOR):
            h.act(state, 1, h.K.CALL_TO_BATTLE, Area.HORGR, Unit.WARRIOR)
        else:
            h.act(state, 1, h.K.CALL_TO_BATTLE, Area.HORGR, Unit.LEADER)
        if state.step == Step.CALL_TO_BATTLE and h.awaiting(state) == [0]:
            h.act(state, 0, h.K.DECLINE)
    assert h.count_at(state, 1, Area.YGGDRASIL) == 9
    # Nobody held a card: 11 STR against the lone leader's 3.
    assert h.valhalla(state, 0) == 1
    assert state.clans[1].glory == 3
    assert state.occupancy[Area.YGGDRASIL] == 9


def test_only_adjacent_figures_answer_and_ships_never_do(h):
    """§5 Pillage 1 (and the Andlang example): one figure from an adjacent province; Horgr
    is not adjacent to Andlang; ships never move."""
    state = h.scenario(
        4,
        [
            {"hand": ["tyrs_bash"], "figures": {"Andlang": ["warrior"]}},
            {"hand": ["tyrs_smash"], "figures": {"Horgr": ["leader"], "South fjord": ["ship"]}},
            {
                "figures": {
                    "Utgard": ["warrior"],
                    "Gimle": ["leader"],
                    "Yggdrasil": ["warrior"],
                    "Elvagar": ["warrior"],
                }
            },
            {"figures": {"West fjord": ["ship"]}},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.ANDLANG)
    # Seat 1 (leader in Horgr, ship in the South fjord) has nothing that can answer: skipped.
    assert h.awaiting(state) == [2]
    sources = {(a.a, a.b) for a in h.legal(state, 2) if a.kind == h.K.CALL_TO_BATTLE}
    assert sources == {
        (Area.UTGARD, Unit.WARRIOR),
        (Area.GIMLE, Unit.LEADER),
        (Area.YGGDRASIL, Unit.WARRIOR),
    }
    h.assert_illegal(state, 2, (h.K.CALL_TO_BATTLE, Area.ELVAGAR, Unit.WARRIOR))
    h.act(state, 2, h.K.DECLINE)
    # Seat 3 has only a ship: skipped; the pillager has no other figure: skipped; call over.
    assert state.step == Step.BATTLE_CARDS
    # Seat 1's ship in the South fjord supports Andlang, so it is in the battle.
    assert state.battle.participants == [0, 1]


def test_a_player_with_zero_rage_still_answers_the_call(h):
    """§5: a 0-Rage player cannot act but still reacts (joins battles, plays cards)."""
    state = h.scenario(
        3,
        [
            {"figures": {"Gimle": ["warrior"]}},
            {"rage": 0, "figures": {"Yggdrasil": ["leader"]}},
            {},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    assert h.awaiting(state) == [1]
    h.act(state, 1, h.K.CALL_TO_BATTLE, Area.YGGDRASIL, Unit.LEADER)
    assert h.count_at(state, 1, Area.GIMLE) == 1
    assert state.clans[1].rage == 0


def test_pillager_may_call_its_own_figures(h):
    state = h.scenario(
        3,
        [
            {"hand": ["tyrs_bash"], "figures": {"Gimle": ["warrior"], "Myrkulor": ["leader"]}},
            {"hand": ["tyrs_smash"], "figures": {"Gimle": ["warrior"]}},
            {},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    assert h.awaiting(state) == [0]
    h.act(state, 0, h.K.CALL_TO_BATTLE, Area.MYRKULOR, Unit.LEADER)
    assert h.count_at(state, 0, Area.GIMLE) == 2
    # Nobody has anything left to call: the battle starts.
    assert state.step == Step.BATTLE_CARDS
    assert state.battle.participants == [0, 1]


def test_rage_reward_raises_the_stat_not_the_current_rage(h):
    """board.md Pillage tokens: a Rage reward raises the stat for the next Action phase only."""
    state = h.scenario(3, [{"rage": 3, "figures": {"Myrkulor": ["warrior"]}}, {}, {}])
    h.act(state, 0, h.K.PILLAGE, Area.MYRKULOR)
    assert state.clans[0].steps == [1, 0, 0]
    assert state.clans[0].stat(0) == 7
    assert state.clans[0].rage == 3


def test_horns_reward_allows_one_more_figure_at_once(h):
    state = h.scenario(
        2,
        [
            {"figures": {"Utgard": ["warrior", "warrior", "warrior"], "South fjord": ["ship"]}},
            {"rage": 0},
        ],
    )
    assert not any(a.kind == h.K.INVADE for a in h.legal(state, 0))
    h.act(state, 0, h.K.PILLAGE, Area.UTGARD)
    assert state.clans[0].horns == 5
    assert any(a.kind == h.K.INVADE for a in h.legal(state, 0))


def test_glory_and_all_stats_rewards(h):
    """board.md: the 5 Glory token; Yggdrasil's token raises all three stats; a raise past
    the last step is lost."""
    state = h.scenario(
        2,
        [
            {
                "figures": {"Muspelheim": ["warrior"], "Yggdrasil": ["warrior"]},
                "stats": {"rage": 6, "axes": 2, "horns": 5},
                "glory": 3,
            },
            {"rage": 0},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.MUSPELHEIM)
    h.decline_calls(state)
    assert state.clans[0].glory == 8
    assert state.clans[0].steps == [5, 1, 4]
    h.act(state, 0, h.K.PILLAGE, Area.YGGDRASIL)
    h.decline_calls(state)
    assert state.clans[0].steps == [5, 2, 5]
    assert state.clans[0].glory == 8
    assert state.pillaged[Area.YGGDRASIL] and state.pillaged[Area.MUSPELHEIM]


def test_ship_alone_can_pillage_from_its_fjord(h):
    state = h.scenario(3, [{"figures": {"West fjord": ["ship"]}}, {}, {}])
    h.act(state, 0, h.K.PILLAGE, Area.MYRKULOR)
    assert state.pillaged[Area.MYRKULOR]
    assert state.clans[0].loc[FIG_SHIP] == Area.WEST_FJORD
    assert state.clans[0].steps == [1, 0, 0]
    assert state.phase == Phase.ACTION
    assert state.clans[0].loc[0] == RESERVE
