"""Scenarios: a human-writable JSON position format, and building a valid state from one.

Rule tests, tutorials and puzzle frontends describe a position instead of playing up to it::

    {
      "players": 3,                      # 2–5
      "seed": 7,                         # optional: shuffles whatever is not given (default 0)
      "draft": "normal",                 # or "no_draft"
      "age": 1,                          # 1–3
      "phase": "action",                 # draft | action | discard | quest | ragnarok | release
      "first_player": 0,
      "turn": 0,                         # action phase: the seat to act
      "ragnarok": ["Horgr", "Gimle", "Utgard"],   # the province of each Age's Ragnarök
      "destroyed": ["Andlang"],          # destroyed at set-up (earlier Ragnaröks are added)
      "pillage_tokens": {"Myrkulor": "glory5", "Elvagar": "rage", ...},  # optional, all 8
      "pillaged": ["Elvagar"],
      "clans": [                         # one per seat, clockwise
        {
          "stats": {"rage": 1, "axes": 2, "horns": 1},   # steps 1–6 (default 1)
          "rage": 4,                     # Rage left this Action phase (default: the stat)
          "glory": 10,
          "hand": ["tyrs_smash", "alfheim"],             # card keys; "tyrs_smash_2" picks the Age
          "kept": "alfheim",             # the card of the hand kept from the previous Age
          "quests": ["manheim"],         # committed, face down
          "upgrades": ["experts_in_arms", "troll", "friggas_charm"],
          "figures": {"Elvagar": ["leader", "warrior", "warrior"], "North fjord": ["ship"],
                      "Valhalla": ["warrior"]}           # the rest stays in the reserve
        }, ...
      ],
      "decks": {"2": ["tyrs_rage", "valkyrie"]}          # optional: top of later Age decks
    }

Impossible positions are refused with a ``ScenarioError`` that quotes the problem.
"""

from __future__ import annotations

import json
from typing import Any

from engine.blood_rage.board import (
    CLAN_SLOTS,
    FJORD_SUPPORTS,
    HAND_DEAL,
    LAST_STEP,
    MAX_MONSTERS,
    OUTER_TOKENS,
    TOKEN_NAMES,
    VILLAGES,
    WARRIORS_PER_CLAN,
    Token,
)
from engine.blood_rage.cards import CardDef, CardType, Slot, card_of, deck_instances, find_card
from engine.blood_rage.flow import advance, awaiting
from engine.blood_rage.ids import (
    AREA_NAMES,
    BOX,
    FIG_UNIT,
    FIG_WARRIORS,
    FJORDS,
    NUM_AREAS,
    OUTER_PROVINCES,
    RESERVE,
    STAT_NAMES,
    UNIT_NAMES,
    VALHALLA,
    DraftMode,
    Phase,
    Step,
    Unit,
)
from engine.blood_rage.setup import GameOptions
from engine.blood_rage.state import (
    EMPTY,
    SLOT_CLANS,
    SLOT_LEADER,
    SLOT_MONSTERS,
    SLOT_SHIP,
    SLOT_WARRIOR,
    GameState,
)
from engine.core.errors import OptionsError, ScenarioError
from engine.core.rng import SplitMix64

PHASE_STEPS = {
    "draft": (Phase.DRAFT, Step.DRAFT_DEAL),
    "action": (Phase.ACTION, Step.ACTION),
    "discard": (Phase.DISCARD, Step.DISCARD_START),
    "quest": (Phase.QUEST, Step.QUEST_START),
    "ragnarok": (Phase.RAGNAROK, Step.RAGNAROK),
    "release": (Phase.RELEASE_VALHALLA, Step.RELEASE_VALHALLA),
}
_KNOWN_KEYS = {
    "players",
    "seed",
    "draft",
    "age",
    "phase",
    "first_player",
    "turn",
    "ragnarok",
    "destroyed",
    "pillage_tokens",
    "pillaged",
    "clans",
    "decks",
    "comment",
}
_CLAN_KEYS = {
    "stats",
    "rage",
    "glory",
    "hand",
    "kept",
    "quests",
    "upgrades",
    "figures",
    "comment",
}


