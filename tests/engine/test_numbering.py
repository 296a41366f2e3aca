"""The numbers the engine's names stand for never change: action codes
(engine/blood_rage/actions.py) pack unit, area and card numbers, snapshots store steps, phases,
prompts and causes, and the server maps card types, slots, regions and clans to protobuf by
number. Stored games and snapshots written today must read the same in years
(docs/durability.md); renumbering is a format change, not a refactoring."""

from __future__ import annotations

from enum import IntEnum

import pytest

from engine.blood_rage.actions import ActionKind
from engine.blood_rage.board import Region, Token
from engine.blood_rage.cards import NUM_INSTANCES, CardType, Marking, QuestKind, Slot, card_of
from engine.blood_rage.destruction import Cause
from engine.blood_rage.ids import Area, Clan, DraftMode, Phase, Stat, Step, Unit
from engine.blood_rage.state import PromptKind

NUMBERS: list[tuple[type[IntEnum], list[str]]] = [
    (
        ActionKind,
        ["DRAFT_PICK", "PASS", "INVADE", "MARCH", "MARCH_MORE", "MARCH_DONE", "UPGRADE", "QUEST",
         "PILLAGE", "FREE_INVADE", "DECLINE", "CALL_TO_BATTLE", "BATTLE_CARD", "KEEP_CARD",
         "KEEP_NONE", "RAISE_STAT", "LATE_CARD", "SAVE_FIGURE", "ACCEPT", "KEEP_REVEALED",
         "KEEP_FIGURE", "MOVE_LEADER", "CHALLENGE", "SACRIFICE", "INVADE_FROM_VALHALLA"],
    ),
    (
        Area,
        ["YGGDRASIL", "MYRKULOR", "ELVAGAR", "ANGERBODA", "MUSPELHEIM", "HORGR", "UTGARD",
         "ANDLANG", "GIMLE", "NORTH_FJORD", "EAST_FJORD", "SOUTH_FJORD", "WEST_FJORD"],
    ),
    (
        Unit,
        ["LEADER", "WARRIOR", "SHIP", "TROLL", "DWARF_CHIEFTAIN", "SEA_SERPENT", "VALKYRIE",
         "DARK_ELF", "FIRE_GIANT", "FROST_GIANT", "SOLDIER_OF_HEL", "VOLUR_WITCH"],
    ),
    (Stat, ["RAGE", "AXES", "HORNS"]),
    (Token, ["ALL_STATS", "RAGE", "AXES", "HORNS", "GLORY5"]),
    (Region, ["NONE", "MANHEIM", "JOTUNHEIM", "ALFHEIM"]),
    (CardType, ["BATTLE", "UPGRADE", "QUEST"]),
    (Slot, ["NONE", "LEADER", "WARRIOR", "SHIP", "MONSTER", "CLAN"]),
    (
        QuestKind,
        ["NONE", "ALFHEIM", "JOTUNHEIM", "MANHEIM", "GLORIOUS_DEATH", "YGGDRASIL", "WIDESPREAD"],
    ),
    (Cause, ["BATTLE", "EFFECT", "OWN_CHOICE", "RAGNAROK"]),
    (Clan, ["WOLF", "RAVEN", "SERPENT", "BEAR", "RAM"]),
    (Phase, ["DRAFT", "ACTION", "DISCARD", "QUEST", "RAGNAROK", "RELEASE_VALHALLA", "GAME_OVER"]),
    (
        Step,
        ["DRAFT_DEAL", "DRAFT_PICK", "ACTION_START", "ACTION", "MARCH", "CALL_TO_BATTLE_NEXT",
         "CALL_TO_BATTLE", "BATTLE_CARDS_START", "BATTLE_CARDS", "BATTLE_RESOLVE", "TURN_END",
         "DISCARD_START", "DISCARD", "QUEST_START", "RAGNAROK", "RELEASE_VALHALLA", "AGE_END",
         "GAME_OVER", "RAGNAROK_DESTROY"],
    ),
    (DraftMode, ["NORMAL", "NO_DRAFT"]),
    (
        PromptKind,
        ["FREE_INVADE", "QUEST_STAT", "RAISE_STAT", "PROTECT", "WITCH_RETREAT", "TIDE_KEEP",
         "LATE_CARD", "PROWESS", "MOVE_LEADER", "THORS_DOMAIN", "SUCCOR", "BLESSING",
         "SACRIFICE"],
    ),
]  # fmt: skip


@pytest.mark.parametrize(("enum", "names"), NUMBERS, ids=[e.__name__ for e, _ in NUMBERS])
def test_names_keep_their_numbers(enum, names):
    """Numbered from 0 in this order, every name distinct (no alias)."""
    assert {m.name: m.value for m in enum} == {name: i for i, name in enumerate(names)}
    assert len(enum.__members__) == len(names), "an alias (two names, one number)"


def test_markings_are_player_counts():
    assert {m.name: m.value for m in Marking} == {
        "BASE": 2,
        "THREE_PLUS": 3,
        "FOUR_PLUS": 4,
        "FIVE": 5,
    }


def test_card_instances_keep_their_numbers():
    """Card copies are numbered once for every game, Age by Age (42 copies each)."""
    assert NUM_INSTANCES == 126
    assert [card_of(i).age for i in range(NUM_INSTANCES)] == [1] * 42 + [2] * 42 + [3] * 42
    anchors = {0: "troll_1", 41: "thors_hammer_1", 42: "valkyrie_2", 83: "thors_oath_2"}
    anchors |= {84: "frost_giant_3", 125: "lokis_poison_3"}
    assert {i: card_of(i).id for i in anchors} == anchors
