"""Every card of ``shared/rules/cards.md``, as data.

A *card definition* (``CardDef``) is one row of the table; a *card instance* is one physical
copy, numbered once for the whole game (0–125) so hands, decks and logs handle plain ints.
Card texts are implemented in ``engine.blood_rage.effects`` keyed by ``CardDef.key``; numbers
that are pure data (STR, costs, warrior pair values) live here."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Final, cast

from engine.blood_rage.ids import Unit


class CardType(IntEnum):
    BATTLE = 0
    UPGRADE = 1
    QUEST = 2


class Slot(IntEnum):
    NONE = 0
    LEADER = 1
    WARRIOR = 2
    SHIP = 3
    MONSTER = 4
    CLAN = 5


class Marking(IntEnum):
    """The player count a copy needs: unmarked, 3+, 4+ or 5."""

    BASE = 2
    THREE_PLUS = 3
    FOUR_PLUS = 4
    FIVE = 5


class QuestKind(IntEnum):
    NONE = 0
    ALFHEIM = 1
    JOTUNHEIM = 2
    MANHEIM = 3
    GLORIOUS_DEATH = 4
    YGGDRASIL = 5
    WIDESPREAD = 6


@dataclass(frozen=True, slots=True)
class CardDef:
    """One row of cards.md.

    ``value`` is the printed number: +STR of a battle card, Rage cost of an upgrade, STR of a
    monster, Glory of a quest. The ``*_override`` fields hold what a card's own text changes.
    """

    index: int
    key: str
    name: str
    age: int
    type: CardType
    slot: Slot
    value: int
    copies: tuple[tuple[Marking, int], ...]
    text: str
    quest: QuestKind = QuestKind.NONE
    unit: int = -1  # the monster figure a monster card brings
    upgrade_cost: int = -1  # -1: the printed value
    invade_cost: int = -1  # -1: the figure's STR
    warrior_str: int = 0  # warrior upgrades: STR of one warrior
    warrior_pair_str: int = 0  # warrior upgrades: STR of each pair of warriors in one province
    late: bool = False  # may be played after the reveal (Heimdall's Eye / Gaze)
    yggdrasil_str: int = -1  # a monster's STR while in Yggdrasil (Dark Elf), -1: as printed

    @property
    def id(self) -> str:
        """Stable, unique card id: the key and the Age, e.g. ``tyrs_smash_2``."""
        return f"{self.key}_{self.age}"

    @property
    def cost(self) -> int:
        """Rage an upgrade costs before clan-upgrade discounts."""
        return self.value if self.upgrade_cost < 0 else self.upgrade_cost


B, T3, T4, F5 = Marking.BASE, Marking.THREE_PLUS, Marking.FOUR_PLUS, Marking.FIVE
BAT, UPG, QST = CardType.BATTLE, CardType.UPGRADE, CardType.QUEST

_REGION_TEXT = "Most STR in at least one {} province."


def _quests(age: int, glory: tuple[int, int, int, int, int, int]) -> list[tuple[object, ...]]:
    a, j, m, gd, y, w = glory
    two = ((B, 1), (T4, 1))
    return [
        ("alfheim", "Alfheim", QST, QuestKind.ALFHEIM, a, two, _REGION_TEXT.format("Alfheim")),
        (
            "jotunheim",
            "Jotunheim",
            QST,
            QuestKind.JOTUNHEIM,
            j,
            two,
            _REGION_TEXT.format("Jotunheim"),
        ),
        ("manheim", "Manheim", QST, QuestKind.MANHEIM, m, two, _REGION_TEXT.format("Manheim")),
        (
            "glorious_death",
            "Glorious Death",
            QST,
            QuestKind.GLORIOUS_DEATH,
            gd,
            ((B, 1), (T4, 1), (F5, 1)),
            "At least 4 of your figures in Valhalla (checked in the Quest phase, before Ragnarök).",
        ),
        (
            "yggdrasil",
            "Yggdrasil",
            QST,
            QuestKind.YGGDRASIL,
            y,
            ((T3, 1),),
            "Most STR in Yggdrasil.",
        ),
        (
            "widespread",
            "Widespread",
            QST,
            QuestKind.WIDESPREAD,
            w,
            ((F5, 1),),
            "Most STR in at least 2 different provinces.",
        ),
    ]


# (key, name, type, slot-or-quest, value, copies, text, extra fields)
_ROWS: dict[int, list[tuple[object, ...]]] = {
    1: [
        (
            "troll",
            "Troll",
            UPG,
            Slot.MONSTER,
            2,
            ((B, 1),),
            "When it invades a province, every enemy warrior there is destroyed.",
            {"unit": Unit.TROLL},
        ),
        (
            "dwarf_chieftain",
            "Dwarf Chieftain",
            UPG,
            Slot.MONSTER,
            2,
            ((B, 1),),
            "Costs 0 Rage to upgrade and 0 Rage to invade.",
            {"unit": Unit.DWARF_CHIEFTAIN, "upgrade_cost": 0, "invade_cost": 0},
        ),
        (
            "sea_serpent",
            "Sea Serpent",
            UPG,
            Slot.MONSTER,
            3,
            ((T3, 1),),
            "Counts as a ship (invades fjords only, never marches, supports both provinces).",
            {"unit": Unit.SEA_SERPENT},
        ),
        (
            "lord_of_hammers",
            "Lord of Hammers",
            UPG,
            Slot.LEADER,
            3,
            ((B, 1), (F5, 1)),
            "After a successful pillage with your leader in it, you may move the leader to an "
            "adjacent province.",
            {},
        ),
        (
            "brothers_in_arms",
            "Brothers in Arms",
            UPG,
            Slot.WARRIOR,
            1,
            ((B, 1), (F5, 1)),
            "Warriors stay STR 1, but each pair of your warriors in one province counts 3 STR.",
            {"warrior_str": 1, "warrior_pair_str": 3},
        ),
        (
            "lokis_dragons",
            "Loki's Dragons",
            UPG,
            Slot.SHIP,
            2,
            ((B, 1), (F5, 1)),
            "Gain 4 Glory whenever a ship of yours is destroyed.",
            {},
        ),
        (
            "lokis_domain",
            "Loki's Domain",
            UPG,
            Slot.CLAN,
            1,
            ((B, 1),),
            "Gain 1 Glory per figure of yours released from Valhalla.",
            {},
        ),
        (
            "friggas_charm",
            "Frigga's Charm",
            UPG,
            Slot.CLAN,
            0,
            ((B, 1),),
            "Your upgrade cards cost 1 Rage less.",
            {},
        ),
        (
            "thors_glory",
            "Thor's Glory",
            UPG,
            Slot.CLAN,
            2,
            ((B, 1),),
            "Gain 2 Glory whenever at least 2 enemy figures are destroyed in a battle you take "
            "part in.",
            {},
        ),
        (
            "friggas_succor",
            "Frigga's Succor",
            UPG,
            Slot.CLAN,
            2,
            ((T3, 1),),
            "When you invade with any figure, you may also invade that province with one warrior "
            "for free.",
            {},
        ),
        (
            "tyrs_domain",
            "Tyr's Domain",
            UPG,
            Slot.CLAN,
            0,
            ((T3, 1),),
            "A quest card you reveal in battle counts as a +3 battle card.",
            {},
        ),
        (
            "lokis_blessing",
            "Loki's Blessing",
            UPG,
            Slot.CLAN,
            1,
            ((T4, 1),),
            "When you lose a battle, you may invade that province with a warrior for free.",
            {},
        ),
        *_quests(1, (5, 5, 5, 6, 6, 7)),
        (
            "odins_smite",
            "Odin's Smite",
            BAT,
            Slot.NONE,
            1,
            ((B, 1), (T3, 1)),
            "Before STR is compared, one warrior of each opponent in this battle is destroyed.",
            {},
        ),
        ("tyrs_bash", "Tyr's Bash", BAT, Slot.NONE, 2, ((B, 1),), "", {}),
        (
            "heimdalls_sight",
            "Heimdall's Sight",
            BAT,
            Slot.NONE,
            0,
            ((B, 1),),
            "Worth the value of the highest enemy battle card revealed.",
            {},
        ),
        (
            "friggas_grace",
            "Frigga's Grace",
            BAT,
            Slot.NONE,
            2,
            ((B, 1), (T4, 1)),
            "If your pillage succeeds, raise another clan stat by 1 (a different one from the "
            "reward's; any stat if the reward was 5 Glory or all stats).",
            {},
        ),
        (
            "lokis_trickery",
            "Loki's Trickery",
            BAT,
            Slot.NONE,
            0,
            ((B, 1), (T4, 1)),
            "If you lose, take 1 Rage from the winner.",
            {},
        ),
        ("tyrs_smash", "Tyr's Smash", BAT, Slot.NONE, 3, ((B, 1), (T3, 1), (F5, 1)), "", {}),
        ("tyrs_crush", "Tyr's Crush", BAT, Slot.NONE, 4, ((T4, 1),), "", {}),
        ("tyrs_smite", "Tyr's Smite", BAT, Slot.NONE, 5, ((B, 1), (F5, 1)), "", {}),
        (
            "thors_hammer",
            "Thor's Hammer",
            BAT,
            Slot.NONE,
            1,
            ((B, 1), (F5, 1)),
            "Gain 3 Glory if you win.",
            {},
        ),
    ],
    2: [
        (
            "valkyrie",
            "Valkyrie",
            UPG,
            Slot.MONSTER,
            2,
            ((B, 1),),
            "Gain 2 Glory per enemy figure destroyed in a battle she takes part in, even if she is "
            "destroyed.",
            {"unit": Unit.VALKYRIE},
        ),
        (
            "dark_elf",
            "Dark Elf",
            UPG,
            Slot.MONSTER,
            1,
            ((B, 1),),
            "May invade Yggdrasil directly; STR 3 while in Yggdrasil.",
            {"unit": Unit.DARK_ELF, "yggdrasil_str": 3},
        ),
        (
            "fire_giant",
            "Fire Giant",
            UPG,
            Slot.MONSTER,
            4,
            ((T3, 1),),
            "When it invades a province, every enemy non-monster figure there is destroyed.",
            {"unit": Unit.FIRE_GIANT},
        ),
        (
            "lord_of_axes",
            "Lord of Axes",
            UPG,
            Slot.LEADER,
            3,
            ((B, 1), (F5, 1)),
            "After a successful pillage with your leader in it, raise one clan stat by 1.",
            {},
        ),
        (
            "experts_in_arms",
            "Experts in Arms",
            UPG,
            Slot.WARRIOR,
            2,
            ((B, 1), (F5, 1)),
            "Your warriors are STR 2 (so they also cost 2 to invade).",
            {"warrior_str": 2, "warrior_pair_str": 4},
        ),
        (
            "fire_dragons",
            "Fire Dragons",
            UPG,
            Slot.SHIP,
            2,
            ((B, 1), (F5, 1)),
            "Gain 8 Glory whenever a ship of yours is destroyed.",
            {},
        ),
        (
            "odins_inspiration",
            "Odin's Inspiration",
            UPG,
            Slot.CLAN,
            2,
            ((B, 1),),
            "Double the Glory you gain from your figures dying in Ragnarök.",
            {},
        ),
        (
            "tyrs_challenge",
            "Tyr's Challenge",
            UPG,
            Slot.CLAN,
            0,
            ((B, 1),),
            "As an action, pay 2 Rage to pillage a province already pillaged this Age.",
            {},
        ),
        (
            "friggas_protection",
            "Frigga's Protection",
            UPG,
            Slot.CLAN,
            0,
            ((B, 1),),
            "Pay 1 Rage to prevent one of your figures from being destroyed.",
            {},
        ),
        (
            "lokis_eminence",
            "Loki's Eminence",
            UPG,
            Slot.CLAN,
            2,
            ((T3, 1),),
            "Gain 2 Glory per figure of yours released from Valhalla.",
            {},
        ),
        (
            "tyrs_prowess",
            "Tyr's Prowess",
            UPG,
            Slot.CLAN,
            2,
            ((T3, 1),),
            "When you win a battle, you may keep any of your revealed cards, paying 1 Rage each.",
            {},
        ),
        (
            "thors_domain",
            "Thor's Domain",
            UPG,
            Slot.CLAN,
            1,
            ((T4, 1),),
            "After you invade a province, you may pay 2 Rage to pillage it at once.",
            {},
        ),
        *_quests(2, (7, 7, 7, 8, 8, 10)),
        ("tyrs_smash", "Tyr's Smash", BAT, Slot.NONE, 3, ((T4, 1), (F5, 1)), "", {}),
        ("tyrs_crush", "Tyr's Crush", BAT, Slot.NONE, 4, ((B, 1),), "", {}),
        ("tyrs_smite", "Tyr's Smite", BAT, Slot.NONE, 5, ((T3, 1),), "", {}),
        ("tyrs_rage", "Tyr's Rage", BAT, Slot.NONE, 6, ((B, 1),), "", {}),
        (
            "heimdalls_eye",
            "Heimdall's Eye",
            BAT,
            Slot.NONE,
            2,
            ((B, 2), (T3, 1), (F5, 1)),
            "May also be played after all cards are revealed (and adds its STR).",
            {"late": True},
        ),
        (
            "heimdalls_watch",
            "Heimdall's Watch",
            BAT,
            Slot.NONE,
            0,
            ((B, 1),),
            "Discard all revealed cards; gain Glory equal to their total +STR; then every "
            "participant plays a new card.",
            {},
        ),
        (
            "odins_tide",
            "Odin's Tide",
            BAT,
            Slot.NONE,
            1,
            ((B, 1), (T4, 1)),
            "Before STR is compared, each player destroys all but one (their choice) of their "
            "figures in this battle.",
            {},
        ),
        (
            "lokis_backstab",
            "Loki's Backstab",
            BAT,
            Slot.NONE,
            0,
            ((B, 1), (T4, 1)),
            "If you lose, take 2 Glory from the winner.",
            {},
        ),
        (
            "thors_oath",
            "Thor's Oath",
            BAT,
            Slot.NONE,
            1,
            ((B, 1), (F5, 1)),
            "If you win, raise one clan stat by 1.",
            {},
        ),
    ],
    3: [
        (
            "frost_giant",
            "Frost Giant",
            UPG,
            Slot.MONSTER,
            4,
            ((B, 1),),
            "If you successfully pillage with it in the battle, gain the pillage reward twice.",
            {"unit": Unit.FROST_GIANT},
        ),
        (
            "soldier_of_hel",
            "Soldier of Hel",
            UPG,
            Slot.MONSTER,
            3,
            ((B, 1),),
            "Costs 0 Rage to upgrade and 0 Rage to invade.",
            {"unit": Unit.SOLDIER_OF_HEL, "upgrade_cost": 0, "invade_cost": 0},
        ),
        (
            "volur_witch",
            "Volur Witch",
            UPG,
            Slot.MONSTER,
            3,
            ((T3, 1),),
            "When she would be destroyed in an outer province, she may retreat to Yggdrasil "
            "instead (destroyed as usual if in Yggdrasil).",
            {"unit": Unit.VOLUR_WITCH},
        ),
        (
            "lord_of_spears",
            "Lord of Spears",
            UPG,
            Slot.LEADER,
            3,
            ((B, 1), (F5, 1)),
            "After a successful pillage with your leader in it, raise all your clan stats by 1.",
            {},
        ),
        (
            "masters_in_arms",
            "Masters in Arms",
            UPG,
            Slot.WARRIOR,
            2,
            ((B, 1), (F5, 1)),
            "Warriors are STR 2, and each pair of your warriors in one province counts 6 STR.",
            {"warrior_str": 2, "warrior_pair_str": 6},
        ),
        (
            "eternal_dragons",
            "Eternal Dragons",
            UPG,
            Slot.SHIP,
            2,
            ((B, 1), (F5, 1)),
            "Gain 12 Glory whenever a ship of yours is destroyed.",
            {},
        ),
        (
            "friggas_domain",
            "Frigga's Domain",
            UPG,
            Slot.CLAN,
            0,
            ((B, 1),),
            "As an invade, pay 1 Rage (instead of the usual cost) to invade with one of your "
            "figures from Valhalla.",
            {},
        ),
        (
            "odins_throne",
            "Odin's Throne",
            UPG,
            Slot.CLAN,
            2,
            ((B, 1),),
            "Double the Glory of the quests you complete.",
            {},
        ),
        (
            "thors_conquest",
            "Thor's Conquest",
            UPG,
            Slot.CLAN,
            3,
            ((B, 1),),
            "At the end of the game (after the last Ragnarök), gain 3 Glory per figure of yours on "
            "the board.",
            {},
        ),
        (
            "friggas_sacrifice",
            "Frigga's Sacrifice",
            UPG,
            Slot.CLAN,
            1,
            ((T3, 1),),
            "As an action, destroy 2 of your figures on the board to raise one clan stat by 1.",
            {},
        ),
        (
            "tyrs_wrath",
            "Tyr's Wrath",
            UPG,
            Slot.CLAN,
            1,
            ((T3, 1),),
            "A quest card you reveal in battle counts as a +5 battle card.",
            {},
        ),
        (
            "lokis_wrath",
            "Loki's Wrath",
            UPG,
            Slot.CLAN,
            3,
            ((T4, 1),),
            "Gain 3 Glory per figure of yours released from Valhalla.",
            {},
        ),
        *_quests(3, (9, 9, 9, 11, 11, 15)),
        ("tyrs_crush", "Tyr's Crush", BAT, Slot.NONE, 4, ((B, 1), (F5, 1)), "", {}),
        ("tyrs_smite", "Tyr's Smite", BAT, Slot.NONE, 5, ((T4, 1),), "", {}),
        ("tyrs_rage", "Tyr's Rage", BAT, Slot.NONE, 6, ((B, 1),), "", {}),
        ("tyrs_judgement", "Tyr's Judgement", BAT, Slot.NONE, 8, ((F5, 1),), "", {}),
        (
            "heimdalls_gaze",
            "Heimdall's Gaze",
            BAT,
            Slot.NONE,
            3,
            ((B, 1), (T3, 1)),
            "May also be played after all cards are revealed (and adds its STR).",
            {"late": True},
        ),
        (
            "heimdalls_watch",
            "Heimdall's Watch",
            BAT,
            Slot.NONE,
            0,
            ((B, 1),),
            "Discard all revealed cards; gain Glory equal to their total +STR; then every "
            "participant plays a new card.",
            {},
        ),
        (
            "thors_primacy",
            "Thor's Primacy",
            BAT,
            Slot.NONE,
            3,
            ((B, 1), (T3, 1)),
            "Cancel the text of every opponent's revealed card before it takes effect.",
            {},
        ),
        (
            "thors_ascension",
            "Thor's Ascension",
            BAT,
            Slot.NONE,
            1,
            ((B, 1), (T4, 1)),
            "If you win, gain 3 Rage and 3 Glory.",
            {},
        ),
        (
            "odins_judgement",
            "Odin's Judgement",
            BAT,
            Slot.NONE,
            2,
            ((B, 1), (T4, 1)),
            "Gain 2 Glory per figure destroyed in this battle (yours included).",
            {},
        ),
        (
            "lokis_poison",
            "Loki's Poison",
            BAT,
            Slot.NONE,
            0,
            ((B, 1), (F5, 1)),
            "If you lose, take the winner's revealed cards into your hand.",
            {},
        ),
    ],
}


def _build() -> tuple[tuple[CardDef, ...], tuple[int, ...], tuple[int, ...]]:
    defs: list[CardDef] = []
    inst_def: list[int] = []
    inst_marking: list[int] = []
    for age, rows in _ROWS.items():
        for row in rows:
            fields: dict[str, Any] = {
                "index": len(defs),
                "key": row[0],
                "name": row[1],
                "age": age,
                "type": CardType(cast(int, row[2])),
                "value": row[4],
                "copies": row[5],
                "text": row[6],
            }
            if row[2] == QST:
                fields["slot"] = Slot.NONE
                fields["quest"] = row[3]
            else:
                fields["slot"] = Slot(cast(int, row[3]))
                fields.update(cast(dict[str, Any], row[7]))
            card = CardDef(**fields)
            defs.append(card)
            for marking, count in card.copies:
                for _ in range(count):
                    inst_def.append(card.index)
                    inst_marking.append(int(marking))
    return tuple(defs), tuple(inst_def), tuple(inst_marking)


_BUILT = _build()
CARDS: Final = _BUILT[0]
INSTANCE_DEF: Final = _BUILT[1]
INSTANCE_MARKING: Final = _BUILT[2]
NUM_INSTANCES: Final = len(INSTANCE_DEF)
CARD_BY_ID: Final[dict[str, CardDef]] = {c.id: c for c in CARDS}
MONSTER_CARD: Final[dict[int, CardDef]] = {c.unit: c for c in CARDS if c.unit >= 0}
_BASIC_UNITS = ("leader", "warrior", "ship")


def unit_display_name(unit: int) -> str:
    """What people call a figure: ``leader``, ``warrior``, ``ship``, or the monster's card
    name (``Dwarf Chieftain``). ``engine.blood_rage.ids.UNIT_NAMES`` holds the keys scenarios use
    (``dwarf_chieftain``); messages for people use this."""
    monster = MONSTER_CARD.get(unit)
    if monster is not None:
        return monster.name
    return _BASIC_UNITS[unit] if 0 <= unit < len(_BASIC_UNITS) else f"no unit {unit}"


def card_of(instance: int) -> CardDef:
    """The definition of a physical card."""
    return CARDS[INSTANCE_DEF[instance]]


def deck_instances(age: int, players: int) -> list[int]:
    """The physical cards of one Age's deck for a player count, in catalogue order (a fresh
    list: callers shuffle it)."""
    return list(_DECKS[age, max(2, min(players, 5))])


_DECKS: dict[tuple[int, int], tuple[int, ...]] = {
    (age, n): tuple(
        i for i, d in enumerate(INSTANCE_DEF) if CARDS[d].age == age and INSTANCE_MARKING[i] <= n
    )
    for age in (1, 2, 3)
    for n in (2, 3, 4, 5)
}


def find_card(name: str, age: int | None = None) -> CardDef:
    """Resolve ``tyrs_smash_2``, ``tyrs_smash`` (preferring ``age``) or a display name."""
    if name in CARD_BY_ID:
        return CARD_BY_ID[name]
    wanted = name.strip().lower().replace("'", "").replace(" ", "_")
    matches = [c for c in CARDS if c.key == wanted]
    if age is not None:
        same_age = [c for c in matches if c.age == age]
        if same_age:
            return same_age[0]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise KeyError(f"unknown card {name!r}")
    ages = ", ".join(c.id for c in matches)
    raise KeyError(f"card {name!r} is ambiguous: say which Age ({ages})")
