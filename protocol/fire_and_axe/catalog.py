"""Fire & Axe's static data for GetCatalog: the board and cards of each data pack.

Which packs: those the server offers and those its games carry (``packs.known``); a pack's
message is built once per digest (packs never change: a changed pack is another digest)."""

from __future__ import annotations

from functools import cache

from engine.fire_and_axe.board import board_for
from engine.fire_and_axe.data_pack import Pack
from engine.fire_and_axe.ids import ZONE_NAMES
from protocol.fire_and_axe import packs
from protocol.fire_and_axe.values import HOMELAND_BY_NAME, pack_info
from yggdrasil.v1 import fire_and_axe_pb2 as fa

__all__ = ["catalog", "pack_pb"]


def _params(params: tuple[tuple[str, int | str], ...]) -> list[fa.FireAndAxeEffectParam]:
    return [
        fa.FireAndAxeEffectParam(name=name, word=value)
        if isinstance(value, str)
        else fa.FireAndAxeEffectParam(name=name, number=value)
        for name, value in params
    ]


def _pack(pack: Pack) -> fa.FireAndAxePack:
    board = board_for(pack.digest)
    at = {ident: i for i, ident in enumerate(board.ids)}
    return fa.FireAndAxePack(
        info=pack_info(pack),
        locations=[
            fa.FireAndAxeLocation(
                index=i,
                id=loc.id,
                name=loc.name,
                kind=fa.FireAndAxeLocationKind.ValueType(loc.kind + 1),
                zone=fa.FireAndAxeZone.ValueType(loc.zone + 1),
                value=loc.value,
                stars=loc.stars,
                region=loc.region,
                adjacent=list(board.adjacent[i]),
                rulebook=list(loc.rulebook),
            )
            for i, loc in enumerate(pack.locations)
        ],
        wind_dial=[
            fa.FireAndAxeDialZone(
                zone=fa.FireAndAxeZone.ValueType(z + 1), best=best, normal=normal, worst=worst
            )
            for z, (best, normal, worst) in enumerate(pack.dial)
            if z < len(ZONE_NAMES)
        ],
        skulls=list(pack.skulls),
        small_treasures=list(pack.small_treasures),
        large_treasures=list(pack.large_treasures),
        runes=[
            fa.FireAndAxeRune(
                index=i,
                id=r.id,
                name=r.name,
                count=r.count,
                conflict=r.conflict,
                when=r.when,
                where=r.where,
                text=r.text,
                effects=[
                    fa.FireAndAxeEffect(kind=e.kind, params=_params(e.params)) for e in r.effects
                ],
                rulebook=list(r.rulebook),
            )
            for i, r in enumerate(pack.runes)
        ],
        sagas=[
            fa.FireAndAxeSaga(
                index=i,
                id=s.id,
                name=s.name,
                age=s.age,
                homeland=HOMELAND_BY_NAME.get(s.homeland, fa.FIRE_AND_AXE_HOMELAND_UNSPECIFIED),
                type=fa.FireAndAxeSagaType.ValueType(s.type + 1),
                ports=[at[p] for p in s.ports],
                bonus_vp=s.bonus_vp,
                rulebook=list(s.rulebook),
            )
            for i, s in enumerate(pack.sagas)
        ],
    )


@cache
def _pack_bytes(digest: str) -> bytes:
    return _pack(board_for(digest).pack).SerializeToString()


def pack_pb(pack: Pack) -> fa.FireAndAxePack:
    """One pack's board and cards (a fresh message, built from a cached serialization)."""
    return fa.FireAndAxePack.FromString(_pack_bytes(pack.digest))


def catalog() -> fa.FireAndAxeCatalog:
    """Every pack this server offers or hosts a game on, and the default one."""
    return fa.FireAndAxeCatalog(
        packs=[pack_pb(p) for p in packs.known()], default_pack=packs.default_digest()
    )
