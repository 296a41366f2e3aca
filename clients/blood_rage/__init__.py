"""Blood Rage's client side: its bots (``bots``: heuristic, ISMCTS search and its decoupled
successor) and how the
terminal shows it (``terminal``, drawn by ``render`` and ``screen``), gathered in ``CLIENT``
(``clients.games`` finds it through the registry).

Imports ``clients``' generic modules, ``engine.blood_rage`` (for the bots) and the stubs.
"""

from __future__ import annotations

import argparse
from typing import Any

from clients.blood_rage.terminal import TERMINAL
from clients.bots.base import Bot
from clients.games import ClientKit
from engine.blood_rage.actions import Action
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["CLIENT"]


def _heuristic(arg: str) -> Bot:
    from clients.blood_rage.bots.heuristic import HeuristicBot

    if arg:
        raise ValueError(f"unknown bot 'heuristic:{arg}' (heuristic takes no argument)")
    return HeuristicBot()


def _budget_s(name: str, arg: str) -> float | None:
    """A search bot's time per decision from ``name:MS`` (None: its default)."""
    if not arg:
        return None
    try:
        budget_ms = float(arg)
    except ValueError:
        budget_ms = -1.0
    if budget_ms <= 0:
        raise ValueError(f"{name} budget must be a positive number of ms, not {arg!r}")
    return budget_ms / 1000.0


def _ismcts(arg: str) -> Bot:
    from clients.blood_rage.bots.ismcts import IsmctsBot

    budget = _budget_s("ismcts", arg)
    return IsmctsBot() if budget is None else IsmctsBot(time_budget_s=budget)


def _duct(arg: str) -> Bot:
    from clients.blood_rage.bots.duct import DuctBot

    budget = _budget_s("duct", arg)
    return DuctBot() if budget is None else DuctBot(time_budget_s=budget)


def _legal_fields(code: int) -> dict[str, Any]:
    action = Action.from_code(code)
    return {"kind": action.kind, "args": [action.a, action.b, action.c]}


def _create_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--no-draft", action="store_true", help="first-game variant: no draft")
    group.add_argument(
        "--first-player", type=int, default=None, help="first player seat (default: drawn)"
    )


def _create_options(args: argparse.Namespace, options: gp.GameOptions) -> None:
    mine = options.blood_rage
    mine.draft_mode = br.DRAFT_MODE_NO_DRAFT if args.no_draft else br.DRAFT_MODE_NORMAL
    if args.first_player is not None:
        mine.first_player = args.first_player


CLIENT = ClientKit(
    name="blood_rage",
    terminal=TERMINAL,
    bots={"heuristic": _heuristic, "ismcts": _ismcts, "duct": _duct},
    bots_help="heuristic, ismcts[:budget_ms], duct[:budget_ms]",
    legal_fields=_legal_fields,
    create_arguments=_create_arguments,
    create_options=_create_options,
)
