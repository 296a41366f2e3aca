"""Quest cards of cards.md: every quest kind in every Age, with its printed Glory and one
stat step on success (blood-rage.md §7)."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import Phase
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.state import PromptKind

GLORY = {  # Age 1, 2, 3
    "alfheim": (5, 7, 9),
    "jotunheim": (5, 7, 9),
    "manheim": (5, 7, 9),
    "glorious_death": (6, 8, 11),
    "yggdrasil": (6, 8, 11),
    "widespread": (7, 10, 15),
}
# (seat 0's figures: fulfils it; seat 1's figures: fails the same quest where a copy exists)
FULFIL = {
    "alfheim": ({"Andlang": ["leader"]}, {"Andlang": ["warrior", "warrior"]}),
    "jotunheim": ({"Horgr": ["leader"]}, {"Horgr": ["warrior", "warrior"]}),
    "manheim": ({"Elvagar": ["leader"]}, {"Elvagar": ["warrior", "warrior"]}),
    "glorious_death": ({"Valhalla": ["warrior"] * 4}, {"Valhalla": ["warrior"] * 3}),
    "yggdrasil": ({"Yggdrasil": ["leader"]}, {"Yggdrasil": ["warrior", "warrior"]}),
    "widespread": (
        {"Elvagar": ["leader"], "Horgr": ["warrior"]},
        {"Elvagar": ["warrior"], "Andlang": ["warrior"]},
    ),
}
TWO_COPIES = {"alfheim", "jotunheim", "manheim", "glorious_death"}


@pytest.mark.parametrize("age", [1, 2, 3])
@pytest.mark.parametrize("kind", list(GLORY))
def test_quest_fulfilled_gives_printed_glory_and_a_stat(g, kind, age):
    mine, theirs = FULFIL[kind]
    s = g.state(
        5,
        [
            {"quests": [kind], "figures": mine},
            {"quests": [kind] if kind in TWO_COPIES else [], "figures": theirs},
        ],
        age=age,
        phase="quest",
    )
    assert g.glory(s)[:2] == [GLORY[kind][age - 1], 0]
    assert g.prompt(s) == (PromptKind.QUEST_STAT, 0) and len(s.prompts) == 1
    assert g.legal(s, 0) == [g.A(g.K.RAISE_STAT, st) for st in (0, 1, 2)]
    g.act(s, 0, g.K.RAISE_STAT, g.HORNS)
    assert g.steps(s, 0) == [1, 1, 2] and g.steps(s, 1) == [1, 1, 1]
    assert g.keys(s.discard).count(kind) == (2 if kind in TWO_COPIES else 1)
    assert s.clans[0].quests == [] and s.clans[1].quests == []
    assert s.phase == (Phase.GAME_OVER if age == 3 else Phase.DRAFT)


FAIL = {
    "alfheim": [{"Andlang": ["leader"]}, {"Andlang": ["leader"]}],  # a tie fails
    "jotunheim": [{"Horgr": ["warrior"]}, {"Utgard": ["warrior"], "Horgr": ["warrior", "warrior"]}],
    "manheim": [{"Horgr": ["leader"]}, {}],
    # 3 in Valhalla, the 4th dies in Ragnarök only after the Quest phase.
    "glorious_death": [{"Valhalla": ["warrior"] * 3, "RAGNAROK": ["warrior"]}, {}],
    "yggdrasil": [{"Yggdrasil": ["warrior"]}, {"Yggdrasil": ["warrior"]}],
    "widespread": [{"Elvagar": ["leader"], "Horgr": ["warrior"]}, {"Horgr": ["warrior"]}],
}


@pytest.mark.parametrize("age", [1, 3])
@pytest.mark.parametrize("kind", list(GLORY))
def test_quest_failed_gives_nothing(g, kind, age):
    rag = ["Muspelheim", "Gimle", "Myrkulor"]
    mine, theirs = (
        {k.replace("RAGNAROK", rag[age - 1]): v for k, v in d.items()} for d in FAIL[kind]
    )
    s = g.state(
        5,
        [{"quests": [kind], "figures": mine}, {"figures": theirs}],
        age=age,
        phase="quest",
        ragnarok=rag,
    )
    assert g.prompt(s) is None
    expected = 0 if kind != "glorious_death" else {1: 2, 3: 4}[age]  # Ragnarök Glory only
    assert s.clans[0].glory == expected
    assert g.steps(s, 0) == [1, 1, 1]
    assert g.keys(s.discard) == [kind]


def test_quest_strength_counts_ships_in_supporting_fjords(g):
    s = g.state(
        4,
        [
            {"quests": ["alfheim"], "figures": {"South fjord": ["ship"]}},
            {"figures": {"Andlang": ["warrior"]}},
        ],
        phase="quest",
    )
    assert s.clans[0].glory == 5


def test_several_quests_each_scored(g):
    s = g.state(
        4,
        [{"quests": ["alfheim", "alfheim", "manheim"], "figures": {"Andlang": ["leader"]}}],
        age=2,
        phase="quest",
    )
    assert s.clans[0].glory == 14
    assert [p.kind for p in s.prompts] == [PromptKind.QUEST_STAT] * 2
    g.answer(s, g.K.RAISE_STAT, g.RAGE)
    g.answer(s, g.K.RAISE_STAT, g.RAGE)
    assert g.steps(s, 0) == [3, 1, 1]


def test_a_stat_is_asked_while_any_stat_can_still_rise():
    """Rage on its last step, Axes and Horns not: the success still raises one of those;
    with all three at the top nothing is asked."""

    def quest(stats):
        return from_scenario(
            {
                "players": 3,
                "phase": "quest",
                "clans": [
                    {"stats": stats, "quests": ["yggdrasil"], "figures": {"Yggdrasil": ["leader"]}},
                    {},
                    {},
                ],
            }
        )

    s = quest({"rage": 6})
    assert [(p.kind, p.seat) for p in s.prompts] == [(PromptKind.QUEST_STAT, 0)]
    assert quest({"rage": 6, "axes": 6, "horns": 6}).prompts == []
