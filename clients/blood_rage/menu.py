"""The legal actions packed for a small terminal: grouped by what they share, each short.

Twenty-eight actions of an Action phase are a few invades per figure, marches per figure and
origin, upgrades, quests, pillages and a pass. Grouped by their kind and what they share (the
figure and its cost for invades, the figure and its province of origin for marches), each
group is one line that names what it shares once, ``invade warrior (1 Rage) → 1 Elvagar · 2
Gimle``, and every action in it is a number and a word or two. What an action costs and
brings comes from its ``details`` (the server works them out), what it replaces or gives up
from the view. Lines too short to fill a row share one, two columns of them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from rich.text import Text

from clients.blood_rage.render import (
    Catalog,
    action_labels,
    clan_stat,
    replaced_upgrade,
    stat_name,
)
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["MenuItem", "menu_items", "menu_lines", "short_area"]


class MenuItem(NamedTuple):
    """One legal action on the menu: its number (legal_index + 1), the group it belongs to
    ("" for none) and what sets it apart there."""

    number: int
    head: str
    text: str


def _rage(cost: int) -> str:
    return f"{cost} Rage"


def _card(card_id: str, catalog: Catalog) -> str:
    return catalog.card_name(card_id)


def short_area(name: str) -> str:
    """A place's name cut to what tells it apart on the board: ``Myrk``, ``Ygg``, ``N fjord``."""
    if name.endswith(" fjord"):
        return name[:1] + " fjord"
    return "Ygg" if name == "Yggdrasil" else name[:4]


def _item(
    view: gp.View,
    legal: gp.LegalAction,
    label: str,
    catalog: Catalog,
    cards: dict[int, str],
    short: bool,
) -> tuple[str, str]:
    """(head, text) of one legal action (``short``: places by their first letters)."""
    a = legal.action.blood_rage
    d = a.details
    kind = a.WhichOneof("kind")
    area = (lambda x: short_area(catalog.area_name(x))) if short else catalog.area_name
    unit = catalog.unit_name
    if kind == "invade":
        return f"invade {unit(a.invade.unit)} ({_rage(d.rage_cost)})", area(a.invade.area)
    if kind == "free_invade":
        return f"free invade {unit(a.free_invade.unit)}", area(a.free_invade.area)
    if kind == "invade_from_valhalla":
        move = a.invade_from_valhalla
        return f"from Valhalla, {unit(move.unit)} ({_rage(d.rage_cost)})", area(move.area)
    if kind == "march":
        m = a.march
        return f"march {unit(m.unit)} from {area(m.from_area)} (1 Rage)", area(m.to_area)
    if kind == "march_more":
        return "march along", unit(a.march_more.unit)
    if kind == "call_to_battle":
        c = a.call_to_battle
        return f"call to battle from {area(c.from_area)}", unit(c.unit)
    if kind == "move_leader":
        return "move your leader to", area(a.move_leader.area)
    if kind in ("pillage", "challenge"):
        head = "pillage" if kind == "pillage" else "Tyr's Challenge (2 Rage): pillage again"
        return head, area(getattr(a, kind).province)
    if kind == "upgrade":
        card_id = d.card.card_id or cards.get(a.upgrade.card, "")
        info = catalog.card(card_id)
        # The cost the server worked out (an upgrade may lower it), else the printed one.
        cost = d.rage_cost if a.HasField("details") else (info.cost if info else 0)
        text = f"{_card(card_id, catalog)} ({cost}"
        replaced = replaced_upgrade(view, legal, catalog)
        return "upgrade (Rage)", text + (f", replaces {replaced})" if replaced else ")")
    if kind in ("draft_pick", "battle_card", "late_card", "quest", "keep_card", "keep_revealed"):
        head = {
            "draft_pick": "pick",
            "battle_card": "play",
            "late_card": "play after the reveal",
            "quest": "commit quest",
            "keep_card": "keep for the next Age",
            "keep_revealed": "keep (1 Rage)",
        }[kind]
        card_id = cards.get(getattr(a, kind).card, "")
        info = catalog.card(card_id)
        text = _card(card_id, catalog) if card_id else label
        if info is not None and info.type == br.CARD_TYPE_BATTLE and kind != "keep_revealed":
            text += f" +{info.strength}"
        return head, text
    if kind == "keep_none":
        return "keep for the next Age", "nothing"
    if kind == "raise_stat":
        stat = a.raise_stat.stat
        level = clan_stat(view, stat)
        if level is None or not level.step:
            return "raise", stat_name(stat)
        step = min(6, level.step + 1)
        return "raise", f"{stat_name(stat)} (step {level.step}→{step})"
    if kind in ("save_figure", "keep_figure", "sacrifice"):
        f = getattr(a, kind)
        head = {
            "save_figure": "save (1 Rage)",
            "keep_figure": "the one to keep",
            "sacrifice": "sacrifice",
        }[kind]
        return head, f"{unit(f.unit)} in {area(f.area)}"
    return "", label


