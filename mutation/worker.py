"""A pytest session that runs tests against mutants, in a process of its own.

:func:`serve` is the target of a process forked by the runner's fork server (which has
pytest and its plugins imported already, and not the engine). It runs ``pytest.main`` with
this module as a plugin: after collection, instead of running the tests once, the session
reads jobs from its connection (a mutant and the node ids of the tests to run) and answers
each with whether a test failed (the mutant is killed) and which.

A mutant inside a function is applied in place: the module is compiled with the change
(``mutation.operators.mutated_tree``, line numbers kept) and the ``__code__`` of every live
function object of the changed function, and of the functions around it, is swapped for the
changed code, so that the card texts registered by decorators, the battle stages built by a
factory and every ``from x import f`` see the mutant; the original code goes back after the
job. A mutant of code that runs at import (module level, decorators, tables built by
functions) cannot be applied that way: its process imports that module already changed
(``import_mutant``), for a single job.

Each test gets a time limit (a test that runs that long fails: a mutant that loops for ever
is killed); the runner also kills a worker that stops answering.
"""

from __future__ import annotations

import ast
import functools
import gc
import importlib.abc
import importlib.machinery
import os
import signal
import sys
import time
import types
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from mutation.hypothesis_profile import use_fixed_examples
from mutation.operators import iter_code, mutated_tree

_ROOT = Path(__file__).resolve().parents[1]


class Hung(BaseException):
    """Raised inside a test that ran past its time limit. Not an ``Exception``: code that
    catches those (Hypothesis replays a failing example to shrink it) must not swallow it;
    pytest reports it as the test's failure."""


# -- a module imported with a mutant ----------------------------------------------------------


class _MutatedLoader(importlib.abc.Loader):
    def __init__(self, tree: ast.Module, filename: str) -> None:
        self.tree = tree
        self.filename = filename

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        module.__file__ = self.filename
        exec(compile(self.tree, self.filename, "exec"), module.__dict__)


class _MutatedFinder(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, index: int) -> None:
        self.name = name
        self.index = index

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        file = source_file(fullname)
        filename = str(file)
        tree = mutated_tree(file.read_text(encoding="utf-8"), filename, self.index)
        spec = importlib.machinery.ModuleSpec(
            fullname, _MutatedLoader(tree, filename), origin=filename
        )
        if file.name == "__init__.py":  # a package: its submodules are found beside it
            spec.submodule_search_locations = [str(file.parent)]
        return spec


def source_file(module: str) -> Path:
    """The file of an engine module: ``engine/a/b.py``, or ``engine/a/b/__init__.py`` for a
    package, at any depth."""
    base = _ROOT / module.replace(".", "/")
    package = base / "__init__.py"
    return package if package.is_file() else base.with_suffix(".py")


# Set by serve() before the session starts.
_channel: Connection | None = None
_import_mutant = ""


def serve(channel: Connection, import_mutant: str, args: list[str]) -> None:
    """Run a worker session (the target of a forked process): pytest with ``args``."""
    global _channel, _import_mutant
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    _channel, _import_mutant = channel, import_mutant
    if import_mutant:
        name, _, index = import_mutant.partition(":")
        sys.meta_path.insert(0, _MutatedFinder(name, int(index)))
    use_fixed_examples()
    code = pytest.main(args, plugins=[sys.modules[__name__]])
    channel.send({"exit": int(code)})  # reached only if the session never served (no tests)


# -- a function mutant applied in place -------------------------------------------------------


class _Functions:
    """The live function objects of the engine's modules, by (qualname, first line)."""

    def __init__(self) -> None:
        self.by_module: dict[str, dict[tuple[str, int], list[types.FunctionType]]] = {}
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType) and _engine(obj.__module__):
                code = obj.__code__
                key = (code.co_qualname, code.co_firstlineno)
                self.by_module.setdefault(obj.__module__, {}).setdefault(key, []).append(obj)
        self.caches = [
            obj
            for obj in gc.get_objects()
            if isinstance(obj, functools._lru_cache_wrapper)
            and _engine(getattr(obj, "__module__", None))
        ]

    def clear_caches(self) -> None:
        for cache in self.caches:
            cache.cache_clear()


