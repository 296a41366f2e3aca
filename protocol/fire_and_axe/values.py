"""Values Fire & Axe's views, events and catalog share on the wire: goods, items, zones and the
other small enums by engine name, the pack's locations by id, and a pack's public header."""

from __future__ import annotations

from functools import cache

from engine.fire_and_axe.board import Board, board_for
from engine.fire_and_axe.data_pack import Pack
from engine.fire_and_axe.ids import GOOD_NAMES, HOMELANDS, ITEM_NAMES, ZONE_NAMES
from yggdrasil.v1 import fire_and_axe_pb2 as fa

__all__ = [
    "GOOD_BY_NAME",
    "HOMELAND_BY_NAME",
    "ITEM_BY_NAME",
    "STEP_BY_NAME",
    "TOWN_BY_NAME",
    "ZONE_BY_NAME",
    "board_of",
    "location_index",
    "pack_info",
]

GOOD_BY_NAME: dict[str, fa.FireAndAxeGood.ValueType] = {
    name: fa.FireAndAxeGood.ValueType(i + 1) for i, name in enumerate(GOOD_NAMES)
}
ITEM_BY_NAME: dict[str, fa.FireAndAxeItem.ValueType] = {
    name: fa.FireAndAxeItem.ValueType(i + 1) for i, name in enumerate(ITEM_NAMES)
}
ZONE_BY_NAME: dict[str, fa.FireAndAxeZone.ValueType] = {
    name: fa.FireAndAxeZone.ValueType(i + 1) for i, name in enumerate(ZONE_NAMES)
}
HOMELAND_BY_NAME: dict[str, fa.FireAndAxeHomeland.ValueType] = {
    name: fa.FireAndAxeHomeland.ValueType(i + 1) for i, name in enumerate(HOMELANDS)
}
TOWN_BY_NAME: dict[str, fa.FireAndAxeTownSize.ValueType] = {
    "small": fa.FIRE_AND_AXE_TOWN_SIZE_SMALL,
    "large": fa.FIRE_AND_AXE_TOWN_SIZE_LARGE,
}
STEP_BY_NAME: dict[str, fa.FireAndAxeStep.ValueType] = {
    "main": fa.FIRE_AND_AXE_STEP_MAIN,
    "losses": fa.FIRE_AND_AXE_STEP_LOSSES,
    "raid_again": fa.FIRE_AND_AXE_STEP_RAID_AGAIN,
    "settle_convert": fa.FIRE_AND_AXE_STEP_SETTLE_CONVERT,
    "window": fa.FIRE_AND_AXE_STEP_WINDOW,
    "game_over": fa.FIRE_AND_AXE_STEP_GAME_OVER,
}
END_BY_NAME: dict[str, fa.FireAndAxeEndReason.ValueType] = {
    "final_rounds": fa.FIRE_AND_AXE_END_REASON_FINAL_ROUNDS,
    "sagas_done": fa.FIRE_AND_AXE_END_REASON_SAGAS_DONE,
    "all_out": fa.FIRE_AND_AXE_END_REASON_ALL_OUT,
}


def board_of(digest: str) -> Board | None:
    """The board of a known pack, or None (a view of a pack this process forgot)."""
    try:
        return board_for(digest)
    except KeyError:
        return None


@cache
def _indices(digest: str) -> dict[str, int]:
    board = board_for(digest)
    return {ident: i for i, ident in enumerate(board.ids)}


def location_index(digest: str, ident: object) -> int | None:
    """The pack index of the location with that id (None for "wintering", None or unknown)."""
    if not isinstance(ident, str):
        return None
    return _indices(digest).get(ident)


def pack_info(pack: Pack) -> fa.FireAndAxePackInfo:
    return fa.FireAndAxePackInfo(
        id=pack.id,
        name=pack.name,
        digest=pack.digest,
        demo=pack.demo,
        description=pack.description,
    )
