"""Rendering of Yggdrasil messages for the terminal: pure functions, no network.

Every function here takes protobuf messages (a ``View``, events, summaries, results) plus a
:class:`Catalog` (the static card and board data from ``GetCatalog``) and returns rich
renderables or plain strings. Nothing here reads the clock, the network or global state, so a
view can be rendered in a test exactly as the ``yggdrasil`` command shows it.

Only what a view carries is shown: a seat's view holds its own hand and legal actions, never
another seat's hidden cards, and the renderer adds nothing else.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

__all__ = [
    "CLAN_STYLES",
    "Catalog",
    "card_details",
    "card_label",
    "clan_name",
    "clan_stat",
    "describe_event",
    "prompt_text",
    "render_result",
    "render_view",
    "replaced_upgrade",
    "result_line",
    "reward_name",
    "stat_name",
    "to_text",
    "view_text",
]

CLAN_STYLES: Mapping[int, str] = {
    br.CLAN_WOLF: "bold bright_blue",
    br.CLAN_RAVEN: "bold magenta",
    br.CLAN_SERPENT: "bold green",
    br.CLAN_BEAR: "bold red",
    br.CLAN_RAM: "bold yellow",
}

_STATUS: dict[int, str] = {
    gp.GAME_STATUS_UNSPECIFIED: "unknown",
    gp.GAME_STATUS_OPEN: "open",
    gp.GAME_STATUS_IN_PROGRESS: "in progress",
    gp.GAME_STATUS_FINISHED: "finished",
    gp.GAME_STATUS_ABORTED: "aborted",
}

_PHASES: dict[int, str] = {
    br.PHASE_DRAFT: "Draft",
    br.PHASE_ACTION: "Action",
    br.PHASE_DISCARD: "Discard",
    br.PHASE_QUEST: "Quest",
    br.PHASE_RAGNAROK: "Ragnarök",
    br.PHASE_RELEASE_VALHALLA: "Release Valhalla",
    br.PHASE_GAME_OVER: "Game over",
}

_STEPS: dict[int, str] = {
    br.STEP_DRAFT_PICK: "draft pick",
    br.STEP_ACTION: "action",
    br.STEP_MARCH: "march",
    br.STEP_OFFER: "offer",
    br.STEP_CALL_TO_BATTLE: "call to battle",
    br.STEP_BATTLE_CARDS: "battle cards",
    br.STEP_LATE_BATTLE_CARDS: "late battle cards",
    br.STEP_BATTLE_CHOICE: "battle choice",
    br.STEP_DISCARD: "keep a card",
    br.STEP_STAT_CHOICE: "raise a stat",
}

_REWARDS: dict[int, str] = {
    br.PILLAGE_REWARD_RAGE: "Rage +1",
    br.PILLAGE_REWARD_AXES: "Axes +1",
    br.PILLAGE_REWARD_HORNS: "Horns +1",
    br.PILLAGE_REWARD_GLORY5: "5 Glory",
    br.PILLAGE_REWARD_YGGDRASIL_ALL: "all +1",
}

_STAT_NAMES: dict[int, str] = {br.STAT_RAGE: "Rage", br.STAT_AXES: "Axes", br.STAT_HORNS: "Horns"}


def stat_name(stat: int) -> str:
    """``Rage``, ``Axes`` or ``Horns``."""
    return _STAT_NAMES.get(stat, "?")


def reward_name(reward: int) -> str:
    """A pillage token's reward in words: ``Axes +1``, ``5 Glory``, ``all +1``."""
    return _REWARDS.get(reward, "?")


# Why Glory changed, in words; a reason this client does not know is shown by its enum name,
# OTHER (the server could not tell) not at all.
_GLORY_REASONS: dict[int, str] = {
    br.GLORY_REASON_OTHER: "",
    br.GLORY_REASON_BATTLE: "won the battle",
    br.GLORY_REASON_PILLAGE: "pillage reward",
    br.GLORY_REASON_QUEST: "quest fulfilled",
    br.GLORY_REASON_RAGNAROK: "figures lost to Ragnarök",
    br.GLORY_REASON_CARD: "card",
    br.GLORY_REASON_END_GAME: "end-game bonus",
}
_CAUSES: dict[str, str] = {
    "battle": "lost the battle",
    "effect": "a card's effect",
    "own_choice": "their own choice",
    "ragnarok": "Ragnarök",
}

# Short figure names for the board: L = leader, W = warrior, S = ship; monsters by name.
_UNIT_SHORT: dict[int, str] = {br.UNIT_LEADER: "L", br.UNIT_WARRIOR: "W", br.UNIT_SHIP: "S"}

# What a decision prompt means, by the kind of the first legal action offered.
_PROMPTS_BY_KIND = {
    "save_figure": "Frigga's Protection: pay 1 Rage to save a figure about to be destroyed?",
    "keep_figure": "Odin's Tide: choose the one figure of yours in the battle that survives.",
    "keep_revealed": "Tyr's Prowess: keep one of your revealed cards for 1 Rage?",
    "late_card": "Cards are revealed: you may play a Heimdall card late.",
    "move_leader": "Lord of Hammers: you may move your leader to an adjacent province.",
    "challenge": "Tyr's Challenge: pay 2 Rage to pillage a province again?",
    "sacrifice": "Frigga's Sacrifice: choose a figure of yours to destroy.",
    "invade_from_valhalla": "Frigga's Domain: invade with a figure from Valhalla for 1 Rage?",
    "free_invade": "A free invade is offered.",
    "accept": "A card offers you a choice: accept or decline.",
    "raise_stat": "Choose the clan stat to raise.",
    "call_to_battle": "Call to Battle: move one figure in from an adjacent province, or decline.",
    "draft_pick": "Gods' Gifts: pick a card from your pack.",
    "battle_card": "Battle: secretly choose your battle card.",
    "no_card": "Battle: you have no card to play.",
    "keep_card": "Discard phase: keep at most one card for the next Age.",
    "keep_none": "Discard phase: keep at most one card for the next Age.",
    "march_more": "March under way: move more figures along, or end the march.",
    "march_done": "March under way: move more figures along, or end the march.",
}

_PROMPTS_BY_STEP: dict[int, str] = {
    br.STEP_DRAFT_PICK: "Gods' Gifts: pick a card from your pack.",
    br.STEP_ACTION: "Your turn: choose an action.",
    br.STEP_MARCH: "March under way: move more figures along, or end the march.",
    br.STEP_OFFER: "An optional offer: accept or decline.",
    br.STEP_CALL_TO_BATTLE: "Call to Battle: move one figure in, or decline.",
    br.STEP_BATTLE_CARDS: "Battle: secretly choose your battle card.",
    br.STEP_LATE_BATTLE_CARDS: "Cards are revealed: you may play a card late.",
    br.STEP_BATTLE_CHOICE: "A revealed card asks you to choose.",
    br.STEP_DISCARD: "Discard phase: keep at most one card for the next Age.",
    br.STEP_STAT_CHOICE: "Choose the clan stat to raise.",
}


