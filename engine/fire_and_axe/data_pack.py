"""Data packs: everything the rulebook leaves to the board and the cards, read from a file.

The Greek rulebook is a text transcript without pictures (fire-and-axe-data.md), so the map
(water spaces, adjacency, Weather Zones), most port values, the Wind Dial's numbers, the
Losses chart beyond position 4, the treasure values, the Rune cards and the Saga cards all come
from a *data pack*: a TOML file in the format documented in docs/fire-and-axe.md ("Data-pack
format") and summarised here::

    format = 1
    [pack]        id, name, demo (true: invented content, not the published game), description
    [[location]]  id, name, kind (water | port | homeland), zone (north | east | south | west);
                  ports also: value (1-6), stars (0, 1 or 3), region (absent: independent);
                  rulebook = [fields the rulebook itself gives] (provenance, optional)
    [map]         edges = [[id, id], ...]          (undirected adjacency)
    [wind_dial]   north/east/south/west = {best, normal, worst}
    [losses]      skulls = [positions]             (excess positions that bear a skull)
    [treasures]   small = [12 values], large = [3 values]
    [[rune]]      id, name, count, conflict, when, where, text, effects = [{kind, params...}]
    [[saga]]      id, name, age, homeland, type (raid | trade | settle), ports, bonus_vp

:func:`parse` validates a whole pack and raises one :class:`DataPackError` listing every
problem found, each naming the file, the entry and what is wrong. A pack's **digest** (a
SHA-256 of its content, comments and layout aside) goes into the game options and the state
hash: a game, a replay or a snapshot made with one pack refuses another (``setup``,
``snapshot``). :func:`register` makes a pack known by its digest; the built-in demo pack
(``demo_pack.toml``, invented where the rulebook is silent and labelled so) is always known.

Reading a file is the only I/O of the engine, and only here.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from engine.core.errors import EngineError
from engine.fire_and_axe.effect_kinds import EFFECT_KINDS, NO_CHOICE, WHEN, WHERE
from engine.fire_and_axe.ids import (
    CONFLICT_RUNES,
    HOMELAND,
    HOMELANDS,
    KIND_NAMES,
    LARGE_TOWNS,
    PORT,
    RUNE_CARDS,
    SAGA_CARDS,
    SAGA_TYPE_NAMES,
    SAGAS_REMOVED_PER_AGE,
    SMALL_TOWNS,
    WATER,
    ZONE_NAMES,
)

__all__ = [
    "FORMATS",
    "DataPackError",
    "Effect",
    "Location",
    "Pack",
    "Rune",
    "Saga",
    "demo_pack",
    "known_digests",
    "load",
    "pack_by_digest",
    "parse",
    "parse_cached",
    "register",
    "validate_file",
]

FORMATS: Final = (1,)
"""The pack formats this engine reads. A new layout gets a new number; old ones stay read."""
MAX_LOCATIONS: Final = 250  # an action carries a location in 8 bits (actions.Action.code)
MAX_RUNE_KINDS: Final = 250  # and a Rune card in 8 bits
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


class DataPackError(EngineError):
    """A pack that cannot be used: every problem found, each naming file, entry and fault."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s) in the data pack:\n{lines}")


@dataclass(frozen=True, slots=True)
class Location:
    """A water space, port or Homeland of the map (F2.1, F2.4)."""

    id: str
    name: str
    kind: int  # ids.WATER / PORT / HOMELAND
    zone: int  # ids.NORTH ... WEST
    value: int = 0  # ports: the printed port value
    stars: int = 0  # ports: 0, 1 (a small town at set-up) or 3 (a large port and town)
    region: str = ""  # ports: the region's id, "" for an independent port
    rulebook: tuple[str, ...] = ()  # the fields the rulebook itself gives (provenance)


@dataclass(frozen=True, slots=True)
class Effect:
    """One effect of a Rune: a kind of ``effect_kinds.EFFECT_KINDS`` and its parameters
    (defaults filled in)."""

    kind: str
    params: tuple[tuple[str, int | str], ...] = ()

    def get(self, name: str) -> int | str:
        for key, value in self.params:
            if key == name:
                return value
        raise KeyError(name)

    def number(self, name: str) -> int:
        value = self.get(name)
        assert isinstance(value, int)
        return value

    @property
    def choice(self) -> int:
        return EFFECT_KINDS[self.kind].choice


