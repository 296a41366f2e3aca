"""The board as tables of ints, built once per data pack (F1.1, F2, F6.1, F6.4).

A :class:`Board` turns a validated ``data_pack.Pack`` into what the rules read in their hot
paths: locations by index, adjacency tuples, each port's region mates, the Fair Weather Days
of every zone in every dial orientation, the skull positions, the Rune deck and the Sagas with
their ports as indices. Boards are immutable and shared by every state of a game (a copy never
copies it); :func:`board_for` caches one per pack digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine.fire_and_axe.data_pack import Pack, Rune, pack_by_digest
from engine.fire_and_axe.ids import HOMELANDS, INDEPENDENT, PORT, WINTERING


@dataclass(frozen=True, slots=True)
class SagaCard:
    """A Saga with its ports as location indices (F11.2)."""

    index: int
    id: str
    name: str
    age: int
    homeland: int  # index into ids.HOMELANDS
    type: int  # ids.RAID / TRADE / SETTLE
    ports: tuple[int, ...]
    bonus_vp: int


@dataclass(frozen=True, slots=True)
class Board:
    pack: Pack
    digest: str
    names: tuple[str, ...]
    ids: tuple[str, ...]
    kind: tuple[int, ...]
    zone: tuple[int, ...]
    value: tuple[int, ...]
    stars: tuple[int, ...]
    region: tuple[int, ...]  # region index, or INDEPENDENT
    region_names: tuple[str, ...]
    region_ports: tuple[tuple[int, ...], ...]
    region_others: tuple[tuple[int, ...], ...]  # per location: the other ports of its region
    adjacent: tuple[tuple[int, ...], ...]
    ports: tuple[int, ...]
    homelands: tuple[int, ...]  # in ids.HOMELANDS order
    small_ports: tuple[int, ...]  # one star: a small town at set-up (F3.2)
    large_ports: tuple[int, ...]  # three stars: a large town (F3.2)
    fwd: tuple[tuple[int, ...], ...]  # [blue hole's zone][zone] -> Fair Weather Days (F6.2)
    skulls: tuple[int, ...]
    runes: tuple[Rune, ...]
    rune_deck: tuple[int, ...]  # every card of the deck as its Rune index, count times each
    sagas: tuple[SagaCard, ...]

    def index(self, ident: str) -> int:
        """The index of the location with that id (``KeyError`` if none)."""
        return self.ids.index(ident)

    def rune_index(self, ident: str) -> int:
        for i, r in enumerate(self.runes):
            if r.id == ident:
                return i
        raise KeyError(ident)

    def saga_index(self, ident: str) -> int:
        for s in self.sagas:
            if s.id == ident:
                return s.index
        raise KeyError(ident)


def fwd_table(dial: tuple[tuple[int, int, int], ...]) -> tuple[tuple[int, ...], ...]:
    """FWD of each zone for each position of the blue hole (F6.1): the zone under the blue
    hole shows its best value, the opposite zone (under the red hole) its worst, the other two
    their normal value."""
    table = []
    for blue in range(4):
        red = (blue + 2) % 4
        row = []
        for zone in range(4):
            best, normal, worst = dial[zone]
            row.append(best if zone == blue else worst if zone == red else normal)
        table.append(tuple(row))
    return tuple(table)


def build(pack: Pack) -> Board:
    locs = pack.locations
    ids = tuple(loc.id for loc in locs)
    at = {ident: i for i, ident in enumerate(ids)}
    region_names = tuple(sorted({loc.region for loc in locs if loc.kind == PORT and loc.region}))
    region_of = tuple(
        region_names.index(loc.region) if loc.kind == PORT and loc.region else INDEPENDENT
        for loc in locs
    )
    region_ports = tuple(
        tuple(i for i, r in enumerate(region_of) if r == k) for k in range(len(region_names))
    )
    adjacent: list[list[int]] = [[] for _ in locs]
    for a, b in pack.edges:
        adjacent[at[a]].append(at[b])
        adjacent[at[b]].append(at[a])
    sagas = tuple(
        SagaCard(
            i,
            s.id,
            s.name,
            s.age,
            HOMELANDS.index(s.homeland),
            s.type,
            tuple(at[p] for p in s.ports),
            s.bonus_vp,
        )
        for i, s in enumerate(pack.sagas)
    )
    deck: list[int] = []
    for i, r in enumerate(pack.runes):
        deck.extend([i] * r.count)
    return Board(
        pack=pack,
        digest=pack.digest,
        names=tuple(loc.name for loc in locs),
        ids=ids,
        kind=tuple(loc.kind for loc in locs),
        zone=tuple(loc.zone for loc in locs),
        value=tuple(loc.value for loc in locs),
        stars=tuple(loc.stars for loc in locs),
        region=region_of,
        region_names=region_names,
        region_ports=region_ports,
        region_others=tuple(
            tuple(p for p in region_ports[r] if p != i) if r != INDEPENDENT else ()
            for i, r in enumerate(region_of)
        ),
        adjacent=tuple(tuple(sorted(a)) for a in adjacent),
        ports=tuple(i for i, loc in enumerate(locs) if loc.kind == PORT),
        homelands=tuple(at[h] for h in HOMELANDS),
        small_ports=tuple(i for i, loc in enumerate(locs) if loc.kind == PORT and loc.stars == 1),
        large_ports=tuple(i for i, loc in enumerate(locs) if loc.kind == PORT and loc.stars == 3),
        fwd=fwd_table(pack.dial),
        skulls=pack.skulls,
        runes=pack.runes,
        rune_deck=tuple(deck),
        sagas=sagas,
    )


@cache
def board_for(digest: str) -> Board:
    """The board of the known pack with that digest (``"demo"``: the demo pack)."""
    return build(pack_by_digest(digest))


def describe_location(board: Board, loc: int) -> str:
    """``"Kiev"``, ``"Wintering Zone"`` or ``"location #n"`` for an index outside the map."""
    if loc == WINTERING:
        return "Wintering Zone"
    if 0 <= loc < len(board.names):
        return board.names[loc]
    return f"location #{loc}"