def _enum_words(name: str, prefix: str) -> str:
    """``AREA_NORTH_FJORD`` → ``North fjord``."""
    words = name.removeprefix(prefix).replace("_", " ").lower()
    return words[:1].upper() + words[1:]


@dataclass(frozen=True)
class Catalog:
    """Static data for names: cards by id, areas and units by enum value.

    Built from ``GetCatalog``; an empty catalog falls back on names derived from the enums
    and card ids, so rendering never needs the network.
    """

    cards: Mapping[str, br.BloodRageCardInfo] = field(default_factory=dict)
    areas: Mapping[int, br.AreaInfo] = field(default_factory=dict)
    units: Mapping[int, str] = field(default_factory=dict)

    @classmethod
    def from_pb(cls, catalog: br.BloodRageCatalog | None) -> Catalog:
        if catalog is None:
            return cls()
        return cls(
            cards={c.card_id: c for c in catalog.cards},
            areas={int(a.area): a for a in catalog.areas},
            units={int(u.unit): u.name for u in catalog.units},
        )

    def card(self, card_id: str) -> br.BloodRageCardInfo | None:
        return self.cards.get(card_id)

    def card_name(self, card_id: str) -> str:
        info = self.cards.get(card_id)
        if info is not None and info.name:
            return info.name
        base = card_id.rsplit("_", 1)[0] if card_id[-1:].isdigit() else card_id
        return base.replace("_", " ").title() if base else "?"

    def area_name(self, area: int) -> str:
        info = self.areas.get(area)
        if info is not None and info.name:
            return info.name
        if area == br.AREA_UNSPECIFIED:
            return "-"
        try:
            return _enum_words(br.Area.Name(br.Area.ValueType(area)), "AREA_")
        except ValueError:
            return f"area {area}"

    def villages(self, area: int) -> int:
        info = self.areas.get(area)
        return info.villages if info is not None else 0

    def supports(self, area: int) -> list[int]:
        """A province's supporting fjords; a fjord's supported provinces."""
        info = self.areas.get(area)
        return [int(a) for a in info.supports] if info is not None else []

    def region_name(self, area: int) -> str:
        """``Manheim``, ``Jotunheim`` or ``Alfheim`` (quests name them); "" for the others."""
        info = self.areas.get(area)
        if info is None or not info.region:
            return ""
        return _enum_name(br.Region, info.region, "REGION_")

    def unit_name(self, unit: int) -> str:
        name = self.units.get(unit)
        if name:
            return name.lower() if unit in _UNIT_SHORT else name
        try:
            return _enum_words(br.Unit.Name(br.Unit.ValueType(unit)), "UNIT_")
        except ValueError:
            return f"unit {unit}"


def clan_name(seat: int) -> str:
    """Seat i plays clan i + 1 (Wolf, Raven, Serpent, Bear, Ram)."""
    try:
        return _enum_words(br.Clan.Name(br.Clan.ValueType(seat + 1)), "CLAN_")
    except ValueError:
        return f"seat {seat}"


def _clan_text(seat: int, suffix: str = "") -> Text:
    return Text(clan_name(seat) + suffix, style=CLAN_STYLES.get(seat + 1, "bold"))


def _seat_names(view: gp.View) -> dict[int, str]:
    return {s.seat: s.name for s in view.seats}


def _who(seat: int, names: Mapping[int, str]) -> str:
    name = names.get(seat, "")
    return f"{clan_name(seat)} ({name})" if name else clan_name(seat)


# ============================================================================================
# Cards
# ============================================================================================


def _card_kind(info: br.BloodRageCardInfo | None) -> str:
    if info is None:
        return ""
    if info.type == br.CARD_TYPE_BATTLE:
        return f"+{info.strength}" + (" late" if info.late_play else "")
    if info.type == br.CARD_TYPE_UPGRADE:
        if info.monster:
            return f"monster STR {info.strength}, cost {info.cost}"
        slot = br.UpgradeSlot.Name(info.slot).removeprefix("UPGRADE_SLOT_").lower()
        return f"{slot} upgrade, cost {info.cost}"
    if info.type == br.CARD_TYPE_QUEST:
        return f"quest {info.quest_glory} Glory"
    return ""


def card_label(card: br.Card, catalog: Catalog, *, kind: bool = True) -> str:
    """``Tyr's Smash (+3) [#13]``: the name, a hint of what the card is, the instance."""
    name = catalog.card_name(card.card_id)
    hint = _card_kind(catalog.card(card.card_id)) if kind else ""
    return f"{name} ({hint}) [#{card.instance}]" if hint else f"{name} [#{card.instance}]"


