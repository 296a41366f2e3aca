"""Engine values ⇄ protobuf messages: with ``server.convert_views`` (views and results) and
``server.convert_events`` (events), the only server modules that import both.

Everything a client receives about a game is built from what the engine hands out: the
view dict of ``engine.blood_rage.view.view`` (for one seat or a spectator:
``server.convert_views``), the engine's event tuples (already tagged with their audience:
``server.convert_events``), results and static card data. This module holds what they share: enums,
the defensive readers of engine dicts, actions, cards, the envelopes and the catalog. Engine dicts
may gain keys at any time, so they are read defensively: unknown keys are ignored, missing ones give
the proto default.

Conventions (see blood_rage.proto): proto enum value = engine id + 1 for Area, Unit, Stat,
Clan, Phase, DraftMode and CardType; UpgradeSlot and Region share the engine's numbers;
CardMarking is the engine's marking - 1; PillageReward is named after the engine's token.

Decisions and game options convert in ``protocol.codec`` (clients need them too, and must not
import the server); they are re-exported here so that the server has one conversion module.
What this module adds for actions is how another viewer sees a secret decision.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.board import (
    ADJACENT,
    END_GAME_BONUS,
    FJORD_SUPPORTS,
    LEADER_STR,
    REGION,
    SHIP_STR,
    STAT_TRACK,
    SUPPORTING_FJORDS,
    VILLAGES,
    WARRIOR_STR,
    WARRIORS_PER_CLAN,
)
from engine.blood_rage.cards import (
    CARDS,
    INSTANCE_MARKING,
    MONSTER_CARD,
    CardDef,
    CardType,
    card_of,
    unit_display_name,
)
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
from protocol.codec import (
    ACTION_FIELDS,
    ConversionError,
    action_from_pb,
    action_label,
    action_to_pb,
    draft_mode_from_pb,
    draft_mode_to_pb,
    kind_name,
)
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

__all__ = [
    "ACTION_FIELDS",
    "SPECTATOR",
    "ActionPb",
    "ConversionError",
    "EventPb",
    "GameResultPb",
    "ViewPb",
    "action_from_pb",
    "action_label",
    "action_to_pb",
    "add_legal_actions",
    "area_to_pb",
    "catalog",
    "draft_mode_from_pb",
    "draft_mode_to_pb",
    "hidden_action_label",
    "hidden_action_to_pb",
    "kind_name",
    "step_to_pb",
]

# Re-exported so that modules that only pass messages along need not import the stubs.
ViewPb: TypeAlias = gp.View
EventPb: TypeAlias = gp.Event
ActionPb: TypeAlias = gp.Action
GameResultPb: TypeAlias = gp.GameResult

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

# ============================================================================================
# Defensive readers of engine dicts
# ============================================================================================


def _int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


_EMPTY: Mapping[str, Any] = {}


def _dict(value: object) -> Mapping[Any, Any]:
    if type(value) is dict:  # the usual case, without the ABC check
        return value
    return value if isinstance(value, Mapping) else _EMPTY


def _list(value: object) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else ()


def _area_by_name(value: object) -> br.Area.ValueType:
    return area_to_pb(_AREA_BY_NAME.get(_str(value), -1))


# ============================================================================================
# Actions
# ============================================================================================

# Secret decisions whose kind itself is hidden from other viewers (keeping a card or none
# tells whether the hand held one worth keeping); other secret kinds only hide their cards.
_HIDDEN_KIND: frozenset[int] = frozenset({ActionKind.KEEP_CARD, ActionKind.KEEP_NONE})
_HIDDEN_LABELS: dict[int, str] = {
    ActionKind.DRAFT_PICK: "pick a card",
    ActionKind.QUEST: "commit a quest",
    ActionKind.BATTLE_CARD: "choose a battle card",
    ActionKind.KEEP_CARD: "choose what to keep",
    ActionKind.KEEP_NONE: "choose what to keep",
}
# Argument fields that name a card instance: blanked in another seat's secret decision.
_CARD_FIELDS = frozenset({"card"})


def hidden_action_to_pb(action: Action) -> br.BloodRageAction | None:
    """Another viewer's form of a secret decision: cards blanked, or nothing at all."""
    if action[0] in _HIDDEN_KIND:
        return None
    out = action_to_pb(action)
    kind = out.WhichOneof("kind")
    if kind is not None:
        sub = getattr(out, kind)
        for name in _CARD_FIELDS:
            if name in sub.DESCRIPTOR.fields_by_name:
                sub.ClearField(name)
    return out


def hidden_action_label(action: Action) -> str:
    return _HIDDEN_LABELS.get(action[0], "make a secret choice")


def _envelope(action: br.BloodRageAction | None) -> gp.Action:
    return gp.Action() if action is None else gp.Action(blood_rage=action)


