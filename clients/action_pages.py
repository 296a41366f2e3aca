"""The page of numbered actions a terminal shows when a decision has more than fit: its status
line and the numbers on its lines. Every game's screen pages its actions the same way (the
keys are the same: a number takes an action on any page, ``m`` turns the page), so the reading
of a page lives here once, beside ``clients.games``' Terminal protocol."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

__all__ = ["ACTION_NUMBER_STYLE", "first_number", "last_number", "numbers", "paged_status"]

# How a game's action lines mark an action's number: the only span of this style on a line.
ACTION_NUMBER_STYLE = "bold cyan"


def paged_status(status: Text, first: int, last: int, total: int, *, last_page: bool) -> Text:
    """The status line with the page of actions shown: ``(1-13 of 32; m: more)``."""
    out = status.copy()
    turn = "m: first page" if last_page else "m: more"
    out.append(f" ({first}-{last} of {total}; {turn})", style="bold")
    return out


def numbers(line: Text) -> list[int]:
    """The action numbers on one action line (its spans styled ``ACTION_NUMBER_STYLE``)."""
    out = []
    for span in line.spans:
        if span.style == ACTION_NUMBER_STYLE:
            text = line.plain[span.start : span.end]
            if text.isdigit():
                out.append(int(text))
    return out


def first_number(lines: Sequence[Text]) -> int:
    """The lowest action number on ``lines`` (0 when none)."""
    return min((n for line in lines for n in numbers(line)), default=0)


def last_number(lines: Sequence[Text]) -> int:
    """The highest action number on ``lines`` (0 when none)."""
    return max((n for line in lines for n in numbers(line)), default=0)