def card_details(cards: Iterable[br.Card], catalog: Catalog) -> Table:
    """A table of cards with their full rules text (for the ``c`` command of ``play``)."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    table.add_column("#", justify="right")
    table.add_column("Card", style="bold")
    table.add_column("Kind")
    table.add_column("Text", overflow="fold")
    for card in cards:
        info = catalog.card(card.card_id)
        table.add_row(
            str(card.instance),
            Text(catalog.card_name(card.card_id)),
            Text(_card_kind(info) or "-"),
            Text(info.text if info is not None else ""),
        )
    return table


def _card_line(title: str, cards: Sequence[br.Card], catalog: Catalog) -> Text:
    line = Text(f"{title} ({len(cards)}): ", style="bold")
    if not cards:
        line.append("-", style="dim")
    for i, card in enumerate(cards):
        if i:
            line.append(" · ", style="dim")
        line.append(card_label(card, catalog))
    return line


# ============================================================================================
# The view
# ============================================================================================


def _figures_by_area(view: gp.View) -> dict[int, list[tuple[int, list[int]]]]:
    """area → [(seat, [units...]), ...] in seat order."""
    out: dict[int, list[tuple[int, list[int]]]] = {}
    for clan in view.blood_rage.clans:
        per_area: dict[int, list[int]] = {}
        for fig in clan.figures:
            if fig.location == br.FIGURE_LOCATION_BOARD:
                per_area.setdefault(int(fig.area), []).append(int(fig.unit))
        for area, units in per_area.items():
            out.setdefault(area, []).append((clan.seat, units))
    return out


def _units_short(units: Sequence[int], catalog: Catalog) -> str:
    parts = []
    counts: dict[int, int] = {}
    for u in units:
        counts[u] = counts.get(u, 0) + 1
    for unit in sorted(counts):
        n = counts[unit]
        short = _UNIT_SHORT.get(unit)
        if short is not None:
            parts.append(f"{n}{short}" if n > 1 else short)
        else:
            name = catalog.unit_name(unit)
            parts.append(f"{n} {name}" if n > 1 else name)
    return "+".join(parts)


def _figures_text(
    entries: Sequence[tuple[int, list[int]]], catalog: Catalog, *, compact: bool = False
) -> Text:
    text = Text()
    for i, (seat, units) in enumerate(entries):
        if i:
            text.append(" " if compact else "  ")
        text.append(clan_name(seat), style=CLAN_STYLES.get(seat + 1, "bold"))
        text.append(" " + _units_short(units, catalog))
    return text


def _header(view: gp.View, width: int) -> Text:
    bv = view.blood_rage
    text = Text()
    text.append("Yggdrasil", style="bold cyan")
    if width >= 100:  # on narrow terminals the id would push the line past one row
        text.append(f" {view.game_id}")
    text.append(" · ")
    if view.status == gp.GAME_STATUS_IN_PROGRESS:
        text.append(f"Age {bv.age} · {_PHASES.get(bv.phase, '?')}", style="bold")
        if bv.step == br.STEP_DRAFT_PICK and bv.draft_round:
            text.append(f" round {bv.draft_round}", style="bold")
        elif bv.phase == br.PHASE_ACTION and bv.step not in (br.STEP_ACTION, br.STEP_NONE):
            text.append(f" · {_STEPS.get(bv.step, '?')}")
    else:
        text.append(_STATUS.get(view.status, "?"), style="bold")
    text.append(f" · v{view.state_version}", style="dim")
    if view.HasField("viewer_seat"):
        text.append(" · you: ")
        text.append_text(_clan_text(view.viewer_seat))
        name = _seat_names(view).get(view.viewer_seat, "")
        if name:
            text.append(f" ({name})")
    else:
        text.append(" · spectator", style="dim")
    return text


_FJORDS = (br.AREA_NORTH_FJORD, br.AREA_EAST_FJORD, br.AREA_SOUTH_FJORD, br.AREA_WEST_FJORD)


def _fjord_names(province: int, catalog: Catalog, *, compact: bool) -> str:
    """The fjord supporting a province: ``North`` (compact ``N``)."""
    names = [catalog.area_name(f).removesuffix(" fjord") for f in catalog.supports(province)]
    return " ".join(n[:1] if compact else n for n in names)


def _board(view: gp.View, catalog: Catalog, *, compact: bool = False) -> RenderableType:
    """The provinces (region, villages, pillage token, Ragnarök, the fjord that supports it,
    figures) and a line with each fjord's ships. The full layout has column titles, names the
    provinces each fjord supports and adds the decks; the compact one leaves those to ``h``."""
    bv = view.blood_rage
    figures = _figures_by_area(view)
    table = Table(
        box=None,
        pad_edge=False,
        padding=(0, 1),
        header_style="bold underline",
        show_header=not compact,
    )
    table.add_column("Province", no_wrap=True)
    table.add_column("Region", no_wrap=True)
    table.add_column("Vil", justify="right", no_wrap=True)
    table.add_column("Token", no_wrap=True)
    table.add_column("Ragnarök", no_wrap=True)
    table.add_column("Fjord", no_wrap=True)
    table.add_column("Figures", overflow="fold", ratio=1)
    for p in bv.provinces:
        area = int(p.area)
        name = catalog.area_name(area)
        region = Text(catalog.region_name(area) or "-", style="dim" if compact else "")
        fjord = Text(_fjord_names(area, catalog, compact=compact) or "-", style="dim")
        villages = catalog.villages(area)
        if p.destroyed:
            if compact:  # one line for all of them, below: rows are short on a small screen
                continue
            gone = Text("destroyed", style="dim")
            table.add_row(Text(name, style="dim strike"), region, "", "", gone, fjord, "")
            continue
        reward = _REWARDS.get(p.reward, "-")
        if compact:
            reward = reward.replace(" +", "+")
        token = Text(reward)
        if p.pillaged:
            token = Text(reward + " ✗", style="dim")
        rag = Text()
        if p.ragnarok_age:
            rag.append(str(p.ragnarok_age) if compact and p.doom else f"Age {p.ragnarok_age}")
        if p.doom:
            rag.append(" DOOM" if rag else "DOOM", style="bold red")
        table.add_row(
            Text(name, style="bold" if area == br.AREA_YGGDRASIL else ""),
            region,
            str(villages) if villages else "-",
            token,
            rag,
            fjord,
            _figures_text(figures.get(area, []), catalog, compact=compact),
        )
    fjord_line = Text("Fjords: ", style="bold")
    for i, fjord_area in enumerate(_FJORDS):
        if i:
            fjord_line.append(" · ", style="dim")
        name = catalog.area_name(fjord_area).removesuffix(" fjord")
        fjord_line.append(name[:1] if compact else name)
        supported = ", ".join(catalog.area_name(a) for a in catalog.supports(fjord_area))
        if supported and not compact:
            fjord_line.append(f" ({supported})", style="dim")
        fjord_line.append(": ")
        ships = figures.get(int(fjord_area), [])
        if ships:
            fjord_line.append_text(_figures_text(ships, catalog, compact=compact))
        else:
            fjord_line.append("-", style="dim")
    if compact:
        lost = [catalog.area_name(int(p.area)) for p in bv.provinces if p.destroyed]
        if lost:
            fjord_line.append(" · destroyed: ", style="dim")
            fjord_line.append(", ".join(lost), style="dim strike")
        return Group(table, fjord_line)
    decks = "/".join(str(n) for n in bv.deck_sizes) or "-"
    deck_line = Text(
        f"Decks (Age 1/2/3) {decks} · discard pile {len(bv.discard_pile)} face up, "
        f"{bv.hidden_discard_count} unseen",
        style="dim",
    )
    return Group(table, fjord_line, deck_line)


def _stat(clan: br.ClanView, stat: int) -> int:
    for level in clan.stats:
        if level.stat == stat:
            return level.value
    return 0


_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _stat_step(clan: br.ClanView, stat: int) -> str:
    """A stat's value and, small, its step on the track (``12⁵``): the step is what the
    end-of-game bonus counts, and two steps may give the same value."""
    for level in clan.stats:
        if level.stat == stat:
            return f"{level.value}{str(level.step).translate(_SUPERSCRIPTS)}"
    return "0"


# The marks before a clan's name (``h`` in ``play`` lists them, with the columns).
MARK_AWAITED = "▶"
MARK_CHOSEN = "✓"


def _clans(view: gp.View, catalog: Catalog, *, compact: bool = False) -> Table:
    """One row per clan: who is awaited (▶) or has chosen (✓), the player, first player, you
    (*); Rage now/most, Axes, Horns, Glory, cards in hand (k: one kept from the last Age),
    quests committed, figures on the board / in reserve / in Valhalla."""
    bv = view.blood_rage
    awaiting = set(view.awaiting_seats)
    committed = set(view.committed_seats)
    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold underline")
    table.add_column("Clan", no_wrap=True)
    table.add_column("Rage", justify="right", no_wrap=True)
    table.add_column("Axe", justify="right")
    table.add_column("Hrn", justify="right")
    table.add_column("Glory", justify="right")
    table.add_column("Hand", justify="right")
    table.add_column("Q", justify="right")
    table.add_column("Brd/Res/Val", justify="center", no_wrap=True)
    for clan in bv.clans:
        mark = " "
        if clan.seat in committed:
            mark = MARK_CHOSEN
        elif clan.seat in awaiting:
            mark = MARK_AWAITED
        label = Text(mark + " ", style="bold yellow")
        label.append_text(_clan_text(clan.seat))
        if clan.name:
            name = clan.name
            if compact and len(name) > 10:
                name = name[:9] + "…"
            label.append(f" {name}")
        if clan.seat == bv.first_player and view.status == gp.GAME_STATUS_IN_PROGRESS:
            label.append(" 1st", style="dim")
        if view.HasField("viewer_seat") and clan.seat == view.viewer_seat:
            label.append(" *", style="bold")
        where = {br.FIGURE_LOCATION_BOARD: 0, br.FIGURE_LOCATION_RESERVE: 0}
        valhalla = 0
        for fig in clan.figures:
            if fig.location == br.FIGURE_LOCATION_VALHALLA:
                valhalla += 1
            elif fig.location in where:
                where[fig.location] += 1
        hand = str(clan.hand_count) + ("k" if clan.has_kept_card else "")
        table.add_row(
            label,
            f"{clan.rage}/{_stat_step(clan, br.STAT_RAGE)}",
            _stat_step(clan, br.STAT_AXES),
            _stat_step(clan, br.STAT_HORNS),
            Text(str(clan.glory), style="bold"),
            hand,
            str(clan.quest_count),
            f"{where[br.FIGURE_LOCATION_BOARD]}/{where[br.FIGURE_LOCATION_RESERVE]}/{valhalla}",
        )
    return table


def _upgrades(view: gp.View, catalog: Catalog) -> Text:
    """Every clan's upgrades in play."""
    line = Text("Upgrades: ", style="bold")
    shown = 0
    for clan in view.blood_rage.clans:
        if not clan.upgrades:
            continue
        if shown:
            line.append(" · ", style="dim")
        line.append_text(_clan_text(clan.seat, ": "))
        line.append(", ".join(catalog.card_name(u.card.card_id) for u in clan.upgrades))
        shown += 1
    if not shown:
        line.append("none yet", style="dim")
    return line


