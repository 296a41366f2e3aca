"""Fire & Axe behind the wire contract (``protocol.wire.Wire``): the ``fire_and_axe`` payloads of
the API's envelopes, built by the modules beside this one (``actions``, ``views``, ``events``,
``catalog``), and the data-pack choice of a CreateGame (``packs``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from google.protobuf.message import Message

from engine.core.contract import Result
from engine.fire_and_axe.actions import Action, describe
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.state import GameState
from protocol.fire_and_axe import actions, catalog, events, packs, views
from protocol.fire_and_axe.values import board_of, pack_info
from protocol.wire import ConversionError, ConvertedEvent, ServerOption, ViewEnvelope
from yggdrasil.v1 import fire_and_axe_pb2 as fa
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["WIRE", "FireAndAxeWire"]

_SETTLE = {
    fa.FIRE_AND_AXE_SETTLE_BLOCK_UNSPECIFIED: "all",
    fa.FIRE_AND_AXE_SETTLE_BLOCK_ALL: "all",
    fa.FIRE_AND_AXE_SETTLE_BLOCK_ANY: "any",
}
_TIMING = {
    fa.FIRE_AND_AXE_RUNE_TIMING_UNSPECIFIED: "own_turn",
    fa.FIRE_AND_AXE_RUNE_TIMING_OWN_TURN: "own_turn",
    fa.FIRE_AND_AXE_RUNE_TIMING_ANY_TIME: "any_time",
}
MAX_PACK_TEXT = 512 * 1024
"""The longest pack text a CreateGame may carry (the demo pack is about 21 KB)."""


class FireAndAxeWire:
    """Fire & Axe ⇄ the API (fire_and_axe.proto)."""

    rules = RULES
    kind: int = gp.GAME_KIND_FIRE_AND_AXE

    # -- options -------------------------------------------------------------------------

    def privileged_options(self, options: gp.GameOptions) -> str | None:
        """A pack of the caller's own is the server's to parse and keep for good: an admin's
        call (docs/api-fire-and-axe.md)."""
        if options.WhichOneof("game") == "fire_and_axe" and options.fire_and_axe.data_pack_toml:
            return "a data pack of your own (data_pack_toml)"
        return None

    # -- server settings -----------------------------------------------------------------

    def server_options(self) -> Sequence[ServerOption]:
        """``--data-pack FILE[:FILE...]`` (``YGGDRASIL_DATA_PACK``): the packs the server
        offers besides the demo pack (docs/operations.md)."""
        return (packs.SERVER_OPTION,)

    def configure(self, values: Mapping[str, str]) -> None:
        """Offer the packs of ``--data-pack`` (already checked), before the restore: games may
        be on them."""
        packs.offer_files(values.get(packs.SERVER_OPTION.name, ""))

    def options_from_pb(self, options: gp.GameOptions) -> dict[str, Any]:
        mine = options.fire_and_axe
        if mine.settle_region_block not in _SETTLE:
            raise ConversionError(f"settle_region_block {mine.settle_region_block} is unknown")
        if mine.rune_timing not in _TIMING:
            raise ConversionError(f"rune_timing {mine.rune_timing} is unknown")
        out: dict[str, Any] = {
            "settle_region_block": _SETTLE[mine.settle_region_block],
            "rune_timing": _TIMING[mine.rune_timing],
            "no_conflict": mine.no_conflict,
            "first_player": mine.first_player if mine.HasField("first_player") else None,
        }
        if mine.data_pack_toml:
            if len(mine.data_pack_toml) > MAX_PACK_TEXT:
                raise ConversionError(f"data_pack_toml is longer than {MAX_PACK_TEXT} characters")
            out["data_pack_toml"] = mine.data_pack_toml  # the engine checks it and its digest
            if mine.data_pack:
                out["data_pack"] = mine.data_pack
        else:
            out["data_pack"] = packs.resolve(mine.data_pack)
        return out

    def options_to_pb(
        self, game_options: Mapping[str, Any], out: gp.GameOptions, full: bool = False
    ) -> None:
        mine = out.fire_and_axe
        mine.SetInParent()
        mine.settle_region_block = (
            fa.FIRE_AND_AXE_SETTLE_BLOCK_ANY
            if game_options.get("settle_region_block") == "any"
            else fa.FIRE_AND_AXE_SETTLE_BLOCK_ALL
        )
        mine.rune_timing = (
            fa.FIRE_AND_AXE_RUNE_TIMING_ANY_TIME
            if game_options.get("rune_timing") == "any_time"
            else fa.FIRE_AND_AXE_RUNE_TIMING_OWN_TURN
        )
        mine.no_conflict = bool(game_options.get("no_conflict", False))
        first = game_options.get("first_player")
        if isinstance(first, int) and not isinstance(first, bool):
            mine.first_player = first
        digest = game_options.get("data_pack")
        if isinstance(digest, str):
            mine.data_pack = digest
            board = board_of(digest)
            if board is not None:
                mine.pack.CopyFrom(pack_info(board.pack))
        text = game_options.get("data_pack_toml")
        if full and isinstance(text, str):
            mine.data_pack_toml = text

    # -- actions -------------------------------------------------------------------------

    def action_from_pb(self, message: gp.Action) -> Action:
        return actions.action_from_pb(message)

    def action_to_pb(self, action: Any) -> gp.Action:
        return gp.Action(fire_and_axe=actions.action_to_pb(action))

    def action_kind(self, action: Any) -> str:
        return actions.kind_name(action)

    def label(self, state: Any, action: Any) -> str | None:
        """The action with the names of the game's pack ("sail -> Kiev"): the rules'
        ``describe`` has no state, so it names places and Runes by number."""
        if not isinstance(state, GameState):
            return None
        board = state.board
        return describe(Action(*action), board.names, tuple(r.name for r in board.runes))

    # -- views and results ---------------------------------------------------------------

    def fill_view(self, view: Mapping[str, Any], envelope: ViewEnvelope, out: gp.View) -> None:
        views.fill_view(view, envelope, out)

    def fill_result(
        self, result: Result, final_view: Mapping[str, Any], out: gp.GameResult
    ) -> None:
        views.fill_result(result, final_view, out)

    def catalog(self) -> Message:
        return catalog.catalog()

    # -- events --------------------------------------------------------------------------

    def public_facts(self, state: Any) -> None:
        """Nothing: every Fire & Axe event says all it reports (no change is derived)."""
        return None

    def convert_events(
        self,
        raw: Iterable[tuple[int, Mapping[str, Any]]],
        before: Any,
        after: Any,
        by_timeout: bool = False,
        final_view: Mapping[str, Any] | None = None,
    ) -> list[ConvertedEvent]:
        return events.convert_events(raw, by_timeout)


WIRE = FireAndAxeWire()
