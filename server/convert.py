"""Engine values ⇄ protobuf messages: the only server module that imports both.

Everything a client receives about a game is built here from what the engine hands out: the
view dict of ``engine.view.view`` (for one seat or a spectator), the engine's event tuples
(already tagged with their audience), results and static card data. Engine dicts may gain
keys at any time, so they are read defensively: unknown keys are ignored, missing ones give
the proto default.

Conventions (see blood_rage.proto): proto enum value = engine id + 1 for Area, Unit, Stat,
Clan, Phase, DraftMode and CardType; UpgradeSlot and Region share the engine's numbers;
CardMarking is the engine's marking - 1; PillageReward is named after the engine's token.

Decisions and game options convert in ``protocol.codec`` (clients need them too, and must not
import the server); they are re-exported here so that the server has one conversion module.
What this module adds for actions is how another viewer sees a secret decision.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any, NamedTuple, TypeAlias

from google.protobuf.message import Message

from engine.actions import Action, ActionKind
from engine.board import (
    ADJACENT,
    END_GAME_BONUS,
    FJORD_SUPPORTS,
    LEADER_STR,
    REGION,
    SHIP_STR,
    STAT_TRACK,
    SUPPORTING_FJORDS,
    TOKEN_NAMES,
    VILLAGES,
    WARRIOR_STR,
    WARRIORS_PER_CLAN,
)
from engine.cards import (
    CARDS,
    INSTANCE_MARKING,
    MONSTER_CARD,
    CardDef,
    CardType,
    card_of,
    unit_display_name,
)
from engine.cards import Slot as CardSlot
from engine.ids import (
    AREA_NAMES,
    CLAN_NAMES,
    FIG_UNIT,
    NUM_AREAS,
    NUM_UNITS,
    STAT_NAMES,
    UNIT_NAMES,
    Phase,
    Step,
)
from engine.results import Result
from engine.state import (
    SLOT_CLANS,
    SLOT_LEADER,
    SLOT_MONSTERS,
    SLOT_SHIP,
    SLOT_WARRIOR,
    GameState,
    GloryReason,
)
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
    "EVENT_CONVERTERS",
    "GLORY_REASON_BY_ENGINE",
    "PRIVATE_EVENTS",
    "SPECTATOR",
    "ActionPb",
    "ConversionError",
    "EngineEventError",
    "EventPb",
    "GameResultPb",
    "ViewEnvelope",
    "ViewPb",
    "action_from_pb",
    "action_label",
    "action_to_pb",
    "add_legal_actions",
    "area_to_pb",
    "catalog",
    "convert_events",
    "draft_mode_from_pb",
    "draft_mode_to_pb",
    "hidden_action_label",
    "hidden_action_to_pb",
    "kind_name",
    "public_facts",
    "result_to_pb",
    "step_to_pb",
    "view_to_pb",
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

# The clan sheet's flat slot positions (engine.state) → (UpgradeSlot, index within its kind).
_SLOT_POSITIONS: dict[int, tuple[br.UpgradeSlot.ValueType, int]] = {
    SLOT_LEADER: (br.UPGRADE_SLOT_LEADER, 0),
    SLOT_WARRIOR: (br.UPGRADE_SLOT_WARRIOR, 0),
    SLOT_SHIP: (br.UPGRADE_SLOT_SHIP, 0),
    **{pos: (br.UPGRADE_SLOT_MONSTER, i) for i, pos in enumerate(SLOT_MONSTERS)},
    **{pos: (br.UPGRADE_SLOT_CLAN, i) for i, pos in enumerate(SLOT_CLANS)},
}

# ============================================================================================
# Views
# ============================================================================================


@dataclass(frozen=True, slots=True)
class ViewEnvelope:
    """What the server adds around the engine's view: ids, status, seats, clocks, result."""

    game_id: str
    status: gp.GameStatus.ValueType
    seats: Sequence[gp.SeatInfo]
    last_sequence: int
    draft_mode: int
    deadline_unix_ms: int = 0
    result: gp.GameResult | None = None


class _Memo:
    """Serialized sub-messages by a hashable key of their input (bounded).

    Views repeat most of their parts from one version to the next (figures, upgrades, the
    discard pile, provinces); merging cached bytes is far cheaper than building messages.
    """

    __slots__ = ("data", "limit")

    def __init__(self, limit: int = 8192) -> None:
        self.data: dict[Hashable, bytes] = {}
        self.limit = limit

    def get(self, key: Hashable, build: Callable[[], Message]) -> bytes:
        data = self.data.get(key)
        if data is None:
            data = build().SerializeToString()
            if len(self.data) >= self.limit:
                self.data.clear()
            self.data[key] = data
        return data


