"""The card table (engine/blood_rage/cards.py) agrees with itself: a quest's name, its kind and
its text name the same thing, and a battle card shows a text exactly when it does more than add
its +STR. A client shows these names and texts next to what the engine does with the card."""

from __future__ import annotations

import engine.blood_rage.card_effects  # noqa: F401  (registers the card texts)
from engine.blood_rage.cards import CARDS, NUM_INSTANCES, CardDef, CardType, QuestKind, card_of
from engine.blood_rage.effects import HOOKS

REGIONS = {QuestKind.ALFHEIM, QuestKind.JOTUNHEIM, QuestKind.MANHEIM}


def _dealt() -> list[CardDef]:
    """Every card a game can deal, read as a game reads it: the definition of each instance
    (``card_of``), once per card."""
    return list({card_of(i).id: card_of(i) for i in range(NUM_INSTANCES)}.values())


def test_a_quest_is_named_after_its_kind():
    quests = [c for c in _dealt() if c.type == CardType.QUEST]
    assert len(quests) == 3 * 6, "six quests in each Age"
    assert all(c.name.upper().replace(" ", "_") == c.quest.name for c in quests)
    assert all(c.quest == QuestKind.NONE for c in CARDS if c.type != CardType.QUEST)


def test_a_region_quest_names_its_region_in_its_text():
    regions = [c for c in _dealt() if c.quest in REGIONS]
    assert len(regions) == 3 * 3
    assert all(c.text == f"Most STR in at least one {c.name} province." for c in regions)


def test_a_battle_card_has_a_text_exactly_when_it_does_more_than_its_str():
    """Tyr's cards only add their +STR and print no text; every other battle card has a
    text that runs (a registered effect) or lets it be played late (Heimdall's Eye/Gaze)."""
    hooked = {key for table in HOOKS.values() for key in table}
    battle = [c for c in CARDS if c.type == CardType.BATTLE]
    plain = sorted({c.id for c in battle if not c.text})
    tyrs = {1: ["bash", "smash", "crush", "smite"], 2: ["smash", "crush", "smite", "rage"]}
    tyrs[3] = ["crush", "smite", "rage", "judgement"]
    assert plain == sorted(f"tyrs_{name}_{age}" for age, names in tyrs.items() for name in names)
    assert all(bool(c.text) == (c.key in hooked or c.late) for c in battle)


def test_a_card_key_is_its_name_in_lower_case():
    """The key scenarios and views use is the printed name, lower case, without apostrophes,
    words joined by '_' ("Loki's Backstab": lokis_backstab)."""
    assert all(c.key == c.name.lower().replace("'", "").replace(" ", "_") for c in _dealt())
