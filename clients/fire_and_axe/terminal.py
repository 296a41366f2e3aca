"""Fire & Axe in the terminal client: the ``Terminal`` of ``clients.games``, drawn by
``render`` (the board, seats, Sagas, actions, events) and ``screen`` (fitted to a terminal)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import RenderableType

from clients.fire_and_axe import render, screen
from clients.fire_and_axe.names import Catalog, seat_name
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

__all__ = ["TERMINAL", "FireAndAxeTerminal"]


class FireAndAxeTerminal:
    def seat_name(self, seat: int) -> str:
        return seat_name(seat)

    def catalog(self, reply: gs.GetCatalogResponse | None) -> Catalog:
        if reply is None or not reply.HasField("fire_and_axe"):
            return Catalog()  # places and cards read as numbers
        return Catalog.from_pb(reply.fire_and_axe)

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
        del story  # every Fire & Axe event says its own why: the log lines are enough
        return render.render_view(view, catalog, events=events, notice=notice, width=width)

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
        del story  # every Fire & Axe event says its own why: the log lines are enough
        return screen.render_screen(
            view, catalog, width=width, height=height, events=events, notice=notice, page=page
        )

    def help_screen(self) -> RenderableType:
        return screen.help_screen()

    def own_cards(self, view: gp.View, catalog: Catalog) -> RenderableType | None:
        return render.card_details(view, catalog)

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


TERMINAL = FireAndAxeTerminal()
