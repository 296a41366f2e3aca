"""Blood Rage's events on the wire: what watchers receive of each decision.

The rules' events of one applied decision (already tagged with their audience) become API
events (:func:`convert_events`), one each and in the order the rules did things, each with the
form its audience sees and, for a seat's secret, the form everyone else sees. Glory and stat
changes must add up to the difference of the public facts before and after the decision
(:func:`public_facts`); anything this API cannot report faithfully raises
:class:`EngineEventError`. Applied in order onto a view, the events give the next view's
figures, Glory, stats, Rage and provinces (tests/api/test_api_event_replay.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from engine.blood_rage.actions import Action
from engine.blood_rage.board import STAT_TRACK, TOKEN_NAMES
from engine.blood_rage.cards import card_of
from engine.blood_rage.ids import FIG_UNIT
from engine.blood_rage.state import GameState, GloryReason, StatReason
from protocol.blood_rage.actions import (
    action_label,
    action_to_pb,
    hidden_action_label,
    hidden_action_to_pb,
)
from protocol.blood_rage.details import details_pb
from protocol.blood_rage.values import (
    _NUM_CARDS,
    _PHASE_BY_NAME,
    REWARD_BY_TOKEN,
    _dict,
    _int,
    _list,
    _str,
    area_to_pb,
    card_pb,
    phase_to_pb,
    stat_to_pb,
    unit_to_pb,
)
from protocol.blood_rage.views import end_game_bonuses
from protocol.wire import ConversionError, ConvertedEvent
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

__all__ = [
    "EVENT_CONVERTERS",
    "GLORY_REASON_BY_ENGINE",
    "PRIVATE_EVENTS",
    "STAT_REASON_BY_ENGINE",
    "EngineEventError",
    "PublicFacts",
    "convert_events",
    "public_facts",
]


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
    glory: dict[int, int] = field(default_factory=dict)  # seat -> Glory its events report
    steps: dict[tuple[int, int], int] = field(default_factory=dict)  # (seat, stat) -> steps

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
    bonuses = end_game_bonuses(batch.final_view or {})
    batch.public(br.BloodRageEvent(end_game_scoring=br.EndGameScoring(bonuses=bonuses)))


def _ev_figures_destroyed(payload: Mapping[str, Any], batch: _Batch) -> None:
    destroyed = _destroyed(payload.get("destroyed"), -1)
    if destroyed:
        event = br.FiguresDestroyed(destroyed=destroyed, cause=_str(payload.get("cause")))
        card = _int(payload.get("card"), -1)
        if 0 <= card < _NUM_CARDS:
            event.card_id = card_of(card).id
        batch.public(br.BloodRageEvent(figures_destroyed=event))


# The engine's Glory reasons (engine.blood_rage.state.GloryReason) → the API's; every one has a
# name.
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


# The engine's stat reasons (engine.blood_rage.state.StatReason) → the API's.
STAT_REASON_BY_ENGINE: dict[str, br.StatReason.ValueType] = {
    StatReason.PILLAGE: br.STAT_REASON_PILLAGE,
    StatReason.QUEST: br.STAT_REASON_QUEST,
    StatReason.CARD: br.STAT_REASON_CARD,
}


def _card_id(payload: Mapping[str, Any], key: str = "card") -> str:
    """The catalog id of the card instance ``payload[key]`` names ("" for none)."""
    card = _int(payload.get(key), -1)
    return card_of(card).id if 0 <= card < _NUM_CARDS else ""


def _ev_stat(payload: Mapping[str, Any], batch: _Batch) -> None:
    reason = STAT_REASON_BY_ENGINE.get(_str(payload.get("reason")))
    seat, stat = _int(payload.get("seat")), _int(payload.get("stat"), -1)
    step, previous = _int(payload.get("step"), -1), _int(payload.get("previous"), -1)
    if reason is None or not 0 <= stat < len(STAT_TRACK) or not 0 <= step < len(STAT_TRACK[0]):
        raise EngineEventError(f"a stat event this API cannot report: {payload!r}")
    changed = br.StatChanged(
        seat=seat,
        level=br.StatLevel(stat=stat_to_pb(stat), step=step + 1, value=STAT_TRACK[stat][step]),
        reason=reason,
        card_id=_card_id(payload),
        previous_step=previous + 1,
    )
    area = _int(payload.get("area"), -1)
    if area >= 0:
        changed.area = area_to_pb(area)
    batch.steps[seat, stat] = batch.steps.get((seat, stat), 0) + step - previous
    batch.public(br.BloodRageEvent(stat_changed=changed))


def _ev_rage(payload: Mapping[str, Any], batch: _Batch) -> None:
    changed = br.RageChanged(
        seat=_int(payload.get("seat")),
        delta=_int(payload.get("delta")),
        rage=_int(payload.get("rage")),
        card_id=_card_id(payload),
    )
    other = _int(payload.get("other_seat"), -1)
    if other >= 0:
        changed.other_seat = other
    batch.public(br.BloodRageEvent(rage_changed=changed))


def _ev_pillage_started(payload: Mapping[str, Any], batch: _Batch) -> None:
    started = br.PillageStarted(
        province=area_to_pb(_int(payload.get("province"), -1)), pillager=_int(payload.get("seat"))
    )
    batch.public(br.BloodRageEvent(pillage_started=started))


def _ev_pillage_reward(payload: Mapping[str, Any], batch: _Batch) -> None:
    taken = br.PillageRewardTaken(
        province=area_to_pb(_int(payload.get("province"), -1)),
        seat=_int(payload.get("seat")),
        reward=REWARD_BY_TOKEN.get(_str(payload.get("reward")), br.PILLAGE_REWARD_UNSPECIFIED),
        times=_int(payload.get("times"), 1),
    )
    batch.public(br.BloodRageEvent(pillage_reward_taken=taken))


def _ev_draft_round(payload: Mapping[str, Any], batch: _Batch) -> None:
    ended = br.DraftRoundEnded(
        age=_int(payload.get("age")),
        round=_int(payload.get("round")),
        packs_passed=bool(payload.get("passed", False)),
    )
    batch.public(br.BloodRageEvent(draft_round_ended=ended))


def _ev_late_card(payload: Mapping[str, Any], batch: _Batch) -> None:
    played = br.LateCardPlayed(seat=_int(payload.get("seat")))
    card = _int(payload.get("card"), -1)
    if 0 <= card < _NUM_CARDS:
        played.card.CopyFrom(card_pb(card))
    batch.public(br.BloodRageEvent(late_card_played=played))


def _ev_witch_retreat(payload: Mapping[str, Any], batch: _Batch) -> None:
    retreated = br.FigureRetreated(
        seat=_int(payload.get("seat")),
        unit=unit_to_pb(_int(payload.get("unit"), -1)),
        from_area=area_to_pb(_int(payload.get("from"), -1)),
        to_area=area_to_pb(_int(payload.get("to"), -1)),
        card_id=_card_id(payload),
    )
    batch.public(br.BloodRageEvent(figure_retreated=retreated))


def _ev_figure_saved(payload: Mapping[str, Any], batch: _Batch) -> None:
    saved = br.FigureSaved(
        seat=_int(payload.get("seat")),
        unit=unit_to_pb(_int(payload.get("unit"), -1)),
        area=area_to_pb(_int(payload.get("area"), -1)),
        card_id=_card_id(payload),
    )
    batch.public(br.BloodRageEvent(figure_saved=saved))


def _ev_heimdalls_watch(payload: Mapping[str, Any], batch: _Batch) -> None:
    discarded = br.BattleCardsDiscarded(
        province=area_to_pb(_int(payload.get("province"), -1)),
        seat=_int(payload.get("seat")),
        glory=_int(payload.get("glory")),
        card_id=_card_id(payload),
    )
    batch.public(br.BloodRageEvent(battle_cards_discarded=discarded))


_EventConverter = Callable[[Mapping[str, Any], _Batch], None]
# Engine event type → converter of a public event, each an API event of its own: none is
# dropped (tests/api/test_api_event_kinds.py). "action" is handled separately; a type
# missing here, or in PRIVATE_EVENTS, is refused (EngineEventError), never dropped.
EVENT_CONVERTERS: dict[str, _EventConverter] = {
    "glory": _ev_glory,
    "stat": _ev_stat,
    "rage": _ev_rage,
    "phase": _ev_phase,
    "draft_round": _ev_draft_round,
    "pillage_started": _ev_pillage_started,
    "battle_revealed": _ev_battle_revealed,
    "late_card": _ev_late_card,
    "heimdalls_watch": _ev_heimdalls_watch,
    "figure_saved": _ev_figure_saved,
    "witch_retreat": _ev_witch_retreat,
    "battle_resolved": _ev_battle_resolved,
    "pillage": _ev_pillage,
    "pillage_reward": _ev_pillage_reward,
    "quest": _ev_quest,
    "ragnarok": _ev_ragnarok,
    "release": _ev_release,
    "game_over": _ev_game_over,
    "figures_destroyed": _ev_figures_destroyed,
}
# Engine events for one seat only: private duplicates of that seat's ActionApplied.
PRIVATE_EVENTS: frozenset[str] = frozenset({"picked", "battle_card_chosen", "kept"})


class EngineEventError(RuntimeError):
    """The engine recorded events this server cannot report faithfully: a type or reason it
    does not know, a public event sent to one seat (or the reverse), or Glory or a stat that
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
    code = _int(payload.get("action"))
    full, hidden = _stamped_forms(code, _int(payload.get("seat")), batch.by_timeout)
    event = gp.Event.FromString(full)
    details = _dict(payload.get("details"))
    text = _str(payload.get("text"))
    applied = event.blood_rage.action_applied
    if details and applied.HasField("action"):
        applied.action.details.CopyFrom(details_pb(details))
    if text and text != applied.label:  # what a decline declines, an accepted offer's place
        applied.label = text
    public = gp.Event.FromString(hidden) if audience >= 0 else None
    batch.out.append(ConvertedEvent(audience, event, public))


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


