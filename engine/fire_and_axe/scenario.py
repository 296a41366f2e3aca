"""Scenarios: a human-writable JSON position format, and building a valid state from one.

Rule tests, tutorials and puzzles describe a position instead of playing up to it. Places,
Runes and Sagas are named by their pack id or name, in any case, with spaces, ``_`` or ``-``.
Everything is optional but ``players``; what is not given is as at set-up (shuffled from
``seed``)::

    {
      "players": 3,                       # 2-5
      "seed": 7,                          # the generator: what is not given, then the dice
      "data_pack": "demo",                # or the digest of a loaded pack
      "options": {"settle_region_block": "any", "rune_timing": "any_time",
                  "no_conflict": true},
      "first_player": 0,
      "turn": 1,                          # the seat whose turn it is (default first_player)
      "age": 2,                           # default: the highest Age among the Sagas shown
      "dial": "west",                     # the zone under the blue hole (default south)
      "demand": "tusk",                   # default fish
      "days": {"preparation": 2, "sailing": 1},
      "tasks_done": ["Kiev"],             # ports where a Task was done this turn
      "skulls_covered": [1],              # skull positions covered this turn
      "towns": {"Bayeux": 5},             # treasures under standing towns (others shuffled)
      "goods": {"Horn": "fish"},          # goods tokens in ports
      "settlements": {"Kiev": 0},         # port -> seat
      "sagas": {"spaces": ["ii-cork-dublin-man", null, "i-bayeux"],
                "deck": ["iii-rus"],       # top first (default: the rest, Age by Age)
                "discard": []},
      "final_markers": {"holder": 1, "placed": 2},
      "rune_deck": ["storm"],             # top first; the rest shuffled below
      "rune_discard": ["ambush"],
      "seats": [                          # one per seat, clockwise
        {"location": "Sweden",            # or "wintering" (default)
         "crew": 2, "goods": {"fish": 1, "fur": 1},
         "hand": ["change-of-demand"], "vp": 10,
         "towns": ["Lyubech", {"port": "Rome", "treasure": 7}],   # towns it took
         "sagas": ["i-lyubech"]}, ...
      ]
    }

The goods supply, crew supplies and Settlement counts follow from the rest. Impossible
positions (two ships in a port, a Settlement under a town, more goods than exist, a treasure
the pack has not got …) are refused with a ``ScenarioError`` that says what and where.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from engine.core.errors import OptionsError, ScenarioError
from engine.fire_and_axe.board import Board
from engine.fire_and_axe.ids import (
    CREW_PER_PLAYER,
    DAYS_PER_TURN,
    FISH,
    GOOD_NAMES,
    GOODS_PER_TYPE,
    HAND_LIMIT,
    PORT,
    SAGA_SPACES,
    WINTERING,
    ZONE_NAMES,
)
from engine.fire_and_axe.setup import GameOptions
from engine.fire_and_axe.state import NONE, GameState, Step

_KEYS = {
    "comment",
    "players",
    "seed",
    "data_pack",
    "options",
    "first_player",
    "turn",
    "age",
    "dial",
    "demand",
    "days",
    "tasks_done",
    "skulls_covered",
    "towns",
    "goods",
    "settlements",
    "sagas",
    "final_markers",
    "rune_deck",
    "rune_discard",
    "seats",
}
_SEAT_KEYS = {"comment", "location", "crew", "goods", "hand", "vp", "towns", "sagas"}


def _norm(name: str) -> str:
    return name.strip().lower().replace("_", " ").replace("-", " ")


class _Names:
    def __init__(self, board: Board) -> None:
        self.board = board
        self.loc = {_norm(x): i for i, x in enumerate(board.ids)}
        self.loc.update({_norm(x): i for i, x in enumerate(board.names)})
        self.rune = {_norm(r.id): i for i, r in enumerate(board.runes)}
        self.rune.update({_norm(r.name): i for i, r in enumerate(board.runes)})
        self.saga = {_norm(s.id): s.index for s in board.sagas}
        self.saga.update({_norm(s.name): s.index for s in board.sagas})

    def location(self, name: object, what: str) -> int:
        if isinstance(name, str) and _norm(name) == "wintering":
            return WINTERING
        if not isinstance(name, str) or _norm(name) not in self.loc:
            raise ScenarioError(f"{what}: unknown place {name!r}")
        return self.loc[_norm(name)]

    def port(self, name: object, what: str) -> int:
        loc = self.location(name, what)
        if loc == WINTERING or self.board.kind[loc] != PORT:
            raise ScenarioError(f"{what}: {name!r} is not a port")
        return loc

    def rune_card(self, name: object, what: str) -> int:
        if not isinstance(name, str) or _norm(name) not in self.rune:
            raise ScenarioError(f"{what}: unknown Rune {name!r}")
        return self.rune[_norm(name)]

    def saga_card(self, name: object, what: str) -> int:
        if not isinstance(name, str) or _norm(name) not in self.saga:
            raise ScenarioError(f"{what}: unknown Saga {name!r}")
        return self.saga[_norm(name)]


def _int(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ScenarioError(f"{what} must be an integer in {low}..{high}, not {value!r}")
    return value


def _list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScenarioError(f"{what} must be a list, not {value!r}")
    return value


def _dict(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(f"{what} must be an object, not {value!r}")
    return value


def _good(value: object, what: str) -> int:
    if not isinstance(value, str) or _norm(value) not in GOOD_NAMES:
        raise ScenarioError(f"{what}: unknown goods type {value!r} (tusk, fish or fur)")
    return GOOD_NAMES.index(_norm(value))


def _unknown(data: dict[str, Any], known: set[str], what: str) -> None:
    extra = sorted(set(data) - known)
    if extra:
        raise ScenarioError(f"{what}: unknown key(s) {extra} (known: {sorted(known)})")


def from_scenario(text: str) -> GameState:
    """Build a state from scenario JSON (comments as ``"comment"`` keys)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"not valid JSON: {exc}") from None
    data = _dict(data, "a scenario")
    _unknown(data, _KEYS, "scenario")
    players = _int(data.get("players"), "players", 2, 5)
    seed = _int(data.get("seed", 0), "seed", 0, 2**64 - 1)
    opts = _dict(data.get("options", {}), "options")
    _unknown(opts, {"settle_region_block", "rune_timing", "no_conflict"}, "options")
    first = _int(data.get("first_player", 0), "first_player", 0, players - 1)
    try:
        options = GameOptions(
            players,
            seed,
            opts.get("settle_region_block", "all"),
            opts.get("rune_timing", "own_turn"),
            bool(opts.get("no_conflict", False)),
            first,
            data.get("data_pack", "demo"),
        )
        options.validate()
    except OptionsError as exc:
        raise ScenarioError(f"options: {exc}") from None
    board = options.board()
    names = _Names(board)
    s = GameState(board, players, seed)
    s.settle_any = options.settle_region_block == "any"
    s.any_time = options.rune_timing == "any_time"
    s.no_conflict = options.no_conflict
    s.first_player = first
    s.turn = _int(data.get("turn", first), "turn", 0, players - 1)
    s.turns = 1
    s.dial = _zone(data.get("dial", "south"))
    s.demand = _good(data.get("demand", GOOD_NAMES[FISH]), "demand")
    days = _dict(data.get("days", {}), "days")
    _unknown(days, {"preparation", "sailing"}, "days")
    s.prep = _int(days.get("preparation", 0), "days.preparation", 0, DAYS_PER_TURN)
    s.sail = _int(days.get("sailing", 0), "days.sailing", 0, DAYS_PER_TURN)
    if s.prep + s.sail > DAYS_PER_TURN:
        raise ScenarioError(f"days: {s.prep} + {s.sail} is more than {DAYS_PER_TURN} (F4.3)")
    s.tasks_done = sorted(
        {names.port(x, "tasks_done") for x in _list(data.get("tasks_done", []), "tasks_done")}
    )
    for pos in _list(data.get("skulls_covered", []), "skulls_covered"):
        if pos not in board.skulls:
            raise ScenarioError(f"skulls_covered: no skull at position {pos!r} {board.skulls}")
        s.skulls_covered |= 1 << pos
    _seats(s, names, _list(data.get("seats", []), "seats"))
    _ports(s, names, data)
    _towns(s, names, data)
    _sagas(s, names, data)
    _capacity_check(s)  # the Age (F5.2) follows from the Sagas when not given
    _runes(s, names, data)
    _supply(s)
    markers = _dict(data.get("final_markers", {}), "final_markers")
    _unknown(markers, {"holder", "placed"}, "final_markers")
    if "holder" in markers:
        s.markers_holder = _int(markers["holder"], "final_markers.holder", 0, players - 1)
        s.markers_placed = _int(markers.get("placed", 0), "final_markers.placed", 0, 2)
        if s.saga_deck:
            raise ScenarioError(
                "final_markers: the markers lie under the Saga deck until its last card is "
                "revealed (F11.7); give an empty deck"
            )
    elif markers:
        raise ScenarioError("final_markers: give the holder")
    p = s.seats[s.turn]
    if p.loc == WINTERING and p.crew == 0 and p.crew_supply == 0:
        raise ScenarioError(f"seat {s.turn} has no crew left to man its ship (F9.4)")
    s.step = Step.MAIN
    return s