@dataclass(frozen=True, slots=True)
class Rune:
    """A Rune card (F1.4, F8): ``count`` copies in the deck."""

    id: str
    name: str
    count: int
    conflict: bool  # the conflict symbol: removed by the no-conflict variant (F14.1)
    when: str  # effect_kinds.WHEN
    where: str  # effect_kinds.WHERE
    text: str
    effects: tuple[Effect, ...]
    rulebook: tuple[str, ...] = ()

    @property
    def choice(self) -> int:
        """What a player chooses when playing it (at most one effect asks)."""
        for e in self.effects:
            if e.choice != NO_CHOICE:
                return e.choice
        return NO_CHOICE


@dataclass(frozen=True, slots=True)
class Saga:
    """A Saga card (F1.3, F11): complete it by its type's requirement at every listed port."""

    id: str
    name: str
    age: int
    homeland: str  # one of ids.HOMELANDS
    type: int  # ids.RAID / TRADE / SETTLE
    ports: tuple[str, ...]
    bonus_vp: int
    rulebook: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Pack:
    """A validated data pack. ``digest`` names its content (not its file or comments)."""

    format: int
    id: str
    name: str
    demo: bool
    description: str
    locations: tuple[Location, ...]
    edges: tuple[tuple[str, str], ...]
    dial: tuple[tuple[int, int, int], ...]  # per zone (ids order): best, normal, worst
    skulls: tuple[int, ...]
    small_treasures: tuple[int, ...]
    large_treasures: tuple[int, ...]
    runes: tuple[Rune, ...]
    sagas: tuple[Saga, ...]
    digest: str
    source: str = ""
    text: str = ""
    """The TOML text the pack was read from: what a game's options carry so that a stored game,
    a replay or another server can set the pack up again (not part of the digest)."""

    @property
    def builtin(self) -> bool:
        """True for the pack shipped with the engine (known to every process): games on it
        need not carry its text."""
        return self.digest == demo_pack().digest

    @property
    def not_published(self) -> bool:
        """True for a pack whose content is (partly) invented: clients must say so."""
        return self.demo

    def content(self) -> dict[str, Any]:
        """The pack as plain data (what the digest is taken of)."""
        return _content(self)


# -- parsing ---------------------------------------------------------------------------------


