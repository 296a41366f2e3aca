"""The keys file: what it accepts, what it refuses, and the identities it gives."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from server.api.identity import (
    KeyFileError,
    KeyRing,
    Role,
    anonymous_identity,
    hash_key,
    main,
    peer_address,
)
from server.api.quotas import ANONYMOUS_DEFAULTS, KEY_DEFAULTS


def _ring(tmp_path: Path, text: str, **kwargs: object) -> KeyRing:
    path = tmp_path / "keys.toml"
    path.write_text(text, encoding="utf-8")
    ring = KeyRing(path, **kwargs)  # type: ignore[arg-type]
    ring.load()
    return ring


def test_keys_are_found_by_their_hash_with_role_and_quotas(tmp_path: Path) -> None:
    ring = _ring(
        tmp_path,
        f"""
[defaults]
streams = 7

[[keys]]
name = "runner"
sha256 = "{hash_key("k1")}"
decision_rate = "unlimited"

[[keys]]
name = "boss"
role = "admin"
sha256 = "{hash_key("k2").upper()}"
open_games = 3
""",
    )
    runner = ring.identify("k1")
    assert runner is not None and runner.name == "runner" and runner.role == Role.PLAYER
    assert runner.quota_key == "key:runner" and not runner.anonymous
    assert math.isinf(runner.quotas.decision_rate) and runner.quotas.streams == 7
    assert runner.quotas.open_games == KEY_DEFAULTS.open_games
    boss = ring.identify("k2")
    assert boss is not None and boss.is_admin and boss.quotas.open_games == 3
    assert ring.identify("k3") is None and ring.identify("") is None
    assert ring.names() == ["boss", "runner"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[[keys]]\nname = 'a'\n", "sha256 must be 64 hex digits"),
        (f"[[keys]]\nname = 'a b'\nsha256 = '{'0' * 64}'\n", "name must be"),
        (f"[[keys]]\nname = 'anonymous'\nsha256 = '{'0' * 64}'\n", "name must be"),
        (f"[[keys]]\nname = 'a'\nrole = 'god'\nsha256 = '{'0' * 64}'\n", "role must be"),
        (f"[[keys]]\nname = 'a'\nsha256 = '{'0' * 64}'\nstreams = -1\n", "streams"),
        (f"[[keys]]\nname = 'a'\nsha256 = '{'0' * 64}'\nspeed = 3\n", "unknown quota"),
        (
            f"[[keys]]\nname = 'a'\nsha256 = '{'0' * 64}'\n"
            f"[[keys]]\nname = 'a'\nsha256 = '{'1' * 64}'\n",
            "used twice",
        ),
        (
            f"[[keys]]\nname = 'a'\nsha256 = '{'0' * 64}'\n"
            f"[[keys]]\nname = 'b'\nsha256 = '{'0' * 64}'\n",
            "listed twice",
        ),
        ("[anonymous]\nstreams = 3\n", "unknown table"),
        ("keys = 3\n", "array of tables"),
        ("not toml [", "not valid TOML"),
    ],
)
def test_bad_key_files_are_refused_naming_the_problem(
    tmp_path: Path, text: str, problem: str
) -> None:
    with pytest.raises(KeyFileError, match=problem) as caught:
        _ring(tmp_path, text)
    assert str(tmp_path / "keys.toml") in str(caught.value)


def test_a_missing_file_is_an_error_and_changes_are_noticed(tmp_path: Path) -> None:
    path = tmp_path / "keys.toml"
    ring = KeyRing(path)
    with pytest.raises(KeyFileError, match="cannot read"):
        ring.load()
    path.write_text("", encoding="utf-8")
    ring.load()
    assert not ring.changed()
    path.write_text(f"[[keys]]\nname = 'a'\nsha256 = '{hash_key('x')}'\n", encoding="utf-8")
    assert ring.changed()
    ring.load()
    assert ring.identify("x") is not None


def test_the_legacy_admin_token_is_an_admin_identity() -> None:
    ring = KeyRing(None, admin_token="old-token")
    found = ring.identify("old-token")
    assert found is not None and found.is_admin and found.name == "admin-token"
    assert ring.identify("old-token-") is None
    assert KeyRing(None).identify("old-token") is None


def test_anonymous_callers_are_counted_per_address() -> None:
    assert peer_address("ipv4:10.1.2.3:51234") == "ipv4:10.1.2.3"
    assert peer_address("ipv6:[::1]:5000") == "ipv6:[::1]"
    assert peer_address("unix:/tmp/sock") == "unix:/tmp/sock"
    a = anonymous_identity("ipv4:10.1.2.3:1")
    b = anonymous_identity("ipv4:10.1.2.3:2")
    c = anonymous_identity("ipv4:10.1.2.4:1")
    assert a.quota_key == b.quota_key != c.quota_key
    assert a.anonymous and a.name == "anonymous" and a.quotas == ANONYMOUS_DEFAULTS
    assert a.may_play and not a.is_admin


def test_ipv6_callers_are_counted_per_64() -> None:
    """Issue 26, point 5: one IPv6 host holds a /64, 2^64 addresses; counted per address, each
    would be a fresh anonymous quota."""
    same = [
        anonymous_identity("ipv6:[2001:db8:1:2::1]:5000"),
        anonymous_identity("ipv6:[2001:db8:1:2:ffff:ffff:ffff:ffff]:6000"),
        anonymous_identity("ipv6:[2001:db8:1:2::1]"),  # as an address behind a proxy reads
    ]
    assert {i.quota_key for i in same} == {"anon:ipv6:[2001:db8:1:2::]/64"}
    other = anonymous_identity("ipv6:[2001:db8:1:3::1]:5000")
    assert other.quota_key == "anon:ipv6:[2001:db8:1:3::]/64"
    assert anonymous_identity("ipv6:[::ffff:10.1.2.3]:1").quota_key == "anon:ipv4:10.1.2.3"
    assert anonymous_identity("ipv4:10.1.2.3:1").quota_key == "anon:ipv4:10.1.2.3"


def test_the_key_maker_prints_a_key_and_its_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", "runner", "--role", "ops"]) == 0
    out = capsys.readouterr().out
    key = out.splitlines()[0].rsplit(" ", 1)[1]
    entry = "\n".join(line for line in out.splitlines() if not line.startswith("#"))
    ring = _ring(tmp_path, entry)
    found = ring.identify(key)
    assert found is not None and found.name == "runner" and found.role == Role.OPS
