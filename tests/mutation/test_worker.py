"""A mutant inside a function is applied in place by swapping code objects: the card texts
registered by decorators (which mutmut skips) see it, and it goes away afterwards."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply, awaiting
from engine.blood_rage.ids import Area, Step
from engine.blood_rage.scenario import from_scenario
from mutation import worker
from mutation.operators import Mutant, mutants

ROOT = Path(__file__).resolve().parents[2]


def _mutant(module: str, scope: str, after: str) -> Mutant:
    path = module.replace(".", "/") + ".py"
    found = [
        m
        for m in mutants((ROOT / path).read_text(encoding="utf-8"), module, path)
        if m.scope == scope and m.after == after
    ]
    assert len(found) == 1, found
    return found[0]


def _hammer_win_glory() -> int:
    """Seat 0 wins a battle with Thor's Hammer: Axes (3), the card's 3 Glory and the
    reward of Elvagar's token (5 Glory with this seed)."""
    state = from_scenario(
        {
            "players": 3,
            "clans": [
                {"hand": ["thors_hammer"], "figures": {"Elvagar": ["leader"]}},
                {"figures": {"Elvagar": ["warrior"]}},
                {},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    while state.step == Step.CALL_TO_BATTLE:
        apply(state, awaiting(state)[0], Action(ActionKind.DECLINE))
    apply(state, 0, Action(ActionKind.BATTLE_CARD, state.clans[0].hand[0]))
    assert state.battle is None and state.clans[1].glory == 0
    return state.clans[0].glory


def test_a_decorated_card_text_is_changed_and_restored():
    assert _hammer_win_glory() == 11
    m = _mutant("engine.blood_rage.card_effects", "_thors_hammer", "4")
    functions = worker._Functions()
    swapped = worker._apply_in_place(functions, m.module, m.index, [list(d) for d in m.defs])
    try:
        assert swapped, "the registered function was found"
        assert _hammer_win_glory() == 12
    finally:
        worker._restore(swapped)
    assert _hammer_win_glory() == 11


def test_every_engine_module_at_any_depth_is_mutated_and_measured(tmp_path: Path):
    """Modules in a game's subfolders are mutated, measured by the coverage run (its
    include pattern) and found by workers, packages (``__init__``) included."""
    from coverage.files import GlobMatcher

    from mutation import ENGINE_FILES
    from mutation.__main__ import engine_mutants

    modules = {m.module for m in engine_mutants(None)}
    assert {"engine.blood_rage.view", "engine.core.rng", "engine.registry"} <= modules
    matcher = GlobMatcher([ENGINE_FILES])
    for rel in ("engine/registry.py", "engine/blood_rage/view.py", "engine/a/b/c/d.py"):
        assert matcher.match(str(ROOT / rel)), rel
    assert not matcher.match(str(ROOT / "server" / "app.py"))
    assert worker.source_file("engine.blood_rage") == ROOT / "engine/blood_rage/__init__.py"
    assert worker.source_file("engine.blood_rage.view") == ROOT / "engine/blood_rage/view.py"


def test_a_package_imported_with_a_mutant_still_finds_its_submodules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """An ``__init__`` mutant (import time): the package is imported changed, and its
    submodules are still found beside it."""
    package = tmp_path / "pkgx"
    package.mkdir()
    (package / "__init__.py").write_text("LIMIT = 3\n")
    (package / "sub.py").write_text("from pkgx import LIMIT\nDOUBLE = LIMIT * 2\n")
    monkeypatch.setattr(worker, "_ROOT", tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    source = (package / "__init__.py").read_text()
    index = next(m.index for m in mutants(source, "pkgx", "pkgx/__init__.py") if m.after == "4")
    finder = worker._MutatedFinder("pkgx", index)
    assert finder.find_spec("pkgx.sub", None) is None, "only the mutated module"
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    try:
        assert importlib.import_module("pkgx.sub").DOUBLE == 8
        assert importlib.import_module("pkgx").__path__ == [str(package)]
    finally:
        for name in ("pkgx", "pkgx.sub"):
            sys.modules.pop(name, None)
