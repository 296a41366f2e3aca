"""Run every mutant of ``engine/`` against the tests that reach it, on a few processes.

1. Coverage (``mutation.collect``): the test paths run once with line coverage per test; the
   result is cached in ``.mutation/`` under a hash of the engine's and the tests' sources.
   The tests must pass without mutants, or nothing is run.
2. Each mutant is matched with the tests that ran its lines, fastest first (tests that already
   killed a mutant of the same function go first); a mutant no test reaches is "not covered".
   A mutant of code that runs at import is run against every test that runs a line of its
   game (every test, for the engine's shared code).
3. Workers (``mutation.worker``, one pytest process per job slot) apply function mutants in
   place, one after the other, and stop at the first failing test. A mutant of import-time
   code gets a fresh worker that imports the changed module. A test that runs past its time
   limit fails (the mutant is killed); a worker that stops answering is killed and replaced.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import multiprocessing.context
import os
import queue
import subprocess
import sys
import threading
import time
import types
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mutation.operators import Mutant, iter_code

ROOT = Path(__file__).resolve().parents[1]
CACHE_DIR = ROOT / ".mutation"
WORKER_ARGS = ["-q", "-p", "no:cacheprovider", "--assert=plain", "--tb=no"]
# A test may run this many times its duration without mutants (plus a floor) under a mutant;
# past that it fails (the mutant loops, or is far slower: killed).
TEST_LIMIT_FACTOR = 10.0
TEST_LIMIT_FLOOR_S = 5.0
START_LIMIT_S = 120.0  # a worker's start-up and collection
# A worker is replaced after this many mutants, so that whatever a mutant may have left
# behind in module state (nothing should) cannot pile up.
JOBS_PER_WORKER = 150
PROGRESS = CACHE_DIR / "last-run.jsonl"  # one line per outcome, as they come
RECENT_KILLERS = 6


@dataclass
class Coverage:
    tests: list[tuple[str, float]]  # node id, seconds; in run order
    lines: dict[str, dict[int, list[int]]]  # file -> line -> test indexes
    import_lines: dict[str, set[int]]


@dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed | survived | not covered | equivalent
    by: str = ""
    seconds: float = 0.0
    reason: str = ""  # equivalent: why
    tests: int = 0  # how many tests ran


@dataclass
class _Job:
    mutant: Mutant
    tests: list[int]  # test indexes, in the order to run them
    import_mode: bool


@dataclass
class _Stats:
    """Which tests killed mutants, per group (a function, or a module for import-time
    mutants): the most recent killers first (mutants run in line order, so the last ones
    are the neighbours'), then the most frequent."""

    killers: dict[str, Counter[int]] = field(default_factory=dict)
    recent: dict[str, list[int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def first(self, group: str, among: set[int]) -> list[int]:
        with self.lock:
            recent = [t for t in self.recent.get(group, []) if t in among]
            common = [t for t, _ in self.killers.get(group, Counter()).most_common()]
        out: list[int] = []
        for t in [*recent, *common]:
            if t in among and t not in out:
                out.append(t)
        return out

    def killed_by(self, group: str, test: int) -> None:
        with self.lock:
            self.killers.setdefault(group, Counter())[test] += 1
            recent = self.recent.setdefault(group, [])
            if test in recent:
                recent.remove(test)
            recent.insert(0, test)
            del recent[RECENT_KILLERS:]


def _sources_hash(test_paths: list[str]) -> str:
    digest = hashlib.sha256()
    files = sorted((ROOT / "engine").rglob("*.py"))
    for path in test_paths:
        base = ROOT / path
        files.extend(sorted(base.rglob("*.py")) if base.is_dir() else [base])
    files.extend(sorted((ROOT / "tests").glob("*.py")))
    files.extend(sorted((ROOT / "mutation").glob("*.py")))
    files.append(ROOT / "pyproject.toml")
    for f in files:
        digest.update(f.relative_to(ROOT).as_posix().encode())
        digest.update(f.read_bytes())
    digest.update(" ".join(test_paths).encode())
    return digest.hexdigest()[:16]


def measure_coverage(test_paths: list[str], log: Any) -> Coverage:
    """Line coverage per test (cached); raises SystemExit if the tests fail as they are."""
    CACHE_DIR.mkdir(exist_ok=True)
    out = CACHE_DIR / f"coverage-{_sources_hash(test_paths)}.json"
    if not out.exists():
        log(f"measuring which test runs which line ({' '.join(test_paths)}) ...")
        started = time.perf_counter()
        env = dict(os.environ, MUTATION_COVERAGE_OUT=str(out) + ".tmp")
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", *WORKER_ARGS, "-p", "mutation.collect", *test_paths],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
            raise SystemExit("the tests fail without any mutant: fix them first")
        Path(str(out) + ".tmp").replace(out)
        log(f"  done in {time.perf_counter() - started:.0f} s")
    raw = json.loads(out.read_text(encoding="utf-8"))
    if raw["failed"]:
        raise SystemExit("the tests fail without any mutant: fix them first")
    return Coverage(
        tests=[(n, float(s)) for n, s in raw["tests"]],
        lines={f: {int(k): v for k, v in d.items()} for f, d in raw["lines"].items()},
        import_lines={f: set(v) for f, v in raw["import_lines"].items()},
    )


def _readers() -> dict[str, set[tuple[str, int]]]:
    """name -> the (file, line) of every line of every engine function that is called so or
    names it (a global, an attribute): the code that reads a table or runs a function."""
    index: dict[str, set[tuple[str, int]]] = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        module = compile(path.read_text(encoding="utf-8"), rel, "exec")
        for code in iter_code(module):
            if code is module or not isinstance(code, types.CodeType):
                continue
            lines = {(rel, line) for _, _, line in code.co_lines() if line}
            for name in {*code.co_names, code.co_name}:
                index.setdefault(name, set()).update(lines)
    return index


def _package(path: str) -> str:
    """The game package a file belongs to (``engine/fire_and_axe``), or "" for the engine's
    shared code (``engine/core``, ``engine/registry.py``), which every game runs."""
    parts = path.split("/")
    if len(parts) > 2 and parts[0] == "engine" and parts[1] != "core":
        return "/".join(parts[:2])
    return ""


def _package_reach(coverage: Coverage) -> dict[str, set[int]]:
    """package -> the tests that ran at least one line of it, or whose file imports it.

    A mutant of a game's import-time code (a table, a constant, a class body) changes nothing
    for a test that neither runs a line of that game nor imports it: no other package imports
    a game's folder (``tests/test_import_boundaries.py``), so such a test cannot see the
    change. (A test of pure data — an enum's numbers — runs no line of the game but imports
    it: its file names the package.) Leaving the others out of the mutant's fresh worker can
    only turn a kill into a survival, never the reverse — the score stays a lower bound — and
    it spares every surviving import-time mutant of one game the other game's whole suite."""
    out: dict[str, set[int]] = {}
    for path, lines in coverage.lines.items():
        package = _package(path)
        if package:
            seen = out.setdefault(package, set())
            for tests in lines.values():
                seen.update(tests)
    files: dict[str, str] = {}
    for test, (nodeid, _) in enumerate(coverage.tests):
        file = nodeid.split("::")[0]
        if file not in files:
            source = ROOT / file
            files[file] = source.read_text(encoding="utf-8") if source.is_file() else ""
        for package, seen in out.items():
            if package.replace("/", ".") in files[file]:
                seen.add(test)
    return out


def plan(
    mutants: list[Mutant], coverage: Coverage, equivalent: dict[str, str]
) -> tuple[list[_Job], list[Outcome]]:
    """The jobs to run, and the outcomes known without running (equivalent, not covered)."""
    jobs: list[_Job] = []
    known: list[Outcome] = []
    by_speed = sorted(range(len(coverage.tests)), key=lambda i: coverage.tests[i][1])
    readers = _readers()
    reach = _package_reach(coverage)
    for m in mutants:
        if m.key in equivalent:
            known.append(Outcome(m, "equivalent", reason=equivalent[m.key]))
            continue
        span = range(m.line, m.end_line + 1)
        imported = coverage.import_lines.get(m.path, set())
        if m.at_import or any(line in imported for line in span):
            # Every test that can see the change runs; first those reaching the code that
            # reads what the statement defines (a table, a registered card text), fastest first.
            near: set[int] = set()
            for name in m.defines:
                for path, line in readers.get(name, ()):
                    near.update(coverage.lines.get(path, {}).get(line, ()))
            package = _package(m.path)
            seen = reach.get(package, set()) if package else None
            pool = [t for t in by_speed if seen is None or t in seen]
            if not pool:
                known.append(Outcome(m, "not covered"))
                continue
            first = [t for t in pool if t in near]
            jobs.append(_Job(m, first + [t for t in pool if t not in near], True))
            continue
        lines = coverage.lines.get(m.path, {})
        reached = sorted({t for line in span for t in lines.get(line, [])})
        if not reached:
            known.append(Outcome(m, "not covered"))
            continue
        reached.sort(key=lambda i: coverage.tests[i][1])
        jobs.append(_Job(m, reached, False))
    return jobs, known


# Imported once by the fork server, so that each worker starts without importing them.
_PRELOAD = ["mutation.worker", "pytest", "_pytest.runner", "hypothesis", "pytest_asyncio"]


def fork_context() -> multiprocessing.context.ForkServerContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    return context


class _Worker:
    """One worker session (``mutation.worker.serve``) in a process forked by the fork
    server, talked to through a pipe."""

    def __init__(
        self,
        context: multiprocessing.context.ForkServerContext,
        test_paths: list[str],
        import_mutant: str,
        registry: set[_Worker],
        lock: threading.Lock,
    ) -> None:
        from mutation import worker

        self.conn, child = context.Pipe()
        self.proc = context.Process(
            target=worker.serve, args=(child, import_mutant, [*WORKER_ARGS, *test_paths])
        )
        self._registry, self._lock = registry, lock
        with lock:
            registry.add(self)
        self.proc.start()
        child.close()
        first = self.read(START_LIMIT_S)
        self.ready = first if first is not None and first.get("ready") else None

    def read(self, timeout_s: float) -> dict[str, Any] | None:
        """The next answer, or None if the worker ended or took longer than ``timeout_s``."""
        try:
            if not self.conn.poll(timeout_s):
                return None
            answer: dict[str, Any] = self.conn.recv()
        except (EOFError, OSError):
            return None
        return answer

    def send(self, payload: dict[str, Any]) -> bool:
        try:
            self.conn.send(payload)
        except (BrokenPipeError, OSError):
            return False
        return True

    def alive(self) -> bool:
        return self.proc.is_alive()

    def stop(self) -> None:
        self.conn.close()
        self.proc.join(10)
        if self.proc.is_alive():
            self.kill()
        with self._lock:
            self._registry.discard(self)

    def kill(self) -> None:
        if self.proc.pid is not None:
            self.proc.kill()
            self.proc.join()
        self.conn.close()
        with self._lock:
            self._registry.discard(self)


class Runner:
    def __init__(self, coverage: Coverage, jobs: int, log: Any) -> None:
        self.coverage = coverage
        # The workers collect the test files the coverage run ran, and no others: a file
        # added (or broken) while a run goes on does not disturb it.
        self.test_paths = sorted({nodeid.split("::")[0] for nodeid, _ in coverage.tests})
        self.slots = max(1, jobs)
        self.log = log
        self.stats = _Stats()
        self._test_index = {nodeid: i for i, (nodeid, _) in enumerate(coverage.tests)}
        self.outcomes: list[Outcome] = []
        self._lock = threading.Lock()
        self._done = 0
        self._total = 0
        self._started = 0.0
        self.failure = ""  # why a slot gave up (the run then stops)
        self._live: set[_Worker] = set()  # workers running now (killed on Ctrl-C)
        self.context = fork_context()

    def run(self, jobs: list[_Job]) -> list[Outcome]:
        # Function mutants first (grouped by module and function, so killers repeat), then
        # the import-time ones.
        ordered = sorted(jobs, key=lambda j: (j.import_mode, j.mutant.module, j.mutant.index))
        todo: queue.Queue[_Job] = queue.Queue()
        for job in ordered:
            todo.put(job)
        self._total = len(ordered)
        self._started = time.monotonic()
        CACHE_DIR.mkdir(exist_ok=True)
        PROGRESS.write_text("", encoding="utf-8")
        threads = [
            threading.Thread(target=self._slot, args=(todo,), daemon=True)
            for _ in range(self.slots)
        ]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.5)
        except BaseException:  # Ctrl-C: stop every worker now, the threads then end
            self.failure = self.failure or "interrupted"
            with self._lock:
                live = list(self._live)
            for worker in live:
                worker.kill()
            raise
        if self.failure:
            raise SystemExit(self.failure)
        return self.outcomes

    @staticmethod
    def _group(job: _Job) -> str:
        m = job.mutant
        return m.module if job.import_mode else f"{m.module}:{m.scope}"

    def _order(self, job: _Job) -> list[tuple[str, float]]:
        """The job's tests in the order to run them, each with its time limit."""
        first = self.stats.first(self._group(job), set(job.tests))
        chosen = set(first)
        rest = [t for t in job.tests if t not in chosen]
        return [(self.coverage.tests[i][0], self._test_limit(i)) for i in [*first, *rest]]

    def _test_limit(self, test: int) -> float:
        return TEST_LIMIT_FLOOR_S + TEST_LIMIT_FACTOR * self.coverage.tests[test][1]

    def _job_limit(self, job: _Job) -> float:
        """How long a worker may take to answer a job before it is killed (every test
        running up to its limit, and some)."""
        return START_LIMIT_S + sum(self._test_limit(t) + 1.0 for t in job.tests)

    def _slot(self, todo: queue.Queue[_Job]) -> None:
        worker: _Worker | None = None
        served = 0
        try:
            while not self.failure:
                try:
                    job = todo.get_nowait()
                except queue.Empty:
                    return
                if job.import_mode:
                    outcome = self._run_fresh(job)
                else:
                    if worker is None:
                        worker, served = self._start_worker(), 0
                    outcome, alive = self._run_on(worker, job)
                    served += 1
                    if not alive:
                        worker.kill()
                        worker = None
                    elif served >= JOBS_PER_WORKER:
                        worker.stop()
                        worker = None
                self._record(job, outcome)
        except BaseException as exc:  # a thread hands its failure over
            self.failure = self.failure or f"{type(exc).__name__}: {exc}"
        finally:
            if worker is not None:
                worker.stop()

    def _new_worker(self, import_mutant: str = "", test_paths: list[str] | None = None) -> _Worker:
        paths = self.test_paths if test_paths is None else test_paths
        return _Worker(self.context, paths, import_mutant, self._live, self._lock)

    def _start_worker(self) -> _Worker:
        worker = self._new_worker()
        if worker.ready is None or worker.ready.get("errors"):
            worker.kill()
            raise SystemExit("a mutation worker could not collect the tests without mutants")
        return worker

    def _payload(self, job: _Job) -> dict[str, Any]:
        m = job.mutant
        return {
            "id": m.ident,
            "module": m.module,
            "index": m.index,
            "defs": [list(d) for d in m.defs],
            "tests": self._order(job),
        }

    def _run_on(self, worker: _Worker, job: _Job) -> tuple[Outcome, bool]:
        job_limit = self._job_limit(job)
        started = time.monotonic()
        if not worker.send(self._payload(job)):
            return Outcome(job.mutant, "killed", "the worker died"), False
        answer = worker.read(job_limit)
        seconds = time.monotonic() - started
        if answer is None or "exit" in answer:
            why = "no answer in time" if worker.alive() else "the worker exited"
            return Outcome(job.mutant, "killed", why, seconds), False
        outcome = Outcome(job.mutant, answer["status"], answer["by"], seconds)
        outcome.tests = int(answer.get("n", 0))
        return outcome, True

    def _run_fresh(self, job: _Job) -> Outcome:
        """A fresh worker imports the changed module. Its start is mostly collection, so it
        collects only the files of the job's tests, and in two goes: first the file of the
        test most likely to fail (the group's last killer, else the fastest test), which
        decides most mutants in a second; then, if the mutant survived that, the others."""
        started = time.monotonic()
        first = [*self.stats.first(self._group(job), set(job.tests)), *job.tests][0]
        lead = self._file(first)
        stages = [
            [t for t in job.tests if self._file(t) == lead],
            [t for t in job.tests if self._file(t) != lead],
        ]
        outcome = Outcome(job.mutant, "survived")
        tests_run = 0
        for tests in stages:
            if not tests:
                continue
            outcome = self._run_fresh_stage(_Job(job.mutant, tests, True))
            tests_run += outcome.tests
            if outcome.status != "survived":
                break
        outcome.tests = tests_run
        outcome.seconds = time.monotonic() - started
        return outcome

    def _file(self, test: int) -> str:
        return self.coverage.tests[test][0].split("::")[0]

    def _run_fresh_stage(self, job: _Job) -> Outcome:
        started = time.monotonic()
        files = sorted({self._file(t) for t in job.tests})
        worker = self._new_worker(job.mutant.ident, files)
        if worker.ready is None:
            ended = not worker.alive() or worker.read(0) is not None
            worker.kill()
            why = "the changed module cannot be imported" if ended else "start-up hung"
            return Outcome(job.mutant, "killed", why, time.monotonic() - started)
        outcome, alive = self._run_on(worker, job)
        if alive:
            worker.stop()
        else:
            worker.kill()
        return outcome

    def _record(self, job: _Job, outcome: Outcome) -> None:
        if outcome.status == "killed" and outcome.by:
            index = self._test_index.get(outcome.by.split(" (")[0], -1)
            if index >= 0:
                self.stats.killed_by(self._group(job), index)
        with self._lock:
            self.outcomes.append(outcome)
            self._done += 1
            done = self._done
            with PROGRESS.open("a", encoding="utf-8") as progress:
                line = {
                    "key": job.mutant.key,
                    "status": outcome.status,
                    "by": outcome.by,
                    "tests": outcome.tests,
                    "s": round(outcome.seconds, 3),
                }
                progress.write(json.dumps(line) + "\n")
        if done % 50 == 0 or done == self._total:
            elapsed = time.monotonic() - self._started
            self.log(f"  {done}/{self._total} mutants run ({elapsed:.0f} s)")