_MEMO = _Memo()


def _instances(infos: object) -> tuple[int, ...]:
    return tuple(
        i for i in (_int(_dict(x).get("instance"), -1) for x in _list(infos)) if 0 <= i < _NUM_CARDS
    )


def _merge_cards(owner: Message, field: str, infos: object) -> None:
    """Append the cards of a view's card list to ``owner.field`` (memoized)."""
    if not infos:
        return
    kind = type(owner)
    data = _MEMO.get(
        (kind, field, repr(infos)),
        lambda: kind(**{field: [card_pb(i) for i in _instances(infos)]}),
    )
    owner.MergeFromString(data)


def _stat_levels(stats: object) -> list[br.StatLevel]:
    d = _dict(stats)
    out = []
    for i, name in enumerate(STAT_NAMES):
        level = _dict(d.get(name))
        out.append(
            br.StatLevel(
                stat=stat_to_pb(i), step=_int(level.get("step")), value=_int(level.get("value"))
            )
        )
    return out


def _figures(figures: object) -> list[br.Figure]:
    out = []
    for entry in _list(figures):
        f = _dict(entry)
        where = _str(f.get("location"))
        unit = unit_to_pb(_UNIT_BY_NAME.get(_str(f.get("unit")), -1))
        if where in _LOCATION_BY_NAME:
            out.append(br.Figure(unit=unit, location=_LOCATION_BY_NAME[where]))
        elif where in _AREA_BY_NAME:
            out.append(
                br.Figure(unit=unit, location=br.FIGURE_LOCATION_BOARD, area=_area_by_name(where))
            )
    return out


def _upgrades(slots: object) -> list[br.UpgradeView]:
    out = []
    for position, info in enumerate(_list(slots)):
        card = _card_from_info(info)
        if card is None:
            continue
        slot, index = _SLOT_POSITIONS.get(position, (br.UPGRADE_SLOT_UNSPECIFIED, 0))
        out.append(
            br.UpgradeView(
                slot=slot, slot_index=index, card=card, info=_CARD_INFOS.get(card.card_id)
            )
        )
    return out


def _draft_round(clans: Sequence[Any], players: int, draft_mode: int) -> int:
    """1-based round of the draft, from the pack sizes (every pack starts at 8 cards)."""
    sizes = [_int(_dict(c).get("pack_count")) for c in clans]
    if not sizes:
        return 0
    per_round = 6 if draft_mode == 1 else (2 if players == 2 else 1)
    return (8 - max(sizes)) // per_round + 1


def _battle(
    battle: Mapping[str, Any], committed: Sequence[int], awaiting: Sequence[int]
) -> br.BattleView:
    revealed_cards = _dict(battle.get("revealed"))
    revealed = battle.get("winner") is not None or bool(revealed_cards)
    strengths = _dict(battle.get("strengths"))
    totals = _dict(battle.get("totals"))
    participants = []
    for seat in (_int(s, -1) for s in _list(battle.get("participants"))):
        if seat < 0:
            continue
        shown = revealed_cards.get(str(seat))
        cards = _cards_from_infos(shown) if isinstance(shown, list) else []
        single = _card_from_info(shown)
        if single is not None:
            cards = [single]
        participants.append(
            br.BattleParticipant(
                seat=seat,
                figure_strength=_int(strengths.get(str(seat))),
                has_committed=seat in committed,
                revealed_cards=cards,
                total_strength=_int(totals.get(str(seat))) if revealed else 0,
            )
        )
    return br.BattleView(
        province=_area_by_name(battle.get("province")),
        pillager=_int(battle.get("pillager")),
        participants=participants,
        revealed=revealed,
        reveal_round=_int(battle.get("reveal_round"), 1 if revealed else 0),
    )