def _zone(value: object) -> int:
    if not isinstance(value, str) or _norm(value) not in ZONE_NAMES:
        raise ScenarioError(f"dial: unknown zone {value!r} (one of {list(ZONE_NAMES)})")
    return ZONE_NAMES.index(_norm(value))


def _seats(s: GameState, names: _Names, seats: list[Any]) -> None:
    board = s.board
    if len(seats) > s.players:
        raise ScenarioError(f"seats: {len(seats)} seats for {s.players} players")
    at_port: dict[int, int] = {}
    for i, raw in enumerate(seats):
        what = f"seat {i}"
        d = _dict(raw, what)
        _unknown(d, _SEAT_KEYS, what)
        p = s.seats[i]
        p.loc = names.location(d.get("location", "wintering"), f"{what}.location")
        if p.loc != WINTERING and board.kind[p.loc] == PORT:
            if p.loc in at_port:
                raise ScenarioError(
                    f"{what}: {board.names[p.loc]} already holds seat {at_port[p.loc]}'s "
                    "ship; a port holds one ship (F2.6)"
                )
            at_port[p.loc] = i
        p.crew = _int(d.get("crew", 0 if p.loc == WINTERING else 1), f"{what}.crew", 0, 7)
        if p.loc != WINTERING and p.crew == 0:
            raise ScenarioError(f"{what}: a ship on the map has at least 1 crewmember (F9.2)")
        goods = _dict(d.get("goods", {}), f"{what}.goods")
        for key, value in goods.items():
            p.cargo[_good(key, f"{what}.goods")] = _int(value, f"{what}.goods.{key}", 0, 7)
        hand = _list(d.get("hand", []), f"{what}.hand")
        p.hand = [names.rune_card(x, f"{what}.hand") for x in hand]
        if len(p.hand) > HAND_LIMIT:
            raise ScenarioError(f"{what}: {len(p.hand)} Runes in hand, at most {HAND_LIMIT}")
        p.vp = _int(d.get("vp", 0), f"{what}.vp", 0, 10**6)
        sagas = _list(d.get("sagas", []), f"{what}.sagas")
        p.sagas = [names.saga_card(x, f"{what}.sagas") for x in sagas]
    for i, raw in enumerate(seats):
        towns = _list(_dict(raw, f"seat {i}").get("towns", []), f"seat {i}.towns")
        for t in towns:
            entry = t if isinstance(t, dict) else {"port": t}
            port = names.port(entry.get("port"), f"seat {i}.towns")
            if board.stars[port] == 0:
                raise ScenarioError(f"seat {i}.towns: {board.names[port]} never had a town")
            if any(port in q.towns for q in s.seats):
                raise ScenarioError(f"seat {i}.towns: {board.names[port]}'s town is taken twice")
            s.seats[i].towns.append(port)
            if "treasure" in entry:
                s.treasure[port] = _int(entry["treasure"], f"seat {i}.towns.treasure", 0, 99)
                s.town[port] = -1  # marks a fixed treasure until _towns deals the rest


