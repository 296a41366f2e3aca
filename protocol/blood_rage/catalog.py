"""Blood Rage's static data for GetCatalog: every card, area, stat track and unit, built once."""

from __future__ import annotations

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
from engine.blood_rage.cards import CARDS, MONSTER_CARD, unit_display_name
from engine.blood_rage.ids import AREA_NAMES, NUM_AREAS, STAT_NAMES, UNIT_NAMES
from protocol.blood_rage.values import (
    _CARD_INFOS,
    area_to_pb,
    region_to_pb,
    stat_to_pb,
    unit_to_pb,
)
from yggdrasil.v1 import blood_rage_pb2 as br

__all__ = ["catalog"]


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