def legal_actions_to_pb(entries: Iterable[Mapping[str, Any]]) -> list[gp.LegalAction]:
    out = []
    for position, entry in enumerate(entries):
        kind = _int(entry.get("kind"), -1)
        raw = [_int(x) for x in _list(entry.get("args"))][:3]
        raw += [0] * (3 - len(raw))
        action = Action(kind, raw[0], raw[1], raw[2])
        try:
            message = _envelope(action_to_pb(action))
        except ConversionError:
            message = gp.Action()  # a kind this API cannot name yet: legal_index still works
        out.append(
            gp.LegalAction(
                index=_int(entry.get("index"), position),
                action=message,
                label=_str(entry.get("label")),
                code=max(0, _int(entry.get("code"), action.code())),
            )
        )
    return out


# Per action code: the LegalAction at index 0 (the decision and its label depend on the code
# only). Bounded: codes are few in practice, and a full cache just starts again.
_LEGAL_TEMPLATES: dict[int, gp.LegalAction] = {}
_LEGAL_TEMPLATES_MAX = 8192


def add_legal_actions(target: Any, actions: Sequence[Action]) -> None:
    """Append a seat's legal actions, in order, to a repeated LegalAction field (the same
    entries as a view's legal_actions, from templates converted once per action code)."""
    templates = _LEGAL_TEMPLATES
    for index, action in enumerate(actions):
        code = action.code()
        template = templates.get(code)
        if template is None:
            if len(templates) >= _LEGAL_TEMPLATES_MAX:
                templates.clear()
            template = legal_actions_to_pb(
                [
                    {
                        "index": 0,
                        "code": code,
                        "kind": action[0],
                        "args": [action[1], action[2], action[3]],
                        "label": action_label(action),
                    }
                ]
            )[0]
            templates[code] = template
        entry = target.add()
        entry.CopyFrom(template)
        entry.index = index


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

# Game-agnostic envelopes (no engine data in them).


def status_to_pb(status: int) -> gp.GameStatus.ValueType:
    """The server's status number (game_record.Status uses the proto's numbers)."""
    return gp.GameStatus.ValueType(status if 0 <= status <= 4 else 0)


def seat_infos(names: Sequence[str], claimed: Sequence[bool]) -> list[gp.SeatInfo]:
    return [
        gp.SeatInfo(seat=seat, name=name, claimed=claimed[seat]) for seat, name in enumerate(names)
    ]


def replay_step_pb(seat: int, action: Action, version: int, by_timeout: bool) -> gp.ReplayStep:
    """One decision of a finished game's log, unfiltered."""
    return gp.ReplayStep(
        seat=seat,
        action=_envelope(action_to_pb(action)),
        state_version=version,
        by_timeout=by_timeout,
    )


# ============================================================================================
# Catalog
# ============================================================================================


def _unit_infos() -> list[br.UnitInfo]:
    out = []
    for unit in range(len(UNIT_NAMES)):
        name = unit_display_name(unit)
        per_clan = 1
        if unit == 0:
            strength = LEADER_STR
        elif unit == 1:
            strength, per_clan = WARRIOR_STR, WARRIORS_PER_CLAN
        elif unit == 2:
            strength = SHIP_STR
        else:
            monster = MONSTER_CARD.get(unit)
            strength = monster.value if monster is not None else 0
        out.append(
            br.UnitInfo(
                unit=unit_to_pb(unit),
                name=name[:1].upper() + name[1:],  # Leader, Dwarf Chieftain, Soldier of Hel
                strength=strength,
                per_clan=per_clan,
            )
        )
    return out


def _area_infos() -> list[br.AreaInfo]:
    out = []
    for area in range(NUM_AREAS):
        fjord = area >= len(VILLAGES)
        if fjord:
            supports = [area_to_pb(p) for p in FJORD_SUPPORTS.get(area, ())]
            adjacent: list[br.Area.ValueType] = []
            villages = 0
            region: br.Region.ValueType = br.REGION_UNSPECIFIED
        else:
            supports = [area_to_pb(f) for f in SUPPORTING_FJORDS[area]]
            adjacent = [area_to_pb(p) for p in ADJACENT[area]]
            villages = VILLAGES[area] if area != 0 else 0
            region = region_to_pb(REGION[area])
        out.append(
            br.AreaInfo(
                area=area_to_pb(area),
                name=AREA_NAMES[area],
                fjord=fjord,
                region=region,
                villages=villages,
                adjacent=adjacent,
                supports=supports,
            )
        )
    return out


def _catalog() -> br.BloodRageCatalog:
    return br.BloodRageCatalog(
        cards=[_CARD_INFOS[c.id] for c in CARDS],
        areas=_area_infos(),
        stat_tracks=[
            br.StatTrack(
                stat=stat_to_pb(i),
                values=list(STAT_TRACK[i]),
                end_game_glory=list(END_GAME_BONUS),
            )
            for i in range(len(STAT_NAMES))
        ],
        units=_unit_infos(),
    )


_CATALOG = _catalog()


def catalog() -> br.BloodRageCatalog:
    """Blood Rage's static data (built once; do not mutate the returned message)."""
    return _CATALOG
