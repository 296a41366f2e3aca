"""Blood Rage's values on the wire: the enums of blood_rage.proto, the engine's names read back
from views and events, cards as messages, and the defensive readers the conversions share.

Conventions (see blood_rage.proto): proto enum value = engine id + 1 for Area, Unit, Stat,
Clan, Phase, DraftMode and CardType; UpgradeSlot and Region share the engine's numbers;
CardMarking is the engine's marking - 1; PillageReward is named after the engine's token.
"""

from __future__ import annotations

from engine.blood_rage.cards import CARDS, INSTANCE_MARKING, CardDef, CardType, card_of
from engine.blood_rage.cards import Slot as CardSlot
from engine.blood_rage.ids import (
    AREA_NAMES,
    NUM_AREAS,
    NUM_UNITS,
    STAT_NAMES,
    UNIT_NAMES,
    Phase,
    Step,
)
from engine.blood_rage.state import SLOT_CLANS, SLOT_LEADER, SLOT_MONSTERS, SLOT_SHIP, SLOT_WARRIOR
from protocol.readers import as_dict, as_int, as_list, as_str
from yggdrasil.v1 import blood_rage_pb2 as br

SPECTATOR = -1


# ============================================================================================
# Enums
# ============================================================================================


def _plus_one(value: int, size: int) -> int:
    return value + 1 if 0 <= value < size else 0


def area_to_pb(area: int) -> br.Area.ValueType:
    """Engine area id → proto Area (UNSPECIFIED for reserve, Valhalla, box or garbage)."""
    return br.Area.ValueType(_plus_one(area, NUM_AREAS))


def unit_to_pb(unit: int) -> br.Unit.ValueType:
    return br.Unit.ValueType(_plus_one(unit, NUM_UNITS))


def stat_to_pb(stat: int) -> br.Stat.ValueType:
    return br.Stat.ValueType(_plus_one(stat, len(STAT_NAMES)))


def phase_to_pb(phase: int) -> br.Phase.ValueType:
    return br.Phase.ValueType(_plus_one(phase, len(Phase)))


def card_type_to_pb(kind: int) -> br.CardType.ValueType:
    return br.CardType.ValueType(_plus_one(kind, len(CardType)))


def upgrade_slot_to_pb(slot: int) -> br.UpgradeSlot.ValueType:
    """Engine ``cards.Slot`` → UpgradeSlot: same numbers (NONE = UNSPECIFIED)."""
    return br.UpgradeSlot.ValueType(slot if 0 <= slot < len(CardSlot) else 0)


def marking_to_pb(marking: int) -> br.CardMarking.ValueType:
    """Engine ``cards.Marking`` (2 = unmarked … 5) → CardMarking (1 … 4)."""
    return br.CardMarking.ValueType(marking - 1 if 2 <= marking <= 5 else 0)


def region_to_pb(region: int) -> br.Region.ValueType:
    return br.Region.ValueType(region if 0 <= region <= 3 else 0)


# Pillage tokens by the engine's names (board.TOKEN_NAMES).
REWARD_BY_TOKEN: dict[str, br.PillageReward.ValueType] = {
    "all_stats": br.PILLAGE_REWARD_YGGDRASIL_ALL,
    "rage": br.PILLAGE_REWARD_RAGE,
    "axes": br.PILLAGE_REWARD_AXES,
    "horns": br.PILLAGE_REWARD_HORNS,
    "glory5": br.PILLAGE_REWARD_GLORY5,
}

# Engine steps that wait for a decision, by the names views use (``Step.X.name.lower()``).
# Steps missing here run by themselves (STEP_NONE) unless a prompt is open.
STEP_BY_ENGINE_STEP: dict[str, br.Step.ValueType] = {
    "draft_pick": br.STEP_DRAFT_PICK,
    "action": br.STEP_ACTION,
    "march": br.STEP_MARCH,
    "call_to_battle": br.STEP_CALL_TO_BATTLE,
    "battle_cards": br.STEP_BATTLE_CARDS,
    "discard": br.STEP_DISCARD,
}
# Prompts (interrupting decisions), by the names views use; unknown ones are STEP_OTHER.
STEP_BY_PROMPT: dict[str, br.Step.ValueType] = {
    "free_invade": br.STEP_OFFER,
    "quest_stat": br.STEP_STAT_CHOICE,
    "raise_stat": br.STEP_STAT_CHOICE,
    "protect": br.STEP_BATTLE_CHOICE,
    "witch_retreat": br.STEP_OFFER,
    "tide_keep": br.STEP_BATTLE_CHOICE,
    "late_card": br.STEP_LATE_BATTLE_CARDS,
    "prowess": br.STEP_BATTLE_CHOICE,
    "move_leader": br.STEP_OFFER,
    "thors_domain": br.STEP_OFFER,
    "succor": br.STEP_OFFER,
    "blessing": br.STEP_OFFER,
    "sacrifice": br.STEP_BATTLE_CHOICE,
}