def _prompt(p: Mapping[str, Any]) -> br.PromptView:
    seat = _int(p.get("seat"))
    out = br.PromptView(
        kind=_str(p.get("kind")),
        seat=seat,
        source_card_key=_str(p.get("source")),
        queued=_int(p.get("queued")),
    )
    if "unit" in p:
        out.unit = unit_to_pb(_UNIT_BY_NAME.get(_str(p.get("unit")), -1))
    if "area" in p:
        out.area = _area_by_name(p.get("area"))
    if "excluded_stat" in p:
        name = _str(p.get("excluded_stat"))
        if name in STAT_NAMES:
            out.excluded_stat = stat_to_pb(STAT_NAMES.index(name))
    for fig in _list(p.get("doomed")):
        f = _dict(fig)
        out.doomed.append(
            br.DestroyedFigure(
                seat=seat,
                unit=unit_to_pb(_UNIT_BY_NAME.get(_str(f.get("unit")), -1)),
                area=_area_by_name(f.get("location")),
            )
        )
    return out


def _own(private: Mapping[str, Any]) -> br.BloodRageSeatPrivate:
    own = br.BloodRageSeatPrivate()
    _merge_cards(own, "hand", private.get("hand"))
    _merge_cards(own, "draft_pack", private.get("pack"))
    _merge_cards(own, "pending_picks", private.get("pending_picks"))
    _merge_cards(own, "committed_quests", private.get("quests"))
    battle_card = _card_from_info(private.get("battle_card"))
    if battle_card is not None:
        own.battle_card.CopyFrom(battle_card)
    # The card chosen in this Discard phase once chosen, else the one kept in the last.
    kept = _card_from_info(private.get("keep"))
    if kept is None:
        kept = _card_from_info(private.get("kept"))
    if kept is not None:
        own.kept_card.CopyFrom(kept)
    return own


def _clan(c: Mapping[str, Any], name: str, committed: bool) -> br.ClanView:
    seat = _int(c.get("seat"))
    return br.ClanView(
        seat=seat,
        clan=br.Clan.ValueType(_plus_one(seat, len(CLAN_NAMES))),
        name=name,
        stats=_stat_levels(c.get("stats")),
        rage=_int(c.get("rage")),
        glory=_int(c.get("glory")),
        upgrades=_upgrades(c.get("upgrades")),
        figures=_figures(c.get("figures")),
        hand_count=_int(c.get("hand_count")),
        quest_count=_int(c.get("quest_count")),
        has_committed=committed,
        has_kept_card=bool(c.get("has_kept_card", False)),
    )


def _clan_alone(c: Mapping[str, Any], name: str, committed: bool) -> br.BloodRageView:
    return br.BloodRageView(clans=[_clan(c, name, committed)])


def _provinces(provinces: Sequence[Any], doom: str) -> br.BloodRageView:
    """The provinces and the Ragnarök track (a partial BloodRageView to merge)."""
    out = br.BloodRageView()
    slots: list[br.Area.ValueType] = [br.AREA_UNSPECIFIED] * 3
    for entry in provinces:
        p = _dict(entry)
        area = _area_by_name(p.get("area"))
        age = _int(p.get("ragnarok_age"))
        if 1 <= age <= 3:
            slots[age - 1] = area
        province = out.provinces.add()
        province.area = area
        province.destroyed = bool(p.get("destroyed", False))
        province.reward = REWARD_BY_TOKEN.get(
            _str(p.get("pillage_token")), br.PILLAGE_REWARD_UNSPECIFIED
        )
        province.pillaged = bool(p.get("pillaged", False))
        province.ragnarok_age = age
        province.doom = bool(doom) and p.get("area") == doom
    out.ragnarok_slots.extend(slots)
    return out