def _capacity_check(s: GameState) -> None:
    for i, p in enumerate(s.seats):
        if p.aboard() > s.capacity():
            raise ScenarioError(
                f"seat {i}: {p.aboard()} items aboard, more than the {s.capacity()} slots "
                f"of Age {s.age} (F5.2)"
            )


def _ports(s: GameState, names: _Names, data: dict[str, Any]) -> None:
    board = s.board
    for key, value in _dict(data.get("goods", {}), "goods").items():
        port = names.port(key, "goods")
        good = _good(value, f"goods.{key}")
        for q in board.region_others[port]:
            if s.goods[q] == good:
                raise ScenarioError(
                    f"goods: {board.names[port]} and {board.names[q]} are in one region and "
                    f"cannot both hold {GOOD_NAMES[good]} (F7.3)"
                )
        s.goods[port] = good
    for key, value in _dict(data.get("settlements", {}), "settlements").items():
        port = names.port(key, "settlements")
        seat = _int(value, f"settlements.{key}", 0, s.players - 1)
        s.settler[port] = seat
        s.seats[seat].settlements += 1


def _towns(s: GameState, names: _Names, data: dict[str, Any]) -> None:
    """Standing towns on every starred port no seat took; treasures given or shuffled."""
    board = s.board
    fixed = {
        names.port(k, "towns"): _int(v, f"towns.{k}", 0, 99)
        for k, v in _dict(data.get("towns", {}), "towns").items()
    }
    taken = {t for p in s.seats for t in p.towns}
    for port in fixed:
        if board.stars[port] == 0:
            raise ScenarioError(f"towns: {board.names[port]} has no star, so no town (F3.2)")
        if port in taken:
            raise ScenarioError(f"towns: {board.names[port]}'s town was taken by a seat")
    for ports, values, size in (
        (board.small_ports, board.pack.small_treasures, 1),
        (board.large_ports, board.pack.large_treasures, 3),
    ):
        left = Counter(values)
        known = {p: s.treasure[p] for p in ports if s.town[p] == -1}
        known.update({p: v for p, v in fixed.items() if p in ports})
        for port, value in known.items():
            if left[value] <= 0:
                raise ScenarioError(
                    f"towns: no {'large' if size == 3 else 'small'} treasure of {value} left "
                    f"for {board.names[port]} (the pack has {sorted(values)})"
                )
            left[value] -= 1
        rest = sorted(left.elements())
        s.rng.shuffle(rest)
        for port in ports:
            s.town[port] = 0 if port in taken else size
            if port in known:
                s.treasure[port] = known[port]
            else:
                s.treasure[port] = rest.pop()
            if port not in taken and s.settler[port] != NONE:
                raise ScenarioError(
                    f"settlements: {board.names[port]} has a town; a Settlement needs it "
                    "raided first (F7.5; list it among a seat's towns)"
                )