def _march(view: gp.View, catalog: Catalog) -> Text | None:
    bv = view.blood_rage
    if not bv.HasField("march"):
        return None
    m = bv.march
    text = Text("March: ", style="bold")
    text.append_text(_clan_text(m.seat))
    text.append(f" {catalog.area_name(m.from_area)} → {catalog.area_name(m.to_area)}")
    moved = ", ".join(catalog.unit_name(u) for u in m.moved)
    text.append(f"; moved so far: {moved or 'nothing'}")
    return text


def _battle(view: gp.View, catalog: Catalog) -> RenderableType | None:
    bv = view.blood_rage
    if not bv.HasField("battle"):
        return None
    b = bv.battle
    title = Text("Battle in ", style="bold red")
    title.append(catalog.area_name(b.province), style="bold")
    title.append(" · pillager ")
    title.append_text(_clan_text(b.pillager))
    if b.revealed:
        title.append(f" · cards revealed (round {b.reveal_round})")
    else:
        title.append(" · cards not revealed yet")
    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold underline")
    table.add_column("Clan", no_wrap=True)
    table.add_column("Fig STR", justify="right")
    table.add_column("Card", overflow="fold")
    table.add_column("Total", justify="right")
    # Strengths as the server reports them. Totals are filled in once the battle is compared
    # (after any late cards); until then, and if the server sends no figure strengths at all,
    # "?" is shown rather than a misleading 0.
    strengths_known = any(p.figure_strength for p in b.participants)
    totals_known = b.revealed and any(p.total_strength for p in b.participants)
    for part in b.participants:
        if part.revealed_cards:
            cards = Text(", ".join(card_label(c, catalog) for c in part.revealed_cards))
        elif b.revealed:
            cards = Text("no card", style="dim")
        elif part.has_committed:
            cards = Text("chosen (secret)", style="dim")
        else:
            cards = Text("choosing…", style="yellow")
        table.add_row(
            _clan_text(part.seat),
            str(part.figure_strength) if strengths_known else "?",
            cards,
            str(part.total_strength) if totals_known else "?",
        )
    parts: list[RenderableType] = [title, table]
    own = bv.own
    if own.HasField("battle_card") and not b.revealed:
        parts.append(Text("Your battle card (secret): " + card_label(own.battle_card, catalog)))
    return Group(*parts)


def _battle_line(view: gp.View, catalog: Catalog) -> Text | None:
    """The battle on one line (compact layout): where, who, strengths, cards or who is still
    choosing, and your own secret card."""
    bv = view.blood_rage
    if not bv.HasField("battle"):
        return None
    b = bv.battle
    text = Text("Battle in ", style="bold red")
    text.append(catalog.area_name(b.province), style="bold")
    text.append(" (pillager ")
    text.append_text(_clan_text(b.pillager))
    text.append("): ")
    if not b.participants:
        text.append("the clans are called in", style="dim")
    totals_known = b.revealed and any(p.total_strength for p in b.participants)
    for i, part in enumerate(b.participants):
        if i:
            text.append(" · ", style="dim")
        text.append_text(_clan_text(part.seat))
        text.append(f" STR {part.figure_strength or '?'}")
        if part.revealed_cards:
            cards = ", ".join(catalog.card_name(c.card_id) for c in part.revealed_cards)
            text.append(f" + {cards}")
        elif b.revealed:
            text.append(" no card", style="dim")
        elif part.has_committed:
            text.append(" (chosen)", style="dim")
        else:
            text.append(" (choosing)", style="yellow")
        if totals_known:
            text.append(f" = {part.total_strength}", style="bold")
    own = bv.own
    if own.HasField("battle_card") and not b.revealed:
        text.append(" · your card: " + catalog.card_name(own.battle_card.card_id))
    return text