def _blood_rage_view(d: Mapping[str, Any], env: ViewEnvelope, out: br.BloodRageView) -> None:
    """Fill ``out`` (a View's blood_rage field, in place: no copy of the finished message)."""
    committed = [_int(s) for s in _list(d.get("committed"))]
    awaiting = [_int(s) for s in _list(d.get("awaiting"))]
    names = {info.seat: info.name for info in env.seats}
    raw_clans = _list(d.get("clans"))
    for entry in raw_clans:
        c = _dict(entry)
        seat = _int(c.get("seat"))
        name = names.get(seat, "")
        done = seat in committed
        out.MergeFromString(
            _MEMO.get(
                ("clan", repr(c), name, done),
                partial(_clan_alone, c, name, done),
            )
        )
    provinces = _list(d.get("provinces"))
    doom = _str(d.get("doom"))
    provinces_key = (doom, repr(provinces))
    out.MergeFromString(
        _MEMO.get(("provinces", provinces_key), lambda: _provinces(provinces, doom))
    )
    prompt = d.get("prompt")
    prompt_kind = _str(_dict(prompt).get("kind")) if prompt is not None else None
    phase = _PHASE_BY_NAME.get(_str(d.get("phase")), -1)
    out.age = _int(d.get("age"))
    out.phase = phase_to_pb(phase)
    out.step = step_to_pb(_str(d.get("step")), prompt_kind, game_over=phase == Phase.GAME_OVER)
    out.first_player = _int(d.get("first_player"))
    if _str(d.get("step")) == "draft_pick":
        out.draft_round = _draft_round(raw_clans, _int(d.get("players")), env.draft_mode)
    out.deck_sizes.extend(_int(x) for x in _list(d.get("deck_sizes")))
    _merge_cards(out, "discard_pile", d.get("discard"))
    out.hidden_discard_count = _int(d.get("unseen_count"))
    march = _list(d.get("march"))
    if len(march) >= 2:
        out.march.CopyFrom(
            br.MarchView(
                seat=_int(d.get("turn")),
                from_area=_area_by_name(march[0]),
                to_area=_area_by_name(march[1]),
                moved=[
                    unit_to_pb(_UNIT_BY_NAME.get(_str(u), -1)) for u in _list(d.get("march_moved"))
                ],
            )
        )
    battle = d.get("battle")
    if isinstance(battle, Mapping):
        out.battle.CopyFrom(_battle(battle, committed, awaiting))
    prompt = d.get("prompt")
    if isinstance(prompt, Mapping):
        out.prompt.CopyFrom(_prompt(prompt))
    private = d.get("private")
    if isinstance(private, Mapping):
        out.own.CopyFrom(_own(private))


def view_to_pb(d: Mapping[str, Any], env: ViewEnvelope) -> gp.View:
    """The engine's view dict (already filtered for its viewer) as a View."""
    viewer = _int(d.get("viewer"), SPECTATOR)
    committed = sorted(_int(s) for s in _list(d.get("committed")))
    awaiting = sorted({_int(s) for s in _list(d.get("awaiting"))} | set(committed))
    view = gp.View(
        game_id=env.game_id,
        kind=gp.GAME_KIND_BLOOD_RAGE,
        status=env.status,
        state_version=_int(d.get("version")),
        last_sequence=env.last_sequence,
        seats=env.seats,
        awaiting_seats=awaiting,
        committed_seats=committed,
        decision_deadline_unix_ms=env.deadline_unix_ms,
    )
    _blood_rage_view(d, env, view.blood_rage)
    engine_state = d.get("engine_state")
    if engine_state is not None:  # present only when the engine view was asked for it
        view.blood_rage.engine_state_json = json.dumps(engine_state, separators=(",", ":"))
    if viewer != SPECTATOR:
        view.viewer_seat = viewer
        view.legal_actions.extend(
            legal_actions_to_pb(_dict(x) for x in _list(d.get("legal_actions")))
        )
    if env.result is not None:
        view.result.CopyFrom(env.result)
    return view


# ============================================================================================
# Results
# ============================================================================================


def _end_game_bonuses(final_view: Mapping[str, Any]) -> list[br.EndGameBonus]:
    out = []
    for entry in _list(final_view.get("clans")):
        c = _dict(entry)
        stats = _stat_levels(c.get("stats"))
        bonus = sum(END_GAME_BONUS[s.step - 1] for s in stats if 1 <= s.step <= len(END_GAME_BONUS))
        out.append(
            br.EndGameBonus(
                seat=_int(c.get("seat")),
                stat_bonus=bonus,
                card_bonus=_int(c.get("end_card_bonus")),
                glory=_int(c.get("glory")),
                final_stats=stats,
            )
        )
    return out


def result_to_pb(
    result: Result, names: Sequence[str], final_view: Mapping[str, Any]
) -> gp.GameResult:
    """A finished game's result; ``final_view`` is the final spectator view (public)."""
    seats = [
        gp.SeatResult(
            seat=seat,
            name=names[seat] if seat < len(names) else "",
            score=glory,
            rank=result.ranks[seat],
            winner=seat in result.winners,
        )
        for seat, glory in enumerate(result.glory)
    ]
    return gp.GameResult(
        seats=seats,
        winners=list(result.winners),
        blood_rage=br.BloodRageResult(bonuses=_end_game_bonuses(final_view)),
    )


# ============================================================================================
# Events
# ============================================================================================


@dataclass(slots=True)
class ConvertedEvent:
    """One event for the game's log: ``full`` for its audience, ``public`` for the others.

    ``audience`` is -1 (everyone sees ``full``) or a seat; then every other viewer gets
    ``public`` (a filtered copy, or no payload at all when ``public`` is None).
    """

    audience: int
    full: gp.Event
    public: gp.Event | None = None


