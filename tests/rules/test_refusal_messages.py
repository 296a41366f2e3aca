"""Why an action is refused, in words (engine/blood_rage/explain.py): each branch at its boundaries
(unit 0 and the first number past the units, area 0 and the first past the areas, card 0
and the first past the cards, a cost equal to the Rage left)."""

from __future__ import annotations

import pytest

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.cards import card_of
from engine.blood_rage.flow import apply, legal_actions
from engine.blood_rage.ids import Area, Unit
from engine.core.errors import IllegalActionError

K = ActionKind
NOT_HERE = "(destroyed, full or the wrong kind of area)"


def _position(h):
    """Seat 0 has 1 Rage, two warriors on the board (Horns 4), the Troll in reserve (it
    costs 2), and a hand of a battle card, two upgrades (costs 3 and 1) and a quest."""
    return h.scenario(
        3,
        [
            {
                "rage": 1,
                "upgrades": ["troll"],
                "hand": ["tyrs_bash_1", "lord_of_hammers", "lokis_domain", "manheim"],
                "figures": {"Elvagar": ["warrior", "warrior"]},
            }
        ],
        destroyed=["Utgard"],
        pillaged=["Horgr"],
    )


def _refusal(state, seat, action) -> str:
    before = state.state_hash()
    with pytest.raises(IllegalActionError) as info:
        apply(state, seat, action)
    assert state.state_hash() == before
    return str(info.value)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Action(K.INVADE, 12, Area.ELVAGAR), "no unit 12"),
        (
            Action(K.INVADE, Unit.VOLUR_WITCH, Area.ELVAGAR),
            "you have no volur_witch in your reserve",
        ),
        (
            Action(K.INVADE, Unit.TROLL, Area.ELVAGAR),
            "Invade with a troll needs 2 Rage, you have 1",
        ),
        (Action(K.INVADE, Unit.WARRIOR, 13), "no area 13"),
        (
            Action(K.INVADE, Unit.WARRIOR, Area.WEST_FJORD),
            f"a warrior cannot invade West fjord {NOT_HERE}",
        ),
        (
            Action(K.INVADE, Unit.WARRIOR, Area.YGGDRASIL),
            f"a warrior cannot invade Yggdrasil {NOT_HERE}",
        ),
        (
            Action(K.INVADE, Unit.LEADER, Area.YGGDRASIL),
            f"a leader cannot invade Yggdrasil {NOT_HERE}",
        ),
        (Action(K.UPGRADE, 126), "no card #126"),
        (Action(K.UPGRADE, 0), "Troll [#0] is not in your hand"),
        (Action(K.QUEST, 125), "Loki's Poison [#125] is not in your hand"),
        (Action(K.PILLAGE, Area.UTGARD), "Utgard is destroyed"),
        (Action(K.PILLAGE, Area.HORGR), "Horgr was already pillaged this Age"),
        (Action(K.PILLAGE, Area.GIMLE), "you have no figure in Gimle or a fjord supporting it"),
        (
            Action(K.PILLAGE, Area.YGGDRASIL),
            "you have no figure in Yggdrasil or a fjord supporting it",
        ),
        (Action(K.PILLAGE, Area.NORTH_FJORD), "pillage North fjord is not a legal choice now"),
        # Numbers below 0 (an Action built by hand, not decoded): named as such, never read
        # from the end of a table.
        (Action(K.INVADE, -1, Area.ELVAGAR), "no unit -1"),
        (Action(K.INVADE, Unit.WARRIOR, -1), "no area -1"),
        (Action(K.UPGRADE, -1), "no card #-1"),
        (Action(K.PILLAGE, -1), "pillage no area -1 is not a legal choice now"),
        (
            Action(K.MARCH, Area.ELVAGAR, Area.UTGARD, Unit.WARRIOR),
            "march warrior Elvagar -> Utgard is not a legal choice now",
        ),
    ],
)
def test_refusals_of_the_action_phase(h, action, message):
    state = _position(h)
    assert {a.kind for a in legal_actions(state, 0)} == {
        K.PASS,
        K.INVADE,
        K.MARCH,
        K.UPGRADE,
        K.QUEST,
        K.PILLAGE,
    }
    assert _refusal(state, 0, action) == message