def menu_items(view: gp.View, catalog: Catalog, *, short: bool = False) -> list[MenuItem]:
    """Every legal action of the view as a menu item, in legal order (``short``: places by
    their first letters, for a screen too small for them all)."""
    own = view.blood_rage.own
    cards = {c.instance: c.card_id for c in (*own.hand, *own.draft_pack, *own.pending_picks)}
    battle = view.blood_rage.battle
    for p in battle.participants:
        cards.update({c.instance: c.card_id for c in p.revealed_cards})
    labels = action_labels(view, catalog)
    items = [
        MenuItem(i + 1, *_item(view, legal, labels[i], catalog, cards, short))
        for i, legal in enumerate(view.legal_actions)
    ]
    # Two copies of one card in a group: their instance numbers tell them apart.
    twice = Counter((item.head, item.text) for item in items)
    out = []
    for item, legal in zip(items, view.legal_actions, strict=True):
        if item.head and twice[item.head, item.text] > 1:
            a = legal.action.blood_rage
            kind = a.WhichOneof("kind")
            card = getattr(getattr(a, kind), "card", None) if kind else None
            if isinstance(card, int):
                item = item._replace(text=f"{item.text} #{card}")
        out.append(item)
    return out


def _group_lines(head: str, items: Sequence[MenuItem], width: int) -> list[Text]:
    """One group's items after its head, on as few lines of ``width`` as they fit, each line
    starting with the head (so that any line can be shown alone, on a page)."""
    lines: list[Text] = []
    line = Text()
    start = Text(f"{head} → ", style="bold") if head else Text()
    for item in items:
        piece = Text()
        piece.append(str(item.number), style="bold cyan")
        piece.append(" " + item.text)
        if line and line.cell_len + 3 + piece.cell_len > width:
            lines.append(line)
            line = Text()
        if not line:
            line.append_text(start)
        else:
            line.append(" · ", style="dim")
        line.append_text(piece)
    if line:
        lines.append(line)
    return lines


def menu_lines(view: gp.View, catalog: Catalog, width: int, *, short: bool = False) -> list[Text]:
    """The legal actions in as few lines of ``width`` as read well: grouped by head (in the
    order each group first appears, wherever its actions are in the list), and lines short
    enough side by side in two columns (``short``: places by their first letters)."""
    groups: dict[str, list[MenuItem]] = {}
    for item in menu_items(view, catalog, short=short):
        groups.setdefault(item.head, []).append(item)
    lines: list[Text] = []
    for head, items in groups.items():
        if head:
            lines.extend(_group_lines(head, items, width))
        else:  # actions of their own (pass, end march, decline ...): one each
            lines.extend(_group_lines("", [item], width)[0] for item in items)
    column = (width - 3) // 2
    packed: list[Text] = []
    open_left = False  # the last packed line is a short one with room beside it
    for line in lines:
        if open_left and line.cell_len <= column:
            last = packed[-1]
            last.pad_right(column - last.cell_len)
            last.append("   ")
            last.append_text(line)
            open_left = False
        else:
            packed.append(line.copy())
            open_left = line.cell_len <= column
    return packed