class PublicFacts(NamedTuple):
    """The public facts event conversion compares around a decision: taken from the states
    directly (a few tuples), not from whole views."""

    players: int
    age: int
    first_player: int
    glory: tuple[int, ...]  # per seat
    steps: tuple[tuple[int, ...], ...]  # per seat: step index (0-5) of each stat
    tokens: tuple[int, ...]  # pillage token kind per province (-1: none)


def public_facts(state: GameState) -> PublicFacts:
    clans = state.clans
    return PublicFacts(
        state.players,
        state.age,
        state.first_player,
        tuple([c.glory for c in clans]),
        tuple([tuple(c.steps) for c in clans]),
        tuple(state.token),
    )


@dataclass(slots=True)
class _Batch:
    """Conversion context of the events of one applied decision."""

    before: PublicFacts  # before the decision
    after: PublicFacts  # after it
    by_timeout: bool
    final_view: Mapping[str, Any] | None  # the spectator view once the game has ended
    out: list[ConvertedEvent] = field(default_factory=list)
    quests: br.QuestResults | None = None
    scoring_at: int | None = None  # index in `out` of the end-game scoring event, if any
    glory: dict[int, int] = field(default_factory=dict)  # seat -> Glory its events report

    def public(self, event: br.BloodRageEvent) -> None:
        self.quests = None
        self.out.append(ConvertedEvent(-1, gp.Event(blood_rage=event)))


def _first_player_of(batch: _Batch, age: int) -> int:
    after = batch.after
    # The first-player token moves one seat clockwise per Age (§9).
    return (after.first_player - (after.age - age)) % max(1, after.players)


def _ev_phase(payload: Mapping[str, Any], batch: _Batch) -> None:
    age = _int(payload.get("age"))
    phase = _PHASE_BY_NAME.get(_str(payload.get("phase")), -1)
    batch.public(
        br.BloodRageEvent(
            phase_started=br.PhaseStarted(
                age=age, phase=phase_to_pb(phase), first_player=_first_player_of(batch, age)
            )
        )
    )


def _destroyed(entries: object, province: int) -> list[br.DestroyedFigure]:
    out = []
    for entry in _list(entries):
        pair = _list(entry)
        if len(pair) < 2:
            continue
        seat, fig = _int(pair[0]), _int(pair[1], -1)
        unit = FIG_UNIT[fig] if 0 <= fig < len(FIG_UNIT) else -1
        area = _int(pair[2], province) if len(pair) >= 3 else province
        out.append(br.DestroyedFigure(seat=seat, unit=unit_to_pb(unit), area=area_to_pb(area)))
    return out


def _ev_battle_revealed(payload: Mapping[str, Any], batch: _Batch) -> None:
    cards = []
    for seat, card in _dict(payload.get("cards")).items():
        instances = _list(card) if isinstance(card, list | tuple) else [card]
        for instance in instances:
            if _int(instance, -1) >= 0:
                cards.append(br.SeatCard(seat=_int(seat), card=card_pb(_int(instance))))
    batch.public(
        br.BloodRageEvent(
            battle_revealed=br.BattleRevealed(
                province=area_to_pb(_int(payload.get("province"), -1)), cards=cards
            )
        )
    )


def _ev_battle_resolved(payload: Mapping[str, Any], batch: _Batch) -> None:
    province = _int(payload.get("province"), -1)
    resolved = br.BattleResolved(
        province=area_to_pb(province),
        totals=[
            br.SeatStrength(seat=_int(s), strength=_int(v))
            for s, v in _dict(payload.get("totals")).items()
        ],
        destroyed=_destroyed(payload.get("destroyed"), province),
    )
    winner = _int(payload.get("winner"), -1)
    if winner >= 0:
        resolved.winner = winner
    batch.public(br.BloodRageEvent(battle_resolved=resolved))


