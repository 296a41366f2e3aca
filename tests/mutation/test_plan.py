"""Which tests a mutant is run against (``mutation.runner.plan``): an import-time mutant of a
game meets every test that runs a line of that game, and no other; one of the shared engine
code meets every test."""

from __future__ import annotations

from mutation.operators import Mutant
from mutation.runner import Coverage, plan


def _import_mutant(path: str) -> Mutant:
    module = path.removesuffix(".py").replace("/", ".")
    return Mutant(
        module=module,
        path=path,
        index=0,
        line=1,
        end_line=1,
        scope="",
        defs=(),
        at_import=True,
        statement="X = 1",
        before="1",
        after="0",
    )


COVERAGE = Coverage(
    # 0 runs Blood Rage, 1 Fire & Axe, 2 both, 3 only the shared core, 4 (a real file) runs
    # no engine line but imports Blood Rage's enums; fastest first: 4, 3, 2, 1, 0
    tests=[
        ("t_br", 0.4),
        ("t_fae", 0.3),
        ("t_both", 0.2),
        ("t_core", 0.1),
        ("tests/engine/test_numbering.py::t_numbers", 0.05),
    ],
    lines={
        "engine/blood_rage/flow.py": {10: [0, 2]},
        "engine/fire_and_axe/flow.py": {10: [1], 11: [2]},
        "engine/core/rng.py": {5: [0, 1, 2, 3]},
    },
    import_lines={},
)


def _tests_of(path: str) -> list[str] | str:
    jobs, known = plan([_import_mutant(path)], COVERAGE, {})
    if known:
        return known[0].status
    return [COVERAGE.tests[t][0] for t in jobs[0].tests]


NUMBERS = "tests/engine/test_numbering.py::t_numbers"


def test_a_games_import_time_mutant_meets_the_tests_that_run_or_import_that_game():
    assert _tests_of("engine/fire_and_axe/ids.py") == ["t_both", "t_fae"]
    assert _tests_of("engine/blood_rage/ids.py") == [NUMBERS, "t_both", "t_br"]


def test_a_shared_modules_import_time_mutant_meets_every_test():
    every = [NUMBERS, "t_core", "t_both", "t_fae", "t_br"]
    assert _tests_of("engine/core/rng.py") == every
    assert _tests_of("engine/registry.py") == every


def test_a_game_no_test_runs_is_not_covered():
    assert _tests_of("engine/third_game/ids.py") == "not covered"
