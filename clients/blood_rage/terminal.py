"""Blood Rage in the terminal client: the ``Terminal`` of ``clients.games``, drawn by
``render`` (the board, clans, battle, actions) and ``screen`` (fitted to a terminal)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import RenderableType

from clients.blood_rage import render, screen
from clients.blood_rage.render import Catalog
from clients.blood_rage.summary import summary_lines
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

__all__ = ["TERMINAL", "BloodRageTerminal"]


class BloodRageTerminal:
    def seat_name(self, seat: int) -> str:
        return render.clan_name(seat)

    def catalog(self, reply: gs.GetCatalogResponse | None) -> Catalog:
        if reply is None or not reply.HasField("blood_rage"):
            return Catalog()  # names fall back on the enums and card ids
        return Catalog.from_pb(reply.blood_rage)

    def render_view(
        self,
        view: gp.View,
        catalog: Catalog,
        *,
        events: Sequence[str] = (),
        notice: str | None = None,
        width: int = 100,
        story: Sequence[gp.Event] = (),
    ) -> RenderableType:
        summary = [line for lines in summary_lines(story, catalog) for line in lines]
        return render.render_view(
            view, catalog, events=events, notice=notice, width=width, summary=summary
        )

    def render_screen(
        self,
        view: gp.View,
        catalog: Catalog,
        *,
        width: int,
        height: int,
        events: Sequence[str] = (),
        notice: str | None = None,
        page: int = 0,
        story: Sequence[gp.Event] = (),
    ) -> screen.Screen:
        return screen.render_screen(
            view,
            catalog,
            width=width,
            height=height,
            events=events,
            notice=notice,
            page=page,
            story=story,
        )

    def help_screen(self) -> RenderableType:
        return screen.help_screen()

    def own_cards(self, view: gp.View, catalog: Catalog) -> RenderableType | None:
        own = view.blood_rage.own
        cards = [*own.hand, *own.draft_pack, *own.pending_picks]
        return render.card_details(cards, catalog) if cards else None

    def describe_event(
        self,
        event: gp.Event,
        names: Mapping[int, str] | None = None,
        catalog: Catalog | None = None,
        context: Sequence[gp.Event] = (),
    ) -> str:
        return render.describe_event(event, names, catalog, context)

    def render_result(
        self, result: gp.GameResult, names: Mapping[int, str] | None = None
    ) -> RenderableType:
        return render.render_result(result, names)


TERMINAL = BloodRageTerminal()