def _ev_pillage(payload: Mapping[str, Any], batch: _Batch) -> None:
    province = _int(payload.get("province"), -1)
    success = bool(payload.get("success", False))
    reward: br.PillageReward.ValueType = br.PILLAGE_REWARD_UNSPECIFIED
    if success:
        token = payload.get("reward")
        if not isinstance(token, str):
            tokens = batch.before.tokens
            kind = tokens[province] if 0 <= province < len(tokens) else -1
            token = TOKEN_NAMES[kind] if 0 <= kind < len(TOKEN_NAMES) else None
        reward = REWARD_BY_TOKEN.get(_str(token), br.PILLAGE_REWARD_UNSPECIFIED)
    batch.public(
        br.BloodRageEvent(
            pillage_result=br.PillageResult(
                province=area_to_pb(province),
                pillager=_int(payload.get("seat")),
                success=success,
                reward=reward,
                battle=bool(payload.get("battle", False)),
            )
        )
    )


def _ev_quest(payload: Mapping[str, Any], batch: _Batch) -> None:
    outcome = br.QuestOutcome(
        seat=_int(payload.get("seat")),
        fulfilled=bool(payload.get("success", False)),
        glory=_int(payload.get("glory")),
    )
    card = _int(payload.get("card"), -1)
    if card >= 0:
        outcome.card.CopyFrom(card_pb(card))
    if batch.quests is not None:  # consecutive quests are one QuestResults event
        batch.quests.quests.append(outcome)
        return
    event = br.BloodRageEvent(quest_results=br.QuestResults(quests=[outcome]))
    batch.public(event)
    batch.quests = batch.out[-1].full.blood_rage.quest_results


def _ev_ragnarok(payload: Mapping[str, Any], batch: _Batch) -> None:
    province = _int(payload.get("province"), -1)
    destroyed = _destroyed(payload.get("destroyed"), province)
    batch.public(
        br.BloodRageEvent(
            ragnarok=br.Ragnarok(
                age=_int(payload.get("age")), province=area_to_pb(province), destroyed=destroyed
            )
        )
    )


def _ev_release(payload: Mapping[str, Any], batch: _Batch) -> None:
    released = [_int(x) for x in _list(payload.get("released"))]
    batch.public(br.BloodRageEvent(valhalla_released=br.ValhallaReleased(released=released)))


def _ev_game_over(payload: Mapping[str, Any], batch: _Batch) -> None:
    bonuses = _end_game_bonuses(batch.final_view or {})
    batch.scoring_at = len(batch.out)
    batch.public(br.BloodRageEvent(end_game_scoring=br.EndGameScoring(bonuses=bonuses)))


def _ev_figures_destroyed(payload: Mapping[str, Any], batch: _Batch) -> None:
    destroyed = _destroyed(payload.get("destroyed"), -1)
    if destroyed:
        event = br.FiguresDestroyed(destroyed=destroyed, cause=_str(payload.get("cause")))
        card = _int(payload.get("card"), -1)
        if 0 <= card < _NUM_CARDS:
            event.card_id = card_of(card).id
        batch.public(br.BloodRageEvent(figures_destroyed=event))


# The engine's Glory reasons (engine.state.GloryReason) → the API's; every one has a name.
GLORY_REASON_BY_ENGINE: dict[str, br.GloryReason.ValueType] = {
    GloryReason.BATTLE: br.GLORY_REASON_BATTLE,
    GloryReason.PILLAGE: br.GLORY_REASON_PILLAGE,
    GloryReason.QUEST: br.GLORY_REASON_QUEST,
    GloryReason.RAGNAROK: br.GLORY_REASON_RAGNAROK,
    GloryReason.CARD: br.GLORY_REASON_CARD,
    GloryReason.END_GAME: br.GLORY_REASON_END_GAME,
}


def _ev_glory(payload: Mapping[str, Any], batch: _Batch) -> None:
    reason = GLORY_REASON_BY_ENGINE.get(_str(payload.get("reason")))
    if reason is None:
        raise EngineEventError(f"a glory event with a reason the API cannot name: {payload!r}")
    seat, delta = _int(payload.get("seat")), _int(payload.get("delta"))
    changed = br.GloryChanged(
        seat=seat, delta=delta, glory=_int(payload.get("glory")), reason=reason
    )
    card = _int(payload.get("card"), -1)
    if 0 <= card < _NUM_CARDS:
        changed.card_id = card_of(card).id
    area = _int(payload.get("area"), -1)
    if area >= 0:
        changed.area = area_to_pb(area)
    stat = _int(payload.get("stat"), -1)
    if stat >= 0:
        changed.stat = stat_to_pb(stat)
    other = _int(payload.get("other_seat"), -1)
    if other >= 0:
        changed.other_seat = other
    batch.glory[seat] = batch.glory.get(seat, 0) + delta
    batch.public(br.BloodRageEvent(glory_changed=changed))