class _Problems:
    """Collects problems; ``where`` names the entry being read."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, what: str) -> None:
        self.items.append(f"{where}: {what}")


def _get(
    problems: _Problems,
    where: str,
    table: dict[str, Any],
    key: str,
    kind: type,
    default: Any = None,
    required: bool = True,
) -> Any:
    if key not in table:
        if required:
            problems.add(where, f"missing {key!r}")
        return default
    value = table[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        problems.add(where, f"{key!r} must be an integer, not {value!r}")
        return default
    if kind is not int and not isinstance(value, kind):
        problems.add(where, f"{key!r} must be a {kind.__name__}, not {value!r}")
        return default
    return value


def _unknown_keys(problems: _Problems, where: str, table: dict[str, Any], known: set[str]) -> None:
    for key in sorted(set(table) - known):
        problems.add(where, f"unknown key {key!r} (known: {', '.join(sorted(known))})")


def _entries(problems: _Problems, data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
        problems.add(key, f"must be an array of tables ([[{key}]])")
        return []
    return value


def _id(problems: _Problems, where: str, table: dict[str, Any], seen: set[str]) -> str:
    ident = _get(problems, where, table, "id", str, "")
    if ident and not _ID.match(ident):
        problems.add(where, f"id {ident!r} must be lower-case letters, digits, '_' or '-'")
    if ident in seen:
        problems.add(where, f"duplicate id {ident!r}")
    seen.add(ident)
    return str(ident)


def _rulebook(problems: _Problems, where: str, table: dict[str, Any]) -> tuple[str, ...]:
    fields = table.get("rulebook", [])
    if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
        problems.add(where, "'rulebook' must be a list of field names")
        return ()
    for f in fields:
        if f not in table:
            problems.add(where, f"'rulebook' names {f!r}, which this entry does not have")
    return tuple(fields)


def _locations(problems: _Problems, data: dict[str, Any]) -> list[Location]:
    out: list[Location] = []
    seen: set[str] = set()
    zones = {z: i for i, z in enumerate(ZONE_NAMES)}
    kinds = {k: i for i, k in enumerate(KIND_NAMES)}
    for i, t in enumerate(_entries(problems, data, "location")):
        ident = _id(problems, f"location #{i + 1}", t, seen)
        where = f"location {ident!r}" if ident else f"location #{i + 1}"
        kind_name = _get(problems, where, t, "kind", str, "")
        zone_name = _get(problems, where, t, "zone", str, "")
        name = _get(problems, where, t, "name", str, ident)
        if kind_name and kind_name not in kinds:
            problems.add(where, f"unknown kind {kind_name!r} (known: {', '.join(KIND_NAMES)})")
        if zone_name and zone_name not in zones:
            problems.add(where, f"unknown zone {zone_name!r} (known: {', '.join(ZONE_NAMES)})")
        kind = kinds.get(kind_name, -1)
        known = {"id", "name", "kind", "zone", "rulebook"}
        value = stars = 0
        region = ""
        if kind == PORT:
            known |= {"value", "stars", "region"}
            value = _get(problems, where, t, "value", int, 0)
            if not 1 <= value <= 6:
                problems.add(where, f"port value must be in 1..6, not {value}")
            stars = _get(problems, where, t, "stars", int, 0, required=False)
            if stars not in (0, 1, 3):
                problems.add(where, f"stars must be 0, 1 or 3, not {stars}")
            region = _get(problems, where, t, "region", str, "", required=False)
            if stars == 3 and region:
                problems.add(
                    where, "a large port (3 stars) belongs to no region (F2.5): remove 'region'"
                )
        elif kind == WATER:
            pass
        elif kind >= 0 and ident not in HOMELANDS:
            problems.add(where, f"a homeland's id must be one of {list(HOMELANDS)}")
        _unknown_keys(problems, where, t, known)
        out.append(
            Location(
                ident,
                str(name),
                max(kind, 0),
                zones.get(zone_name, 0),
                value,
                stars,
                region,
                _rulebook(problems, where, t),
            )
        )
    if len(out) > MAX_LOCATIONS:
        problems.add("location", f"{len(out)} locations: at most {MAX_LOCATIONS}")
    homelands = sorted(loc.id for loc in out if loc.kind == HOMELAND)
    if homelands != sorted(HOMELANDS):
        problems.add("location", f"the homelands must be {list(HOMELANDS)}, not {homelands}")
    ports = [loc for loc in out if loc.kind == PORT]
    for stars, count in ((1, SMALL_TOWNS), (3, LARGE_TOWNS)):
        have = sum(1 for p in ports if p.stars == stars)
        if have != count:
            problems.add(
                "location",
                f"{have} ports with {stars} star(s): the game has {count} "
                f"{'small' if stars == 1 else 'large'} towns, one per such port (F3.2)",
            )
    regions: dict[str, list[str]] = {}
    for p in ports:
        if p.region:
            regions.setdefault(p.region, []).append(p.id)
    for region, members in sorted(regions.items()):
        if len(members) != 3:
            problems.add(
                f"region {region!r}",
                f"has {len(members)} port(s) {members}: a region has exactly 3 (F2.5)",
            )
    return out


def _map(problems: _Problems, data: dict[str, Any], locs: list[Location]) -> list[tuple[str, str]]:
    table = data.get("map", {})
    if not isinstance(table, dict):
        problems.add("map", "must be a table")
        return []
    _unknown_keys(problems, "map", table, {"edges"})
    raw = table.get("edges")
    if not isinstance(raw, list):
        problems.add("map", "missing 'edges' (a list of [id, id] pairs)")
        return []
    by_id = {loc.id: loc for loc in locs}
    edges: list[tuple[str, str]] = []
    seen: set[frozenset[str]] = set()
    for i, e in enumerate(raw):
        where = f"map edge #{i + 1} {e!r}"
        if not (isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)):
            problems.add(where, "an edge is a pair of location ids")
            continue
        a, b = e
        bad = [x for x in (a, b) if x not in by_id]
        if bad:
            for x in bad:
                problems.add(where, f"adjacency to nowhere: {x!r} is no location")
            continue
        if a == b:
            problems.add(where, "a location is not adjacent to itself")
            continue
        key = frozenset((a, b))
        if key in seen:
            problems.add(where, "duplicate edge")
            continue
        seen.add(key)
        edges.append((a, b))
    neighbours: dict[str, list[str]] = {loc.id: [] for loc in locs}
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    for loc in locs:
        where = f"location {loc.id!r}"
        adj = neighbours[loc.id]
        if not adj:
            problems.add(where, "is adjacent to nothing")
            continue
        if loc.kind != WATER:
            waters = [by_id[x] for x in adj if by_id[x].kind == WATER]
            if not waters:
                problems.add(where, "touches no water space (F2.3: its zone is its water's)")
            elif loc.zone not in {w.zone for w in waters}:
                problems.add(
                    where,
                    f"zone {ZONE_NAMES[loc.zone]!r} is the zone of none of its water spaces "
                    f"({sorted({ZONE_NAMES[w.zone] for w in waters})}, F2.3)",
                )
    if locs and not problems.items:
        start = next((loc.id for loc in locs if loc.id in HOMELANDS), locs[0].id)
        reached = {start}
        todo = [start]
        while todo:
            for nxt in neighbours[todo.pop()]:
                if nxt not in reached:
                    reached.add(nxt)
                    todo.append(nxt)
        unreached = [loc.id for loc in locs if loc.id not in reached]
        if unreached:
            problems.add("map", f"cannot be reached from {start!r}: {unreached}")
    return edges


def _dial(problems: _Problems, data: dict[str, Any]) -> list[tuple[int, int, int]]:
    table = data.get("wind_dial")
    out = [(0, 0, 0)] * 4
    if not isinstance(table, dict):
        problems.add("wind_dial", "missing table [wind_dial] (north, east, south, west)")
        return out
    _unknown_keys(problems, "wind_dial", table, set(ZONE_NAMES))
    for z, zone in enumerate(ZONE_NAMES):
        where = f"wind_dial.{zone}"
        t = table.get(zone)
        if not isinstance(t, dict):
            problems.add(where, "missing {best, normal, worst}")
            continue
        _unknown_keys(problems, where, t, {"best", "normal", "worst"})
        values = [_get(problems, where, t, k, int, 0) for k in ("best", "normal", "worst")]
        for k, v in zip(("best", "normal", "worst"), values, strict=True):
            if not 0 <= v <= 7:
                problems.add(where, f"{k} must be in 0..7 Fair Weather Days, not {v}")
        if not values[0] >= values[1] >= values[2]:
            problems.add(where, f"best >= normal >= worst does not hold: {values}")
        out[z] = (values[0], values[1], values[2])
    return out


def _int_list(problems: _Problems, where: str, value: object, size: int | None) -> list[int]:
    if not isinstance(value, list) or not all(
        isinstance(x, int) and not isinstance(x, bool) for x in value
    ):
        problems.add(where, f"must be a list of integers, not {value!r}")
        return []
    if size is not None and len(value) != size:
        problems.add(where, f"has {len(value)} values: the game has {size}")
    return list(value)


def _losses_and_treasures(
    problems: _Problems, data: dict[str, Any]
) -> tuple[list[int], list[int], list[int]]:
    losses = data.get("losses")
    skulls: list[int] = []
    if not isinstance(losses, dict):
        problems.add("losses", "missing table [losses] with skulls = [positions]")
    else:
        _unknown_keys(problems, "losses", losses, {"skulls"})
        skulls = _int_list(problems, "losses.skulls", losses.get("skulls"), None)
        if not skulls:
            problems.add("losses.skulls", "no skull: a weather check could never cost anything")
        if skulls != sorted(set(skulls)) or any(not 1 <= s <= 7 for s in skulls):
            problems.add("losses.skulls", f"must be increasing positions in 1..7, not {skulls}")
    treasures = data.get("treasures")
    small: list[int] = []
    large: list[int] = []
    if not isinstance(treasures, dict):
        problems.add("treasures", "missing table [treasures] with small and large")
    else:
        _unknown_keys(problems, "treasures", treasures, {"small", "large"})
        small = _int_list(problems, "treasures.small", treasures.get("small"), SMALL_TOWNS)
        large = _int_list(problems, "treasures.large", treasures.get("large"), LARGE_TOWNS)
        if any(v < 0 for v in small + large):
            problems.add("treasures", "a treasure is worth 0 VP or more")
    return skulls, small, large


def _effects(problems: _Problems, where: str, raw: object) -> list[Effect]:
    if not isinstance(raw, list) or not raw or not all(isinstance(e, dict) for e in raw):
        problems.add(where, "'effects' must be a non-empty list of tables {kind = ...}")
        return []
    out: list[Effect] = []
    for j, e in enumerate(raw):
        w = f"{where} effect #{j + 1}"
        kind = e.get("kind")
        spec = EFFECT_KINDS.get(kind) if isinstance(kind, str) else None
        if spec is None:
            problems.add(
                w, f"unknown effect kind {kind!r} (the engine knows: {', '.join(EFFECT_KINDS)})"
            )
            continue
        params: list[tuple[str, int | str]] = []
        names = {p.name for p in spec.params}
        for key in sorted(set(e) - names - {"kind"}):
            problems.add(w, f"{kind} takes no parameter {key!r} (it takes: {sorted(names)})")
        for p in spec.params:
            if p.name not in e:
                if p.default is None:
                    problems.add(w, f"{kind} needs {p.name!r}")
                    continue
                params.append((p.name, p.default))
                continue
            fault = p.check(e[p.name])
            if fault:
                problems.add(w, f"{kind}: {fault}")
                continue
            params.append((p.name, e[p.name]))
        out.append(Effect(str(kind), tuple(params)))
    return out


def _runes(problems: _Problems, data: dict[str, Any]) -> list[Rune]:
    out: list[Rune] = []
    seen: set[str] = set()
    known = {"id", "name", "count", "conflict", "when", "where", "text", "effects", "rulebook"}
    for i, t in enumerate(_entries(problems, data, "rune")):
        ident = _id(problems, f"rune #{i + 1}", t, seen)
        where = f"rune {ident!r}" if ident else f"rune #{i + 1}"
        _unknown_keys(problems, where, t, known)
        name = _get(problems, where, t, "name", str, ident)
        count = _get(problems, where, t, "count", int, 1)
        if count < 1:
            problems.add(where, f"count must be at least 1, not {count}")
        conflict = _get(problems, where, t, "conflict", bool, False)
        when = _get(problems, where, t, "when", str, "any", required=False)
        if when not in WHEN:
            problems.add(where, f"when must be one of {list(WHEN)}, not {when!r}")
        place = _get(problems, where, t, "where", str, "anywhere", required=False)
        if place not in WHERE:
            problems.add(where, f"where must be one of {list(WHERE)}, not {place!r}")
        text = _get(problems, where, t, "text", str, "", required=False)
        effects = _effects(problems, where, t.get("effects"))
        choosing = [e.kind for e in effects if e.choice != NO_CHOICE]
        if len(choosing) > 1:
            problems.add(where, f"at most one effect may ask for a choice, not {choosing}")
        for e in effects:
            spec = EFFECT_KINDS[e.kind]
            if spec.own_turn_only and when != "own_turn":
                problems.add(
                    where,
                    f"{e.kind} acts on its player's own turn: the card needs when = 'own_turn'",
                )
            if spec.needs_where and place != spec.needs_where:
                problems.add(
                    where,
                    f"{e.kind} acts at the ship's {spec.needs_where}: "
                    f"the card needs where = {spec.needs_where!r}",
                )
        out.append(
            Rune(
                ident,
                str(name),
                count,
                bool(conflict),
                str(when),
                str(place),
                str(text),
                tuple(effects),
                _rulebook(problems, where, t),
            )
        )
    total = sum(r.count for r in out)
    conflict_total = sum(r.count for r in out if r.conflict)
    if total != RUNE_CARDS:
        problems.add("rune", f"the counts add up to {total} cards: the game has {RUNE_CARDS}")
    if conflict_total != CONFLICT_RUNES:
        problems.add(
            "rune",
            f"{conflict_total} cards carry the conflict symbol: the game has {CONFLICT_RUNES}",
        )
    if len(out) > MAX_RUNE_KINDS:
        problems.add("rune", f"{len(out)} different cards: at most {MAX_RUNE_KINDS}")
    return out


def _sagas(problems: _Problems, data: dict[str, Any], locs: list[Location]) -> list[Saga]:
    out: list[Saga] = []
    seen: set[str] = set()
    by_id = {loc.id: loc for loc in locs}
    known = {"id", "name", "age", "homeland", "type", "ports", "bonus_vp", "rulebook"}
    for i, t in enumerate(_entries(problems, data, "saga")):
        ident = _id(problems, f"saga #{i + 1}", t, seen)
        where = f"saga {ident!r}" if ident else f"saga #{i + 1}"
        _unknown_keys(problems, where, t, known)
        name = _get(problems, where, t, "name", str, ident, required=False)
        age = _get(problems, where, t, "age", int, 1)
        if age not in (1, 2, 3):
            problems.add(where, f"age must be 1, 2 or 3, not {age}")
        homeland = _get(problems, where, t, "homeland", str, HOMELANDS[0])
        if homeland not in HOMELANDS:
            problems.add(where, f"homeland must be one of {list(HOMELANDS)}, not {homeland!r}")
        type_name = _get(problems, where, t, "type", str, "raid")
        if type_name not in SAGA_TYPE_NAMES:
            problems.add(where, f"type must be one of {list(SAGA_TYPE_NAMES)}, not {type_name!r}")
        kind = SAGA_TYPE_NAMES.index(type_name) if type_name in SAGA_TYPE_NAMES else 0
        ports = t.get("ports")
        if not isinstance(ports, list) or not ports or not all(isinstance(p, str) for p in ports):
            problems.add(where, "'ports' must be a non-empty list of port ids")
            ports = []
        if len(set(ports)) != len(ports):
            problems.add(where, f"a port is listed twice in {ports}")
        for p in ports:
            loc = by_id.get(p)
            if loc is None:
                problems.add(where, f"unknown port {p!r}")
            elif loc.kind != PORT:
                problems.add(where, f"{p!r} is a {KIND_NAMES[loc.kind]}, not a port")
            elif kind == SAGA_TYPE_NAMES.index("raid") and loc.stars == 0:
                problems.add(
                    where,
                    f"raid Saga lists {p!r}, which has no town at set-up (no star): "
                    "it could never be completed",
                )
        bonus = _get(problems, where, t, "bonus_vp", int, 0, required=False)
        if bonus < 0:
            problems.add(where, f"bonus_vp must be 0 or more, not {bonus}")
        out.append(
            Saga(
                ident,
                str(name),
                age,
                str(homeland),
                kind,
                tuple(ports),
                bonus,
                _rulebook(problems, where, t),
            )
        )
    if len(out) != SAGA_CARDS:
        problems.add("saga", f"{len(out)} Saga cards: the game has {SAGA_CARDS}")
    for age in (1, 2, 3):
        have = sum(1 for s in out if s.age == age)
        need = SAGAS_REMOVED_PER_AGE + (3 if age == 1 else 1)
        if have < need:
            problems.add(
                "saga",
                f"Age {age} has {have} Saga card(s): set-up removes {SAGAS_REMOVED_PER_AGE} "
                f"per Age{' and reveals 3 of Age I' if age == 1 else ''}, so it needs at "
                f"least {need} (F3.4)",
            )
    return out


def _content(pack: Pack) -> dict[str, Any]:
    return {
        "format": pack.format,
        "pack": {
            "id": pack.id,
            "name": pack.name,
            "demo": pack.demo,
            "description": pack.description,
        },
        "location": [
            {
                "id": loc.id,
                "name": loc.name,
                "kind": KIND_NAMES[loc.kind],
                "zone": ZONE_NAMES[loc.zone],
                "value": loc.value,
                "stars": loc.stars,
                "region": loc.region,
                "rulebook": list(loc.rulebook),
            }
            for loc in pack.locations
        ],
        "edges": [list(e) for e in pack.edges],
        "wind_dial": {ZONE_NAMES[z]: list(v) for z, v in enumerate(pack.dial)},
        "skulls": list(pack.skulls),
        "treasures": {"small": list(pack.small_treasures), "large": list(pack.large_treasures)},
        "rune": [
            {
                "id": r.id,
                "name": r.name,
                "count": r.count,
                "conflict": r.conflict,
                "when": r.when,
                "where": r.where,
                "text": r.text,
                "effects": [{"kind": e.kind, **dict(e.params)} for e in r.effects],
                "rulebook": list(r.rulebook),
            }
            for r in pack.runes
        ],
        "saga": [
            {
                "id": s.id,
                "name": s.name,
                "age": s.age,
                "homeland": s.homeland,
                "type": SAGA_TYPE_NAMES[s.type],
                "ports": list(s.ports),
                "bonus_vp": s.bonus_vp,
                "rulebook": list(s.rulebook),
            }
            for s in pack.sagas
        ],
    }


def _digest(content: dict[str, Any]) -> str:
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def parse(text: str, source: str = "<data pack>") -> Pack:
    """A validated pack from TOML text; :class:`DataPackError` lists every problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataPackError(source, [f"not valid TOML: {exc}"]) from None
    problems = _Problems()
    _unknown_keys(
        problems,
        "top level",
        data,
        {"format", "pack", "location", "map", "wind_dial", "losses", "treasures", "rune", "saga"},
    )
    fmt = data.get("format")
    if fmt not in FORMATS:
        raise DataPackError(
            source, [f"format: {fmt!r} is not a pack format this engine reads {list(FORMATS)}"]
        )
    header = data.get("pack")
    ident = name = description = ""
    demo = False
    if not isinstance(header, dict):
        problems.add("pack", "missing table [pack] (id, name, demo, description)")
    else:
        _unknown_keys(problems, "pack", header, {"id", "name", "demo", "description"})
        ident = _get(problems, "pack", header, "id", str, "")
        name = _get(problems, "pack", header, "name", str, "")
        demo = _get(problems, "pack", header, "demo", bool, False)
        description = _get(problems, "pack", header, "description", str, "", required=False)
    locs = _locations(problems, data)
    edges = _map(problems, data, locs)
    dial = _dial(problems, data)
    skulls, small, large = _losses_and_treasures(problems, data)
    runes = _runes(problems, data)
    sagas = _sagas(problems, data, locs)
    if problems.items:
        raise DataPackError(source, problems.items)
    draft = Pack(
        int(fmt),
        str(ident),
        str(name),
        bool(demo),
        str(description),
        tuple(locs),
        tuple(edges),
        tuple(dial),
        tuple(skulls),
        tuple(small),
        tuple(large),
        tuple(runes),
        tuple(sagas),
        "",
        source,
    )
    return Pack(
        draft.format,
        draft.id,
        draft.name,
        draft.demo,
        draft.description,
        draft.locations,
        draft.edges,
        draft.dial,
        draft.skulls,
        draft.small_treasures,
        draft.large_treasures,
        draft.runes,
        draft.sagas,
        _digest(_content(draft)),
        source,
        text,
    )


