"""Server settings a game declares through its wire (``protocol.wire.ServerOption``): the
server gives each a flag and a ``YGGDRASIL_*`` variable, checks it when read and hands it to
the wire when it starts (Fire & Axe's ``--data-pack``), without naming any game."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from protocol.fire_and_axe import packs
from protocol.registry import wire
from protocol.wire import ServerOption
from server import config as config_module
from server.config import ServerConfig, build_arg_parser, game_options
from server.main import start_server
from server.ops.metrics import Metrics, new_registry
from tests.fire_and_axe.test_fae_hosting import OTHER_TEXT

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pack_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "copy.toml"
    path.write_text(OTHER_TEXT, encoding="utf-8")
    yield path
    packs.reset()


@pytest.fixture
def bad_pack(tmp_path: Path) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(OTHER_TEXT.replace("format = 1", "format = 9"), encoding="utf-8")
    return path


def test_every_games_options_are_the_servers_too() -> None:
    names = [o.name for o in game_options()]
    assert names == ["data_pack"]  # Blood Rage declares none, Fire & Axe one
    option = game_options()[0]
    assert (option.flag, option.env_var) == ("--data-pack", "YGGDRASIL_DATA_PACK")
    help_text = build_arg_parser().format_help()
    assert "--data-pack FILE" in help_text and "YGGDRASIL_DATA_PACK" in help_text
    assert "blood_rage, fire_and_axe" in help_text


def test_the_flag_and_the_variable_reach_the_settings(pack_file: Path) -> None:
    by_flag = ServerConfig.from_env_and_args(["--data-pack", str(pack_file)], {})
    assert by_flag.game_settings == {"data_pack": str(pack_file)}
    by_env = ServerConfig.from_env_and_args([], {"YGGDRASIL_DATA_PACK": str(pack_file)})
    assert by_env == by_flag
    assert ServerConfig.from_env_and_args([], {}).game_settings == {}
    assert by_flag.settings_for(wire("fire_and_axe")) == {"data_pack": str(pack_file)}
    assert ServerConfig().settings_for(wire("fire_and_axe")) == {"data_pack": ""}
    assert by_flag.settings_for(wire("blood_rage")) == {}


def test_a_bad_pack_stops_the_server_naming_every_problem(
    bad_pack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        ServerConfig.from_env_and_args(["--data-pack", str(bad_pack)], {})
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "--data-pack" in err and "data pack problems" in err and str(bad_pack) in err
    with pytest.raises(ValueError, match="YGGDRASIL_DATA_PACK: data pack problems") as env:
        ServerConfig.from_env_and_args([], {"YGGDRASIL_DATA_PACK": str(bad_pack)})
    assert "format" in str(env.value)
    with pytest.raises(ValueError, match="data_pack: expected one or more files"):
        ServerConfig(game_settings={"data_pack": " : "})
    with pytest.raises(ValueError, match="no game has a server option 'nope'"):
        ServerConfig(game_settings={"nope": "x"})


def test_a_name_taken_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    class Greedy:
        class rules:
            name = "greedy"

        def server_options(self) -> Sequence[ServerOption]:
            return (ServerOption("port", "again", "PORT", str),)

        def configure(self, values: Mapping[str, str]) -> None:
            raise AssertionError("never")

    monkeypatch.setattr(config_module, "all_wires", lambda: [Greedy()])
    game_options.cache_clear()
    try:
        with pytest.raises(ValueError, match="'port' of game greedy is taken"):
            game_options()
    finally:
        game_options.cache_clear()


async def test_the_server_hands_the_settings_to_the_wire_at_start(pack_file: Path) -> None:
    settings = ServerConfig(
        port=0, metrics_port=-1, game_settings={"data_pack": str(pack_file)}
    )
    running = await start_server(settings, metrics=Metrics(new_registry(process_collectors=False)))
    try:
        assert [p.id for p in packs.offered()] == ["demo-invented-v1", "test-copy-of-demo"]
        assert packs.default_digest() == packs.offered()[1].digest
    finally:
        await running.shutdown(0)
    # Another server without the setting offers the demo pack only (what it was started with).
    running = await start_server(
        ServerConfig(port=0, metrics_port=-1),
        metrics=Metrics(new_registry(process_collectors=False)),
    )
    try:
        assert [p.id for p in packs.offered()] == ["demo-invented-v1"]
    finally:
        await running.shutdown(0)


def test_no_server_module_names_a_game() -> None:
    """The server reaches a game's settings through the registry only (the import-boundary
    test checks imports; this checks the words too)."""
    for path in (ROOT / "server").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "fire_and_axe" not in text and "data_pack" not in text, path
