"""Fire & Axe's client side: its bots (``bots``: the heuristic of ``policy``), how the
terminal shows it (``terminal``, drawn by ``render`` and ``screen``), the options of
``yggdrasil create --game fire_and_axe`` and the data-pack check of ``yggdrasil data
validate``, gathered in ``CLIENT`` (``clients.games`` finds it through the registry).

Imports ``clients``' generic modules, ``engine.fire_and_axe`` (bots, the pack validator) and
the stubs.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from clients.bots.base import Bot
from clients.fire_and_axe.terminal import TERMINAL
from clients.games import ClientKit
from engine.fire_and_axe.actions import Action
from yggdrasil.v1 import fire_and_axe_pb2 as fa
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["CLIENT"]

_SETTLE = {"all": fa.FIRE_AND_AXE_SETTLE_BLOCK_ALL, "any": fa.FIRE_AND_AXE_SETTLE_BLOCK_ANY}
_TIMING = {
    "own_turn": fa.FIRE_AND_AXE_RUNE_TIMING_OWN_TURN,
    "any_time": fa.FIRE_AND_AXE_RUNE_TIMING_ANY_TIME,
}


def _heuristic(arg: str) -> Bot:
    from clients.fire_and_axe.bots.heuristic import HeuristicBot

    if arg:
        raise ValueError(f"unknown bot 'heuristic:{arg}' (heuristic takes no argument)")
    return HeuristicBot()


def _legal_fields(code: int) -> dict[str, Any]:
    action = Action.from_code(code)
    return {"kind": action.kind, "args": [action.a, action.b, action.c]}


def _create_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--data-pack",
        default="",
        metavar="NAME",
        help="the board and cards: 'demo' (INVENTED where the rulebook is silent, not the "
        "published game), a pack the server offers by id or digest (default: the server's)",
    )
    group.add_argument(
        "--data-pack-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="a pack of your own (TOML, docs/fire-and-axe.md), sent whole: needs an admin key",
    )
    group.add_argument(
        "--settle-region-block",
        choices=sorted(_SETTLE),
        default="all",
        help="A2: Settle blocked while all (default) / any other port of the region has a town",
    )
    group.add_argument(
        "--rune-timing",
        choices=sorted(_TIMING),
        default="own_turn",
        help="A8: Runes in their owner's turn only (default) or also in others' turns",
    )
    group.add_argument(
        "--no-conflict", action="store_true", help="F14.1: no Runes with the conflict symbol"
    )
    # Another game may offer the same flag for the same thing (the first player's seat): one
    # flag serves every game that has it.
    if "--first-player" not in group._option_string_actions:
        group.add_argument(
            "--first-player", type=int, default=None, help="first player seat (default: drawn)"
        )


def _create_options(args: argparse.Namespace, options: gp.GameOptions) -> None:
    mine = options.fire_and_axe
    mine.SetInParent()
    mine.data_pack = args.data_pack
    if args.data_pack_file is not None:
        mine.data_pack_toml = Path(args.data_pack_file).read_text(encoding="utf-8")
    mine.settle_region_block = _SETTLE[args.settle_region_block]
    mine.rune_timing = _TIMING[args.rune_timing]
    mine.no_conflict = args.no_conflict
    if getattr(args, "first_player", None) is not None:
        mine.first_player = args.first_player


def _validate_data(path: str, out: TextIO) -> int:
    from engine.fire_and_axe.__main__ import validate_command

    return validate_command(path, out)


CLIENT = ClientKit(
    name="fire_and_axe",
    terminal=TERMINAL,
    bots={"heuristic": _heuristic},
    bots_help="heuristic",
    legal_fields=_legal_fields,
    create_arguments=_create_arguments,
    create_options=_create_options,
    validate_data=_validate_data,
)