def _check_steps(batch: _Batch) -> None:
    """Every stat step taken around the decision is accounted for by its stat events."""
    before, after = batch.before.steps, batch.after.steps
    if before == after and not batch.steps:
        return  # most decisions change none
    for seat, (old, new) in enumerate(zip(before, after, strict=True)):
        for stat, (old_step, step) in enumerate(zip(old, new, strict=True)):
            told = batch.steps.get((seat, stat), 0)
            if step - old_step != told:
                raise EngineEventError(
                    f"seat {seat}'s stat {stat} went from step {old_step + 1} to {step + 1}, "
                    f"but the engine's stat events account for {told:+d}"
                )


def convert_events(
    raw: Iterable[tuple[int, Mapping[str, Any]]],
    before: PublicFacts,
    after: PublicFacts,
    by_timeout: bool = False,
    final_view: Mapping[str, Any] | None = None,
) -> list[ConvertedEvent]:
    """The engine events of one decision as API events, in the engine's order (sequence
    numbers not yet set).

    ``before``/``after`` are the public facts around the decision (:func:`public_facts`):
    the Glory and stat steps the engine's events report, one per source, must add up to the
    change between them. The end-of-game scoring reads ``final_view`` (the spectator view
    after the last decision). Private events other than the decision itself are duplicates
    of it and dropped. Anything else this API cannot report raises :class:`EngineEventError`.
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
    _check_steps(batch)
    return batch.out