def _own(view: gp.View, catalog: Catalog, *, compact: bool = False) -> RenderableType | None:
    """The viewer's cards. Compact: the hand by name on one line (``c`` shows the texts); the
    pack is left out while the actions list its picks."""
    if not view.HasField("viewer_seat"):
        return None
    own = view.blood_rage.own
    if compact:
        line = Text(f"Your hand ({len(own.hand)}): ", style="bold")
        line.append(", ".join(catalog.card_name(c.card_id) for c in own.hand) or "-")
        if own.HasField("kept_card"):
            line.append(f" (kept: {catalog.card_name(own.kept_card.card_id)})")
        if own.committed_quests:
            quests = ", ".join(catalog.card_name(c.card_id) for c in own.committed_quests)
            line.append(f" · quests: {quests}")
        return line
    lines: list[RenderableType] = []
    if view.blood_rage.step == br.STEP_DRAFT_PICK or own.draft_pack:
        lines.append(_card_line("Your pack", own.draft_pack, catalog))
        if own.pending_picks:
            lines.append(_card_line("Picked this round", own.pending_picks, catalog))
    lines.append(_card_line("Your hand", own.hand, catalog))
    if own.HasField("kept_card"):
        lines.append(Text("Kept from the last Age: " + card_label(own.kept_card, catalog)))
    if own.committed_quests:
        lines.append(_card_line("Your quests", own.committed_quests, catalog))
    return Group(*lines)


# The open prompt (BloodRageView.prompt), by its kind: what a rule or card text asks.
_PROMPTS_BY_PROMPT_KIND = {
    "protect": "Frigga's Protection: pay 1 Rage to save one of these figures? {doomed}",
    "witch_retreat": "Volur Witch: retreat to Yggdrasil instead of being destroyed?",
    "tide_keep": "Odin's Tide: choose the one figure of yours in the battle that survives.",
    "late_card": "Cards are revealed: you may play a Heimdall card late.",
    "prowess": "Tyr's Prowess: keep one of your revealed cards for 1 Rage?",
    "move_leader": "Lord of Hammers: you may move your leader to an adjacent province.",
    "thors_domain": "Thor's Domain: pay 2 Rage to pillage {area} at once?",
    "succor": "Frigga's Succor: invade {area} with a free warrior too?",
    "blessing": "Loki's Blessing: invade {area} with a free warrior?",
    "sacrifice": "Frigga's Sacrifice: choose the second figure to destroy.",
    "free_invade": "Upgrade played: invade with your {unit} for free?",
    "quest_stat": "Quest fulfilled: choose the clan stat to raise.",
    "raise_stat": "Choose the clan stat to raise{excluded}.",
}


def _enum_name(enum: Any, value: int, prefix: str) -> str:
    try:
        return _enum_words(enum.Name(value), prefix)
    except ValueError:
        return "?"


def open_prompt_text(prompt: br.PromptView) -> str:
    """The open prompt in words, with what is at stake (figures, province, unit, stat)."""
    template = _PROMPTS_BY_PROMPT_KIND.get(prompt.kind)
    if template is None:
        return f"{_enum_words(prompt.kind.upper(), '')}: choose."
    doomed = ", ".join(
        f"{_enum_name(br.Unit, d.unit, 'UNIT_')} in {_enum_name(br.Area, d.area, 'AREA_')}"
        for d in prompt.doomed
    )
    excluded = ""
    if prompt.excluded_stat:
        excluded = f" (not {_enum_name(br.Stat, prompt.excluded_stat, 'STAT_')})"
    return template.format(
        doomed=f"At stake: {doomed}." if doomed else "",
        area=_enum_name(br.Area, prompt.area, "AREA_"),
        unit=_enum_name(br.Unit, prompt.unit, "UNIT_"),
        excluded=excluded,
    ).strip()


def _draft_text(view: gp.View) -> str | None:
    """The draft pick of a 2-player game says that a round takes two cards from each pack."""
    bv = view.blood_rage
    if bv.step != br.STEP_DRAFT_PICK or len(bv.clans) != 2 or len(bv.own.draft_pack) <= 2:
        return None
    which = "second" if len(bv.own.pending_picks) % 2 else "first"
    return (
        f"Gods' Gifts, 2 players: you pick two cards from this pack before it passes on; "
        f"pick the {which}."
    )


def prompt_text(view: gp.View) -> str:
    """What the awaited decision is about, in words (for the viewer's own decision)."""
    if view.blood_rage.HasField("prompt"):
        return open_prompt_text(view.blood_rage.prompt)
    draft = _draft_text(view)
    if draft is not None:
        return draft
    if view.legal_actions:
        kinds = [a.action.blood_rage.WhichOneof("kind") for a in view.legal_actions]
        for kind in kinds:
            if kind is not None and kind in _PROMPTS_BY_KIND and kind not in ("decline",):
                return _PROMPTS_BY_KIND[kind]
    return _PROMPTS_BY_STEP.get(view.blood_rage.step, "Choose.")


def _status(view: gp.View, *, compact: bool = False) -> Text:
    """Whose decision is awaited, and what it is about. Compact: one line (the ▶ marks of the
    clan table tell who else is awaited)."""
    names = _seat_names(view)
    bv = view.blood_rage
    if view.status == gp.GAME_STATUS_OPEN:
        free = [s for s in view.seats if not s.claimed]
        return Text(
            f"Waiting for players: {len(free)} seat(s) free "
            f"({', '.join(clan_name(s.seat) for s in free)}).",
            style="yellow",
        )
    if view.status != gp.GAME_STATUS_IN_PROGRESS:
        return Text(f"The game is {_STATUS.get(view.status, '?')}.", style="bold")
    me = view.viewer_seat if view.HasField("viewer_seat") else None
    committed = set(view.committed_seats)
    pending = [s for s in view.awaiting_seats if s not in committed]
    text = Text()
    step = _STEPS.get(bv.step, "a decision")
    if me is not None and view.legal_actions:
        text.append("YOUR DECISION", style="bold reverse yellow")
        text.append(" " + prompt_text(view), style="bold")
        others = [s for s in pending if s != me]
        if others and not compact:
            text.append("\nAlso awaited: " + ", ".join(_who(s, names) for s in others))
        return text
    if me is not None and me in committed:
        text.append("You have chosen. ", style="green")
    if pending and bv.HasField("prompt"):
        text.append(f"Waiting for {_who(bv.prompt.seat, names)}: {open_prompt_text(bv.prompt)}")
    elif pending:
        text.append(f"Waiting for {', '.join(_who(s, names) for s in pending)} ({step}).")
    else:
        text.append("Waiting…")
    if committed:
        text.append(
            " Already chosen: " + ", ".join(clan_name(s) for s in sorted(committed)), style="dim"
        )
    return text


def _viewer_clan(view: gp.View) -> br.ClanView | None:
    if not view.HasField("viewer_seat"):
        return None
    return next((c for c in view.blood_rage.clans if c.seat == view.viewer_seat), None)


def clan_stat(view: gp.View, stat: int) -> br.StatLevel | None:
    """The viewer's level of ``stat`` (None for a spectator)."""
    mine = _viewer_clan(view)
    if mine is None:
        return None
    return next((level for level in mine.stats if level.stat == stat), None)


