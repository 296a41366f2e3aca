"""The packages keep to their layers (docs/architecture.md draws them):

* ``engine`` imports the standard library and itself only; ``engine.core`` (the contract)
  nothing of a game; a game's rules (``engine/<game>/``) ``engine.core`` and their own folder;
* ``protocol`` (what server and clients share) imports neither ``server`` nor ``clients``;
* ``clients`` never import ``server`` (a frontend or bot ships without the server);
* ``envs`` (the learning environments, an optional extra) imports neither ``server`` nor
  anything that imports ``envs`` back: no other layer imports ``envs``;
* no module outside a game's own folders (``engine/<game>``, ``protocol/<game>``,
  ``clients/<game>``, ``envs/<game>``) imports one of them: everything else reaches a game
  through the registry (``engine.registry``) and the contracts (:data:`GAME_FOLDERS`);
* inside ``server``, each room imports only the rooms below it (:data:`SERVER_ROOMS`):
  operations and stores know nothing of games, the hosted games know nothing of the API or the
  cluster, and the API uses a store only through its contract.

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

from engine import registry

ROOT = Path(__file__).resolve().parents[1]


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _is_module(dotted: str) -> bool:
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) of every absolute import in a file; a name imported from a
    package that is itself a module (``from server.stores import chain``) counts as that
    module (``server.stores.chain``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.append((node.lineno, sub if _is_module(sub) else node.module))
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


def test_a_name_imported_from_a_package_counts_as_its_module(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from server.stores import chain\nfrom server.games.game import Game\n"
        "from engine import registry\n",
        encoding="utf-8",
    )
    assert _imported_modules(sample) == [
        (1, "server.stores.chain"),
        (2, "server.games.game"),
        (3, "engine.registry"),
    ]


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    stdlib = sys.stdlib_module_names | {"__future__"}
    assert _offences("engine", lambda top: top == "engine" or top in stdlib) == []


@pytest.mark.parametrize("package", ["clients", "protocol"])
def test_clients_and_protocol_do_not_import_the_server(package: str) -> None:
    assert _modules(package), f"no modules under {package}/"
    forbidden = {"server"} if package == "clients" else {"server", "clients"}
    assert _offences(package, lambda top: top not in forbidden) == []


def test_envs_import_no_server_and_nothing_imports_envs() -> None:
    assert _modules("envs"), "no modules under envs/"
    assert _offences("envs", lambda top: top != "server") == []
    for package in ("engine", "protocol", "server", "clients"):
        assert _offences(package, lambda top: top != "envs") == []


def test_importing_every_client_module_loads_no_server_module() -> None:
    names = [_module_name(path) for path in _modules("clients")]
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


# -- one folder per game per layer -------------------------------------------------------------

GAME_FOLDERS: dict[str, tuple[str, ...]] = {
    game.name: tuple(
        module
        for module in (game.rules.rsplit(".", 1)[0], game.wire, game.client, game.envs)
        if module is not None and _is_module(module)
    )
    for game in registry.GAMES
}
"""Each registered game's folders that exist: its rules, its wire conversion, its clients, its
encoding for the learning environments."""


def _owner(module: str) -> str | None:
    """The game whose folder holds ``module`` (None: outside every game's folders)."""
    for game, folders in GAME_FOLDERS.items():
        if any(module == f or module.startswith(f + ".") for f in folders):
            return game
    return None


def test_every_registered_game_has_its_rules_folder() -> None:
    for game in registry.GAMES:
        assert GAME_FOLDERS[game.name], f"{game.name}: no folder of its own"
        assert _is_module(game.rules), f"{game.name}: no rules module {game.rules}"


GAME_BENCHES: dict[str, tuple[str, str]] = {
    "bench.engine_bench": ("blood_rage", "measures Blood Rage's own engine: its decisions/s"),
    "bench.random_games": ("blood_rage", "Blood Rage's random games, compiled or interpreted"),
    "bench.strength": ("blood_rage", "measures Blood Rage's bots against each other"),
    "bench.floor_server": (
        "blood_rage",
        "the lean floor of SubmitAction stamps a Blood Rage event, as the real path would",
    ),
}
"""Modules outside the games' folders kept on purpose on one game (module -> (game, why)):
benchmarks of that game itself, not of the service."""


def test_only_a_games_own_folders_import_it() -> None:
    """Everything outside ``engine/<game>``, ``protocol/<game>`` and ``clients/<game>`` reaches a
    game through the registry and the contracts; a game's folders import no other game (but
    for :data:`GAME_BENCHES`)."""
    offences = []
    for package in ("engine", "protocol", "server", "clients", "envs", "bench", "localcluster"):
        for path in _modules(package):
            module = _module_name(path)
            here = GAME_BENCHES[module][0] if module in GAME_BENCHES else _owner(module)
            for line, name in _imported_modules(path):
                theirs = _owner(name)
                if theirs is not None and theirs != here:
                    offences.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert offences == []


def test_the_engine_core_names_no_game() -> None:
    offences = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in _modules("engine/core")
        for line, name in _imported_modules(path)
        if name.startswith("engine.") and not name.startswith("engine.core")
    ]
    assert offences == []