def step_to_pb(step: str, prompt: str | None, game_over: bool = False) -> br.Step.ValueType:
    """The API's Step for an engine step (and open prompt), both by their view names."""
    if prompt is not None:
        return STEP_BY_PROMPT.get(prompt, br.STEP_OTHER)
    if game_over:
        return br.STEP_NONE
    if step in STEP_BY_ENGINE_STEP:
        return STEP_BY_ENGINE_STEP[step]
    if step in _STEP_NAMES:
        return br.STEP_NONE  # an automatic step: nobody decides
    return br.STEP_OTHER


_STEP_NAMES = frozenset(s.name.lower() for s in Step)
_AREA_BY_NAME = {name: i for i, name in enumerate(AREA_NAMES[:NUM_AREAS])}
_UNIT_BY_NAME = {name: i for i, name in enumerate(UNIT_NAMES)}
_PHASE_BY_NAME = {p.name.lower(): int(p) for p in Phase}
_LOCATION_BY_NAME: dict[str, br.FigureLocation.ValueType] = {
    AREA_NAMES[13]: br.FIGURE_LOCATION_RESERVE,
    AREA_NAMES[14]: br.FIGURE_LOCATION_VALHALLA,
}

# The shared defensive readers (protocol.readers), under the short names these modules use.
_int = as_int
_str = as_str
_dict = as_dict
_list = as_list


def _area_by_name(value: object) -> br.Area.ValueType:
    return area_to_pb(_AREA_BY_NAME.get(_str(value), -1))


# ============================================================================================
# Cards
# ============================================================================================


_NUM_CARDS = len(INSTANCE_MARKING)


def card_pb(instance: int) -> br.Card:
    """A physical card by its instance number (id and marking are static data)."""
    marking = INSTANCE_MARKING[instance] if 0 <= instance < len(INSTANCE_MARKING) else 0
    return br.Card(instance=instance, card_id=card_of(instance).id, marking=marking_to_pb(marking))


def _card_from_info(info: object) -> br.Card | None:
    """A view's ``{"instance", "card", "name"}`` → Card; None for null/garbage."""
    d = _dict(info)
    instance = _int(d.get("instance"), -1)
    if instance < 0:
        return None
    marking = INSTANCE_MARKING[instance] if instance < len(INSTANCE_MARKING) else 0
    return br.Card(instance=instance, card_id=_str(d.get("card")), marking=marking_to_pb(marking))


def _cards_from_infos(infos: object) -> list[br.Card]:
    return [c for c in (_card_from_info(x) for x in _list(infos)) if c is not None]


def card_info_pb(card: CardDef) -> br.BloodRageCardInfo:
    """One catalog entry."""
    strength = 0
    if card.type == CardType.BATTLE or card.unit >= 0:
        strength = card.value
    return br.BloodRageCardInfo(
        card_id=card.id,
        key=card.key,
        name=card.name,
        age=card.age,
        type=card_type_to_pb(card.type),
        slot=upgrade_slot_to_pb(card.slot),
        strength=strength,
        cost=card.cost if card.type == CardType.UPGRADE else 0,
        quest_glory=card.value if card.type == CardType.QUEST else 0,
        copies=[br.CardCopies(marking=marking_to_pb(m), count=n) for m, n in card.copies],
        text=card.text,
        monster=unit_to_pb(card.unit),
        late_play=card.late,
    )


_CARD_INFOS: dict[str, br.BloodRageCardInfo] = {c.id: card_info_pb(c) for c in CARDS}

# The clan sheet's flat slot positions (engine.blood_rage.state) → (UpgradeSlot, index within its
# kind).
_SLOT_POSITIONS: dict[int, tuple[br.UpgradeSlot.ValueType, int]] = {
    SLOT_LEADER: (br.UPGRADE_SLOT_LEADER, 0),
    SLOT_WARRIOR: (br.UPGRADE_SLOT_WARRIOR, 0),
    SLOT_SHIP: (br.UPGRADE_SLOT_SHIP, 0),
    **{pos: (br.UPGRADE_SLOT_MONSTER, i) for i, pos in enumerate(SLOT_MONSTERS)},
    **{pos: (br.UPGRADE_SLOT_CLAN, i) for i, pos in enumerate(SLOT_CLANS)},
}