def _ev_skip(payload: Mapping[str, Any], batch: _Batch) -> None:
    """An engine event with no message of its own (see EVENT_CONVERTERS)."""


_EventConverter = Callable[[Mapping[str, Any], _Batch], None]
# Engine event type → converter of a public event. "action" is handled separately; a type
# missing here, or in PRIVATE_EVENTS, is refused (EngineEventError), never dropped.
EVENT_CONVERTERS: dict[str, _EventConverter] = {
    "glory": _ev_glory,
    "phase": _ev_phase,
    "battle_revealed": _ev_battle_revealed,
    "battle_resolved": _ev_battle_resolved,
    "pillage": _ev_pillage,
    "quest": _ev_quest,
    "ragnarok": _ev_ragnarok,
    "release": _ev_release,
    "game_over": _ev_game_over,
    "figures_destroyed": _ev_figures_destroyed,
    # No message of their own: the ActionApplied of the same decision, the views, the stat
    # changes derived from them or another event already tell what they tell.
    "draft_round": _ev_skip,
    "pillage_started": _ev_skip,
    "pillage_reward": _ev_skip,  # the PillageResult of the same pillage carries the reward
    "late_card": _ev_skip,
    "witch_retreat": _ev_skip,
    "figure_saved": _ev_skip,
    "heimdalls_watch": _ev_skip,  # its Glory is a GloryChanged, its cards BattleRevealed
}
# Engine events for one seat only: private duplicates of that seat's ActionApplied.
PRIVATE_EVENTS: frozenset[str] = frozenset({"picked", "battle_card_chosen", "kept"})


class EngineEventError(RuntimeError):
    """The engine recorded events this server cannot report faithfully: a type or Glory
    reason it does not know, a public event sent to one seat (or the reverse), or Glory that
    changed without an event saying why. A bug between engine and server: the decision is
    refused (nothing changes) rather than published with an event silently missing."""


@dataclass(frozen=True, slots=True)
class _ActionForms:
    """An applied action's event as its own seat and as everyone else see it, without the
    seat and time-out flag (templates: only ever copied, never changed)."""

    full: gp.Event
    hidden: gp.Event


def _applied_event(message: br.BloodRageAction | None, label: str) -> gp.Event:
    event = gp.Event()
    applied = event.blood_rage.action_applied
    applied.label = label
    if message is not None:
        applied.action.CopyFrom(message)
    return event


@lru_cache(maxsize=8192)
def _action_forms(code: int) -> _ActionForms:
    """Converted once per distinct action: a game repeats the same few hundred actions."""
    action = Action.from_code(code)
    try:
        message: br.BloodRageAction | None = action_to_pb(action)
        hidden = hidden_action_to_pb(action)
    except ConversionError:
        message = hidden = None
    return _ActionForms(
        _applied_event(message, action_label(action)),
        _applied_event(hidden, hidden_action_label(action)),
    )


def _stamped(template: gp.Event, seat: int, by_timeout: bool) -> bytes:
    event = gp.Event()
    event.CopyFrom(template)
    applied = event.blood_rage.action_applied
    applied.seat = seat
    if by_timeout:
        applied.by_timeout = True
    return event.SerializeToString()


@lru_cache(maxsize=32768)
def _stamped_forms(code: int, seat: int, by_timeout: bool) -> tuple[bytes, bytes]:
    """An action's event by this seat, as its own seat and as the others see it, serialized
    once: each use parses a fresh message from the bytes (faster than copying a template
    and stamping it)."""
    forms = _action_forms(code)
    return _stamped(forms.full, seat, by_timeout), _stamped(forms.hidden, seat, by_timeout)


def _ev_action(audience: int, payload: Mapping[str, Any], batch: _Batch) -> None:
    batch.quests = None
    full, hidden = _stamped_forms(
        _int(payload.get("action")), _int(payload.get("seat")), batch.by_timeout
    )
    public = gp.Event.FromString(hidden) if audience >= 0 else None
    batch.out.append(ConvertedEvent(audience, gp.Event.FromString(full), public))


def _check_glory(batch: _Batch) -> None:
    """Every change of Glory around the decision is accounted for by its glory events."""
    before, after = batch.before.glory, batch.after.glory
    for seat, (old, new) in enumerate(zip(before, after, strict=True)):
        told = batch.glory.get(seat, 0)
        if new - old != told:
            raise EngineEventError(
                f"seat {seat}'s Glory went from {old} to {new}, but the engine's glory events "
                f"account for {told:+d}"
            )


