"""Fire & Axe's events on the wire: what watchers receive of each decision.

The engine records every change of a decision as it makes it (``engine.fire_and_axe.events``
lists each type and its keys); each becomes one ``FireAndAxeEvent``, in the same order, so
that a client reading them in sequence sees what happened and why as it happened: the decision
(``action_applied``), then for instance the Sail, the weather check, the items lost, the ship
lost, the end of the turn and the next one's start.

Everything is public but the card a seat draws: the engine reports a draw twice, publicly
(``rune_drawn``: who, and the hand's size) and to the drawer alone (``rune_card``); here they
are one ``RuneDrawn`` event whose drawer's copy names the card and whose copy for everyone else
does not. An event type or a private event this API does not know raises
:class:`EngineEventError`: the game then refuses the decision rather than report it wrongly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.fire_and_axe.actions import Action
from engine.fire_and_axe.events import PRIVATE_EVENTS
from protocol.fire_and_axe.actions import action_to_pb
from protocol.fire_and_axe.values import (
    END_BY_NAME,
    GOOD_BY_NAME,
    HOMELAND_BY_NAME,
    ITEM_BY_NAME,
    TOWN_BY_NAME,
    ZONE_BY_NAME,
)
from protocol.readers import as_dict, as_int, as_list, as_str
from protocol.wire import ConversionError, ConvertedEvent
from yggdrasil.v1 import fire_and_axe_pb2 as fa
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["EVENT_CONVERTERS", "EngineEventError", "convert_events"]

E = fa.FireAndAxeEvent


class EngineEventError(ConversionError):
    """The engine recorded an event this API cannot report faithfully."""


def _ints(value: object) -> list[int]:
    return [as_int(x) for x in as_list(value)]


def _opt(value: object) -> int | None:
    """A seat or place that may be absent (-1 or missing in the engine's payload)."""
    n = as_int(value, -1)
    return n if n >= 0 else None


_TURN_END = {
    "declared": E.TURN_END_HOW_DECLARED,
    "last_crew": E.TURN_END_HOW_LAST_CREW,
    "voluntary": E.TURN_END_HOW_VOLUNTARY,
}
_SHIP_LOST = {
    "weather": E.SHIP_LOST_CAUSE_WEATHER,
    "raid": E.SHIP_LOST_CAUSE_RAID,
    "settle": E.SHIP_LOST_CAUSE_SETTLE,
    "settled": E.SHIP_LOST_CAUSE_SETTLED,
}
_ITEM_LOST = {
    "weather": E.ITEM_LOST_CAUSE_WEATHER,
    "raid": E.ITEM_LOST_CAUSE_RAID,
    "settle": E.ITEM_LOST_CAUSE_SETTLE,
}
_DIAL_CAUSE = {
    "rune_played": E.DIAL_CAUSE_RUNE_PLAYED,
    "rune_discarded": E.DIAL_CAUSE_RUNE_DISCARDED,
    "rune": E.DIAL_CAUSE_RUNE_EFFECT,
}
_DIAL_TURN = {
    0: fa.FIRE_AND_AXE_DIAL_TURN_UNSPECIFIED,
    1: fa.FIRE_AND_AXE_DIAL_TURN_CLOCKWISE,
    -1: fa.FIRE_AND_AXE_DIAL_TURN_COUNTER_CLOCKWISE,
}
_VP_REASON = {
    "start_bonus": E.VP_REASON_START_BONUS,
    "trade": E.VP_REASON_TRADE,
    "demand": E.VP_REASON_DEMAND,
    "treasure": E.VP_REASON_TREASURE,
    "saga": E.VP_REASON_SAGA,
    "rune": E.VP_REASON_RUNE,
    "bloodiest_axe": E.VP_REASON_BLOODIEST_AXE,
    "settlement": E.VP_REASON_SETTLEMENT,
    "saga_set": E.VP_REASON_SAGA_SET,
}
_SAGA_WHY = {
    "fulfilled": E.SAGA_DISCARD_WHY_FULFILLED,
    "impossible": E.SAGA_DISCARD_WHY_IMPOSSIBLE,
}


def _good(p: Mapping[str, Any], key: str = "good") -> fa.FireAndAxeGood.ValueType:
    return GOOD_BY_NAME.get(as_str(p.get(key)), fa.FIRE_AND_AXE_GOOD_UNSPECIFIED)


def _rune_effect(p: Mapping[str, Any]) -> E:
    out = E.RuneEffect(
        seat=as_int(p.get("seat")),
        effect=as_str(p.get("effect")),
        good=_good(p),
        preparation=as_int(p.get("preparation")),
        sailing=as_int(p.get("sailing")),
    )
    target = _opt(p.get("target"))
    if target is not None:
        out.target_seat = target
    for key in ("crew", "goods", "drawn", "bonus"):
        if key in p:
            out.amount = as_int(p.get(key))
    port = _opt(p.get("port"))
    if port is not None:
        out.port = port
    if "items" in p:
        items = as_dict(p.get("items"))
        out.items.extend(as_int(items.get(i)) for i in ("tusk", "fish", "fur", "crew"))
    return E(rune_effect=out)


def _vp(p: Mapping[str, Any]) -> E:
    out = E.VpChanged(
        seat=as_int(p.get("seat")),
        delta=as_int(p.get("delta")),
        vp=as_int(p.get("vp")),
        reason=_VP_REASON.get(as_str(p.get("reason")), E.VP_REASON_UNSPECIFIED),
        good=_good(p),
        towns=as_int(p.get("towns")),
        homeland=HOMELAND_BY_NAME.get(
            as_str(p.get("homeland")), fa.FIRE_AND_AXE_HOMELAND_UNSPECIFIED
        ),
        sagas=as_int(p.get("sagas")),
    )
    port = _opt(p.get("port"))
    if port is not None:
        out.port = port
    saga = _opt(p.get("saga"))
    if saga is not None:
        out.saga = saga
    return E(vp_changed=out)


def _age(p: Mapping[str, Any]) -> E:
    out = E.AgeStarted(age=as_int(p.get("age")))
    seat = _opt(p.get("seat"))
    if seat is not None:
        out.seat = seat
    return E(age_started=out)


# Engine event type -> its FireAndAxeEvent (the public types; "action", "rune_drawn" and
# "rune_card" are converted in convert_events).
EVENT_CONVERTERS: dict[str, Callable[[Mapping[str, Any]], E]] = {
    "turn_start": lambda p: E(
        turn_started=E.TurnStarted(seat=as_int(p.get("seat")), turn=as_int(p.get("turn")))
    ),
    "final_marker_placed": lambda p: E(
        final_marker_placed=E.FinalMarkerPlaced(
            seat=as_int(p.get("seat")),
            placed=as_int(p.get("placed")),
            last_turn=bool(p.get("last_turn", False)),
        )
    ),
    "player_out": lambda p: E(player_out=E.PlayerOut(seat=as_int(p.get("seat")))),
    "turn_skipped": lambda p: E(turn_skipped=E.TurnSkipped(seat=as_int(p.get("seat")))),
    "turn_end": lambda p: E(
        turn_ended=E.TurnEnded(
            seat=as_int(p.get("seat")),
            how=_TURN_END.get(as_str(p.get("how")), E.TURN_END_HOW_UNSPECIFIED),
            chart_discarded=_ints(p.get("chart")),
        )
    ),
    "loaded": lambda p: E(
        loaded=E.Loaded(
            seat=as_int(p.get("seat")),
            item=ITEM_BY_NAME.get(as_str(p.get("item")), fa.FIRE_AND_AXE_ITEM_UNSPECIFIED),
            preparation=as_int(p.get("preparation")),
            days=as_int(p.get("days")),
        )
    ),
    "left_wintering": lambda p: E(
        left_wintering=E.LeftWintering(
            seat=as_int(p.get("seat")), homeland=as_int(p.get("homeland"))
        )
    ),
    "returned": lambda p: E(
        returned=E.Returned(
            seat=as_int(p.get("seat")),
            location=as_int(p.get("location")),
            goods=_ints(p.get("goods")),
            crew=as_int(p.get("crew")),
        )
    ),
    "ship_lost": lambda p: E(
        ship_lost=E.ShipLost(
            seat=as_int(p.get("seat")),
            cause=_SHIP_LOST.get(as_str(p.get("cause")), E.SHIP_LOST_CAUSE_UNSPECIFIED),
            location=as_int(p.get("location")),
            goods=_ints(p.get("goods")),
        )
    ),
    "sailed": lambda p: E(
        sailed=E.Sailed(
            seat=as_int(p.get("seat")),
            from_location=as_int(p.get("from")),
            to_location=as_int(p.get("to")),
            sailing=as_int(p.get("sailing")),
            days=as_int(p.get("days")),
        )
    ),
    "weather": lambda p: E(
        weather_checked=E.WeatherChecked(
            seat=as_int(p.get("seat")),
            zone=ZONE_BY_NAME.get(as_str(p.get("zone")), fa.FIRE_AND_AXE_ZONE_UNSPECIFIED),
            fair_weather_days=as_int(p.get("fwd")),
            sailing=as_int(p.get("sailing")),
            excess=as_int(p.get("excess")),
            skulls=_ints(p.get("skulls")),
        )
    ),
    "weather_skipped": lambda p: E(weather_skipped=E.WeatherSkipped(seat=as_int(p.get("seat")))),
    "item_lost": lambda p: E(
        item_lost=E.ItemLost(
            seat=as_int(p.get("seat")),
            item=ITEM_BY_NAME.get(as_str(p.get("item")), fa.FIRE_AND_AXE_ITEM_UNSPECIFIED),
            cause=_ITEM_LOST.get(as_str(p.get("cause")), E.ITEM_LOST_CAUSE_UNSPECIFIED),
        )
    ),
    "dial_turned": lambda p: E(
        dial_turned=E.DialTurned(
            seat=as_int(p.get("seat")),
            quarters=as_int(p.get("quarters")),
            cause=_DIAL_CAUSE.get(as_str(p.get("cause")), E.DIAL_CAUSE_UNSPECIFIED),
            blue=ZONE_BY_NAME.get(as_str(p.get("blue")), fa.FIRE_AND_AXE_ZONE_UNSPECIFIED),
            red=ZONE_BY_NAME.get(as_str(p.get("red")), fa.FIRE_AND_AXE_ZONE_UNSPECIFIED),
            fair_weather_days=_ints(p.get("fwd")),
        )
    ),
    "traded": lambda p: E(
        traded=E.Traded(
            seat=as_int(p.get("seat")),
            port=as_int(p.get("port")),
            good=_good(p),
            value=as_int(p.get("value")),
            in_demand=bool(p.get("in_demand", False)),
        )
    ),
    "raid_roll": lambda p: E(
        raid_rolled=E.RaidRolled(
            seat=as_int(p.get("seat")),
            port=as_int(p.get("port")),
            roll=as_int(p.get("roll")),
            bonus=as_int(p.get("bonus")),
            target=as_int(p.get("target")),
            success=bool(p.get("success", False)),
            attempt=as_int(p.get("attempt")),
        )
    ),
    "town_taken": lambda p: E(
        town_taken=E.TownTaken(
            seat=as_int(p.get("seat")),
            port=as_int(p.get("port")),
            size=TOWN_BY_NAME.get(as_str(p.get("size")), fa.FIRE_AND_AXE_TOWN_SIZE_UNSPECIFIED),
            treasure=as_int(p.get("treasure")),
        )
    ),
    "raid_stopped": lambda p: E(
        raid_stopped=E.RaidStopped(seat=as_int(p.get("seat")), port=as_int(p.get("port")))
    ),
    "settle_roll": lambda p: E(
        settle_rolled=E.SettleRolled(
            seat=as_int(p.get("seat")),
            port=as_int(p.get("port")),
            dice=_ints(p.get("dice")),
            bonus=as_int(p.get("bonus")),
            target=as_int(p.get("target")),
            failures=as_int(p.get("failures")),
            success=bool(p.get("success", False)),
        )
    ),
    "settled": lambda p: E(
        settled=E.Settled(
            seat=as_int(p.get("seat")),
            port=as_int(p.get("port")),
            settlements=as_int(p.get("settlements")),
            left=as_int(p.get("left")),
        )
    ),
    "settle_declined": lambda p: E(
        settle_declined=E.SettleDeclined(seat=as_int(p.get("seat")), port=as_int(p.get("port")))
    ),
    "runes_reshuffled": lambda p: E(runes_reshuffled=E.RunesReshuffled(deck=as_int(p.get("deck")))),
    "rune_played": lambda p: E(
        rune_played=E.RunePlayed(
            seat=as_int(p.get("seat")),
            rune=as_int(p.get("rune")),
            dial=_DIAL_TURN.get(as_int(p.get("dial")), fa.FIRE_AND_AXE_DIAL_TURN_UNSPECIFIED),
        )
    ),
    "rune_discarded": lambda p: E(
        rune_discarded=E.RuneDiscarded(
            seat=as_int(p.get("seat")),
            rune=as_int(p.get("rune")),
            dial=_DIAL_TURN.get(as_int(p.get("dial")), fa.FIRE_AND_AXE_DIAL_TURN_UNSPECIFIED),
        )
    ),
    "rune_effect": _rune_effect,
    "demand_changed": lambda p: E(
        demand_changed=E.DemandChanged(
            seat=as_int(p.get("seat")), from_good=_good(p, "old"), to_good=_good(p, "new")
        )
    ),
    "vp": _vp,
    "saga_revealed": lambda p: E(
        saga_revealed=E.SagaRevealed(saga=as_int(p.get("saga")), space=as_int(p.get("space")))
    ),
    "saga_discarded": lambda p: E(
        saga_discarded=E.SagaDiscarded(
            saga=as_int(p.get("saga")),
            why=_SAGA_WHY.get(as_str(p.get("why")), E.SAGA_DISCARD_WHY_UNSPECIFIED),
        )
    ),
    "saga_completed": lambda p: E(
        saga_completed=E.SagaCompleted(
            seat=as_int(p.get("seat")),
            saga=as_int(p.get("saga")),
            bonus_vp=as_int(p.get("bonus_vp")),
        )
    ),
    "age": _age,
    "final_markers_taken": lambda p: E(
        final_markers_taken=E.FinalMarkersTaken(
            seat=as_int(p.get("seat")), markers=as_int(p.get("markers"))
        )
    ),
    "game_over": lambda p: E(
        game_over=E.GameOver(
            reason=END_BY_NAME.get(as_str(p.get("reason")), fa.FIRE_AND_AXE_END_REASON_UNSPECIFIED),
            vp=_ints(p.get("vp")),
        )
    ),
}


def _public(event: E) -> ConvertedEvent:
    return ConvertedEvent(-1, gp.Event(fire_and_axe=event))


def _applied(p: Mapping[str, Any], by_timeout: bool) -> ConvertedEvent:
    code = as_int(p.get("action"), -1)
    if code < 0:
        raise EngineEventError(f"an action event without its code: {dict(p)!r}")
    applied = E.ActionApplied(
        seat=as_int(p.get("seat")),
        action=action_to_pb(Action.from_code(code)),
        by_timeout=by_timeout,
        label=as_str(p.get("text")),
        code=code,
    )
    return _public(E(action_applied=applied))


def convert_events(
    raw: Iterable[tuple[int, Mapping[str, Any]]], by_timeout: bool = False
) -> list[ConvertedEvent]:
    """The engine events of one decision as API events, in the order the engine emitted them
    (sequence numbers not yet set). A drawn card goes to its drawer only (see the module)."""
    out: list[ConvertedEvent] = []
    drawn: dict[int, int] = {}  # seat -> index in `out` of its latest RuneDrawn, card not yet told
    for audience, payload in raw:
        kind = as_str(payload.get("type"))
        if kind == "rune_card":
            seat = as_int(payload.get("seat"), -1)
            at = drawn.pop(seat, None)
            if audience != seat or at is None:
                raise EngineEventError(
                    f"a drawn card without its public draw, or for another seat: {dict(payload)!r}"
                )
            public = out[at].full
            full = gp.Event()
            full.CopyFrom(public)
            full.fire_and_axe.rune_drawn.rune = as_int(payload.get("rune"))
            out[at] = ConvertedEvent(seat, full, public)
            continue
        if audience >= 0 or kind in PRIVATE_EVENTS:
            raise EngineEventError(
                f"the engine sent seat {audience} a private event this API does not report "
                f"that way: {dict(payload)!r}"
            )
        if kind == "action":
            out.append(_applied(payload, by_timeout))
        elif kind == "rune_drawn":
            seat = as_int(payload.get("seat"))
            drawn[seat] = len(out)
            out.append(
                _public(
                    E(rune_drawn=E.RuneDrawn(seat=seat, hand_count=as_int(payload.get("hand"))))
                )
            )
        else:
            converter = EVENT_CONVERTERS.get(kind)
            if converter is None:
                raise EngineEventError(f"an event this API does not report: {dict(payload)!r}")
            out.append(_public(converter(payload)))
    if drawn:
        raise EngineEventError(
            f"cards drawn but never told to their drawers: seats {sorted(drawn)}"
        )
    return out
