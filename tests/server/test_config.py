"""ServerConfig: defaults < environment < flags, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import ServerConfig


def test_defaults() -> None:
    config = ServerConfig.from_env_and_args([], {})
    assert config == ServerConfig()
    assert config.host == "127.0.0.1"
    assert config.port == 50051
    assert config.metrics_port == 9464 and config.metrics_enabled
    assert config.data_dir == Path("data")
    assert config.admin_token is None and not config.scenario_create_enabled
    assert config.snapshot_every == 50
    assert config.finished_game_retention_s == 600
    assert config.log_level == "INFO"
    assert config.grace_period_s == 5.0
    assert config.max_games == 10000


def test_env_overrides_defaults() -> None:
    env = {
        "YGGDRASIL_HOST": "0.0.0.0",
        "YGGDRASIL_PORT": "0",
        "YGGDRASIL_METRICS_PORT": "-1",
        "YGGDRASIL_DATA_DIR": "/var/lib/ygg",
        "YGGDRASIL_ADMIN_TOKEN": "s3cret",
        "YGGDRASIL_SNAPSHOT_EVERY": "7",
        "YGGDRASIL_FINISHED_GAME_RETENTION_S": "1.5",
        "YGGDRASIL_LOG_LEVEL": "debug",
        "YGGDRASIL_GRACE_PERIOD_S": "0",
        "YGGDRASIL_MAX_GAMES": "12",
        "UNRELATED": "x",
    }
    config = ServerConfig.from_env_and_args([], env)
    assert config == ServerConfig(
        host="0.0.0.0",
        port=0,
        metrics_port=-1,
        data_dir=Path("/var/lib/ygg"),
        admin_token="s3cret",
        snapshot_every=7,
        finished_game_retention_s=1.5,
        log_level="DEBUG",
        grace_period_s=0.0,
        max_games=12,
    )
    assert not config.metrics_enabled
    assert config.scenario_create_enabled


def test_flags_override_env() -> None:
    env = {"YGGDRASIL_PORT": "6000", "YGGDRASIL_HOST": "10.0.0.1", "YGGDRASIL_MAX_GAMES": "3"}
    config = ServerConfig.from_env_and_args(
        ["--port", "7000", "--metrics-port", "0", "--data-dir", "d", "--admin-token", "t"], env
    )
    assert config.port == 7000  # flag wins
    assert config.host == "10.0.0.1"  # env wins over default
    assert config.max_games == 3
    assert config.metrics_port == 0
    assert config.data_dir == Path("d")
    assert config.admin_token == "t"


def test_empty_env_var_counts_as_unset() -> None:
    config = ServerConfig.from_env_and_args([], {"YGGDRASIL_ADMIN_TOKEN": "", "YGGDRASIL_PORT": ""})
    assert config.admin_token is None
    assert config.port == 50051


@pytest.mark.parametrize(
    ("var", "value"),
    [
        ("YGGDRASIL_PORT", "abc"),
        ("YGGDRASIL_PORT", "70000"),
        ("YGGDRASIL_METRICS_PORT", "-2"),
        ("YGGDRASIL_SNAPSHOT_EVERY", "0"),
        ("YGGDRASIL_GRACE_PERIOD_S", "-1"),
        ("YGGDRASIL_FINISHED_GAME_RETENTION_S", "nan"),
        ("YGGDRASIL_LOG_LEVEL", "chatty"),
        ("YGGDRASIL_MAX_GAMES", "1.5"),
        ("YGGDRASIL_HOST", "  "),
    ],
)
def test_bad_env_value_names_the_variable(var: str, value: str) -> None:
    with pytest.raises(ValueError, match=var):
        ServerConfig.from_env_and_args([], {var: value})


def test_bad_env_value_message_shows_the_value() -> None:
    with pytest.raises(ValueError) as caught:
        ServerConfig.from_env_and_args([], {"YGGDRASIL_PORT": "abc"})
    assert str(caught.value) == "YGGDRASIL_PORT: expected an integer, got 'abc'"


def test_bad_flag_is_an_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        ServerConfig.from_env_and_args(["--port", "abc"], {})
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "--port" in err and "expected an integer" in err


def test_unknown_flag_is_an_argparse_error() -> None:
    with pytest.raises(SystemExit):
        ServerConfig.from_env_and_args(["--nope"], {})


def test_same_port_twice_is_rejected() -> None:
    with pytest.raises(SystemExit):
        ServerConfig.from_env_and_args(["--port", "9000", "--metrics-port", "9000"], {})
    with pytest.raises(ValueError, match="both 9000"):
        ServerConfig(port=9000, metrics_port=9000)
    # 0 means "pick a free port" for both, so that is fine.
    assert ServerConfig(port=0, metrics_port=0).port == 0


def test_direct_construction_is_validated_and_frozen() -> None:
    with pytest.raises(ValueError, match="port"):
        ServerConfig(port=-5)
    with pytest.raises(ValueError, match="admin_token"):
        ServerConfig(admin_token="")
    config = ServerConfig(log_level="warn")
    assert config.log_level == "WARNING"
    with pytest.raises(AttributeError):
        config.port = 1  # type: ignore[misc]


def test_admin_token_not_in_repr() -> None:
    config = ServerConfig(admin_token="very-secret-value")
    assert "very-secret-value" not in repr(config)