def test_refusals_that_name_the_card(h):
    state = _position(h)
    hammers = h.card(state, 0, "lord_of_hammers")
    domain = h.card(state, 0, "lokis_domain")
    bash = h.card(state, 0, "tyrs_bash")
    assert _refusal(state, 0, Action(K.UPGRADE, hammers, 0)) == (
        "Lord of Hammers cannot go to slot 1, or you lack the Rage for it (you have 1)"
    )
    assert _refusal(state, 0, Action(K.UPGRADE, domain, 2)) == (
        "Loki's Domain cannot go to slot 3, or you lack the Rage for it (you have 1)"
    )
    assert _refusal(state, 0, Action(K.QUEST, bash)) == "Tyr's Bash cannot be played as quest"


def test_refusal_of_a_kind_not_on_offer_lists_what_is(h):
    state = _position(h)
    allowed = "allowed: pass, invade, march, upgrade, quest, pillage"
    assert _refusal(state, 0, Action(K.KEEP_CARD, 3)) == (
        f"keep_card is not possible now (step ACTION); {allowed}"
    )
    assert _refusal(state, 0, Action(30)) == (
        f"unknown kind 30 is not possible now (step ACTION); {allowed}"
    )


def test_a_draft_pick_outside_the_pack(h):
    state = h.scenario(3, phase="draft")
    other = state.packs[1][0]
    assert other not in state.packs[0]
    assert _refusal(state, 0, Action(K.DRAFT_PICK, other)) == (
        f"{card_of(other).name} [#{other}] is not in your pack"
    )


def test_a_wrong_call_to_battle_by_a_clan_with_no_rage(h):
    """Seat 1 (0 Rage, it may still answer) names a province that is not adjacent."""
    state = h.scenario(
        3,
        [
            {"figures": {"Elvagar": ["leader"]}},
            {"rage": 0, "figures": {"Angerboda": ["warrior"], "Gimle": ["warrior"]}},
        ],
    )
    apply(state, 0, Action(K.PILLAGE, Area.ELVAGAR))
    assert _refusal(state, 1, Action(K.CALL_TO_BATTLE, Area.GIMLE, Unit.WARRIOR)) == (
        "call warrior from Gimle to battle is not a legal choice now"
    )


def test_a_free_invade_is_refused_by_its_place_not_its_cost(h):
    """The free invade after an upgrade costs nothing: a wrong place is named, even with
    less Rage left than the figure's STR."""
    state = h.scenario(3, [{"hand": ["lord_of_hammers"], "rage": 3}])
    h.act(state, 0, K.UPGRADE, h.card(state, 0, "lord_of_hammers"), 0)
    assert state.clans[0].rage == 0
    assert _refusal(state, 0, Action(K.FREE_INVADE, Unit.LEADER, Area.NORTH_FJORD)) == (
        f"a leader cannot invade North fjord {NOT_HERE}"
    )
    # A warrior costs 1 Rage to invade, more than the 0 left: still the place is named.
    assert _refusal(state, 0, Action(K.FREE_INVADE, Unit.WARRIOR, Area.NORTH_FJORD)) == (
        f"a warrior cannot invade North fjord {NOT_HERE}"
    )


def test_a_draft_pick_from_the_hand(h):
    """In the second round the first pick is in the hand, not in the pack."""
    state = h.scenario(3, phase="draft")
    for seat in range(3):
        h.act(state, seat, K.DRAFT_PICK, state.packs[seat][0])
    mine = state.clans[0].hand[0]
    assert _refusal(state, 0, Action(K.DRAFT_PICK, mine)) == (
        f"{card_of(mine).name} [#{mine}] is not in your pack"
    )
