"""``python -m server.replay FILE...``: re-play JSON replays with the engine and check them;
and :func:`replay_from_game`, the replay of a game the server holds.

Each file (see docs/replay.md) is re-played decision by decision with the engine (every
decision checked for legality); the final state's hash and the scores must equal what the file
records. Exit status: 0 if every file checks out, 1 if one does not reproduce, 2 if one cannot
be read. The format itself (writing, reading, checking) is ``protocol.replay_json``, shared
with the clients.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from protocol.replay_json import ReplayFormatError, build_document, loads, verify_replay

if TYPE_CHECKING:
    from server.games.game import Game

__all__ = ["main", "replay_from_game"]


def replay_from_game(game: Game) -> dict[str, Any]:
    """The replay of a finished game held by the server (ValueError if it is not finished)."""
    rules = game.rules
    finished = rules.result(game.state)
    if finished is None:
        raise ValueError(f"game {game.id} is not finished: its replay would reveal secrets")
    s = game.settings
    options = {
        "players": s.players,
        "seed": s.seed,
        **s.options,
        "decision_time_limit_ms": s.decision_time_limit_ms,
        "seat_names": list(game.names),
    }
    return build_document(
        s.game,
        game.id,
        options,
        game.record.scenario_json,
        [(e.seat, rules.action_from_code(e.code), e.by_timeout) for e in game.log],
        game.state.state_hash(),
        list(finished.scores),
        list(finished.winners),
        list(finished.ranks),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m server.replay",
        description="Re-play Yggdrasil JSON replays with the engine and check hash and scores.",
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
    parser.add_argument("--json", action="store_true", help="print one JSON line per file")
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    status = 0
    for path in args.files:
        try:
            document = loads(path.read_text(encoding="utf-8"))
        except (OSError, ReplayFormatError) as e:
            print(f"{path}: cannot read: {e}", file=sys.stderr)
            status = max(status, 2)
            continue
        check = verify_replay(document)
        if args.json:
            print(
                json.dumps(
                    {
                        "file": str(path),
                        "ok": check.ok,
                        "actions": check.actions,
                        "final_state_hash": check.final_state_hash,
                        "scores": check.scores,
                        "problems": check.problems,
                        "warnings": check.warnings,
                    }
                )
            )
        elif check.ok:
            print(
                f"{path}: OK: {check.actions} decisions reproduce hash "
                f"{check.final_state_hash}, scores {check.scores}"
            )
        else:
            print(f"{path}: MISMATCH after {check.actions} decisions", file=sys.stderr)
        for problem in check.problems:
            print(f"  problem: {problem}", file=sys.stderr)
        for warning in check.warnings:
            print(f"  warning: {warning}", file=sys.stderr)
        if not check.ok:
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
