"""Actions: their integer code (stable: bots, logs and the API store it) and their text (the
event log, refusals and the command-line client show it)."""

from __future__ import annotations

import pytest

from engine.blood_rage.actions import Action, ActionKind, describe
from engine.blood_rage.cards import NUM_INSTANCES, card_of
from engine.blood_rage.ids import Area, Unit

K = ActionKind
LAST = NUM_INSTANCES - 1  # the last card instance (Loki's Poison)


def test_the_code_packs_kind_a_b_c_into_5_8_8_8_bits():
    assert Action(K.MARCH, Area.ELVAGAR, Area.YGGDRASIL, Unit.WARRIOR).code() == (
        3 + (2 << 5) + (0 << 13) + (1 << 21)
    )
    assert Action(K.UPGRADE, 125, 2).code() == 6 + (125 << 5) + (2 << 13)
    assert Action(K.INVADE_FROM_VALHALLA, 255, 255, 255).code() == 24 + (255 << 5) + (255 << 13) + (
        255 << 21
    )


def test_from_code_reads_back_every_action():
    for kind in ActionKind:
        for a, b, c in [(0, 0, 0), (1, 2, 3), (255, 0, 255), (0, 255, 7)]:
            action = Action(kind, a, b, c)
            assert Action.from_code(action.code()) == action


def test_from_code_ignores_bits_above_the_fields():
    assert Action.from_code((1 << 29) | Action(K.PILLAGE, 3).code()) == Action(K.PILLAGE, 3)


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Action(K.DRAFT_PICK, 0), "pick Troll [#0]"),
        (Action(K.QUEST, LAST), f"commit quest {card_of(LAST).name} [#{LAST}]"),
        (Action(K.BATTLE_CARD, 0), "play Troll [#0]"),
        (Action(K.KEEP_CARD, 0), "keep Troll [#0]"),
        (Action(K.KEEP_CARD, NUM_INSTANCES), f"keep no card #{NUM_INSTANCES}"),
        # Below 0 (an Action built by hand): named as such, never read from a table's end.
        (Action(K.INVADE, -1, -1, 0), "invade no unit -1 -> no area -1"),
        (Action(K.UPGRADE, -1, 0, 0), "upgrade no card #-1 (slot 1)"),
        (Action(K.INVADE, Unit.WARRIOR, Area.ELVAGAR), "invade warrior -> Elvagar"),
        (Action(K.FREE_INVADE, Unit.LEADER, Area.MYRKULOR), "free invade leader -> Myrkulor"),
        (
            Action(K.MARCH, Area.ELVAGAR, Area.YGGDRASIL, Unit.LEADER),
            "march leader Elvagar -> Yggdrasil",
        ),
        (Action(K.MARCH_MORE, Unit.WARRIOR), "march another warrior"),
        (Action(K.MARCH_DONE), "end march"),
        (Action(K.UPGRADE, 0, 1), "upgrade Troll [#0] (slot 2)"),
        (Action(K.PILLAGE, Area.GIMLE), "pillage Gimle"),
        (Action(K.CALL_TO_BATTLE, Area.HORGR, Unit.WARRIOR), "call warrior from Horgr to battle"),
        (Action(K.RAISE_STAT, 0), "raise rage"),
        (Action(K.RAISE_STAT, 2), "raise horns"),
        (Action(K.RAISE_STAT, 3), "raise no stat 3"),
        (Action(K.LATE_CARD, 0), "play Troll [#0] late"),
        (Action(K.KEEP_REVEALED, 0), "keep Troll [#0] for 1 Rage"),
        (
            Action(K.SAVE_FIGURE, Unit.WARRIOR, Area.ELVAGAR),
            "pay 1 Rage to save warrior in Elvagar",
        ),
        (Action(K.KEEP_FIGURE, Unit.SHIP, Area.NORTH_FJORD), "keep ship in North fjord"),
        (Action(K.SACRIFICE, Unit.LEADER, Area.HORGR), "sacrifice leader in Horgr"),
        (
            Action(K.INVADE_FROM_VALHALLA, Unit.TROLL, Area.ANGERBODA),
            "invade Troll from Valhalla -> Angerboda",
        ),
        (Action(K.MOVE_LEADER, Area.YGGDRASIL), "move leader to Yggdrasil"),
        (Action(K.CHALLENGE, Area.ELVAGAR), "Tyr's Challenge: pillage Elvagar again"),
        (Action(K.PASS), "pass"),
        (Action(K.DECLINE), "decline"),
        (Action(K.KEEP_NONE), "keep no card"),
        (Action(K.ACCEPT), "accept"),
        (Action(31, 1, 2, 3), "unknown action kind 31 (1, 2, 3)"),
    ],
)
def test_every_kind_reads_as_a_sentence(action, text):
    assert describe(action) == text
    assert str(action) == text


def test_apply_takes_a_plain_tuple_as_an_action():
    """flow.apply accepts (kind, a, b, c) as it arrives from a client, and records it as an
    Action (its code and text in the event log)."""
    from engine.blood_rage.flow import apply
    from engine.blood_rage.scenario import from_scenario

    state = from_scenario({"players": 2, "clans": [{"figures": {"Elvagar": ["leader"]}}, {}]})
    state.events = []
    apply(state, 0, (int(K.PASS), 0, 0, 0))  # type: ignore[arg-type]
    logged = [p for _, p in state.events if p["type"] == "action"]
    for payload in logged:  # what it cost is the events' own test (tests/rules/test_event_contents)
        payload.pop("details", None)
    assert logged == [
        {"type": "action", "seat": 0, "action": Action(K.PASS).code(), "text": "pass"}
    ]