# -- the rooms of the server -------------------------------------------------------------------

SERVER_ROOMS: dict[str, frozenset[str]] = {
    "server.ops": frozenset(),
    "server.stores": frozenset({"server.ops"}),
    "server.games": frozenset({"server.ops", "server.stores"}),
    "server.cluster": frozenset({"server.ops", "server.stores", "server.games"}),
    "server.api": frozenset(
        {"server.ops", "server.stores.contract", "server.games", "server.cluster"}
    ),
}
"""Room -> what it may import of the server besides itself (a room or one module of it).
The modules at the top (``server.main``, ``config``, ``probe``, ``replay``) wire the rooms
together and may import any of them."""


def _room(module: str) -> str | None:
    for room in SERVER_ROOMS:
        if module == room or module.startswith(room + "."):
            return room
    return None


def _server_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of a ``server`` module in a file."""
    return [(line, name) for line, name in _imported_modules(path) if name.startswith("server.")]


@pytest.mark.parametrize("room", sorted(SERVER_ROOMS))
def test_each_server_room_imports_only_the_rooms_below_it(room: str) -> None:
    allowed = SERVER_ROOMS[room]
    folder = ROOT.joinpath(*room.split("."))
    assert (folder / "__init__.py").exists(), f"{room} is not a package"
    offences = []
    for path in sorted(folder.rglob("*.py")):
        for line, name in _server_imports(path):
            if name == room or name.startswith(room + "."):
                continue
            if not any(name == a or name.startswith(a + ".") for a in allowed):
                offences.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert offences == []


def test_every_server_module_is_in_a_room_or_wires_them() -> None:
    top = {"server", "server.__main__", "server.main", "server.config", "server.probe"}
    top.add("server.replay")
    loose = [
        name
        for name in map(_module_name, _modules("server"))
        if _room(name) is None and name not in top
    ]
    assert loose == []


def test_the_room_rule_reads_server_imports(tmp_path: Path) -> None:
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


# -- no circles ----------------------------------------------------------------------------------


def _import_graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (type-only and lazy imports included)."""
    ours = ("engine", "protocol", "server", "clients", "envs")
    graph: dict[str, set[str]] = {}
    for package in ours:
        for path in _modules(package):
            module = _module_name(path)
            graph[module] = {
                name
                for _, name in _imported_modules(path)
                if name.split(".")[0] in ours and name != module
            }
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_ours_imports_itself_back_through_others() -> None:
    """A hosted game's collaborators get values or a narrow protocol, not the ``Game`` that
    holds them: no circle of imports anywhere (type-only imports count)."""
    assert _cycles(_import_graph()) == []