@lru_cache(maxsize=16)
def parse_cached(text: str, source: str = "<data pack>") -> Pack:
    """:func:`parse`, remembered for the same text (games carry their pack's text in their
    options, and a server reads those options again on every restore)."""
    return parse(text, source)


# -- the packs a process knows --------------------------------------------------------------

_KNOWN: dict[str, Pack] = {}
DEMO_RESOURCE: Final = "demo_pack.toml"


def register(pack: Pack) -> Pack:
    """Make ``pack`` known by its digest (games name their pack by digest), and return it."""
    _KNOWN.setdefault(pack.digest, pack)
    return _KNOWN[pack.digest]


def load(path: str | Path) -> Pack:
    """Read, validate and register the pack in ``path`` (``DataPackError`` if it is bad)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataPackError(str(p), [f"cannot be read: {exc}"]) from None
    return register(parse(text, str(p)))


@cache
def demo_pack() -> Pack:
    """The built-in demo pack: the rulebook's values where it has them, invented elsewhere,
    and marked ``demo = true`` (NOT the published board or cards)."""
    text = resources.files("engine.fire_and_axe").joinpath(DEMO_RESOURCE).read_text("utf-8")
    return register(parse(text, DEMO_RESOURCE))


def pack_by_digest(digest: str) -> Pack:
    """The known pack with that digest; ``"demo"`` names the demo pack. ``KeyError`` names
    what is known when it is not (load the file with :func:`load` first)."""
    demo = demo_pack()
    if digest in ("demo", demo.digest):
        return demo
    try:
        return _KNOWN[digest]
    except KeyError:
        raise KeyError(
            f"no data pack with digest {digest!r} is loaded (known: {sorted(_KNOWN)}); "
            "load its file first"
        ) from None


def known_digests() -> list[str]:
    demo_pack()
    return sorted(_KNOWN)


def validate_file(path: str | Path) -> tuple[Pack | None, list[str]]:
    """What ``yggdrasil data validate FILE`` reports: the pack, or every problem in it (each
    naming the file, the entry and the fault). Does not register the pack."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{p}: cannot be read: {exc}"]
    try:
        return parse(text, str(p)), []
    except DataPackError as exc:
        return None, [f"{exc.source}: {problem}" for problem in exc.problems]
