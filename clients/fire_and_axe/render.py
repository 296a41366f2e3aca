"""Fire & Axe in the terminal: pure functions from messages to rich renderables.

Every function takes protobuf messages (a ``View``, events, results) and the packs of
``GetCatalog`` (:class:`~clients.fire_and_axe.names.Catalog`) and returns renderables or plain
strings; nothing reads the network or the clock. Only what the view carries is shown: a seat's
own Runes, never another's (their number only).

A view is drawn in parts (:class:`Sections`): the header (the pack, and plainly when it is the
demo pack: invented, not the published game), the tracks (Days, the Wind Dial's Fair Weather
Days, the Goods in Demand), the board (every port by Weather Zone with its value, town, goods
token, Settlement and ship; Homelands and water spaces where ships are), the seats (ship,
crew, cargo, VP, Runes, towns, Settlements, Sagas), the Sagas, what is under way (an attack,
weather losses, a Rune window, the Final Rounds), the viewer's Runes and the decision.
``clients.fire_and_axe.screen`` fits them into a terminal.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from clients.fire_and_axe.names import (
    AGES,
    GOOD_SHORT,
    GOODS,
    HOMELANDS,
    ITEMS,
    SAGA_TYPES,
    ZONES,
    Catalog,
    Names,
    seat_name,
    seat_style,
)
from yggdrasil.v1 import fire_and_axe_pb2 as fa
from yggdrasil.v1 import game_pb2 as gp

__all__ = [
    "MARK_AWAITED",
    "Sections",
    "action_labels",
    "action_lines",
    "card_details",
    "describe_event",
    "render_result",
    "render_view",
    "to_text",
    "view_sections",
    "view_text",
]

MARK_AWAITED = "▶"
DEMO_NOTE = "DEMO PACK: invented board and cards, NOT the published game"
DEMO_SHORT = "DEMO PACK: invented, NOT the published game"
_WATER = fa.FIRE_AND_AXE_LOCATION_KIND_WATER
_PORT = fa.FIRE_AND_AXE_LOCATION_KIND_PORT
_HOMELAND = fa.FIRE_AND_AXE_LOCATION_KIND_HOMELAND
_STEPS = {
    fa.FIRE_AND_AXE_STEP_MAIN: "Actions (1 Day each), Tasks, Runes, or end the turn",
    fa.FIRE_AND_AXE_STEP_LOSSES: "the weather: choose the items lost",
    fa.FIRE_AND_AXE_STEP_RAID_AGAIN: "the Raid roll failed: roll again or stop",
    fa.FIRE_AND_AXE_STEP_SETTLE_CONVERT: "the Settle succeeded: settle the last crewmember?",
    fa.FIRE_AND_AXE_STEP_WINDOW: "a Rune window: play or discard a Rune, or pass",
    fa.FIRE_AND_AXE_STEP_GAME_OVER: "the game is over",
}
_ENDS = {
    fa.FIRE_AND_AXE_END_REASON_FINAL_ROUNDS: "the Final Rounds are over",
    fa.FIRE_AND_AXE_END_REASON_SAGAS_DONE: "the Saga spaces are empty",
    fa.FIRE_AND_AXE_END_REASON_ALL_OUT: "every player built all their Settlements",
}
_DIAL = {0: "", 1: "dial ↻", 2: "dial ↺"}


def _names(view: gp.View, catalog: Catalog) -> Names:
    digest = view.fire_and_axe.pack.digest
    catalog.use(digest)
    return catalog.names(digest)


def _seat_names(view: gp.View) -> dict[int, str]:
    return {s.seat: s.name for s in view.seats if s.name}


def _who(seat: int, names: Mapping[int, str] | None = None) -> str:
    name = (names or {}).get(seat)
    return f"{seat_name(seat)} ({name})" if name else seat_name(seat)


def _seat_text(seat: int, suffix: str = "") -> Text:
    return Text(seat_name(seat) + suffix, style=seat_style(seat))


def _fwd(view: gp.View, zone: int) -> int:
    days = view.fire_and_axe.dial.fair_weather_days
    return days[zone - 1] if 0 < zone <= len(days) else 0


def _goods_list(counts: Sequence[int]) -> str:
    parts = [f"{n} {GOODS[g + 1]}" for g, n in enumerate(counts[:3]) if n]
    return ", ".join(parts) or "nothing"


# ============================================================================================
# The parts of a view
# ============================================================================================


def _header(view: gp.View, *, compact: bool) -> Text:
    g = view.fire_and_axe
    out = Text()
    out.append("Fire & Axe", style="bold")
    out.append(f" · Age {AGES.get(g.age, g.age)} · turn {g.turns}")
    if not compact and view.game_id:
        out.append(f" · game {view.game_id}")
    if g.pack.demo:
        out.append(" · ")
        out.append(DEMO_SHORT if compact else DEMO_NOTE, style="bold yellow")
    else:
        out.append(f" · pack {g.pack.name or g.pack.id}")
    return out


def _tracks(view: gp.View, *, compact: bool) -> Text:
    g = view.fire_and_axe
    out = Text("Days ")
    out.append("▰" * g.days.preparation, style="yellow")
    out.append("▰" * g.days.sailing, style="cyan")
    out.append("▱" * max(0, g.days.left))
    out.append(f" P{g.days.preparation} S{g.days.sailing}")
    out.append(" │ Wind ")
    for zone in (1, 2, 3, 4):
        mark = "▲" if g.dial.blue == zone else "▼" if g.dial.red == zone else ""
        style = "green" if mark == "▲" else "red" if mark == "▼" else ""
        out.append(f"{ZONES[zone][0]}{_fwd(view, zone)}{mark}", style=style)
        out.append(" " if zone < 4 else "")
    out.append(" │ Demand ")
    out.append(GOODS.get(g.demand, "?"), style="bold")
    if not compact:
        supply = " ".join(f"{GOOD_SHORT[i + 1]}{n}" for i, n in enumerate(g.supply))
        out.append(f" │ Supply {supply}")
        out.append(f" │ Slots {g.capacity}")
    out.append(f" │ Runes {g.runes.deck}")
    return out


def _ships_at(view: gp.View) -> dict[int, list[int]]:
    at: dict[int, list[int]] = {}
    for s in view.fire_and_axe.seats:
        if s.HasField("location"):
            at.setdefault(s.location, []).append(s.seat)
    return at


def _saga_ports(view: gp.View, names: Names) -> set[int]:
    ports: set[int] = set()
    for space in view.fire_and_axe.sagas.spaces:
        if space.HasField("saga"):
            card = names.saga(space.saga)
            if card is not None:
                ports.update(card.ports)
    return ports


def _port_entry(
    port: fa.FireAndAxePortView,
    names: Names,
    ships: Mapping[int, list[int]],
    wanted: set[int],
    *,
    compact: bool,
) -> Text:
    loc = names.location(port.port)
    out = Text()
    out.append(names.short(port.port) if compact else names.place(port.port) + " ")
    if loc is not None:
        out.append(str(loc.value), style="bold")
    if port.town == fa.FIRE_AND_AXE_TOWN_SIZE_SMALL:
        out.append("t", style="bold red")
    elif port.town == fa.FIRE_AND_AXE_TOWN_SIZE_LARGE:
        out.append("T", style="bold red")
    if port.goods:
        out.append("+" + GOOD_SHORT.get(port.goods, "?").lower(), style="cyan")
    if port.HasField("settler"):
        out.append("⌂" + seat_name(port.settler)[0], style=seat_style(port.settler))
    for seat in ships.get(port.port, []):
        out.append("@" + seat_name(seat)[0], style=seat_style(seat))
    if port.port in wanted:
        out.append("*", style="magenta")
    return out


def _board(view: gp.View, names: Names, *, compact: bool) -> RenderableType:
    """Every port by Weather Zone; Homelands, and water spaces only where ships are."""
    g = view.fire_and_axe
    ships = _ships_at(view)
    wanted = _saga_ports(view, names)
    by_zone: dict[int, list[Text]] = {z: [] for z in ZONES}
    port_views = {p.port: p for p in g.ports}
    places: list[int] = []
    if names.pack is not None:
        places = [loc.index for loc in names.pack.locations]
    else:
        places = sorted(set(port_views) | set(ships))
    for index in places:
        loc = names.location(index)
        zone = loc.zone if loc is not None else 0
        kind = loc.kind if loc is not None else _PORT
        if index in port_views:
            entry = _port_entry(port_views[index], names, ships, wanted, compact=compact)
        elif kind == _HOMELAND or (index in ships):
            entry = Text(names.short(index) if compact else names.place(index))
            entry.append("~" if kind == _WATER else "", style="blue")
            for seat in ships.get(index, []):
                entry.append("@" + seat_name(seat)[0], style=seat_style(seat))
            if kind == _HOMELAND:
                entry.stylize("italic")
        else:
            continue
        by_zone.setdefault(zone, []).append(entry)
    lines: list[Text] = []
    for zone, entries in by_zone.items():
        if not entries:
            continue
        line = Text(f"{ZONES.get(zone, '?')[0]}│", style="bold")
        for i, entry in enumerate(entries):
            if i:
                line.append(" " if compact else " · ", style="dim")
            line.append_text(entry)
        lines.append(line)
    if not compact and names.pack is not None:
        lines.append(_regions(names))
    return Group(*lines)


def _regions(names: Names) -> Text:
    """The regions (3 ports each, F2.5): Trade and Settle look at a port's region mates."""
    assert names.pack is not None
    regions: dict[str, list[str]] = {}
    for loc in names.pack.locations:
        if loc.kind == _PORT and loc.region:
            regions.setdefault(loc.region, []).append(loc.name)
    out = Text("Regions ", style="bold")
    for i, (region, ports) in enumerate(sorted(regions.items())):
        if i:
            out.append(" · ", style="dim")
        out.append(f"{region}: {', '.join(ports)}")
    return out