def _engine(module: object) -> bool:
    return isinstance(module, str) and (module == "engine" or module.startswith("engine."))


def _apply_in_place(
    functions: _Functions, module: str, index: int, defs: list[list[Any]]
) -> list[tuple[types.FunctionType, types.CodeType]]:
    path = source_file(module)
    filename = str(path)
    tree = mutated_tree(path.read_text(encoding="utf-8"), filename, index)
    code = compile(tree, filename, "exec")
    changed = {
        (c.co_qualname, c.co_firstlineno): c
        for c in iter_code(code)
        if isinstance(c, types.CodeType)
    }
    live = functions.by_module.get(module, {})
    swapped: list[tuple[types.FunctionType, types.CodeType]] = []
    try:
        for qualname, first in defs:
            key = (qualname, first)
            for fn in live.get(key, []):
                swapped.append((fn, fn.__code__))
                fn.__code__ = changed[key]
        if not swapped:  # the mutant would silently survive: a fault of the tool
            raise LookupError(f"no live function {defs[-1][0]} (line {defs[-1][1]}) in {module}")
    except BaseException:
        _restore(swapped)
        raise
    return swapped


def _restore(swapped: list[tuple[types.FunctionType, types.CodeType]]) -> None:
    for fn, original in reversed(swapped):
        fn.__code__ = original


# -- running tests ----------------------------------------------------------------------------


_alarms = 0  # how many times the current test's time limit fired


def _on_alarm(signum: int, frame: types.FrameType | None) -> None:
    global _alarms
    _alarms += 1
    raise Hung("the test ran past its time limit")


def _run(items: list[tuple[pytest.Item, float]]) -> tuple[str, str, int]:
    """Run the items (each with its time limit) until one fails: ("killed", node id, tests
    run) or ("survived", "", tests run)."""
    global _alarms
    for n, (item, limit_s) in enumerate(items, 1):
        _alarms = 0
        # Again every second after the limit, should something still swallow the first.
        signal.setitimer(signal.ITIMER_REAL, limit_s, 1.0)
        try:
            reports = runtestprotocol(item, nextitem=None, log=False)
        except Hung:
            return "killed", item.nodeid + " (time limit)", n
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if _alarms:
            return "killed", item.nodeid + " (time limit)", n
        if any(r.failed for r in reports):
            return "killed", item.nodeid, n
    return "survived", "", len(items)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool:
    channel = _channel
    assert channel is not None, "mutation.worker runs under serve()"
    signal.signal(signal.SIGALRM, _on_alarm)
    items = {item.nodeid: item for item in session.items}
    functions = _Functions()
    channel.send({"ready": True, "collected": len(items), "errors": session.testsfailed})
    while True:
        try:
            job: dict[str, Any] = channel.recv()
        except EOFError:
            return True
        started = time.perf_counter()
        if session.testsfailed:  # the mutant breaks the import of a test module
            channel.send({"id": job["id"], "status": "killed", "by": "collection error", "s": 0})
            continue
        chosen = [(items[n], limit) for n, limit in job["tests"] if n in items]
        swapped: list[tuple[types.FunctionType, types.CodeType]] = []
        try:
            if not _import_mutant:
                swapped = _apply_in_place(functions, job["module"], job["index"], job["defs"])
        except Exception as exc:  # the harness could not apply it: say so, count nothing
            _restore(swapped)
            channel.send({"id": job["id"], "status": "error", "by": repr(exc), "n": 0, "s": 0})
            continue
        try:
            functions.clear_caches()
            status, by, n = _run(chosen)
        finally:
            _restore(swapped)
            functions.clear_caches()
        seconds = time.perf_counter() - started
        channel.send({"id": job["id"], "status": status, "by": by, "n": n, "s": seconds})