def _sagas(s: GameState, names: _Names, data: dict[str, Any]) -> None:
    board = s.board
    cfg = _dict(data.get("sagas", {}), "sagas")
    _unknown(cfg, {"spaces", "deck", "discard", "removed"}, "sagas")
    used: set[int] = set()

    def take(card: int, what: str) -> int:
        if card in used:
            raise ScenarioError(f"{what}: Saga {board.sagas[card].id!r} is used twice")
        used.add(card)
        return card

    for p in s.seats:
        for c in p.sagas:
            take(c, "seats.sagas")
    if "spaces" in cfg:
        spaces = _list(cfg["spaces"], "sagas.spaces")
        if len(spaces) != SAGA_SPACES:
            raise ScenarioError(f"sagas.spaces: give {SAGA_SPACES} entries (null: empty)")
        s.saga_spaces = [
            NONE if x is None else take(names.saga_card(x, "sagas.spaces"), "sagas.spaces")
            for x in spaces
        ]
    s.saga_discard = [
        take(names.saga_card(x, "sagas.discard"), "sagas.discard")
        for x in _list(cfg.get("discard", []), "sagas.discard")
    ]
    s.saga_removed = [
        take(names.saga_card(x, "sagas.removed"), "sagas.removed")
        for x in _list(cfg.get("removed", []), "sagas.removed")
    ]
    if "deck" in cfg:
        top_first = [
            take(names.saga_card(x, "sagas.deck"), "sagas.deck")
            for x in _list(cfg["deck"], "sagas.deck")
        ]
        s.saga_deck = top_first[::-1]
    if "spaces" not in cfg:
        rest = [c.index for c in board.sagas if c.index not in used]
        rest.sort(key=lambda c: board.sagas[c].age)
        for space in range(SAGA_SPACES):
            if rest:
                s.saga_spaces[space] = take(rest.pop(0), "sagas")
    if "deck" not in cfg:
        rest = [c.index for c in board.sagas if c.index not in used]
        by_age: list[list[int]] = [[], [], []]
        for c in rest:
            by_age[board.sagas[c].age - 1].append(c)
        deck: list[int] = []
        for cards in reversed(by_age):  # Age III at the bottom
            s.rng.shuffle(cards)
            deck.extend(cards)
        s.saga_deck = deck
    shown = [board.sagas[c].age for c in s.saga_spaces if c != NONE]
    shown += [board.sagas[c].age for c in s.saga_discard]
    shown += [board.sagas[c].age for p in s.seats for c in p.sagas]
    s.age = _int(data.get("age", max(shown, default=1)), "age", 1, 3)


