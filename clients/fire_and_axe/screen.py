"""Fitting a Fire & Axe game onto a terminal: what ``yggdrasil play`` and ``watch`` draw.

``render_view`` shows everything (the board with whole place names, the supply, the Saga deck)
and needs 25-40 rows. On a smaller terminal (80×24 is the one tests hold it to)
:func:`render_screen` draws the compact layout: the header with the pack (the demo pack said
plainly), the tracks, the board (every port, names cut to six letters), the seats and the Sagas
always stay, then the decision and its actions, packed several to a line and a page at a time
if need be (``m`` turns the page; any number can be typed at any time). What is under way (an
attack, weather losses, the Final Rounds), the latest events and the viewer's Runes take the
rows that are left. Pure functions."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from clients.action_pages import first_number, last_number, paged_status
from clients.fire_and_axe.names import Catalog
from clients.fire_and_axe.render import (
    MARK_AWAITED,
    action_lines,
    render_view,
    view_sections,
)
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["Screen", "help_screen", "render_screen", "rows_of"]

_FULL_EXTRA = 6
"""Rows the whole view needs beyond the compact one's fixed parts and status, at the least
(the regions, two more Saga rows, the actions)."""


@dataclass(frozen=True)
class Screen:
    """What to draw, and which page of the actions it shows (``pages`` > 1: ``m`` turns)."""

    renderable: RenderableType
    compact: bool
    page: int = 0
    pages: int = 1


def rows_of(renderable: RenderableType, width: int) -> int:
    """How many terminal rows ``renderable`` takes at ``width``."""
    console = Console(file=io.StringIO(), width=width, color_system=None, legacy_windows=False)
    return len(console.render_lines(renderable, console.options, pad=False))


def render_screen(
    view: gp.View,
    catalog: Catalog,
    *,
    width: int,
    height: int,
    events: Sequence[str] = (),
    notice: str | None = None,
    page: int = 0,
) -> Screen:
    """The view in at most ``height`` rows of ``width`` (leave a row for the input line):
    ``render_view`` if it fits, else the compact layout, ``page`` being the page of actions
    asked for (taken modulo the number of pages)."""
    sections = view_sections(view, catalog, compact=True)
    full = render_view(view, catalog, events=events, notice=notice, width=width)
    measured: dict[int, int] = {}

    def rows(part: RenderableType) -> int:
        if id(part) not in measured:
            measured[id(part)] = rows_of(part, width)
        return measured[id(part)]

    if sections is None:
        return Screen(full, compact=False)
    note = Text(notice, style="bold yellow") if notice else None
    status = sections.status
    fixed: list[RenderableType] = [
        sections.header,
        sections.tracks,
        sections.board,
        sections.seats,
        sections.sagas,
    ]
    if note is not None:
        fixed.append(note)
    room = height - sum(rows(part) for part in fixed) - rows(status)
    # The whole view is taller than the compact one by its regions, Sagas and supply at
    # least: measured only when the terminal might hold it.
    if room >= _FULL_EXTRA and rows(full) <= height:
        return Screen(full, compact=False)
    lines = action_lines(view, catalog, width)
    # What just happened (another ship's Raid, the weather) matters nearly as much as the next
    # choice: the latest events keep a row, if three are left for actions.
    reserved = 1 if events and room >= 4 else 0
    room -= reserved
    pages = 1
    shown = lines
    if len(lines) > room and isinstance(status, Text):
        paged = status
        for per_page in range(max(room - 1, 1), 0, -1):
            pages = -(-len(lines) // per_page)
            page %= pages
            shown = lines[page * per_page : (page + 1) * per_page]
            paged = paged_status(
                status,
                first_number(shown),
                last_number(shown),
                len(view.legal_actions),
                last_page=page + 1 == pages,
            )
            if rows_of(paged, width) - rows(status) + len(shown) <= room:
                break
        room += rows(status) - rows_of(paged, width)
        status = paged
    room -= len(shown)
    room += reserved
    # What is left: what is under way, the latest events, then the viewer's Runes.
    extras: list[tuple[int, RenderableType]] = []
    if sections.situation is not None and rows(sections.situation) <= room - reserved:
        extras.append((5, sections.situation))
        room -= rows(sections.situation)
    if events and room > 0:
        news = _news(events, width, rows=1 if sections.own is not None and room > 1 else room)
        extras.append((6, news))
        room -= rows(news)
    if sections.own is not None and rows(sections.own) <= room:
        extras.append((7, sections.own))
        room -= rows(sections.own)
    if events and room > 0:  # more of the events, if rows are still free
        extras = [(p, x) for p, x in extras if p != 6]
        extras.append((6, _news(events, width, rows=room + 1)))
    ordered: list[tuple[int, RenderableType]] = [
        (0, sections.header),
        (1, sections.tracks),
        (2, sections.board),
        (3, sections.seats),
        (4, sections.sagas),
        *extras,
        (8, status),
        *((9, line) for line in shown),
        *(((10, note),) if note is not None else ()),
    ]
    ordered.sort(key=lambda item: item[0])
    return Screen(Group(*(part for _, part in ordered)), compact=True, page=page, pages=pages)


def _news(events: Sequence[str], width: int, *, rows: int) -> Text:
    """The latest events, oldest first, run together in at most ``rows`` rows (the newest
    always, cut if it alone is too long)."""
    taken: list[str] = []
    for event in reversed(events):
        trial = Text("· " + " · ".join([event, *taken]), style="dim")
        if taken and rows_of(trial, width) > rows:
            break
        taken.insert(0, event)
    text = Text("· " + " · ".join(taken), style="dim")
    if rows_of(text, width) > rows:
        text.truncate(max(1, rows * width - 1), overflow="ellipsis")
    return text


# ---------------------------------------------------------------------------------------------
# h
# ---------------------------------------------------------------------------------------------

_KEYS = (
    ("1, 2, …", "take that action (any number, on any page)"),
    ("m", "more actions: the next page, when they do not all fit"),
    ("c", "the texts of your Runes"),
    ("r", "draw the game again"),
    ("h", "this help (Enter: back to the game)"),
    ("q", "quit (the same command again resumes)"),
)

_LEGEND = (
    ("N│ E│ S│ W│", "the ports of each Weather Zone; italic: Homelands; ~: water"),
    ("Kiev4", "a port and its value (Raid and Settle must roll higher)"),
    ("t T", "a small / large town still standing (its treasure is hidden)"),
    ("+fi +tu +fu", "the goods token traded there (value -1 for attacks)"),
    ("⌂R  @B", "Red's Settlement; Blue's ship"),
    ("*", "a port a face-up Saga names"),
    ("Days ▰▱", "Preparation and Sailing Days spent, and those left of 7"),
    ("Wind N2 S7▲", "Fair Weather Days per zone; ▲ best (blue), ▼ worst (red)"),
    ("☠2", "that Sail would cost two items to the weather"),
    ("Sagas", "Age, Homeland, type, ports (✓ done), bonus VP; seats: D/N/S"),
    (f"{MARK_AWAITED} * ¹", "awaited; you; first player"),
)


def help_screen() -> RenderableType:
    """``h``: the keys, and what the marks mean (fits 80×24)."""
    keys = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2))
    keys.add_column(style="bold", no_wrap=True)
    keys.add_column()
    for key, what in _KEYS:
        keys.add_row(key, what)
    legend = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    legend.add_column("Mark", style="bold", no_wrap=True)
    legend.add_column("Means")
    for column, meaning in _LEGEND:
        legend.add_row(column, meaning)
    return Group(keys, legend)
