"""Which test runs which line of ``engine/``: a pytest plugin (``-p mutation.collect``).

It measures line coverage with coverage.py, one dynamic context per test (its node id), and
``<import>`` for what runs while the test modules are collected (module-level code, and
functions called at import that build tables or register card texts). At the end it writes
``MUTATION_COVERAGE_OUT`` (JSON): the tests in run order with their durations, and for every
engine file, line -> indexes of the tests that ran it. A mutant then only has to run the
tests that reach its line (see ``mutation.runner``).
"""

from __future__ import annotations

import functools
import gc
import json
import os
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import coverage
import pytest

from mutation import ENGINE_FILES
from mutation.hypothesis_profile import use_fixed_examples

IMPORT_CONTEXT = "<import>"
_ROOT = Path(__file__).resolve().parents[1]
_cov = coverage.Coverage(
    data_file=None,
    include=[ENGINE_FILES],
    config_file=False,
)
_cov.start()
_cov.switch_context(IMPORT_CONTEXT)
use_fixed_examples()
_durations: dict[str, float] = {}
_order: list[str] = []


_caches: list[Any] | None = None


def _clear_engine_caches() -> None:
    """Empty the engine's lru caches (``engine.blood_rage.actions.describe``): a result cached by an
    earlier test would hide from coverage that this test runs the function too."""
    global _caches
    if _caches is None:
        _caches = [
            obj
            for obj in gc.get_objects()
            if isinstance(obj, functools._lru_cache_wrapper)
            and str(getattr(obj, "__module__", "")).startswith("engine")
        ]
    for cache in _caches:
        cache.cache_clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    _clear_engine_caches()
    _cov.switch_context(item.nodeid)
    started = time.perf_counter()
    try:
        return (yield)
    finally:
        _durations[item.nodeid] = time.perf_counter() - started
        _order.append(item.nodeid)
        _cov.switch_context("")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _cov.stop()
    data = _cov.get_data()
    index = {nodeid: i for i, nodeid in enumerate(_order)}
    lines: dict[str, dict[str, list[int]]] = {}
    imported: dict[str, list[int]] = {}
    for filename in sorted(data.measured_files()):
        rel = Path(filename).resolve().relative_to(_ROOT).as_posix()
        by_line = data.contexts_by_lineno(filename)
        lines[rel] = {}
        imported[rel] = []
        for line, contexts in sorted(by_line.items()):
            tests = sorted(index[c] for c in contexts if c in index)
            if tests:
                lines[rel][str(line)] = tests
            if IMPORT_CONTEXT in contexts:
                imported[rel].append(line)
    out: dict[str, Any] = {
        "tests": [[nodeid, round(_durations[nodeid], 6)] for nodeid in _order],
        "failed": session.testsfailed,
        "lines": lines,
        "import_lines": imported,
    }
    Path(os.environ["MUTATION_COVERAGE_OUT"]).write_text(json.dumps(out), encoding="utf-8")
