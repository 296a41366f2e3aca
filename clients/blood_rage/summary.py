"""What a player must not miss between two of its decisions, from the events alone: each battle
(where, who played what, the totals, who won, who died, what the pillage gave), each quest
round and each Ragnarök, a line or two apiece. ``yggdrasil play`` keeps them on screen until
the player's next decision, however many turns of the others came in between (the log, ``l``,
has every event). Pure functions of the events, like ``clients.blood_rage.render``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.text import Text

from clients.blood_rage.render import CLAN_STYLES, Catalog, clan_name, reward_name, stat_name
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["Episode", "episodes", "summary_lines"]


@dataclass
class Episode:
    """One battle, quest round or Ragnarök, gathered from its events."""

    kind: str  # "battle", "quests" or "ragnarok"
    province: int = 0
    pillager: int = -1
    cards: dict[int, list[str]] = field(default_factory=dict)  # seat -> card ids revealed
    resolved: br.BattleResolved | None = None
    pillage: br.PillageResult | None = None
    quests: list[br.QuestOutcome] = field(default_factory=list)
    age: int = 0
    dead: list[br.DestroyedFigure] = field(default_factory=list)
    glory: Counter[int] = field(default_factory=Counter)  # seat -> Glory gained in it
    steps: list[br.StatChanged] = field(default_factory=list)
    rage: list[br.RageChanged] = field(default_factory=list)
    retreated: list[br.FigureRetreated] = field(default_factory=list)


_BATTLE_KINDS = frozenset({"battle_revealed", "battle_resolved", "pillage_result"})


def episodes(events: Sequence[gp.Event]) -> list[Episode]:
    """The battles, quest rounds and Ragnaröks among ``events`` (oldest first), each with the
    Glory, stat steps and Rage the events right after it gave (until the next one begins)."""
    out: list[Episode] = []
    current: Episode | None = None
    for event in events:
        if event.WhichOneof("payload") != "blood_rage":
            continue
        e = event.blood_rage
        kind = e.WhichOneof("kind")
        if kind == "pillage_started":
            current = Episode("battle", int(e.pillage_started.province), e.pillage_started.pillager)
            out.append(current)
        elif kind == "quest_results":
            current = Episode("quests", quests=list(e.quest_results.quests))
            out.append(current)
        elif kind == "ragnarok":
            r = e.ragnarok
            current = Episode("ragnarok", int(r.province), age=r.age, dead=list(r.destroyed))
            out.append(current)
        elif kind == "phase_started":
            current = None
            continue
        if kind in _BATTLE_KINDS:
            # A battle whose beginning came before these events (the player's own battle
            # card, say) is an episode all the same.
            province = int(getattr(e, kind).province)
            if current is None or current.kind != "battle" or current.province != province:
                current = Episode("battle", province)
                out.append(current)
            if kind == "pillage_result":
                current.pillager = e.pillage_result.pillager
        if current is None:
            continue
        if kind == "battle_revealed" and current.kind == "battle":
            current.cards = {}
            for shown in e.battle_revealed.cards:
                current.cards.setdefault(shown.seat, []).append(shown.card.card_id)
        elif kind == "late_card_played" and current.kind == "battle":
            played = e.late_card_played
            current.cards.setdefault(played.seat, []).append(played.card.card_id)
        elif kind == "battle_resolved" and current.kind == "battle":
            current.resolved = e.battle_resolved
            current.dead = list(e.battle_resolved.destroyed)
        elif kind == "pillage_result" and current.kind == "battle":
            current.pillage = e.pillage_result
        elif kind == "glory_changed":
            current.glory[e.glory_changed.seat] += e.glory_changed.delta
        elif kind == "stat_changed":
            current.steps.append(e.stat_changed)
        elif kind == "rage_changed":
            current.rage.append(e.rage_changed)
        elif kind == "figure_retreated":
            current.retreated.append(e.figure_retreated)
    return out


def _clan(seat: int) -> Text:
    return Text(clan_name(seat), style=CLAN_STYLES.get(seat + 1, "bold"))


def _figures(dead: Sequence[br.DestroyedFigure], catalog: Catalog) -> Text:
    """``Raven 2 warriors, ship · Bear leader``: the figures by clan."""
    by_seat: dict[int, Counter[int]] = {}
    for d in dead:
        by_seat.setdefault(d.seat, Counter())[int(d.unit)] += 1
    text = Text()
    for i, (seat, units) in enumerate(sorted(by_seat.items())):
        if i:
            text.append(" · ")
        text.append_text(_clan(seat))
        names = [
            f"{n} {catalog.unit_name(u)}s" if n > 1 else catalog.unit_name(u)
            for u, n in sorted(units.items())
        ]
        text.append(" " + ", ".join(names))
    return text


def _gains(episode: Episode, catalog: Catalog) -> Text:
    """Glory, stat steps and Rage the episode gave, by clan."""
    parts: list[Text] = []
    for seat, glory in sorted(episode.glory.items()):
        if glory:
            part = _clan(seat)
            part.append(f" {glory:+d} Glory")
            parts.append(part)
    for s in episode.steps:
        part = _clan(s.seat)
        part.append(f" {stat_name(s.level.stat)} step {s.previous_step}→{s.level.step}")
        parts.append(part)
    for r in episode.rage:
        part = _clan(r.seat)
        part.append(f" {r.delta:+d} Rage")
        parts.append(part)
    for f in episode.retreated:
        part = _clan(f.seat)
        part.append(f" {catalog.unit_name(f.unit)} fled to {catalog.area_name(f.to_area)}")
        parts.append(part)
    return Text(" · ").join(parts)


def _battle(episode: Episode, catalog: Catalog) -> list[Text]:
    where = catalog.area_name(episode.province)
    head = Text("⚔ ", style="bold red")
    head.append(f"{where}: ", style="bold")
    resolved, pillage = episode.resolved, episode.pillage
    if resolved is None:
        if pillage is not None and not pillage.battle:  # nobody defended it
            head.append_text(_clan(episode.pillager))
            head.append(f" pillaged it undefended ({reward_name(pillage.reward)})")
        else:
            head.append_text(_clan(episode.pillager))
            head.append(" pillages: the battle is on")
        gains = _gains(episode, catalog)
        return [head] if not gains else [head, Text("  ").append_text(gains)]
    totals = sorted(resolved.totals, key=lambda t: (t.seat != resolved.winner, -t.strength))
    if resolved.HasField("winner"):  # who won first: a narrow screen cuts the end
        head.append_text(_clan(resolved.winner))
        head.append(" wins", style="bold")
    else:
        head.append("a tie, nobody wins", style="bold")
    for i, total in enumerate(totals):
        if resolved.HasField("winner") and total.seat == resolved.winner:
            head.append(f" {total.strength}", style="bold")
        else:
            head.append(" to " if i == 1 and resolved.HasField("winner") else ", " if i else ": ")
            head.append_text(_clan(total.seat))
            head.append(f" {total.strength}", style="bold")
        cards = [catalog.card_name(c) for c in episode.cards.get(total.seat, [])]
        if cards:
            head.append(f" ({', '.join(cards)})")
    second = Text("  ")
    if pillage is not None:
        second.append_text(_clan(pillage.pillager))
        if pillage.success:
            second.append(f" pillaged it ({reward_name(pillage.reward)})")
        else:
            second.append(" failed to pillage it")
    if episode.dead:
        second.append(" · to Valhalla: ")
        second.append_text(_figures(episode.dead, catalog))
    gains = _gains(episode, catalog)
    if gains:
        second.append(" · ")
        second.append_text(gains)
    return [head, second]


def _quests(episode: Episode, catalog: Catalog) -> list[Text]:
    text = Text("✦ Quests: ", style="bold green")
    if not episode.quests:
        text.append("none committed")
    for i, q in enumerate(episode.quests):
        if i:
            text.append(" · ")
        text.append_text(_clan(q.seat))
        text.append(f" {catalog.card_name(q.card.card_id)} ")
        text.append(f"✓ +{q.glory}" if q.fulfilled else "✗", style="bold" if q.fulfilled else "")
    steps = Text(" · ").join(
        _clan(s.seat).append(f" {stat_name(s.level.stat)} step {s.previous_step}→{s.level.step}")
        for s in episode.steps
    )
    return [text] if not episode.steps else [text, Text("  ").append_text(steps)]


def _ragnarok(episode: Episode, catalog: Catalog) -> list[Text]:
    text = Text("☠ Ragnarök ", style="bold magenta")
    text.append(f"destroys {catalog.area_name(episode.province)}", style="bold")
    text.append(f" (end of Age {episode.age})")
    if episode.dead:
        text.append(": to Valhalla ")
        text.append_text(_figures(episode.dead, catalog))
    else:
        text.append(": nobody was there")
    gains = _gains(episode, catalog)
    return [text] if not gains else [text, Text("  ").append_text(gains)]


def summary_lines(events: Sequence[gp.Event], catalog: Catalog) -> list[list[Text]]:
    """Each episode among ``events`` as its lines (the first says the most), oldest first."""
    out: list[list[Text]] = []
    for episode in episodes(events):
        if episode.kind == "battle":
            out.append(_battle(episode, catalog))
        elif episode.kind == "quests":
            out.append(_quests(episode, catalog))
        else:
            out.append(_ragnarok(episode, catalog))
    return out