def _norm(name: str) -> str:
    return name.strip().lower().replace("_", " ").replace("-", " ")


_AREA_BY_NAME = {_norm(n): i for i, n in enumerate(AREA_NAMES)}
_UNIT_BY_NAME = {_norm(n): i for i, n in enumerate(UNIT_NAMES)}


def _area(name: object, what: str) -> int:
    if not isinstance(name, str) or _norm(name) not in _AREA_BY_NAME:
        raise ScenarioError(f"{what}: unknown place {name!r}")
    return _AREA_BY_NAME[_norm(name)]


def _province(name: object, what: str) -> int:
    p = _area(name, what)
    if p >= 9:
        raise ScenarioError(f"{what}: {name!r} is not a province")
    return p


def _list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScenarioError(f"{what} must be a list, not {type(value).__name__}")
    return value


def _dict(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(f"{what} must be an object, not {type(value).__name__}")
    return value


def _int(value: object, what: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ScenarioError(f"{what} must be a whole number from {lo} to {hi}, not {value!r}")
    return value


class _CardPool:
    """The game's physical cards not yet placed, by Age, to draw named cards from."""

    def __init__(self, players: int) -> None:
        self.left = {age: deck_instances(age, players) for age in (1, 2, 3)}

    def take(self, name: object, age: int, what: str) -> int:
        if not isinstance(name, str):
            raise ScenarioError(f"{what}: a card is named by a string, not {name!r}")
        try:
            d = find_card(name, age)
        except KeyError as e:
            raise ScenarioError(f"{what}: {e.args[0]}") from None
        for inst in self.left[d.age]:
            if card_of(inst).index == d.index:
                self.left[d.age].remove(inst)
                return inst
        raise ScenarioError(
            f"{what}: no copy of {d.name} (Age {d.age}) is left for this game "
            "(too many copies named, or its marking is out for this player count)"
        )


def from_scenario(data: dict[str, Any] | str, *, hosted: bool = False) -> GameState:
    """Build a state from a scenario (a dict or JSON text); raise ScenarioError if impossible.

    ``hosted``: the position is to be played on (a server's game), not just looked at: it
    must also leave a decision to take, and enough cards for every draft to come."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except (ValueError, RecursionError) as e:  # JSONDecodeError, int digits, nesting
            raise ScenarioError(f"scenario is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    unknown = set(data) - _KNOWN_KEYS
    if unknown:
        raise ScenarioError(f"unknown scenario field(s): {sorted(unknown)}")
    n = _int(data.get("players"), "players", 2, 5)
    seed = _int(data.get("seed", 0), "seed", 0, 2**64 - 1)
    draft_name = data.get("draft", "normal")
    if draft_name not in ("normal", "no_draft"):
        raise ScenarioError(f"draft must be 'normal' or 'no_draft', not {draft_name!r}")
    draft = DraftMode.NORMAL if draft_name == "normal" else DraftMode.NO_DRAFT
    try:
        GameOptions(n, seed, draft).validate()
    except OptionsError as e:
        raise ScenarioError(str(e)) from None
    age = _int(data.get("age", 1), "age", 1, 3)
    phase_name = data.get("phase", "action")
    if not isinstance(phase_name, str) or phase_name not in PHASE_STEPS:
        raise ScenarioError(f"phase must be one of {sorted(PHASE_STEPS)}, not {phase_name!r}")
    phase, step = PHASE_STEPS[phase_name]
    rng = SplitMix64(seed)
    state = GameState(n, draft, seed)
    state.age = age
    state.phase = phase
    state.step = step
    state.first_player = _int(data.get("first_player", 0), "first_player", 0, n - 1)

    # Ragnarök slots and destroyed provinces.
    rag_names = data.get("ragnarok")
    if rag_names is None:
        order = list(OUTER_PROVINCES)
        rng.shuffle(order)
        state.ragnarok = order[:3]
    else:
        if not isinstance(rag_names, list) or len(rag_names) != 3:
            raise ScenarioError("ragnarok lists the three provinces of Ages 1, 2 and 3")
        state.ragnarok = [_province(x, "ragnarok") for x in rag_names]
        if len(set(state.ragnarok)) != 3 or 0 in state.ragnarok:
            raise ScenarioError("ragnarok needs three different outer provinces")
    destroyed = [_province(x, "destroyed") for x in _list(data.get("destroyed", []), "destroyed")]
    if 0 in destroyed:
        raise ScenarioError("Yggdrasil is never destroyed")
    for p in destroyed:
        if p in state.ragnarok:
            raise ScenarioError(
                f"{AREA_NAMES[p]} is a Ragnarök province; it is destroyed by its "
                "Age's Ragnarök, not listed as destroyed at set-up"
            )
    past = state.ragnarok[: age - 1] + ([state.ragnarok[age - 1]] if phase > Phase.RAGNAROK else [])
    for p in destroyed + past:
        state.destroyed[p] = True

    # Pillage tokens.
    tokens_in = data.get("pillage_tokens")
    if tokens_in is None:
        tokens = list(OUTER_TOKENS)
        rng.shuffle(tokens)
    else:
        if not isinstance(tokens_in, dict) or len(tokens_in) != 8:
            raise ScenarioError("pillage_tokens gives a token for each of the 8 outer provinces")
        tokens = [EMPTY] * 8
        for name, kind in tokens_in.items():
            p = _province(name, "pillage_tokens")
            if kind not in TOKEN_NAMES[1:]:
                raise ScenarioError(f"pillage_tokens: unknown token {kind!r}")
            tokens[p - 1] = TOKEN_NAMES.index(kind)
        if sorted(tokens) != sorted(OUTER_TOKENS):
            raise ScenarioError(
                "pillage_tokens must use the 8 outer tokens: 3 rage, 2 axes, 2 horns, 1 glory5"
            )
    state.token = [Token.ALL_STATS, *tokens]
    for p in range(9):
        if state.destroyed[p]:
            state.token[p] = EMPTY
    for name in _list(data.get("pillaged", []), "pillaged"):
        p = _province(name, "pillaged")
        if state.destroyed[p]:
            raise ScenarioError(f"pillaged: {AREA_NAMES[p]} is destroyed")
        state.pillaged[p] = True

    # Clans.
    clans = data.get("clans")
    if not isinstance(clans, list) or len(clans) != n:
        raise ScenarioError(f"clans must list {n} clans, one per seat")
    pool = _CardPool(n)
    for seat, spec in enumerate(clans):
        _build_clan(state, pool, seat, spec, age)
    for a in (1, 2, 3):  # a draft to come deals HAND_DEAL cards to every seat
        drafted = a > age or (a == age and phase == Phase.DRAFT)
        if hosted and drafted and len(pool.left[a]) < n * HAND_DEAL:
            raise ScenarioError(
                f"the clans hold so many Age {a} cards that its deck keeps "
                f"{len(pool.left[a])}, fewer than its draft deals ({n * HAND_DEAL})"
            )

    # Decks: earlier Ages are spent; the current Age is dealt unless its draft is to come.
    for a in (1, 2, 3):
        rest = pool.left[a]
        if a < age or (a == age and phase != Phase.DRAFT):
            state.unseen.extend(rest)
            continue
        rng.shuffle(rest)
        top: list[int] = []
        decks = _dict(data.get("decks", {}), "decks")
        for name in _list(decks.get(str(a), []), f"decks[{a}]"):
            inst = pool.take(name, a, f"decks[{a}]")
            top.append(inst)
        state.decks[a - 1] = top + rest
    if phase == Phase.ACTION:
        turn = _int(data.get("turn", state.first_player), "turn", 0, n - 1)
        if state.clans[turn].rage <= 0:
            raise ScenarioError(f"turn: seat {turn} has 0 Rage and cannot act")
        state.turn = turn
    advance(state)
    if hosted and not awaiting(state):
        raise ScenarioError("the scenario's game is over: nobody has a decision left to take")
    return state


def _build_clan(state: GameState, pool: _CardPool, seat: int, spec: object, age: int) -> None:
    where = f"clans[{seat}]"
    spec = _dict(spec, where)
    unknown = set(spec) - _CLAN_KEYS
    if unknown:
        raise ScenarioError(f"{where}: unknown field(s) {sorted(unknown)}")
    clan = state.clans[seat]
    stats = _dict(spec.get("stats", {}), f"{where}.stats")
    for i, stat in enumerate(STAT_NAMES):
        step = _int(stats.get(stat, 1), f"{where}.stats.{stat}", 1, LAST_STEP + 1)
        clan.steps[i] = step - 1
    clan.rage = _int(spec.get("rage", clan.stat(0)), f"{where}.rage", 0, 99)
    clan.glory = _int(spec.get("glory", 0), f"{where}.glory", -999, 9999)
    clan.hand = [
        pool.take(c, age, f"{where}.hand") for c in _list(spec.get("hand", []), f"{where}.hand")
    ]
    if "kept" in spec:
        kept = spec["kept"]
        found = [i for i in clan.hand if kept in (card_of(i).key, card_of(i).id)]
        if not found:
            raise ScenarioError(f"{where}.kept: {kept!r} is not a card of the hand")
        clan.kept = found[0]
    for c in _list(spec.get("quests", []), f"{where}.quests"):
        inst = pool.take(c, age, f"{where}.quests")
        if card_of(inst).type != CardType.QUEST:
            raise ScenarioError(f"{where}.quests: {card_of(inst).name} is not a quest card")
        clan.quests.append(inst)
    for c in _list(spec.get("upgrades", []), f"{where}.upgrades"):
        inst = pool.take(c, age, f"{where}.upgrades")
        _place_upgrade(state, seat, card_of(inst), inst, where)
    figures = _dict(spec.get("figures", {}), f"{where}.figures")
    free_warriors = list(FIG_WARRIORS)
    for place, units in figures.items():
        area = _area(place, f"{where}.figures")
        if area == BOX:
            raise ScenarioError(f"{where}.figures: figures cannot be placed in the box")
        for u in _list(units, f"{where}.figures[{place!r}]"):
            if not isinstance(u, str) or _norm(u) not in _UNIT_BY_NAME:
                raise ScenarioError(f"{where}.figures[{place!r}]: unknown unit {u!r}")
            unit = _UNIT_BY_NAME[_norm(u)]
            fig = _figure_for(clan.loc, unit, free_warriors, where)
            _check_place(state, unit, area, where)
            state.move_figure(seat, fig, area)
    for p in range(9):
        if state.occupancy[p] > VILLAGES[p]:
            raise ScenarioError(
                f"{AREA_NAMES[p]} holds {state.occupancy[p]} figures but has only "
                f"{VILLAGES[p]} villages (a village holds one figure)"
            )
    if clan.on_board() > clan.horns:
        raise ScenarioError(
            f"{where} has {clan.on_board()} figures on the board, more than its "
            f"Horns ({clan.horns})"
        )


def _figure_for(loc: list[int], unit: int, free_warriors: list[int], where: str) -> int:
    if unit == Unit.WARRIOR:
        if not free_warriors:
            raise ScenarioError(f"{where}: more than {WARRIORS_PER_CLAN} warriors")
        return free_warriors.pop(0)
    fig = 0 if unit == Unit.LEADER else 9 if unit == Unit.SHIP else unit + 7
    if loc[fig] == BOX:
        raise ScenarioError(
            f"{where}: a {UNIT_NAMES[unit]} figure needs its monster card among the clan's upgrades"
        )
    if loc[fig] != RESERVE:
        raise ScenarioError(f"{where}: the clan has only one {UNIT_NAMES[unit]}")
    return fig


def _check_place(state: GameState, unit: int, area: int, where: str) -> None:
    ship = unit in (Unit.SHIP, Unit.SEA_SERPENT)
    if area in (RESERVE, VALHALLA):
        return
    if area in FJORDS:
        if not ship:
            raise ScenarioError(
                f"{where}: a {UNIT_NAMES[unit]} cannot stand in {AREA_NAMES[area]} "
                "(fjords hold only ships)"
            )
        a, b = FJORD_SUPPORTS[area]
        if state.destroyed[a] and state.destroyed[b]:
            raise ScenarioError(f"{where}: {AREA_NAMES[area]} supports no live province")
        return
    if ship:
        raise ScenarioError(
            f"{where}: a {UNIT_NAMES[unit]} stays in fjords, not {AREA_NAMES[area]}"
        )
    if state.destroyed[area]:
        raise ScenarioError(f"{where}: {AREA_NAMES[area]} is destroyed; no figure may be there")


def _place_upgrade(state: GameState, seat: int, d: CardDef, inst: int, where: str) -> None:
    if d.type != CardType.UPGRADE:
        raise ScenarioError(f"{where}.upgrades: {d.name} is not an upgrade card")
    slots = state.clans[seat].slots
    choices = {
        Slot.LEADER: (SLOT_LEADER,),
        Slot.WARRIOR: (SLOT_WARRIOR,),
        Slot.SHIP: (SLOT_SHIP,),
        Slot.MONSTER: SLOT_MONSTERS,
        Slot.CLAN: SLOT_CLANS,
    }[d.slot]
    for i in choices:
        if slots[i] == EMPTY:
            slots[i] = inst
            if d.slot == Slot.MONSTER:
                state.clans[seat].loc[d.unit + 7] = RESERVE
            return
    limit = {Slot.MONSTER: MAX_MONSTERS, Slot.CLAN: CLAN_SLOTS}.get(d.slot, 1)
    raise ScenarioError(
        f"{where}.upgrades: no free {d.slot.name.lower()} slot for {d.name} (at most {limit})"
    )


def to_scenario(state: GameState) -> dict[str, Any]:
    """Describe a state between decisions of the Action phase (or a phase start) as a scenario.

    Card copies are named by their ids, so the round trip keeps every rule-relevant fact but
    may pick other physical copies of the same cards.
    """
    if state.battle is not None or state.prompts or state.march is not None:
        raise ScenarioError("a battle, march or offer in progress cannot be written as a scenario")
    phase = {v[0]: k for k, v in PHASE_STEPS.items()}.get(Phase(state.phase))
    if phase is None or (phase != "action" and PHASE_STEPS[phase][1] != state.step):
        raise ScenarioError("only Action-phase positions and phase starts can be written")
    past = set(state.ragnarok[: state.age - 1])
    if state.phase > Phase.RAGNAROK:
        past.add(state.ragnarok[state.age - 1])
    out: dict[str, Any] = {
        "players": state.players,
        "seed": state.seed,
        "draft": "no_draft" if state.draft_mode == DraftMode.NO_DRAFT else "normal",
        "age": state.age,
        "phase": phase,
        "first_player": state.first_player,
        "ragnarok": [AREA_NAMES[p] for p in state.ragnarok],
        "destroyed": [AREA_NAMES[p] for p in range(9) if state.destroyed[p] and p not in past],
        "pillaged": [AREA_NAMES[p] for p in range(9) if state.pillaged[p]],
        "clans": [],
    }
    if state.phase == Phase.ACTION:
        out["turn"] = state.turn
    for c in state.clans:
        figures: dict[str, list[str]] = {}
        for fig, where in enumerate(c.loc):
            if where < NUM_AREAS or where == VALHALLA:
                figures.setdefault(AREA_NAMES[where], []).append(UNIT_NAMES[FIG_UNIT[fig]])
        out["clans"].append(
            {
                "stats": {STAT_NAMES[i]: c.steps[i] + 1 for i in range(3)},
                "rage": c.rage,
                "glory": c.glory,
                "hand": [card_of(x).id for x in c.hand],
                **({"kept": card_of(c.kept).id} if c.kept >= 0 else {}),
                "quests": [card_of(x).id for x in c.quests],
                "upgrades": [card_of(x).id for x in c.slots if x >= 0],
                "figures": figures,
            }
        )
    return out
