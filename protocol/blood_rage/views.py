"""Blood Rage's views and results on the wire: what a viewer receives of a game's state.

The rules' view dict of one viewer (``engine.blood_rage.view``) becomes the ``blood_rage``
payload of a ``View`` (``protocol.envelopes`` builds the envelope around it), and a finished
game's end-of-game bonuses its result's details. Dicts are read defensively (unknown keys
ignored, missing ones the proto default). Views repeat most of their parts from one version to
the next, so parts are memoized as serialized bytes."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import partial
from typing import Any

from google.protobuf.message import Message

from engine.blood_rage.board import END_GAME_BONUS
from engine.blood_rage.ids import CLAN_NAMES, STAT_NAMES, Phase
from protocol.blood_rage.details import details_pb
from protocol.blood_rage.values import (
    _AREA_BY_NAME,
    _CARD_INFOS,
    _LOCATION_BY_NAME,
    _NUM_CARDS,
    _PHASE_BY_NAME,
    _SLOT_POSITIONS,
    _UNIT_BY_NAME,
    REWARD_BY_TOKEN,
    _area_by_name,
    _card_from_info,
    _cards_from_infos,
    _dict,
    _int,
    _list,
    _plus_one,
    _str,
    card_pb,
    phase_to_pb,
    stat_to_pb,
    step_to_pb,
    unit_to_pb,
)
from protocol.envelopes import engine_state_json
from protocol.wire import ViewEnvelope
from yggdrasil.v1 import blood_rage_pb2 as br

__all__ = ["end_game_bonuses", "fill_view"]


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
        draft_mode = _int(env.game_options.get("draft_mode"))
        out.draft_round = _draft_round(raw_clans, _int(d.get("players")), draft_mode)
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


def _details_bytes(details: Mapping[str, Any]) -> bytes:
    return _MEMO.get(("details", repr(details)), lambda: details_pb(details))


def _legal_details(entries: Sequence[Any], legal: Any) -> None:
    """Complete ``legal`` (a View's legal actions, built from the same entries by code) with
    what each action costs and is about, and its label where the state words it (a decline
    says what it declines): both depend on more than the action's code."""
    for position, raw in enumerate(entries[: len(legal)]):
        entry = _dict(raw)
        target = legal[position]
        label = _str(entry.get("label"))
        if label and label != target.label:
            target.label = label
        details = _dict(entry.get("details"))
        if details and target.action.HasField("blood_rage"):
            target.action.blood_rage.details.MergeFromString(_details_bytes(details))


def fill_view(d: Mapping[str, Any], env: ViewEnvelope, view: Any) -> None:
    """Set the ``blood_rage`` payload of ``view`` (a View) from the rules' view dict, and
    complete its legal actions (already listed) with their details."""
    _blood_rage_view(d, env, view.blood_rage)
    legal = _list(d.get("legal_actions"))
    if legal and len(view.legal_actions):
        _legal_details(legal, view.legal_actions)
    state = engine_state_json(d)
    if state is not None:  # present only when the view was asked for it
        view.blood_rage.engine_state_json = state


# ============================================================================================
# Results
# ============================================================================================


def end_game_bonuses(final_view: Mapping[str, Any]) -> list[br.EndGameBonus]:
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
