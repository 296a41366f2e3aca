"""The JSON replay form of a finished game, and its offline verification (docs/replay.md).

A replay is everything that makes the game: options (seed included), the starting scenario if
any, and the ordered decisions, each as ``seat`` + the engine's action ``code`` (what is
replayed) + a readable ``label`` (for people; not used to replay). It also records what the
replay must reproduce: the engine's hash of the final state and the final scores. The engine
re-plays it offline (:func:`verify_replay`, ``python -m server.replay FILE``) to the identical
final state.

Two producers give the same document: ``server.replay.replay_from_game`` (on the server, from
a hosted or archived game) and :func:`replay_from_response` (on a client, from a GetReplay
answer). The format lives outside ``server`` and ``clients`` so that both may use it (clients
never import the server).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine.blood_rage import flow
from engine.blood_rage.actions import Action
from engine.blood_rage.ids import DraftMode
from engine.blood_rage.results import result as engine_result
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.setup import new_game
from engine.blood_rage.state import GameState
from engine.core.errors import EngineError
from protocol.codec import action_from_pb, action_label, draft_mode_from_pb
from yggdrasil.v1 import game_service_pb2

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "ReplayCheck",
    "ReplayFormatError",
    "build_document",
    "dumps",
    "loads",
    "replay_from_response",
    "verify_replay",
]

FORMAT = "yggdrasil-replay"
FORMAT_VERSION = 1


class ReplayFormatError(ValueError):
    """A document that is not a replay this code reads."""


def build_document(
    game_id: str,
    options: dict[str, Any],
    scenario_json: str,
    steps: list[tuple[int, Action, bool]],
    final_state_hash: str,
    glory: list[int],
    winners: list[int],
    ranks: list[int],
) -> dict[str, Any]:
    """The replay document of a game from its parts (each producer gathers them its way)."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": "blood_rage",
        "game_id": game_id,
        "options": options,
        "scenario": json.loads(scenario_json) if scenario_json else None,
        "actions": [
            {
                "seat": seat,
                "code": action.code(),
                "label": action_label(action),
                "by_timeout": by_timeout,
            }
            for seat, action, by_timeout in steps
        ],
        "final_state_hash": final_state_hash,
        "final_scores": {"glory": glory, "winners": winners, "ranks": ranks},
    }


def replay_from_response(
    response: game_service_pb2.GetReplayResponse, game_id: str = ""
) -> dict[str, Any]:
    """The replay from a GetReplay answer (what a client such as the CLI writes to a file).

    ConversionError if a step's action is not a Blood Rage decision."""
    o = response.options
    first = o.blood_rage.first_player if o.blood_rage.HasField("first_player") else None
    options = {
        "players": o.player_count,
        "seed": o.seed,
        "draft_mode": draft_mode_from_pb(o.blood_rage.draft_mode),
        "first_player": first,
        "decision_time_limit_ms": o.decision_time_limit_ms,
        "seat_names": [seat.name for seat in response.result.seats] or list(o.seat_names),
    }
    seats = sorted(response.result.seats, key=lambda r: r.seat)
    return build_document(
        game_id,
        options,
        response.scenario_json,
        [(st.seat, action_from_pb(st.action), st.by_timeout) for st in response.steps],
        response.final_state_hash,
        [r.score for r in seats],
        sorted(response.result.winners),
        [r.rank for r in seats],
    )


def dumps(document: dict[str, Any]) -> str:
    """The replay as text: one decision per line, so files diff well."""
    head = {k: v for k, v in document.items() if k != "actions"}
    lines = [json.dumps(a, ensure_ascii=False) for a in document["actions"]]
    body = json.dumps(head, indent=1, ensure_ascii=False)
    joined = ",\n  ".join(lines)
    return body[:-2] + ',\n "actions": [\n  ' + joined + "\n ]\n}\n"


def loads(text: str) -> dict[str, Any]:
    """Parse a replay document (ReplayFormatError if it is not one)."""
    try:
        document = json.loads(text)
    except ValueError as e:
        raise ReplayFormatError(f"not JSON: {e}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ReplayFormatError(f"not a {FORMAT} document")
    if document.get("format_version") != FORMAT_VERSION:
        raise ReplayFormatError(
            f"replay format version {document.get('format_version')!r} is not the "
            f"{FORMAT_VERSION} this code reads"
        )
    return document


@dataclass
class ReplayCheck:
    """The outcome of re-playing a replay with the engine."""

    ok: bool
    actions: int  # decisions replayed
    final_state_hash: str
    glory: list[int]
    problems: list[str] = field(default_factory=list)  # why not ok
    warnings: list[str] = field(default_factory=list)  # labels that differ (not fatal)


def _start(document: dict[str, Any]) -> GameState:
    scenario = document.get("scenario")
    if scenario:
        return from_scenario(scenario)
    o = document.get("options")
    if o is None:
        raise ValueError("a replay without a scenario needs its options")
    first = o.get("first_player")
    return new_game(
        int(o["players"]),
        int(o["seed"]),
        DraftMode(int(o.get("draft_mode", 0))),
        None if first is None else int(first),
    )


_SHAPES = (
    ("options", dict, "an object"),
    ("actions", list, "a list"),
    ("final_scores", dict, "an object"),
)


def _shape_problem(document: dict[str, Any]) -> str | None:
    """What is wrong with the document's top-level fields (a file edited by hand, or by
    another program), or None."""
    for name, kind, what in _SHAPES:
        value = document.get(name)
        if value is not None and not isinstance(value, kind):
            return f"{name} must be {what}, not {type(value).__name__}"
    for i, step in enumerate(document.get("actions") or []):
        if not isinstance(step, dict):
            return f"decision {i} must be an object, not {type(step).__name__}"
    return None


def verify_replay(document: dict[str, Any]) -> ReplayCheck:
    """Re-play the decisions with the engine (each one checked for legality) and compare the
    final state's hash and the scores with what the document records."""
    problems: list[str] = []
    warnings: list[str] = []
    shape = _shape_problem(document)
    if shape is not None:
        return ReplayCheck(False, 0, "", [], [f"not a replay: {shape}"])
    try:
        state = _start(document)
    except (EngineError, KeyError, TypeError, ValueError) as e:
        return ReplayCheck(False, 0, "", [], [f"the game cannot be set up: {e}"])
    done = 0
    for i, step in enumerate(document.get("actions") or []):
        try:
            seat = int(step["seat"])
            action = Action.from_code(int(step["code"]))
            flow.apply(state, seat, action)
        except (EngineError, KeyError, TypeError, ValueError) as e:
            problems.append(f"decision {i} (version {state.version}) does not apply: {e}")
            break
        done += 1
        label = step.get("label")
        if label is not None and label != action_label(action):
            warnings.append(f"decision {i}: label {label!r} is not the engine's description")
    final_hash = state.state_hash()
    finished = engine_result(state)
    glory = list(finished.scores) if finished is not None else [c.glory for c in state.clans]
    if not problems:
        if finished is None:
            problems.append("the decisions do not finish the game")
        if final_hash != document.get("final_state_hash"):
            problems.append(
                f"final state hash {final_hash} differs from the recorded "
                f"{document.get('final_state_hash')}"
            )
        scores = document.get("final_scores") or {}
        if finished is not None:
            for name, got in (
                ("glory", list(finished.scores)),
                ("winners", list(finished.winners)),
                ("ranks", list(finished.ranks)),
            ):
                if scores.get(name) != got:
                    problems.append(
                        f"final {name} {got} differ from the recorded {scores.get(name)}"
                    )
    return ReplayCheck(not problems, done, final_hash, glory, problems, warnings)