def replaced_upgrade(view: gp.View, legal: gp.LegalAction, catalog: Catalog) -> str:
    """The name of the upgrade an upgrade action would replace ("" if its slot is free): as
    the server's details say, else found in the view."""
    details = legal.action.blood_rage.details
    if details.HasField("replaces"):
        return catalog.card_name(details.replaces.card_id)
    upgrade = legal.action.blood_rage.upgrade
    bv = view.blood_rage
    card = next((c for c in bv.own.hand if c.instance == upgrade.card), None)
    info = catalog.card(card.card_id) if card is not None else None
    if info is None or not view.HasField("viewer_seat"):
        return ""
    mine = _viewer_clan(view)
    for placed in mine.upgrades if mine is not None else ():
        if placed.slot == info.slot and placed.slot_index == upgrade.slot_index:
            return catalog.card_name(placed.card.card_id)
    return ""


# Decisions that place or move one figure: its STR there is added to the label.
_MOVES = frozenset(
    {"invade", "free_invade", "invade_from_valhalla", "march", "march_more", "call_to_battle"}
)

# Decisions on one card of the seat's own: the card's kind is added to the label.
_CARD_DECISIONS = frozenset({"draft_pick", "battle_card", "late_card", "keep_card", "quest"})


def action_labels(view: gp.View, catalog: Catalog, *, card_kinds: bool = False) -> list[str]:
    """The legal actions' labels, with what the server's label leaves to the reader: an upgrade
    that replaces a card in play names it, and passing says that the Rage left drops to 0.
    ``card_kinds`` adds what a card is to decisions on one (``pick Tyr's Smash [#35] +3``),
    for layouts that do not list the cards with their kinds."""
    mine = _viewer_clan(view)
    own = view.blood_rage.own
    cards = {c.instance: c for c in (*own.hand, *own.draft_pack, *own.pending_picks)}
    out = []
    for legal in view.legal_actions:
        label = legal.label or "?"
        kind = legal.action.blood_rage.WhichOneof("kind")
        if card_kinds and kind in _CARD_DECISIONS:
            card = cards.get(getattr(legal.action.blood_rage, kind).card)
            info = catalog.card(card.card_id) if card is not None else None
            hint = _card_kind(info)
            if kind in ("battle_card", "late_card") and info is not None:
                hint = f"+{info.strength}" if info.type == br.CARD_TYPE_BATTLE else "+0"
            if hint:
                label += f" ({hint})"
        if kind == "upgrade":
            replaced = replaced_upgrade(view, legal, catalog)
            if replaced:
                label = (
                    label[:-1] + f", replaces {replaced})"
                    if label.endswith(")")
                    else f"{label} (replaces {replaced})"
                )
        elif kind == "pass_turn" and mine is not None:
            label += f" (your Rage drops from {mine.rage} to 0)" if mine.rage else " (Rage 0)"
        details = legal.action.blood_rage.details
        costs = []
        if details.rage_cost and kind != "pass_turn":
            costs.append(f"{details.rage_cost} Rage")
        if details.strength and kind in _MOVES:
            costs.append(f"STR {details.strength}")
        if costs:
            label += f" [{', '.join(costs)}]"
        out.append(label)
    return out


