"""The JSON replay form of a finished game, and its offline verification (docs/replay.md).

A replay is everything that makes the game: which game (``game``, a name of
``engine.registry``; absent in files written before there were two: Blood Rage), its options
(seed included), the starting scenario if any, and the ordered decisions, each as ``seat`` +
the rules' action ``code`` (what is replayed) + a readable ``label`` (for people; not used to
replay). It also records what the replay must reproduce: the rules' hash of the final state
and the final scores. The rules re-play it offline (:func:`verify_replay`,
``python -m server.replay FILE``) to the identical final state.

Two producers give the same document: ``server.replay.replay_from_game`` (on the server, from
a hosted or archived game) and :func:`replay_from_response` (on a client, from a GetReplay
answer). The format lives outside ``server`` and ``clients`` so that both may use it (clients
never import the server).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

from engine import registry
from engine.core.contract import Action, Rules, State
from engine.core.errors import EngineError
from protocol import registry as wires
from protocol.envelopes import action_label
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
# The options every game has; the rest of ``options`` are the game's own (Rules.options).
COMMON_OPTIONS = ("players", "seed", "decision_time_limit_ms", "seat_names")


class ReplayFormatError(ValueError):
    """A document that is not a replay this code reads."""


def build_document(
    game: str,
    game_id: str,
    options: dict[str, Any],
    scenario_json: str,
    steps: list[tuple[int, Action, bool]],
    final_state_hash: str,
    scores: list[int],
    winners: list[int],
    ranks: list[int],
) -> dict[str, Any]:
    """The replay document of a game from its parts (each producer gathers them its way)."""
    wire = wires.wire(game)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game,
        "game_id": game_id,
        "options": options,
        "scenario": json.loads(scenario_json) if scenario_json else None,
        "actions": [
            {
                "seat": seat,
                "code": action.code(),
                "label": action_label(wire, action),
                "by_timeout": by_timeout,
            }
            for seat, action, by_timeout in steps
        ],
        "final_state_hash": final_state_hash,
        "final_scores": {"scores": scores, "winners": winners, "ranks": ranks},
    }


def replay_from_response(
    response: game_service_pb2.GetReplayResponse, game_id: str = ""
) -> dict[str, Any]:
    """The replay from a GetReplay answer (what a client such as the CLI writes to a file).

    ConversionError if a step's action is not a decision of the game."""
    o = response.options
    wire = wires.wire_for_field(o.WhichOneof("game"))
    options = {
        "players": o.player_count,
        "seed": o.seed,
        **wire.options_from_pb(o),
        "decision_time_limit_ms": o.decision_time_limit_ms,
        "seat_names": [seat.name for seat in response.result.seats] or list(o.seat_names),
    }
    seats = sorted(response.result.seats, key=lambda r: r.seat)
    return build_document(
        wire.rules.name,
        game_id,
        options,
        response.scenario_json,
        [(st.seat, wire.action_from_pb(st.action), st.by_timeout) for st in response.steps],
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
    """The outcome of re-playing a replay with the rules."""

    ok: bool
    actions: int  # decisions replayed
    final_state_hash: str
    scores: list[int]
    problems: list[str] = field(default_factory=list)  # why not ok
    warnings: list[str] = field(default_factory=list)  # labels that differ (not fatal)


def _rules(document: dict[str, Any]) -> Rules:
    return registry.rules(str(document.get("game") or registry.DEFAULT))


def _start(rules: Rules, document: dict[str, Any]) -> State:
    scenario = document.get("scenario")
    o = document.get("options")
    own = {k: v for k, v in (o or {}).items() if k not in COMMON_OPTIONS}
    if scenario:
        if own and o is not None:
            # A scenario decides the game; its options are read first for what they may
            # carry that the scenario names (a Fire & Axe pack's text, by its digest). They
            # need not be complete: a scenario decides players and seed.
            with contextlib.suppress(EngineError, KeyError, TypeError, ValueError):
                rules.options(int(o.get("players", 0)), int(o.get("seed", 0)), own)
        return rules.from_scenario(json.dumps(scenario))
    if o is None:
        raise ValueError("a replay without a scenario needs its options")
    return rules.new_game(rules.options(int(o["players"]), int(o["seed"]), own))


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


def _recorded_scores(document: dict[str, Any]) -> dict[str, Any]:
    """The final scores as recorded; files written before there were two games call the
    scores ``glory``."""
    recorded = dict(document.get("final_scores") or {})
    if "scores" not in recorded and "glory" in recorded:
        recorded["scores"] = recorded["glory"]
    return recorded


def verify_replay(document: dict[str, Any]) -> ReplayCheck:
    """Re-play the decisions with the rules (each one checked for legality) and compare the
    final state's hash and the scores with what the document records."""
    problems: list[str] = []
    warnings: list[str] = []
    shape = _shape_problem(document)
    if shape is not None:
        return ReplayCheck(False, 0, "", [], [f"not a replay: {shape}"])
    try:
        rules = _rules(document)
        wire = wires.wire(rules.name)
        state = _start(rules, document)
    except (EngineError, KeyError, TypeError, ValueError) as e:
        return ReplayCheck(False, 0, "", [], [f"the game cannot be set up: {e}"])
    done = 0
    for i, step in enumerate(document.get("actions") or []):
        try:
            seat = int(step["seat"])
            action = rules.action_from_code(int(step["code"]))
            rules.apply(state, seat, action)
        except (EngineError, KeyError, TypeError, ValueError) as e:
            problems.append(f"decision {i} (version {state.version}) does not apply: {e}")
            break
        done += 1
        label = step.get("label")
        if label is not None and label != action_label(wire, action):
            warnings.append(f"decision {i}: label {label!r} is not the rules' description")
    final_hash = state.state_hash()
    finished = rules.result(state)
    scores = list(finished.scores) if finished is not None else []
    if not problems:
        if finished is None:
            problems.append("the decisions do not finish the game")
        if final_hash != document.get("final_state_hash"):
            problems.append(
                f"final state hash {final_hash} differs from the recorded "
                f"{document.get('final_state_hash')}"
            )
        recorded = _recorded_scores(document)
        if finished is not None:
            for name, got in (
                ("scores", list(finished.scores)),
                ("winners", list(finished.winners)),
                ("ranks", list(finished.ranks)),
            ):
                if recorded.get(name) != got:
                    problems.append(
                        f"final {name} {got} differ from the recorded {recorded.get(name)}"
                    )
    return ReplayCheck(not problems, done, final_hash, scores, problems, warnings)
