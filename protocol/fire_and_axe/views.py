"""Fire & Axe's views and results on the wire: what a viewer receives of a game's state.

The rules' view dict of one viewer (``engine.fire_and_axe.view``, already filtered for it: the
public table plus the viewer's own hand) becomes the ``fire_and_axe`` payload of a ``View``;
``protocol.envelopes`` builds the envelope around it. Places are turned from the view's pack
ids into pack indices. Dicts are read defensively (``protocol.readers``): unknown keys are
ignored, missing ones are the proto default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.contract import Result
from engine.fire_and_axe.ids import GOOD_NAMES, HOMELANDS, ITEM_NAMES
from protocol.envelopes import engine_state_json
from protocol.fire_and_axe.values import (
    END_BY_NAME,
    GOOD_BY_NAME,
    STEP_BY_NAME,
    TOWN_BY_NAME,
    ZONE_BY_NAME,
    board_of,
    location_index,
)
from protocol.readers import as_dict, as_int, as_list, as_str
from protocol.wire import ViewEnvelope
from yggdrasil.v1 import fire_and_axe_pb2 as fa
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["fill_result", "fill_view"]

_SETTLE = {"all": fa.FIRE_AND_AXE_SETTLE_BLOCK_ALL, "any": fa.FIRE_AND_AXE_SETTLE_BLOCK_ANY}
_TIMING = {
    "own_turn": fa.FIRE_AND_AXE_RUNE_TIMING_OWN_TURN,
    "any_time": fa.FIRE_AND_AXE_RUNE_TIMING_ANY_TIME,
}
_ZONES = ("north", "east", "south", "west")


def _pack(d: Mapping[str, Any]) -> fa.FireAndAxePackInfo:
    p = as_dict(d)
    return fa.FireAndAxePackInfo(
        id=as_str(p.get("id")),
        name=as_str(p.get("name")),
        digest=as_str(p.get("digest")),
        demo=bool(p.get("demo", False)),
    )


def _seat(s: Mapping[str, Any], digest: str) -> fa.FireAndAxeSeatView:
    goods = as_dict(s.get("goods"))
    out = fa.FireAndAxeSeatView(
        seat=as_int(s.get("seat")),
        colour=as_str(s.get("colour")),
        crew=as_int(s.get("crew")),
        goods=[as_int(goods.get(g)) for g in GOOD_NAMES],
        crew_supply=as_int(s.get("crew_supply")),
        settlements=as_int(s.get("settlements")),
        vp=as_int(s.get("vp")),
        hand_count=as_int(s.get("hand_count")),
        sagas=[as_int(as_dict(x).get("saga")) for x in as_list(s.get("sagas"))],
        out=bool(s.get("out", False)),
        may_use_runes=bool(s.get("may_use_runes", False)),
    )
    where = location_index(digest, s.get("location"))
    if where is not None:
        out.location = where
    for t in as_list(s.get("towns")):
        town = as_dict(t)
        out.towns.append(
            fa.FireAndAxeTakenTown(
                port=location_index(digest, town.get("port")) or 0,
                size=TOWN_BY_NAME.get(
                    as_str(town.get("size")), fa.FIRE_AND_AXE_TOWN_SIZE_UNSPECIFIED
                ),
                treasure=as_int(town.get("treasure")),
            )
        )
    return out


def _port(p: Mapping[str, Any], digest: str) -> fa.FireAndAxePortView:
    out = fa.FireAndAxePortView(
        port=location_index(digest, p.get("port")) or 0,
        goods=GOOD_BY_NAME.get(as_str(p.get("goods")), fa.FIRE_AND_AXE_GOOD_UNSPECIFIED),
        town=TOWN_BY_NAME.get(as_str(p.get("town")), fa.FIRE_AND_AXE_TOWN_SIZE_UNSPECIFIED),
    )
    settler = p.get("settlement")
    if isinstance(settler, int) and not isinstance(settler, bool):
        out.settler = settler
    return out


def _sagas(d: Mapping[str, Any]) -> fa.FireAndAxeSagasView:
    out = fa.FireAndAxeSagasView(
        deck=as_int(d.get("deck")),
        deck_by_age=[as_int(x) for x in as_list(d.get("deck_ages"))],
        removed=as_int(d.get("removed")),
        discarded=[as_int(as_dict(x).get("saga")) for x in as_list(d.get("discarded"))],
    )
    for entry in as_list(d.get("spaces")):
        space = out.spaces.add()
        if isinstance(entry, Mapping):
            space.saga = as_int(entry.get("saga"))
    return out


def fill_view(d: Mapping[str, Any], envelope: ViewEnvelope, view: gp.View) -> None:
    """Set the ``fire_and_axe`` payload of ``view`` from the rules' view dict."""
    out = view.fire_and_axe
    pack = as_dict(d.get("pack"))
    digest = as_str(pack.get("digest"))
    out.pack.CopyFrom(_pack(pack))
    board = board_of(digest)
    if board is not None:
        out.pack.description = board.pack.description
    options = as_dict(d.get("options"))
    out.settle_region_block = _SETTLE.get(
        as_str(options.get("settle_region_block")), fa.FIRE_AND_AXE_SETTLE_BLOCK_UNSPECIFIED
    )
    out.rune_timing = _TIMING.get(
        as_str(options.get("rune_timing")), fa.FIRE_AND_AXE_RUNE_TIMING_UNSPECIFIED
    )
    out.no_conflict = bool(options.get("no_conflict", False))
    out.step = STEP_BY_NAME.get(as_str(d.get("step")), fa.FIRE_AND_AXE_STEP_UNSPECIFIED)
    out.first_player = as_int(d.get("first_player"))
    out.turn_seat = as_int(d.get("turn"))
    out.turns = as_int(d.get("turns"))
    out.window_seats.extend(as_int(s) for s in as_list(d.get("window")))
    out.age = as_int(d.get("age"))
    out.capacity = as_int(d.get("capacity"))
    dial = as_dict(d.get("dial"))
    fwd = as_dict(dial.get("fwd"))
    out.dial.blue = ZONE_BY_NAME.get(as_str(dial.get("blue")), fa.FIRE_AND_AXE_ZONE_UNSPECIFIED)
    out.dial.red = ZONE_BY_NAME.get(as_str(dial.get("red")), fa.FIRE_AND_AXE_ZONE_UNSPECIFIED)
    out.dial.fair_weather_days.extend(as_int(fwd.get(z)) for z in _ZONES)
    out.demand = GOOD_BY_NAME.get(as_str(d.get("demand")), fa.FIRE_AND_AXE_GOOD_UNSPECIFIED)
    supply = as_dict(d.get("supply"))
    out.supply.extend(as_int(supply.get(g)) for g in GOOD_NAMES)
    days = as_dict(d.get("days"))
    out.days.preparation = as_int(days.get("preparation"))
    out.days.sailing = as_int(days.get("sailing"))
    out.days.left = as_int(days.get("left"))
    losses = as_dict(d.get("losses"))
    chart = as_dict(losses.get("chart"))
    out.losses.skulls.extend(as_int(x) for x in as_list(losses.get("skulls")))
    out.losses.covered.extend(as_int(x) for x in as_list(losses.get("covered")))
    out.losses.chart.extend(as_int(chart.get(i)) for i in ITEM_NAMES)
    out.losses.pending = as_int(losses.get("pending"))
    for ident in as_list(d.get("tasks_done")):
        where = location_index(digest, ident)
        if where is not None:
            out.tasks_done.append(where)
    attack = d.get("attack")
    if isinstance(attack, Mapping):
        out.attack.port = location_index(digest, attack.get("port")) or 0
        out.attack.rolls = as_int(attack.get("rolls"))
        out.attack.bonus = as_int(attack.get("bonus"))
    out.attack_bonus = as_int(d.get("attack_bonus"))
    out.calm = bool(d.get("calm", False))
    out.ports.extend(_port(as_dict(p), digest) for p in as_list(d.get("ports")))
    out.sagas.CopyFrom(_sagas(as_dict(d.get("sagas"))))
    runes = as_dict(d.get("runes"))
    out.runes.deck = as_int(runes.get("deck"))
    out.runes.discard.extend(as_int(as_dict(r).get("rune")) for r in as_list(runes.get("discard")))
    markers = as_dict(d.get("final_markers"))
    out.final_markers.revealed = bool(markers.get("revealed", False))
    holder = markers.get("holder")
    if isinstance(holder, int) and not isinstance(holder, bool):
        out.final_markers.holder = holder
    out.final_markers.placed = as_int(markers.get("placed"))
    out.seats.extend(_seat(as_dict(s), digest) for s in as_list(d.get("seats")))
    private = d.get("private")
    if isinstance(private, Mapping):
        out.own.SetInParent()
        out.own.hand.extend(as_int(as_dict(r).get("rune")) for r in as_list(private.get("hand")))
    out.end_reason = END_BY_NAME.get(
        as_str(d.get("end_reason")), fa.FIRE_AND_AXE_END_REASON_UNSPECIFIED
    )
    state = engine_state_json(d)
    if state is not None:  # present only when the view was asked for it
        out.engine_state_json = state


def fill_result(result: Result, final_view: Mapping[str, Any], out: gp.GameResult) -> None:
    """The details of a finished game: why it ended, each seat's trophies, the pack."""
    mine = out.fire_and_axe
    mine.end_reason = END_BY_NAME.get(
        as_str(final_view.get("end_reason")), fa.FIRE_AND_AXE_END_REASON_UNSPECIFIED
    )
    pack = as_dict(final_view.get("pack"))
    mine.pack.CopyFrom(_pack(pack))
    board = board_of(as_str(pack.get("digest")))
    for entry in as_list(final_view.get("seats")):
        s = as_dict(entry)
        by_homeland = [0, 0, 0]
        for saga in as_list(s.get("sagas")):
            name = as_str(as_dict(saga).get("homeland"))
            if name in HOMELANDS:
                by_homeland[HOMELANDS.index(name)] += 1
        mine.seats.append(
            fa.FireAndAxeSeatTally(
                seat=as_int(s.get("seat")),
                towns=len(as_list(s.get("towns"))),
                settlements=as_int(s.get("settlements")),
                sagas_by_homeland=by_homeland,
            )
        )
    if board is not None:
        mine.pack.description = board.pack.description
