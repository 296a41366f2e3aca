"""Blood Rage behind the wire contract (``protocol.wire.Wire``): the ``blood_rage`` payloads of
the API's envelopes, built by the modules beside this one (``actions``, ``views``, ``events``,
``catalog``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from google.protobuf.message import Message

from engine.blood_rage.actions import Action
from engine.blood_rage.rules import RULES
from engine.core.contract import Result
from protocol.blood_rage import actions, catalog, events, views
from protocol.wire import ConvertedEvent, ServerOption, ViewEnvelope
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["WIRE", "BloodRageWire"]


class BloodRageWire:
    """Blood Rage ⇄ the API (blood_rage.proto)."""

    rules = RULES
    kind = gp.GAME_KIND_BLOOD_RAGE

    def options_from_pb(self, options: gp.GameOptions) -> dict[str, Any]:
        mine = options.blood_rage
        first = mine.first_player if mine.HasField("first_player") else None
        return {
            "draft_mode": actions.draft_mode_from_pb(mine.draft_mode),
            "first_player": first,
        }

    def privileged_options(self, options: gp.GameOptions) -> str | None:
        return None

    def server_options(self) -> Sequence[ServerOption]:
        return ()

    def configure(self, values: Mapping[str, str]) -> None:
        return None

    def options_to_pb(
        self, game_options: Mapping[str, Any], out: gp.GameOptions, full: bool = False
    ) -> None:
        mine = out.blood_rage
        mine.SetInParent()
        draft_mode = game_options.get("draft_mode", 0)
        mine.draft_mode = actions.draft_mode_to_pb(draft_mode if isinstance(draft_mode, int) else 0)
        first = game_options.get("first_player")
        if isinstance(first, int):
            mine.first_player = first

    def action_from_pb(self, message: gp.Action) -> Action:
        return actions.action_from_pb(message)

    def action_to_pb(self, action: Any) -> gp.Action:
        return gp.Action(blood_rage=actions.action_to_pb(action))

    def action_kind(self, action: Any) -> str:
        return actions.kind_name(action)

    def label(self, state: Any, action: Any) -> str | None:
        return None  # the rules' describe says it all

    def fill_view(self, view: Mapping[str, Any], envelope: ViewEnvelope, out: gp.View) -> None:
        views.fill_view(view, envelope, out)

    def fill_result(
        self, result: Result, final_view: Mapping[str, Any], out: gp.GameResult
    ) -> None:
        out.blood_rage.CopyFrom(br.BloodRageResult(bonuses=views.end_game_bonuses(final_view)))

    def catalog(self) -> Message:
        return catalog.catalog()

    def public_facts(self, state: Any) -> events.PublicFacts:
        return events.public_facts(state)

    def convert_events(
        self,
        raw: Iterable[tuple[int, Mapping[str, Any]]],
        before: Any,
        after: Any,
        by_timeout: bool = False,
        final_view: Mapping[str, Any] | None = None,
    ) -> list[ConvertedEvent]:
        return events.convert_events(raw, before, after, by_timeout, final_view)


WIRE = BloodRageWire()