def _where(seat: fa.FireAndAxeSeatView, names: Names, *, compact: bool) -> str:
    if not seat.HasField("location"):
        return "Wintering" if compact else "Wintering Zone"
    return names.short(seat.location) if compact else names.place(seat.location)


def _seats(view: gp.View, names: Names, *, compact: bool) -> Table:
    g = view.fire_and_axe
    table = Table(box=None, pad_edge=False, padding=(0, 1), show_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("Seat", no_wrap=True)
    table.add_column("Ship at", no_wrap=True)
    table.add_column("Crew", justify="right")
    table.add_column("Tu/Fi/Fu", no_wrap=True)
    table.add_column("VP", justify="right")
    table.add_column("Runes", justify="right")
    table.add_column("Towns", justify="right")
    table.add_column("Settl", justify="right")
    table.add_column("Sagas", no_wrap=True)
    awaited = set(view.awaiting_seats)
    viewer = view.viewer_seat if view.HasField("viewer_seat") else -1
    for s in g.seats:
        mark = MARK_AWAITED if s.seat in awaited else ""
        suffix = ("*" if s.seat == viewer else "") + ("¹" if s.seat == g.first_player else "")
        sagas = [names.saga(i) for i in s.sagas]
        by_home = {h: 0 for h in HOMELANDS}
        for card in sagas:
            if card is not None and card.homeland in by_home:
                by_home[card.homeland] += 1
        saga_text = (
            "/".join(str(by_home[h]) for h in HOMELANDS) if s.sagas else "-"
        )
        where = _where(s, names, compact=compact) + (" OUT" if s.out else "")
        table.add_row(
            mark,
            _seat_text(s.seat, suffix),
            where,
            str(s.crew),
            "/".join(str(n) for n in s.goods[:3]),
            str(s.vp),
            str(s.hand_count),
            str(len(s.towns)),
            str(s.settlements),
            saga_text,
        )
    return table


def _saga_text(
    card: fa.FireAndAxeSaga | None, index: int, view: gp.View, names: Names, *, compact: bool
) -> Text:
    if card is None:
        return Text(f"Saga #{index}")
    g = view.fire_and_axe
    ports = {p.port: p for p in g.ports}
    out = Text(f"{AGES.get(card.age, card.age)} ")
    home = HOMELANDS.get(card.homeland, "?")
    out.append(home[:3] if compact else home, style="bold")
    kind = SAGA_TYPES.get(card.type, "?")
    out.append(f" {kind} ")
    for i, port in enumerate(card.ports):
        p = ports.get(port)
        done = p is not None and (
            (kind == "trade" and p.goods != 0)
            or (kind == "raid" and p.town == fa.FIRE_AND_AXE_TOWN_SIZE_UNSPECIFIED)
            or (kind == "settle" and p.HasField("settler"))
        )
        name = names.short(port) if compact else names.place(port)
        gap = "" if not i else " " if compact else ", "
        out.append(gap + name, style="green" if done else "")
        if done:
            out.append("✓", style="green")
    if card.bonus_vp:
        out.append(f" +{card.bonus_vp}VP", style="bold")
    if not compact:
        out.append(f" ({card.name})", style="dim")
    return out


def _sagas(view: gp.View, names: Names, *, compact: bool) -> Text:
    g = view.fire_and_axe
    out = Text("Sagas ", style="bold")
    shown = 0
    for space in g.sagas.spaces:
        if not space.HasField("saga"):
            continue
        if shown:
            out.append(" │ " if compact else "\n      ", style="dim")
        card = names.saga(space.saga)
        out.append_text(_saga_text(card, space.saga, view, names, compact=compact))
        shown += 1
    if not shown:
        out.append("none face up")
    ages = "/".join(str(n) for n in g.sagas.deck_by_age)
    deck = f" │ deck {g.sagas.deck}" if compact else f"\n      deck {g.sagas.deck}"
    out.append(deck, style="dim")
    if not compact:
        out.append(f" (I/II/III {ages}), {g.sagas.removed} removed unseen", style="dim")
        if g.sagas.discarded:
            out.append(f", {len(g.sagas.discarded)} discarded", style="dim")
    return out


def _situation(view: gp.View, names: Names) -> Text | None:
    """What is under way: an attack, weather losses, a Rune window, the Final Rounds."""
    g = view.fire_and_axe
    parts: list[Text] = []
    if g.HasField("attack"):
        a = g.attack
        parts.append(
            Text(
                f"Raid at {names.place(a.port)}: {a.rolls} roll(s) made"
                + (f", +{a.bonus} to the dice" if a.bonus else ""),
                style="bold red",
            )
        )
    elif g.attack_bonus:
        parts.append(Text(f"+{g.attack_bonus} to the next attack's dice"))
    if g.losses.pending:
        parts.append(
            Text(f"Weather: {g.losses.pending} item(s) to lose now", style="bold red")
        )
    chart = [f"{n} {ITEMS[i + 1]}" for i, n in enumerate(g.losses.chart[:4]) if n]
    if chart:
        parts.append(Text("Losses chart: " + ", ".join(chart)))
    if g.losses.covered:
        parts.append(Text("skulls covered " + " ".join(str(s) for s in g.losses.covered)))
    if g.calm:
        parts.append(Text("calm: the next Sail has no weather check"))
    if g.window_seats:
        who = ", ".join(seat_name(s) for s in g.window_seats)
        parts.append(Text(f"Rune window: {who}"))
    if g.final_markers.revealed:
        holder = seat_name(g.final_markers.holder) if g.final_markers.HasField("holder") else "?"
        parts.append(
            Text(f"Final Rounds: {holder} placed {g.final_markers.placed}/3", style="bold magenta")
        )
    if g.tasks_done:
        parts.append(Text("Tasks done: " + ", ".join(names.short(p) for p in g.tasks_done)))
    if not parts:
        return None
    out = Text()
    for i, part in enumerate(parts):
        if i:
            out.append(" · ", style="dim")
        out.append_text(part)
    return out


def _own(view: gp.View, names: Names) -> Text | None:
    g = view.fire_and_axe
    if not g.HasField("own"):
        return None
    out = Text("Your Runes: ", style="bold")
    if not g.own.hand:
        out.append("none")
    for i, rune in enumerate(g.own.hand):
        if i:
            out.append(" · ", style="dim")
        out.append(names.rune(rune))
    return out


def _status(view: gp.View) -> Text:
    g = view.fire_and_axe
    step = _STEPS.get(g.step, "")
    if view.status == gp.GAME_STATUS_ABORTED:
        return Text("The game was aborted.", style="bold red")
    if view.legal_actions:
        out = Text("YOUR DECISION", style="bold reverse")
        out.append(f" {step}")
        return out
    if view.awaiting_seats:
        who = ", ".join(seat_name(s) for s in view.awaiting_seats)
        turn = f"{seat_name(g.turn_seat)}'s turn" if g.turn_seat not in view.awaiting_seats else ""
        return Text(f"Waiting for {who}" + (f" ({turn})" if turn else "") + f": {step}")
    return Text(step)


class Sections(NamedTuple):
    """The parts of a view on screen, top to bottom (None: nothing to show)."""

    header: Text
    tracks: Text
    board: RenderableType
    seats: Table
    sagas: Text
    situation: Text | None
    own: Text | None
    status: RenderableType


def view_sections(view: gp.View, catalog: Catalog, *, compact: bool = False) -> Sections | None:
    """A Fire & Axe view's parts, full or compact (None for another game's view)."""
    if view.WhichOneof("game") != "fire_and_axe":
        return None
    names = _names(view, catalog)
    if view.status == gp.GAME_STATUS_FINISHED and view.HasField("result"):
        status: RenderableType = render_result(view.result, _seat_names(view))
    else:
        status = _status(view)
    return Sections(
        header=_header(view, compact=compact),
        tracks=_tracks(view, compact=compact),
        board=_board(view, names, compact=compact),
        seats=_seats(view, names, compact=compact),
        sagas=_sagas(view, names, compact=compact),
        situation=_situation(view, names),
        own=_own(view, names),
        status=status,
    )


# ============================================================================================
# Actions
# ============================================================================================


def _sail_risk(view: gp.View, names: Names, dest: int) -> str:
    """What the weather would take after this Sail (F6.3-F6.4): ``☠2`` for two items."""
    g = view.fire_and_axe
    loc = names.location(dest)
    if loc is None or g.calm:
        return ""
    excess = g.days.sailing + 1 - _fwd(view, loc.zone)
    if excess <= 0:
        return ""
    covered = set(g.losses.covered)
    skulls = [s for s in g.losses.skulls if s <= excess and s not in covered]
    return f" ☠{len(skulls)}" if skulls else ""


def _choice_text(names: Names, rune: int, choice: int) -> str:
    kind = names.choice_kind(rune)
    if kind in ("change_demand", "gain_goods"):
        return GOODS.get(choice + 1, f"choice {choice}")
    if kind == "turn_dial":
        return {1: "clockwise", 2: "counter-clockwise"}.get(choice, f"choice {choice}")
    if kind == "opponent_loses_crew":
        return seat_name(choice)
    if kind == "opponent_loses_goods":
        return f"{seat_name(choice // 4)}'s {GOODS.get(choice % 4 + 1, '?')}"
    return ""


def _label(view: gp.View, names: Names, action: gp.Action) -> tuple[str, str]:
    """(group, item): actions of one group share a line, ``sail → 3 Kiev · 4 Black Sea``."""
    a = action.fire_and_axe
    kind = a.WhichOneof("kind")
    g = view.fire_and_axe
    if kind == "load_crew":
        return "load", "crew"
    if kind == "load_goods":
        return "load", GOODS.get(a.load_goods.good, "?")
    if kind == "leave_wintering":
        return "leave for", names.place(a.leave_wintering.homeland)
    if kind == "draw_rune":
        return "", "draw a Rune"
    if kind == "sail":
        to = a.sail.to
        return "sail", names.place(to) + _sail_risk(view, names, to)
    if kind == "trade":
        good = a.trade.good
        loc = names.location(_own_location(view))
        value = loc.value if loc is not None else 0
        bonus = " +2" if good == g.demand else ""
        return "trade", f"{GOODS.get(good, '?')} ({value}{bonus} VP)"
    if kind == "raid":
        return "", f"raid {names.place(_own_location(view))}"
    if kind == "raid_again":
        return "", "roll again"
    if kind == "raid_stop":
        return "", "stop raiding"
    if kind == "settle":
        return "settle", f"{a.settle.dice} dice"
    if kind == "convert":
        return "", "settle the last crewmember"
    if kind == "decline":
        return "", "keep the last crewmember aboard"
    if kind == "lose":
        return "lose", ITEMS.get(a.lose.item, "?")
    if kind == "play_rune":
        p = a.play_rune
        parts = [x for x in (_choice_text(names, p.rune, p.choice), _DIAL.get(p.dial, "")) if x]
        return f"play {names.rune(p.rune)}", " ".join(parts) or "as is"
    if kind == "discard_rune":
        d = a.discard_rune
        return f"discard {names.rune(d.rune)}", _DIAL.get(d.dial, "") or "as is"
    if kind == "winter":
        return "", "return to the Wintering Zone (ends the turn)"
    if kind == "end_turn":
        return "", "end the turn"
    if kind == "pass_window":
        return "", "pass"
    return "", "?"


def _own_location(view: gp.View) -> int:
    if not view.HasField("viewer_seat"):
        return -1
    for s in view.fire_and_axe.seats:
        if s.seat == view.viewer_seat and s.HasField("location"):
            return s.location
    return -1


def action_labels(view: gp.View, catalog: Catalog) -> list[str]:
    """One label per legal action, in order (number n is legal_index n - 1)."""
    names = _names(view, catalog)
    out = []
    for legal in view.legal_actions:
        if legal.action.WhichOneof("game") != "fire_and_axe":
            out.append(legal.label)
            continue
        group, item = _label(view, names, legal.action)
        out.append(f"{group} {item}" if group else item)
    return out


def action_lines(view: gp.View, catalog: Catalog, width: int) -> list[Text]:
    """The numbered legal actions packed into lines of ``width``: actions of one group share a
    line (``sail → 3 Kiev · 4 Black Sea ☠1``), the others flow together (``9 raid Rome · 10 end
    the turn``). A group that needs several lines repeats its start on each, so any run of
    lines can be shown alone (a page). Numbers are styled ``bold cyan``."""
    names = _names(view, catalog)
    groups: list[tuple[str, list[tuple[int, str]]]] = []
    for number, legal in enumerate(view.legal_actions, start=1):
        if legal.action.WhichOneof("game") == "fire_and_axe":
            group, item = _label(view, names, legal.action)
        else:
            group, item = "", legal.label
        if groups and groups[-1][0] == group:
            groups[-1][1].append((number, item))
        else:
            groups.append((group, [(number, item)]))
    lines: list[Text] = []
    line = Text()
    for group, items in groups:
        if group or (line and not _loose(line)):
            if line:
                lines.append(line)
            line = Text()
        for number, item in items:
            piece = Text()
            piece.append(str(number), style="bold cyan")
            piece.append(" " + item)
            if line and line.cell_len + 3 + piece.cell_len > width:
                lines.append(line)
                line = Text()
            if not line:
                if group:
                    line.append(group + " → ", style="bold")
            else:
                line.append(" · ", style="dim")
            line.append_text(piece)
        if group:
            lines.append(line)
            line = Text()
    if line:
        lines.append(line)
    return lines


def _loose(line: Text) -> bool:
    """A line of ungrouped actions (no ``→``), which more ungrouped ones may join."""
    return "→" not in line.plain


def _actions(view: gp.View, catalog: Catalog, width: int) -> RenderableType | None:
    if not view.legal_actions:
        return None
    return Group(*action_lines(view, catalog, width))


# ============================================================================================
# Whole views
# ============================================================================================


def render_view(
    view: gp.View,
    catalog: Catalog,
    *,
    events: Sequence[str] = (),
    notice: str | None = None,
    width: int = 100,
) -> RenderableType:
    """Everything the viewer may see of a game, top to bottom, with the numbered legal
    actions (number n is legal_index n - 1)."""
    sections = view_sections(view, catalog)
    if sections is None:
        return Text("This client does not support this game kind.", style="red")
    parts: list[RenderableType] = [
        sections.header,
        sections.tracks,
        sections.board,
        sections.seats,
        sections.sagas,
    ]
    if sections.situation is not None:
        parts.append(sections.situation)
    if events:
        parts.append(Text("\n".join(f"· {e}" for e in events), style="dim"))
    if sections.own is not None:
        parts.append(sections.own)
    parts.append(sections.status)
    actions = _actions(view, catalog, width)
    if actions is not None:
        parts.append(actions)
    if notice:
        parts.append(Text(notice, style="bold yellow"))
    return Group(*parts)


def card_details(view: gp.View, catalog: Catalog) -> RenderableType | None:
    """The texts of the viewer's Runes (the ``c`` key), or None if it holds none."""
    g = view.fire_and_axe
    if not g.HasField("own") or not g.own.hand:
        return None
    names = _names(view, catalog)
    table = Table(title="Your Runes", box=box.SIMPLE_HEAD, show_edge=False, title_justify="left")
    table.add_column("Rune", style="bold", no_wrap=True)
    table.add_column("When / where", no_wrap=True)
    table.add_column("Text")
    for rune in g.own.hand:
        card = names.rune_card(rune)
        if card is None:
            table.add_row(names.rune(rune), "", "")
            continue
        when = "any time" if card.when == "any" else "own turn"
        conflict = " ⚔" if card.conflict else ""
        table.add_row(card.name + conflict, f"{when}, {card.where}", card.text)
    if g.pack.demo:
        table.caption = "Demo pack: invented cards (only Change of Demand is the rulebook's)."
    return table


def render_result(result: gp.GameResult, names: Mapping[int, str] | None = None) -> Table:
    """The final ranking: rank, seat, player, VP, towns, Settlements, Sagas, winner."""
    tallies = {t.seat: t for t in result.fire_and_axe.seats}
    why = _ENDS.get(result.fire_and_axe.end_reason, "")
    table = Table(
        title="Result" + (f" ({why})" if why else ""),
        box=box.SIMPLE_HEAD,
        show_edge=False,
        title_justify="left",
    )
    for column in ("Rank", "Seat", "Player", "VP", "Towns", "Settl", "Sagas D/N/S", ""):
        table.add_column(column, justify="right" if column in ("Rank", "VP") else "left")
    seat_names = dict(names or {})
    seat_names.update({s.seat: s.name for s in result.seats if s.name})
    for s in sorted(result.seats, key=lambda s: (s.rank, s.seat)):
        tally = tallies.get(s.seat)
        table.add_row(
            str(s.rank),
            _seat_text(s.seat),
            seat_names.get(s.seat, ""),
            str(s.score),
            str(tally.towns) if tally else "",
            str(tally.settlements) if tally else "",
            "/".join(str(n) for n in tally.sagas_by_homeland) if tally else "",
            "WINNER" if s.winner else "",
        )
    return table


# ============================================================================================
# Events
# ============================================================================================

_TURN_END = {
    fa.FireAndAxeEvent.TURN_END_HOW_DECLARED: "ended the turn",
    fa.FireAndAxeEvent.TURN_END_HOW_LAST_CREW: "lost the last crewmember: turn over",
    fa.FireAndAxeEvent.TURN_END_HOW_VOLUNTARY: "returned to the Wintering Zone: turn over",
}
_SHIP_LOST = {
    fa.FireAndAxeEvent.SHIP_LOST_CAUSE_WEATHER: "to the weather",
    fa.FireAndAxeEvent.SHIP_LOST_CAUSE_RAID: "in a Raid",
    fa.FireAndAxeEvent.SHIP_LOST_CAUSE_SETTLE: "in a Settle",
    fa.FireAndAxeEvent.SHIP_LOST_CAUSE_SETTLED: "to a Settlement",
}
_ITEM_LOST = {
    fa.FireAndAxeEvent.ITEM_LOST_CAUSE_WEATHER: "to the weather (Losses chart)",
    fa.FireAndAxeEvent.ITEM_LOST_CAUSE_RAID: "on a failed Raid die",
    fa.FireAndAxeEvent.ITEM_LOST_CAUSE_SETTLE: "on a failed Settle die",
}
_DIAL_CAUSE = {
    fa.FireAndAxeEvent.DIAL_CAUSE_RUNE_PLAYED: "with a Rune played",
    fa.FireAndAxeEvent.DIAL_CAUSE_RUNE_DISCARDED: "with a Rune discarded",
    fa.FireAndAxeEvent.DIAL_CAUSE_RUNE_EFFECT: "by a Rune's effect",
}
_VP_REASON = {
    fa.FireAndAxeEvent.VP_REASON_START_BONUS: "starting bonus",
    fa.FireAndAxeEvent.VP_REASON_TRADE: "Trade",
    fa.FireAndAxeEvent.VP_REASON_DEMAND: "Goods in Demand",
    fa.FireAndAxeEvent.VP_REASON_TREASURE: "treasure",
    fa.FireAndAxeEvent.VP_REASON_SAGA: "Saga bonus",
    fa.FireAndAxeEvent.VP_REASON_RUNE: "a Rune",
    fa.FireAndAxeEvent.VP_REASON_BLOODIEST_AXE: "the Bloodiest Axe",
    fa.FireAndAxeEvent.VP_REASON_SETTLEMENT: "a Settlement",
    fa.FireAndAxeEvent.VP_REASON_SAGA_SET: "Sagas of a Homeland",
}


_STATUS: dict[int, str] = {
    gp.GAME_STATUS_OPEN: "open",
    gp.GAME_STATUS_IN_PROGRESS: "in progress",
    gp.GAME_STATUS_FINISHED: "finished",
    gp.GAME_STATUS_ABORTED: "aborted",
}


def _envelope_text(event: gp.Event, names: Mapping[int, str] | None) -> str | None:
    """The service's own events (every game has them), or None for a game event: a seat's
    first screen starts with its seat being claimed, which is no Fire & Axe event."""
    kind = event.WhichOneof("payload")
    if kind == "seat_claimed":
        e = event.seat_claimed
        return f"{e.name or 'a player'} took seat {e.seat} ({seat_name(e.seat)})"
    if kind == "status_changed":
        return f"The game is now {_STATUS.get(event.status_changed.status, 'unknown')}"
    if kind == "timed_out":
        return f"{_who(event.timed_out.seat, names)} ran out of time"
    if kind == "game_ended":
        winners = ", ".join(_who(s, names) for s in event.game_ended.result.winners)
        return f"Game over. Winner(s): {winners or 'none'}"
    if kind == "game_aborted":
        return f"The game was aborted ({event.game_aborted.reason or 'no reason given'})"
    return None


def describe_event(
    event: gp.Event,
    names: Mapping[int, str] | None = None,
    catalog: Catalog | None = None,
    context: Sequence[gp.Event] = (),
) -> str:
    """One line saying what happened and why (``context``: the events of the same decision
    before this one; unused here, every Fire & Axe event says its own why)."""
    envelope = _envelope_text(event, names)
    if envelope is not None:
        return envelope
    if event.WhichOneof("payload") != "fire_and_axe":
        return "(an event this client does not know)"
    n = (catalog or Catalog()).names()
    e = event.fire_and_axe
    kind = e.WhichOneof("kind")
    if kind is None:
        return "(an event this client does not know)"
    body = getattr(e, kind)
    seat = getattr(body, "seat", -1)
    who = _who(seat, names) if isinstance(seat, int) and seat >= 0 else ""
    text = _event_text(kind, body, who, n)
    return text if text is not None else f"{who}: {kind.replace('_', ' ')}"


def _event_text(kind: str, b: object, who: str, n: Names) -> str | None:
    e = fa.FireAndAxeEvent
    if kind == "action_applied":
        assert isinstance(b, e.ActionApplied)
        late = " (time ran out: the default)" if b.by_timeout else ""
        return f"{who}: {b.label}{late}"
    if kind == "turn_started":
        assert isinstance(b, e.TurnStarted)
        return f"{who}'s turn begins (turn {b.turn})"
    if kind == "final_marker_placed":
        assert isinstance(b, e.FinalMarkerPlaced)
        last = ": the game ends with this turn" if b.last_turn else ""
        return f"{who} places Final Round marker {b.placed}/3{last}"
    if kind == "player_out":
        return f"{who} has settled every crewmember and is out"
    if kind == "turn_skipped":
        return f"{who}'s turn is skipped (out)"
    if kind == "turn_ended":
        assert isinstance(b, e.TurnEnded)
        chart = sum(b.chart_discarded)
        extra = f"; {chart} item(s) cleared from the Losses chart" if chart else ""
        return f"{who} {_TURN_END.get(b.how, 'ended the turn')}{extra}"
    if kind == "loaded":
        assert isinstance(b, e.Loaded)
        return f"{who} loads {ITEMS.get(b.item, '?')} (Day {b.days})"
    if kind == "left_wintering":
        assert isinstance(b, e.LeftWintering)
        return f"{who} leaves the Wintering Zone for {n.place(b.homeland)}"
    if kind == "returned":
        assert isinstance(b, e.Returned)
        return (
            f"{who} returns to the Wintering Zone from {n.place(b.location)}, discarding "
            f"{_goods_list(b.goods)} and sending {b.crew} crew home"
        )
    if kind == "ship_lost":
        assert isinstance(b, e.ShipLost)
        return (
            f"{who} loses the last crewmember {_SHIP_LOST.get(b.cause, '')} at "
            f"{n.place(b.location)}: back to the Wintering Zone, {_goods_list(b.goods)} discarded"
        )
    if kind == "sailed":
        assert isinstance(b, e.Sailed)
        return f"{who} sails {n.place(b.from_location)} → {n.place(b.to_location)} (Day {b.days})"
    if kind == "weather_checked":
        assert isinstance(b, e.WeatherChecked)
        zone = ZONES.get(b.zone, "?")
        if b.excess <= 0:
            return f"{who}: fair weather in the {zone} ({b.sailing} ≤ {b.fair_weather_days})"
        skulls = len(b.skulls)
        return (
            f"{who}: storm in the {zone}, Sailing {b.sailing} > {b.fair_weather_days} Fair "
            f"Weather Days: {skulls} item(s) lost"
        )
    if kind == "weather_skipped":
        return f"{who}: calm seas, no weather check"
    if kind == "item_lost":
        assert isinstance(b, e.ItemLost)
        return f"{who} loses {ITEMS.get(b.item, '?')} {_ITEM_LOST.get(b.cause, '')}".rstrip()
    if kind == "dial_turned":
        assert isinstance(b, e.DialTurned)
        way = "clockwise" if b.quarters > 0 else "counter-clockwise"
        return (
            f"{who} turns the Wind Dial {way} {_DIAL_CAUSE.get(b.cause, '')}: best "
            f"{ZONES.get(b.blue, '?')}, worst {ZONES.get(b.red, '?')}"
        )
    if kind == "traded":
        assert isinstance(b, e.Traded)
        demand = " (in demand)" if b.in_demand else ""
        return f"{who} trades {GOODS.get(b.good, '?')}{demand} at {n.place(b.port)}"
    if kind == "raid_rolled":
        assert isinstance(b, e.RaidRolled)
        bonus = f"+{b.bonus}" if b.bonus else ""
        outcome = "success" if b.success else "fails"
        return (
            f"{who} raids {n.place(b.port)}: rolls {b.roll}{bonus} against {b.target} "
            f"(roll {b.attempt}): {outcome}"
        )
    if kind == "town_taken":
        assert isinstance(b, e.TownTaken)
        return f"{who} takes the town of {n.place(b.port)}: treasure {b.treasure}"
    if kind == "raid_stopped":
        assert isinstance(b, e.RaidStopped)
        return f"{who} stops raiding {n.place(b.port)}"
    if kind == "settle_rolled":
        assert isinstance(b, e.SettleRolled)
        bonus = f" (+{b.bonus} each)" if b.bonus else ""
        dice = " ".join(str(d) for d in b.dice)
        outcome = "success" if b.success else "fails"
        return (
            f"{who} settles {n.place(b.port)}: rolls {dice}{bonus} against {b.target}, "
            f"{b.failures} failed: {outcome}"
        )
    if kind == "settled":
        assert isinstance(b, e.Settled)
        return f"{who} builds a Settlement at {n.place(b.port)} ({b.settlements} in all)"
    if kind == "settle_declined":
        assert isinstance(b, e.SettleDeclined)
        return f"{who} keeps the last crewmember: no Settlement at {n.place(b.port)}"
    if kind == "rune_drawn":
        assert isinstance(b, e.RuneDrawn)
        card = f": {n.rune(b.rune)}" if b.HasField("rune") else ""
        return f"{who} draws a Rune{card} ({b.hand_count} in hand)"
    if kind == "runes_reshuffled":
        assert isinstance(b, e.RunesReshuffled)
        return f"the Rune discards are shuffled into a new deck of {b.deck}"
    if kind == "rune_played":
        assert isinstance(b, e.RunePlayed)
        return f"{who} plays {n.rune(b.rune)}"
    if kind == "rune_discarded":
        assert isinstance(b, e.RuneDiscarded)
        return f"{who} discards {n.rune(b.rune)}"
    if kind == "rune_effect":
        assert isinstance(b, e.RuneEffect)
        return _rune_effect(b, who, n)
    if kind == "demand_changed":
        assert isinstance(b, e.DemandChanged)
        return (
            f"{who} changes the Goods in Demand: {GOODS.get(b.from_good, '?')} → "
            f"{GOODS.get(b.to_good, '?')}"
        )
    if kind == "vp_changed":
        assert isinstance(b, e.VpChanged)
        why = _VP_REASON.get(b.reason, "")
        where = f" at {n.place(b.port)}" if b.HasField("port") else ""
        saga = f" ({n.saga_name(b.saga)})" if b.HasField("saga") else ""
        if b.reason == e.VP_REASON_SAGA_SET:
            saga = f" ({b.sagas} of {HOMELANDS.get(b.homeland, '?')})"
        if b.reason == e.VP_REASON_BLOODIEST_AXE:
            saga = f" ({b.towns} towns)"
        return f"{who} {b.delta:+d} VP: {why}{where}{saga} (now {b.vp})"
    if kind == "saga_revealed":
        assert isinstance(b, e.SagaRevealed)
        return f"Saga revealed: {n.saga_name(b.saga)}"
    if kind == "saga_discarded":
        assert isinstance(b, e.SagaDiscarded)
        why = {
            e.SAGA_DISCARD_WHY_FULFILLED: "already fulfilled",
            e.SAGA_DISCARD_WHY_IMPOSSIBLE: "no goods can complete it any more",
        }.get(b.why, "")
        return f"Saga discarded: {n.saga_name(b.saga)} ({why})"
    if kind == "saga_completed":
        assert isinstance(b, e.SagaCompleted)
        bonus = f", +{b.bonus_vp} VP" if b.bonus_vp else ""
        return f"{who} completes the Saga {n.saga_name(b.saga)}{bonus}"
    if kind == "age_started":
        assert isinstance(b, e.AgeStarted)
        return f"Age {AGES.get(b.age, b.age)} begins"
    if kind == "final_markers_taken":
        assert isinstance(b, e.FinalMarkersTaken)
        return f"{who} revealed the last Saga and takes the Final Round markers"
    if kind == "game_over":
        assert isinstance(b, e.GameOver)
        vp = ", ".join(f"{seat_name(i)} {v}" for i, v in enumerate(b.vp))
        return f"Game over: {_ENDS.get(b.reason, '')} ({vp} VP)"
    return None


def _rune_effect(b: fa.FireAndAxeEvent.RuneEffect, who: str, n: Names) -> str:
    target = seat_name(b.target_seat) if b.HasField("target_seat") else ""
    good = GOODS.get(b.good, "")
    texts = {
        "days_back": f"Days back: Preparation {b.preparation}, Sailing {b.sailing}",
        "recover_crew": f"{b.amount} crew back aboard",
        "gain_goods": f"{b.amount} {good} aboard",
        "opponent_loses_crew": f"{target} sends {b.amount} crew home",
        "opponent_loses_goods": f"{target} loses {b.amount} {good}",
        "attack_bonus": f"+{b.amount} to the attack's dice",
        "extra_task": "one more Task at "
        + (n.place(b.port) if b.HasField("port") else "this port"),
        "draw_runes": f"draws {b.amount} Rune(s)",
        "recover_losses": "the items on the Losses chart come back aboard",
        "calm_weather": "the next Sail has no weather check",
    }
    return f"{who}'s Rune: {texts.get(b.effect, b.effect)}"


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