def _stat_changes(batch: _Batch) -> list[br.BloodRageEvent]:
    """Stat changes, from the public facts before and after."""
    out: list[br.BloodRageEvent] = []
    before, after = batch.before, batch.after
    if before.steps == after.steps:
        return out  # most decisions change none
    for seat in range(len(after.steps)):
        old_steps, steps = before.steps[seat], after.steps[seat]
        if steps == old_steps:
            continue
        for stat, (old_step, step) in enumerate(zip(old_steps, steps, strict=True)):
            if step != old_step:
                level = br.StatLevel(
                    stat=stat_to_pb(stat), step=step + 1, value=STAT_TRACK[stat][step]
                )
                out.append(br.BloodRageEvent(stat_changed=br.StatChanged(seat=seat, level=level)))
    return out


def convert_events(
    raw: Iterable[tuple[int, Mapping[str, Any]]],
    before: PublicFacts,
    after: PublicFacts,
    by_timeout: bool = False,
    final_view: Mapping[str, Any] | None = None,
) -> list[ConvertedEvent]:
    """The engine events of one decision as API events (sequence numbers not yet set).

    ``before``/``after`` are the public facts around the decision (:func:`public_facts`):
    stat changes are derived from them and reported before the end-of-game scoring, which
    reads ``final_view`` (the spectator view after the last decision); Glory changes come
    from the engine's own events, one per source, and must add up to the change between
    them. Private events other than the decision itself are duplicates of it and dropped.
    Anything else this API cannot report raises :class:`EngineEventError`.
    """
    batch = _Batch(before, after, by_timeout, final_view)
    for audience, payload in raw:
        kind = _str(payload.get("type"))
        if kind == "action":
            _ev_action(audience, payload, batch)
            continue
        if kind in PRIVATE_EVENTS and audience >= 0:
            continue
        converter = EVENT_CONVERTERS.get(kind)
        if converter is None or audience >= 0:
            what = "private event" if kind in PRIVATE_EVENTS else "event"
            to = f"seat {audience} only" if audience >= 0 else "everyone"
            raise EngineEventError(
                f"the engine sent {to} a {what} this API does not report that way: {payload!r}"
            )
        converter(payload, batch)
    _check_glory(batch)
    changes = [ConvertedEvent(-1, gp.Event(blood_rage=e)) for e in _stat_changes(batch)]
    if not changes:
        return batch.out
    end = len(batch.out) if batch.scoring_at is None else batch.scoring_at
    return batch.out[:end] + changes + batch.out[end:]


# Game-agnostic events and envelopes (no engine data in them).


def status_to_pb(status: int) -> gp.GameStatus.ValueType:
    """The server's status number (game_record.Status uses the proto's numbers)."""
    return gp.GameStatus.ValueType(status if 0 <= status <= 4 else 0)


def seat_infos(names: Sequence[str], claimed: Sequence[bool]) -> list[gp.SeatInfo]:
    return [
        gp.SeatInfo(seat=seat, name=name, claimed=claimed[seat]) for seat, name in enumerate(names)
    ]


def seat_claimed_event(seat: int, name: str) -> ConvertedEvent:
    return ConvertedEvent(-1, gp.Event(seat_claimed=gp.SeatClaimed(seat=seat, name=name)))


def status_changed_event(status: int) -> ConvertedEvent:
    return ConvertedEvent(
        -1, gp.Event(status_changed=gp.StatusChanged(status=status_to_pb(status)))
    )


def game_ended_event(result: gp.GameResult | None) -> ConvertedEvent:
    ended = gp.GameEnded()
    if result is not None:
        ended.result.CopyFrom(result)
    return ConvertedEvent(-1, gp.Event(game_ended=ended))


def game_aborted_event(cause: int, reason: str) -> ConvertedEvent:
    aborted = gp.GameAborted(cause=gp.GameAborted.Cause.ValueType(cause), reason=reason)
    return ConvertedEvent(-1, gp.Event(game_aborted=aborted))


def timed_out_event(seat: int) -> ConvertedEvent:
    return ConvertedEvent(-1, gp.Event(timed_out=gp.DecisionTimedOut(seat=seat)))


def is_game_ended(event: gp.Event) -> bool:
    """Whether ``event`` is a game's last one (it ended, or it was aborted)."""
    return event.WhichOneof("payload") in ("game_ended", "game_aborted")


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