def _actions(view: gp.View, catalog: Catalog, width: int) -> RenderableType | None:
    """The numbered legal actions in up to three columns (number n is legal_index n - 1)."""
    if not view.legal_actions:
        return None
    labels = [f"{i + 1:>2}. {label}" for i, label in enumerate(action_labels(view, catalog))]
    longest = max(len(label) for label in labels)
    columns = 1
    if len(labels) > 10:
        columns = max(1, min(3, (width + 2) // (longest + 3)))
        if columns == 1 and len(labels) > 16:
            columns = 2  # long labels fold, but the list stays on screen
    rows = -(-len(labels) // columns)
    grid = Table.grid(padding=(0, 3))
    for _ in range(columns):
        grid.add_column(overflow="fold")
    for r in range(rows):
        row = [
            Text(labels[c * rows + r]) if c * rows + r < len(labels) else Text()
            for c in range(columns)
        ]
        grid.add_row(*row)
    return grid


_ARROW = " -> "
_INSTANCE = re.compile(r" \[#\d+\]")


def action_lines(view: gp.View, catalog: Catalog, width: int) -> list[Text]:
    """The numbered legal actions packed into as few lines of ``width`` as reads well (the
    compact layout): actions whose labels share what comes before the arrow share a line,
    ``invade warrior → 1 Elvagar · 2 Gimle``; the others flow together, ``9 pillage Horgr ·
    10 pass``. A group that needs several lines repeats its start on each, so that any run of
    lines can be shown alone (a page)."""
    labels = action_labels(view, catalog, card_kinds=True)
    # Card instances ([#12]) only tell apart two copies of a card: dropped where a label is
    # unique without them.
    bare = [_INSTANCE.sub("", label) for label in labels]
    counts = Counter(bare)
    labels = [b if counts[b] == 1 else label for b, label in zip(bare, labels, strict=True)]
    groups: list[tuple[str, list[tuple[int, str]]]] = []
    for number, label in enumerate(labels, start=1):
        head, arrow, tail = label.partition(_ARROW)
        prefix = head if arrow else ""
        item = tail if arrow else label
        if groups and groups[-1][0] == prefix:
            groups[-1][1].append((number, item))
        else:
            groups.append((prefix, [(number, item)]))
    lines: list[Text] = []
    for prefix, items in groups:
        line = Text()
        for number, item in items:
            piece = Text()
            piece.append(str(number), style="bold cyan")
            piece.append(" " + item)
            start = Text(prefix + " → ", style="bold") if prefix else Text()
            if line and line.cell_len + 3 + piece.cell_len > width:
                lines.append(line)
                line = Text()
            if not line:
                line.append_text(start)
            else:
                line.append(" · ", style="dim")
            line.append_text(piece)
        lines.append(line)
    return lines


class ViewSections(NamedTuple):
    """The parts of a view on screen, top to bottom (None: nothing to show). ``render_view``
    stacks them all; ``clients.blood_rage.screen`` fits them into a terminal."""

    header: Text
    board: RenderableType
    clans: RenderableType
    upgrades: Text
    march: Text | None
    battle: RenderableType | None
    own: RenderableType | None
    status: RenderableType


def view_sections(
    view: gp.View, catalog: Catalog, *, width: int = 100, compact: bool = False
) -> ViewSections | None:
    """A Blood Rage view's parts, full or compact (None for another game's view)."""
    if view.WhichOneof("game") != "blood_rage":
        return None
    if view.status == gp.GAME_STATUS_FINISHED and view.HasField("result"):
        names = _seat_names(view)
        status: RenderableType = (
            result_line(view.result, names) if compact else render_result(view.result, names)
        )
    else:
        status = _status(view, compact=compact)
    return ViewSections(
        header=_header(view, width),
        board=_board(view, catalog, compact=compact),
        clans=_clans(view, catalog, compact=compact),
        upgrades=_upgrades(view, catalog),
        march=_march(view, catalog),
        battle=_battle_line(view, catalog) if compact else _battle(view, catalog),
        own=_own(view, catalog, compact=compact),
        status=status,
    )


def events_log(events: Sequence[str]) -> Text:
    return Text("\n".join(f"· {e}" for e in events), style="dim")


def render_view(
    view: gp.View,
    catalog: Catalog,
    *,
    events: Sequence[str] = (),
    notice: str | None = None,
    width: int = 100,
    summary: Sequence[RenderableType] = (),
) -> RenderableType:
    """Everything the viewer may see of a game: header, board, clans, march or battle, recent
    events, the viewer's own cards, whose decision is awaited and the numbered legal actions
    (numbered from 1; number n is legal_index n - 1). ``clients.blood_rage.screen.render_screen``
    fits the same into a terminal's height."""
    sections = view_sections(view, catalog, width=width)
    if sections is None:
        return Group(
            _header(view, width),
            Text("This client does not support this game kind.", style="red"),
        )
    parts: list[RenderableType] = [
        sections.header,
        sections.board,
        sections.clans,
        sections.upgrades,
    ]
    for extra in (sections.march, sections.battle):
        if extra is not None:
            parts.append(extra)
    parts.extend(summary)  # the battles, quests and Ragnarök since the viewer's last decision
    if events:
        parts.append(events_log(events))
    if sections.own is not None:
        parts.append(sections.own)
    parts.append(sections.status)
    actions = _actions(view, catalog, width)
    if actions is not None:
        parts.append(actions)
    if notice:
        parts.append(Text(notice, style="bold yellow"))
    return Group(*parts)


# ============================================================================================
# Results, lists, events
# ============================================================================================


def render_result(result: gp.GameResult, names: Mapping[int, str] | None = None) -> Table:
    """Final ranking: rank, clan, player, Glory, winner mark."""
    table = Table(title="Result", box=box.SIMPLE_HEAD, show_edge=False, title_justify="left")
    table.add_column("Rank", justify="right")
    table.add_column("Clan")
    table.add_column("Player")
    table.add_column("Glory", justify="right")
    table.add_column("")
    for s in sorted(result.seats, key=lambda s: (s.rank, s.seat)):
        name = s.name or (names or {}).get(s.seat, "")
        table.add_row(
            str(s.rank),
            _clan_text(s.seat),
            Text(name),
            str(s.score),
            Text("WINNER", style="bold green") if s.winner else "",
        )
    return table


def result_line(result: gp.GameResult, names: Mapping[int, str] | None = None) -> Text:
    """The ranking in a line or two: ``Result: 1. Wolf (ann) 25 Glory WINNER · 2. Bear 8``."""
    text = Text("Result: ", style="bold")
    for i, s in enumerate(sorted(result.seats, key=lambda s: (s.rank, s.seat))):
        if i:
            text.append(" · ")
        text.append(f"{s.rank}. ")
        text.append_text(_clan_text(s.seat))
        name = s.name or (names or {}).get(s.seat, "")
        if name:
            text.append(f" ({name})")
        text.append(f" {s.score} Glory", style="bold")
        if s.winner:
            text.append(" WINNER", style="bold green")
    return text


def _destroyed(items: Sequence[br.DestroyedFigure], catalog: Catalog) -> str:
    if not items:
        return ""
    return "; destroyed: " + ", ".join(
        f"{clan_name(d.seat)} {catalog.unit_name(d.unit)}" for d in items
    )


def _glory_reason(g: br.GloryChanged, catalog: Catalog) -> str:
    """Why Glory changed, in words: "won the battle in Andlang", "Thor's Hammer in Gimle"."""
    where = catalog.area_name(g.area) if g.area else ""
    if g.reason == br.GLORY_REASON_BATTLE:
        return f"won the battle in {where}" if where else "won a battle"
    if g.reason == br.GLORY_REASON_PILLAGE:
        return f"pillaged {where}" if where else "pillage"
    if g.reason == br.GLORY_REASON_QUEST and g.card_id:
        return f"quest {catalog.card_name(g.card_id)}"
    if g.reason == br.GLORY_REASON_RAGNAROK:
        return f"Ragnarök in {where}" if where else "Ragnarök"
    if g.reason == br.GLORY_REASON_END_GAME and g.stat:
        return f"{_STAT_NAMES.get(g.stat, '?')} at the end"
    if g.reason == br.GLORY_REASON_CARD and g.card_id:
        why = catalog.card_name(g.card_id) + (f" in {where}" if where else "")
        if g.HasField("other_seat"):
            why += f", {'from' if g.delta > 0 else 'by'} {clan_name(g.other_seat)}"
        return why
    known = _GLORY_REASONS.get(g.reason)
    if known is None:  # a reason newer than this client
        return _enum_name(br.GloryReason, g.reason, "GLORY_REASON_").lower()
    return known


def _stat_why(s: br.StatChanged, catalog: Catalog) -> str:
    """Why a clan stat rose, as the event says: a pillage reward, a quest, a card's text."""
    where = catalog.area_name(s.area) if s.area else ""
    if s.reason == br.STAT_REASON_PILLAGE:
        return f"pillage reward of {where}" if where else "pillage reward"
    if s.reason == br.STAT_REASON_QUEST:
        return "quest fulfilled, chosen"
    if s.reason == br.STAT_REASON_CARD:
        if s.card_id:
            return catalog.card_name(s.card_id) + (f" in {where}" if where else "")
        return "a card's text, chosen"
    if s.reason == br.STAT_REASON_UNSPECIFIED:
        return ""
    return _enum_name(br.StatReason, s.reason, "STAT_REASON_").lower()


def _br_event(
    event: br.BloodRageEvent,
    names: Mapping[int, str],
    catalog: Catalog,
    context: Sequence[gp.Event] = (),
) -> str:
    kind = event.WhichOneof("kind")
    if kind == "phase_started":
        e = event.phase_started
        return f"Age {e.age}: {_PHASES.get(e.phase, '?')} phase"
    if kind == "action_applied":
        a = event.action_applied
        late = " (time ran out)" if a.by_timeout else ""
        cost = a.action.details.rage_cost
        paid = f" (-{cost} Rage)" if cost and a.action.WhichOneof("kind") != "pass_turn" else ""
        return f"{clan_name(a.seat)}: {a.label or 'decided'}{paid}{late}"
    if kind == "battle_revealed":
        shown = event.battle_revealed
        cards = ", ".join(
            f"{clan_name(c.seat)} {catalog.card_name(c.card.card_id)}" for c in shown.cards
        )
        return f"Cards revealed in {catalog.area_name(shown.province)}: {cards or 'none'}"
    if kind == "battle_resolved":
        r = event.battle_resolved
        totals = ", ".join(f"{clan_name(t.seat)} {t.strength}" for t in r.totals)
        winner = f"{clan_name(r.winner)} wins" if r.HasField("winner") else "nobody wins"
        return f"Battle in {catalog.area_name(r.province)}: {totals} → {winner}" + _destroyed(
            r.destroyed, catalog
        )
    if kind == "pillage_result":
        p = event.pillage_result
        outcome = f"succeeds ({_REWARDS.get(p.reward, '?')})" if p.success else "fails"
        return f"{clan_name(p.pillager)} pillages {catalog.area_name(p.province)}: {outcome}"
    if kind == "quest_results":
        quests = ", ".join(
            f"{clan_name(q.seat)} {catalog.card_name(q.card.card_id)} "
            + (f"✓ +{q.glory}" if q.fulfilled else "✗")
            for q in event.quest_results.quests
        )
        return f"Quests: {quests or 'none'}"
    if kind == "ragnarok":
        rag = event.ragnarok
        return f"Ragnarök destroys {catalog.area_name(rag.province)}" + _destroyed(
            rag.destroyed, catalog
        )
    if kind == "glory_changed":
        g = event.glory_changed
        why = _glory_reason(g, catalog)
        why = f" ({why})" if why else ""
        return f"{clan_name(g.seat)} {g.delta:+d} Glory{why} → {g.glory}"
    if kind == "stat_changed":
        s = event.stat_changed
        why = _stat_why(s, catalog)
        why = f" ({why})" if why else ""
        stat = _STAT_NAMES.get(s.level.stat, "?")
        if s.previous_step:  # the step, not the value, is what the end-game bonus counts
            step = f"step {s.previous_step}→{s.level.step}: {s.level.value}"
        else:
            step = f"→ {s.level.value}"
        return f"{clan_name(s.seat)} {stat} {step}{why}"
    if kind == "rage_changed":
        rage = event.rage_changed
        why = catalog.card_name(rage.card_id) if rage.card_id else "a card"
        if rage.HasField("other_seat"):
            why += f", {'from' if rage.delta > 0 else 'by'} {clan_name(rage.other_seat)}"
        return f"{clan_name(rage.seat)} {rage.delta:+d} Rage ({why}) → {rage.rage} left"
    if kind == "pillage_started":
        started = event.pillage_started
        return f"{clan_name(started.pillager)} pillages {catalog.area_name(started.province)}"
    if kind == "pillage_reward_taken":
        taken = event.pillage_reward_taken
        if taken.times <= 1:
            return ""  # the PillageResult before it said it all
        return (
            f"{clan_name(taken.seat)} takes the reward of {catalog.area_name(taken.province)} "
            f"{taken.times} times"
        )
    if kind == "draft_round_ended":
        ended = event.draft_round_ended
        if ended.packs_passed:
            return f"Draft round {ended.round} done: the packs pass to the left"
        return f"Draft round {ended.round} done: the cards left are discarded unseen"
    if kind == "late_card_played":
        late_card = event.late_card_played
        name = catalog.card_name(late_card.card.card_id)
        return f"{clan_name(late_card.seat)} plays {name} after the reveal"
    if kind == "figure_retreated":
        fled = event.figure_retreated
        return (
            f"{clan_name(fled.seat)} {catalog.unit_name(fled.unit)} retreats from "
            f"{catalog.area_name(fled.from_area)} to {catalog.area_name(fled.to_area)}"
        )
    if kind == "figure_saved":
        saved = event.figure_saved
        card = f" ({catalog.card_name(saved.card_id)})" if saved.card_id else ""
        return (
            f"{clan_name(saved.seat)} saves its {catalog.unit_name(saved.unit)} in "
            f"{catalog.area_name(saved.area)}{card}"
        )
    if kind == "battle_cards_discarded":
        gone = event.battle_cards_discarded
        return (
            f"{catalog.card_name(gone.card_id) if gone.card_id else 'A card'}: every card "
            f"revealed in {catalog.area_name(gone.province)} is discarded "
            f"({clan_name(gone.seat)} +{gone.glory} Glory); new cards are chosen"
        )
    if kind == "figures_destroyed":
        f = event.figures_destroyed
        cause = _CAUSES.get(f.cause, f.cause or "an effect")
        why = catalog.card_name(f.card_id) if f.card_id else cause
        return f"Destroyed ({why})" + _destroyed(f.destroyed, catalog).replace("; destroyed", "")
    if kind == "valhalla_released":
        return "Valhalla released its figures"
    if kind == "end_game_scoring":
        bonus = ", ".join(
            f"{clan_name(b.seat)} +{b.stat_bonus + b.card_bonus}"
            for b in event.end_game_scoring.bonuses
        )
        return f"End-game bonuses: {bonus}"
    return "(an event this client does not know)"


def describe_event(
    event: gp.Event,
    names: Mapping[int, str] | None = None,
    catalog: Catalog | None = None,
    context: Sequence[gp.Event] = (),
) -> str:
    """One line for one event, e.g. ``Raven: invade warrior -> Elvagar``. ``context``: the
    events of the same decision before it (they tell why a stat rose)."""
    names = names or {}
    catalog = catalog or Catalog()
    kind = event.WhichOneof("payload")
    if kind == "seat_claimed":
        e = event.seat_claimed
        return f"{e.name or 'a player'} took seat {e.seat} ({clan_name(e.seat)})"
    if kind == "status_changed":
        return f"The game is now {_STATUS.get(event.status_changed.status, '?')}"
    if kind == "timed_out":
        return f"{clan_name(event.timed_out.seat)} ran out of time"
    if kind == "game_ended":
        winners = ", ".join(_who(s, names) for s in event.game_ended.result.winners)
        return f"Game over. Winner(s): {winners or 'none'}"
    if kind == "game_aborted":
        return f"The game was aborted ({event.game_aborted.reason or 'no reason given'})"
    if kind == "blood_rage":
        return _br_event(event.blood_rage, names, catalog, context)
    return "(an event this client does not know)"


# ============================================================================================
# Text output
# ============================================================================================


def to_text(renderable: RenderableType, width: int = 100) -> str:
    """Render to plain text (no colours, no control codes)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        color_system=None,
        force_terminal=False,
        legacy_windows=False,
        emoji=False,
        highlight=False,
    )
    console.print(renderable)
    return buffer.getvalue()


def view_text(
    view: gp.View, catalog: Catalog | None = None, *, width: int = 100, events: Sequence[str] = ()
) -> str:
    """``render_view`` as plain text."""
    return to_text(render_view(view, catalog or Catalog(), events=events, width=width), width)
