"""Fitting a game onto a terminal: what ``yggdrasil play`` and ``watch`` draw, and ``h``.

``render_view`` (``clients.blood_rage.render``) shows everything, top to bottom, and needs about
35 rows and more while a long list of actions is offered. A terminal of 80×24 has fewer. There
:func:`render_screen` switches to a compact layout: the board, the clan table, whose decision it
is and the actions always stay; the actions are packed several to a line (``invade warrior → 1
Elvagar · 2 Gimle``) and, if they still do not fit, shown a page at a time (``m`` turns the page;
every number can be typed at any time). The march or battle under way stays too, and the latest
events get a row or two (what just happened matters nearly as much as the next choice); what is
left goes to the upgrades in play, your hand and more of the events. Pure functions, like
``clients.blood_rage.render``."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from clients.action_pages import first_number, last_number, paged_status
from clients.blood_rage.menu import menu_lines
from clients.blood_rage.render import (
    MARK_AWAITED,
    MARK_CHOSEN,
    Catalog,
    render_view,
    view_sections,
)
from clients.blood_rage.summary import summary_lines
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["Screen", "fit_summary", "help_screen", "render_screen", "rows_of"]


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
    story: Sequence[gp.Event] = (),
) -> Screen:
    """The view in at most ``height`` rows of ``width`` (leave a row for the input line):
    ``render_view`` if it fits, else the compact layout, ``page`` being the page of actions
    asked for (taken modulo the number of pages). ``story``: the events since the viewer's
    last decision, whose battles, quests and Ragnarök stay summed up on screen."""
    episodes = summary_lines(story, catalog) if story else []
    full = render_view(
        view,
        catalog,
        events=events,
        notice=notice,
        width=width,
        summary=[line for lines in episodes for line in lines],
    )
    sections = view_sections(view, catalog, width=width, compact=True)
    if sections is None or rows_of(full, width) <= height:
        return Screen(full, compact=False)
    note = Text(notice, style="bold yellow") if notice else None
    lines = menu_lines(view, catalog, width)
    status = sections.status
    fixed: list[RenderableType] = [sections.header, sections.board, sections.clans]
    fixed.extend(part for part in (sections.march, sections.battle) if part is not None)
    if note is not None:
        fixed.append(note)
    room = height - sum(rows_of(part, width) for part in fixed)
    # What happened since the player's last decision (a battle's outcome, a quest round,
    # Ragnarök) stays in sight until its next: before the actions, but leaving them three rows.
    if len(lines) > room - rows_of(status, width):  # they will not all fit: shorter names
        lines = menu_lines(view, catalog, width, short=True)
    summary: Text | None = None
    if story:
        spare = room - rows_of(status, width) - min(3, len(lines))
        paging = len(lines) > room - rows_of(status, width) - 2
        summary = fit_summary(episodes, width, rows=min(2 if paging else 4, spare))
        if summary is not None:
            room -= rows_of(summary, width)
    # What just happened (another clan's move) matters nearly as much as the next choice: the
    # latest events get up to two rows if three are left for actions and no summary says it.
    news: Text | None = None
    if events and (summary is None or len(lines) + rows_of(status, width) < room):
        news = _news(events, width, rows=max(1, min(2, room - rows_of(status, width) - 3)))
        room -= rows_of(news, width)
    pages = 1
    shown = lines
    if len(lines) > room - rows_of(status, width) and isinstance(status, Text):
        # A page at a time; the status line says which (its note may cost it a row): the
        # most lines that fit beside it.
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
            if rows_of(paged, width) + len(shown) <= room:
                break
        status = paged
    room -= rows_of(status, width) + len(shown)
    # Whatever room is left: the upgrades in play, your hand, then more of the events.
    extras: list[tuple[float, RenderableType]] = []  # (place in the layout, part)
    for place, part in ((3, sections.upgrades), (6, sections.own)):
        if part is not None and rows_of(part, width) <= room:
            extras.append((place, part))
            room -= rows_of(part, width)
    if news is not None and room > 0:
        news = _news(events, width, rows=rows_of(news, width) + room)
    ordered: list[tuple[float, RenderableType]] = [
        (0, sections.header),
        (1, sections.board),
        (2, sections.clans),
        *((4, part) for part in (sections.march, sections.battle) if part is not None),
        *(((4.5, summary),) if summary is not None else ()),
        *(((5, news),) if news is not None else ()),
        (7, status),
        *((8, line) for line in shown),
        *(((9, note),) if note is not None else ()),
        *extras,
    ]
    ordered.sort(key=lambda item: item[0])
    # Never past the last row: what is only nice to have goes first (the news, the extras,
    # then the summary) if the parts that must stay took more rows than foreseen.
    for optional in (news, *(part for _, part in extras), summary):
        if rows_of(Group(*(part for _, part in ordered)), width) <= height:
            break
        ordered = [item for item in ordered if item[1] is not optional]
    return Screen(Group(*(part for _, part in ordered)), compact=True, page=page, pages=pages)


def fit_summary(episodes: Sequence[Sequence[Text]], width: int, *, rows: int) -> Text | None:
    """The newest episodes' lines in at most ``rows`` rows, one row each: every episode's
    first line (what happened, newest kept), then second lines while rows are left; None if
    there is nothing, or no row."""
    if not episodes or rows <= 0:
        return None
    chosen = list(episodes[-rows:])
    spare = rows - len(chosen)
    shown: list[Text] = []
    for lines in chosen:
        take = 1 + min(spare, len(lines) - 1)
        spare -= take - 1
        for line in lines[:take]:
            cut = line.copy()
            cut.truncate(width, overflow="ellipsis")
            shown.append(cut)
    return Text("\n").join(shown)


def _news(events: Sequence[str], width: int, *, rows: int) -> Text:
    """The latest events, oldest first, run together in at most ``rows`` rows (the newest
    one always, cut if it alone is too long)."""
    taken: list[str] = []
    for event in reversed(events):
        trial = Text("· " + " · ".join([event, *taken]), style="dim")
        if taken and rows_of(trial, width) > rows:
            break
        taken.insert(0, event)
    text = Text("· " + " · ".join(taken), style="dim")
    if rows_of(text, width) > rows:
        text.truncate(rows * width - 1, overflow="ellipsis")
    return text


# ---------------------------------------------------------------------------------------------
# h
# ---------------------------------------------------------------------------------------------

_KEYS = (
    ("1, 2, …", "take that action (any number, on any page; 12 of 30: 1, 2, Enter)"),
    ("m", "more actions: the next page, when they do not all fit"),
    ("l", "the log of every event (b/f: older/newer page, Enter: back)"),
    ("c, r", "the texts of your cards; draw the game again"),
    ("h", "this help (Enter: back to the game)"),
    ("q", "quit (the same command again resumes)"),
)

_LEGEND = (
    ("Board", "province, region, villages, token, Ragnarök, fjord, figures"),
    ("Region", "Manheim, Jotunheim or Alfheim: quests name them"),
    ("Token", "the pillage reward; ✗: pillaged this Age"),
    ("Ragnarök", "destroyed at the end of that Age; DOOM: at the end of this one"),
    ("Fjord", "N/E/S/W: the fjord supporting the province; Fjords: its ships"),
    ("Figures", "L leader, W warrior, S ship, monsters by name; 2W: two warriors"),
    ("Rage", "Rage left / Rage stat; [2 Rage]: what an action costs; pass: to 0"),
    ("Axe, Hrn", "Axes: Glory per battle won; Horns: most figures on the board"),
    ("12⁵", "value, step (1-6): at the end steps 4-5 score 10 and step 6 20"),
    ("Hand, Q", "cards in hand (k: one kept from the last Age); quests committed"),
    ("Brd/Res/Val", "figures on the board / in reserve / in Valhalla"),
    (f"{MARK_AWAITED} {MARK_CHOSEN} * 1st", "awaited; has chosen; you; first player"),
    ("unseen", "discarded face down (the decks line): nobody sees them"),
)


def help_screen() -> RenderableType:
    """``h``: the keys, and what the columns and marks mean (fits 80×24)."""
    keys = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2))
    keys.add_column(style="bold", no_wrap=True)
    keys.add_column()
    for key, what in _KEYS:
        keys.add_row(key, what)
    legend = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    legend.add_column("Column / mark", style="bold", no_wrap=True)
    legend.add_column("Means")
    for column, meaning in _LEGEND:
        legend.add_row(column, meaning)
    return Group(keys, legend)
