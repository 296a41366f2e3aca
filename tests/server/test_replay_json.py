"""Checking a replay file never fails with a traceback: a document edited by hand (or by
another program) is reported as a problem, whatever its fields hold."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from engine.blood_rage import awaiting, legal_actions, new_game
from engine.blood_rage import result as engine_result
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import Step
from protocol.replay_json import ReplayFormatError, build_document, loads, verify_replay

ODD_VALUES: list[Any] = [None, True, -1, 0, 1, 2**70, 1.5, "", "7", [], [1], {}, {"a": 1}, [{}]]


def _replay(seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    state = new_game(2, seed)
    steps = []
    while state.step != Step.GAME_OVER:
        seat = awaiting(state)[0]
        action = rng.choice(legal_actions(state, seat))
        steps.append((seat, action, False))
        apply_unchecked(state, seat, action)
    finished = engine_result(state)
    assert finished is not None
    options = {"players": 2, "seed": seed, "draft_mode": 0, "first_player": None}
    return build_document(
        "blood_rage",
        "g",
        options,
        "",
        steps,
        state.state_hash(),
        list(finished.scores),
        list(finished.winners),
        list(finished.ranks),
    )


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*path, key))
    elif isinstance(value, list):
        for i in {0, 1, len(value) - 1} & set(range(len(value))):
            out += _paths(value[i], (*path, i))
    return out


def test_a_replay_made_by_the_engine_checks_out() -> None:
    check = verify_replay(_replay())
    assert check.ok, check.problems


def test_a_replay_written_before_there_were_two_games_checks_out() -> None:
    """Files written before the second game named no game and called the scores glory."""
    document = _replay()
    del document["game"]
    document["final_scores"]["glory"] = document["final_scores"].pop("scores")
    check = verify_replay(document)
    assert check.ok, check.problems
    document["final_scores"]["glory"][0] += 1
    check = verify_replay(document)
    assert not check.ok and any("final scores" in p for p in check.problems)


def test_a_replay_of_a_game_this_code_does_not_know_is_refused() -> None:
    document = {**_replay(), "game": "chess"}
    check = verify_replay(document)
    assert not check.ok and "no game 'chess'" in check.problems[0]


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("options", True, "not a replay: options must be an object, not bool"),
        ("actions", 3, "not a replay: actions must be a list, not int"),
        ("final_scores", [], "not a replay: final_scores must be an object, not list"),
        ("options", None, "the game cannot be set up: a replay without a scenario needs"),
    ],
)
def test_fields_of_the_wrong_shape_are_problems(field: str, value: Any, problem: str) -> None:
    document = _replay()
    document[field] = value
    check = verify_replay(document)
    assert not check.ok
    assert check.problems[0].startswith(problem)


def test_mutated_replays_are_reported_never_raised() -> None:
    original = _replay()
    paths = [p for p in _paths(original) if p]
    rng = random.Random(5)
    reported = 0
    for _ in range(1500):
        document = copy.deepcopy(original)
        for _ in range(rng.randint(1, 2)):
            path = rng.choice(paths)
            target: Any = document
            try:
                for key in path[:-1]:
                    target = target[key]
                if isinstance(target, dict) and rng.random() < 0.15:
                    target.pop(path[-1], None)
                else:
                    target[path[-1]] = rng.choice(ODD_VALUES)
            except (KeyError, IndexError, TypeError):
                pass  # an earlier change already replaced part of the path
        try:
            parsed = loads(json.dumps(document))
        except ReplayFormatError:
            continue
        check = verify_replay(parsed)
        if not check.ok:
            assert check.problems
            reported += 1
    assert reported > 500