def _runes(s: GameState, names: _Names, data: dict[str, Any]) -> None:
    board = s.board
    pool = Counter(r for r in board.rune_deck if not (s.no_conflict and board.runes[r].conflict))

    def take(card: int, what: str) -> int:
        if pool[card] <= 0:
            raise ScenarioError(
                f"{what}: no copy of {board.runes[card].name!r} left (the game has "
                f"{board.runes[card].count}{', none with no_conflict' if s.no_conflict else ''})"
            )
        pool[card] -= 1
        return card

    for i, p in enumerate(s.seats):
        for r in p.hand:
            take(r, f"seat {i}.hand")
    s.rune_discard = [
        take(names.rune_card(x, "rune_discard"), "rune_discard")
        for x in _list(data.get("rune_discard", []), "rune_discard")
    ]
    top = [
        take(names.rune_card(x, "rune_deck"), "rune_deck")
        for x in _list(data.get("rune_deck", []), "rune_deck")
    ]
    rest = sorted(pool.elements())
    s.rng.shuffle(rest)
    s.rune_deck = rest + top[::-1]


def _supply(s: GameState) -> None:
    """The goods supply is what no port, ship or the demand space holds (F1.6)."""
    used = [0, 0, 0]
    used[s.demand] += 1
    for g in s.goods:
        if g != NONE:
            used[g] += 1
    for p in s.seats:
        for g in range(3):
            used[g] += p.cargo[g]
    for g in range(3):
        if used[g] > GOODS_PER_TYPE:
            raise ScenarioError(
                f"{used[g]} {GOOD_NAMES[g]} tokens are placed: the game has {GOODS_PER_TYPE}"
            )
        s.supply[g] = GOODS_PER_TYPE - used[g]
    for i, p in enumerate(s.seats):
        p.crew_supply = CREW_PER_PLAYER - p.crew - p.settlements
        if p.crew_supply < 0:
            raise ScenarioError(
                f"seat {i}: {p.crew} crew aboard and {p.settlements} Settlements are more "
                f"than {CREW_PER_PLAYER} crew"
            )
