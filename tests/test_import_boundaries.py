"""The packages keep to their import rules (README, docs/engine.md):

* ``engine`` is pure Python: it imports the standard library and itself, nothing else (no
  server, no clients, no protobuf);
* ``protocol`` (what server and clients share) imports neither ``server`` nor ``clients``;
* ``clients`` never import ``server`` (a frontend or bot ships without the server);
* inside ``server``, the seams between its layers: the stores and the records they share
  never import the hosted game (:data:`SERVER_SEAMS`), and the hosted game and its
  collaborators never import the registry, the service or anything else above them
  (:data:`GAME_LAYER`).

Every ``import`` statement is read from the source, those inside functions too (a lazy import
is still a dependency); a fresh interpreter then imports every client module and checks that
no ``server`` module came along indirectly.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) of every absolute import in a file; a name imported from a
    package itself (``from server import chain``) counts as that module
    (``server.stores.chain``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                is_module = (ROOT.joinpath(*sub.split(".")).with_suffix(".py")).exists()
                found.append((node.lineno, sub if is_module else node.module))
    return found


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level package) of every absolute import in a file."""
    return [(line, name.split(".")[0]) for line, name in _imported_modules(path)]


def _offences(package: str, allowed: Callable[[str], bool]) -> list[str]:
    out = []
    for path in _modules(package):
        for line, top in _imports(path):
            if not allowed(top):
                out.append(f"{path.relative_to(ROOT)}:{line} imports {top}")
    return out


def test_the_rule_reads_imports_inside_functions(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\nfrom . import sibling\n"
        "def f():\n    from server.replay import main\n    import clients.cli as c\n",
        encoding="utf-8",
    )
    assert _imports(sample) == [(1, "os"), (4, "server"), (5, "clients")]


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    stdlib = sys.stdlib_module_names | {"__future__"}
    assert _offences("engine", lambda top: top == "engine" or top in stdlib) == []


@pytest.mark.parametrize("package", ["clients", "protocol"])
def test_clients_and_protocol_do_not_import_the_server(package: str) -> None:
    assert _modules(package), f"no modules under {package}/"
    forbidden = {"server"} if package == "clients" else {"server", "clients"}
    assert _offences(package, lambda top: top not in forbidden) == []


def test_importing_every_client_module_loads_no_server_module() -> None:
    names = [
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in _modules("clients")
    ]
    script = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m == 'server' or m.startswith('server.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert "clients.cli" in names and "clients.tournament" in names


def _server_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of a ``server`` module in a file."""
    return [(line, name) for line, name in _imported_modules(path) if name.startswith("server.")]


# Module -> the only server modules it may import. The store seam is the protocol and its
# records (store_contract); the stores beside it (memory, SQLite, PostgreSQL) build on it and
# on the token and chain hashes, never on the games they store. What a game is outside its
# play (game_record) and why a request is refused (refusal) depend on no server module.
SERVER_SEAMS: dict[str, frozenset[str]] = {
    "server.stores.contract": frozenset(),
    "server.games.record": frozenset(),
    "server.games.refusal": frozenset({"server.ops.interceptors"}),
    "server.stores.memory": frozenset({"server.stores.contract", "server.stores.token_hashes"}),
    "server.stores.sqlite_migration": frozenset(
        {"server.stores.contract", "server.stores.chain", "server.stores.token_hashes"}
    ),
    "server.stores.sqlite_reads": frozenset({"server.stores.contract"}),
    "server.stores.sqlite": frozenset(
        {
            "server.stores.contract",
            "server.stores.sqlite_migration",
            "server.stores.sqlite_reads",
            "server.stores.token_hashes",
        }
    ),
    "server.stores.postgres_migrations": frozenset(
        {"server.stores.contract", "server.stores.chain", "server.stores.token_hashes"}
    ),
    "server.stores.postgres": frozenset(
        {
            "server.stores.contract",
            "server.stores.postgres_migrations",
            "server.stores.chain",
            "server.stores.token_hashes",
            "server.ops.tracing",
        }
    ),
}


@pytest.mark.parametrize("module", sorted(SERVER_SEAMS))
def test_server_layers_keep_their_seams(module: str) -> None:
    path = ROOT / (module.replace(".", "/") + ".py")
    assert path.exists(), f"{module} is not at {path.relative_to(ROOT)}"
    allowed = SERVER_SEAMS[module]
    offences = [f"{module}:{line} imports {name}" for line, name in _server_imports(path)]
    assert [o for o in offences if o.rsplit(" ", 1)[1] not in allowed] == []


def test_the_seam_rule_reads_server_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import server.games.game\nfrom server.stores import chain, token_hashes\n"
        "def f():\n    from server.games.registry import GameRegistry\n",
        encoding="utf-8",
    )
    assert _server_imports(sample) == [
        (1, "server.games.game"),
        (2, "server.stores.chain"),
        (2, "server.stores.token_hashes"),
        (4, "server.games.registry"),
    ]


# The hosted game (server.games.game) and the modules that own parts of it: below the registry,
# the RPC layer, recovery and the cluster, which all build on it and never the other way.
GAME_LAYER = (
    "server.games.game",
    "server.games.event_log",
    "server.games.event_recovery",
    "server.games.decision_events",
    "server.games.decision_checks",
    "server.games.views",
    "server.games.deadlines",
    "server.games.idempotency",
    "server.games.snapshots",
    "server.games.compact",
    "server.games.game_log",
)
ABOVE_THE_GAME = frozenset(
    {
        "server.games.registry",
        "server.api.service",
        "server.api.streams",
        "server.api.play_session",
        "server.games.recovery",
        "server.cluster.ownership",
        "server.cluster.forwarding",
        "server.api.game_list",
        "server.games.abandon",
        "server.main",
        "server.stores.sqlite",
        "server.stores.postgres",
    }
)


@pytest.mark.parametrize("module", GAME_LAYER)
def test_the_game_layer_imports_nothing_above_it(module: str) -> None:
    path = ROOT / (module.replace(".", "/") + ".py")
    assert path.exists(), f"{module} is not at {path.relative_to(ROOT)}"
    offences = [
        f"{module}:{line} imports {name}"
        for line, name in _server_imports(path)
        if name in ABOVE_THE_GAME
    ]
    assert offences == []
