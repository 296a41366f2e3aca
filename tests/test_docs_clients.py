"""docs/clients.md points client developers at tests and files of this repository: each one
it names must exist (a renamed test would otherwise leave the conformance checklist pointing
nowhere)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "clients.md"
# tests/x/test_y.py or tests/x/test_y.py::test_name
TEST_REF = re.compile(r"(tests/[\w/]+\.py)(?:::(\w+))?")
FILE_REF = re.compile(r"`((?:clients|scripts|proto)/[\w./-]+\.(?:py|ts|go|proto|sh|mod))`")


def test_every_test_the_checklist_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    refs = TEST_REF.findall(text)
    assert len(refs) >= 10
    for path, name in refs:
        source = ROOT / path
        assert source.is_file(), f"docs/clients.md names {path}, which does not exist"
        if name:
            assert re.search(rf"def {name}\(", source.read_text(encoding="utf-8")), (
                f"docs/clients.md names {path}::{name}, which does not exist"
            )


def test_every_file_it_names_exists() -> None:
    files = FILE_REF.findall(DOC.read_text(encoding="utf-8"))
    assert "clients/go/example/random_bot/main.go" in files
    for path in files:
        assert (ROOT / path).is_file(), f"docs/clients.md names {path}, which does not exist"


def test_the_resync_rule_it_states_is_the_servers() -> None:
    """docs/clients.md tells a client when a resync comes in the middle of a stream; that rule
    lives in server.api.service (_messages): a watcher that is only behind gets every event (no
    MAX_BACKLOG), a resync comes only for events no longer kept (DEFAULT_EVENT_CAP). If the
    server brings back a backlog limit or changes the cap, this fails until the paragraph
    says so."""
    from server.api import service

    text = " ".join(DOC.read_text(encoding="utf-8").split())
    start = text.index("**A resync in the middle of a stream.**")
    paragraph = text[start : text.index("**", start + 40)]
    assert not hasattr(service, "MAX_BACKLOG") and "MAX_BACKLOG" not in paragraph, (
        "server/api/service.py resyncs a watcher for being behind (MAX_BACKLOG): docs/clients.md "
        "('A resync in the middle of a stream') says every event comes; rewrite it from "
        "server.api.service._messages"
    )
    assert "still gets every event" in paragraph
    caps = {
        int(m.group(1).replace("_", ""))
        for path in (ROOT / "server").rglob("*.py")
        for m in re.finditer(r"^DEFAULT_EVENT_CAP = ([\d_]+)", path.read_text(), re.M)
    }
    assert len(caps) == 1, f"DEFAULT_EVENT_CAP defined {len(caps)} times in server/"
    assert f"newest {caps.pop():,} events (`DEFAULT_EVENT_CAP`)" in paragraph


def _go_packages() -> list[str]:
    """GO_PACKAGES of scripts/gen_stubs.sh: what `make go-example` and CI install."""
    script = (ROOT / "scripts" / "gen_stubs.sh").read_text(encoding="utf-8")
    block = re.search(r"^GO_PACKAGES=\(\n(.*?)^\)", script, re.S | re.M)
    assert block, "scripts/gen_stubs.sh has no GO_PACKAGES=( ... ) block"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_go_packages_name_golang_protobuf_1_5() -> None:
    """golang-google-grpc-dev accepts golang/protobuf 1.3 or 1.5 and apt picks 1.3 on a
    machine without either; the stubs then compile and panic on the first RPC. So the build
    and the documented recipe name the 1.5 package, and the same set."""
    packages = _go_packages()
    assert "golang-github-golang-protobuf-1-5-dev" in packages
    assert not any("protobuf-1-3" in p for p in packages)
    assert {"golang-go", "golang-google-grpc-dev", "golang-google-protobuf-dev"} <= set(packages)
    text = DOC.read_text(encoding="utf-8").replace("\\\n", " ")
    recipe = re.search(r"apt-get install ([\w\s.-]+?)\n", text)
    assert recipe, "docs/clients.md has no apt-get install line for Go"
    assert sorted(recipe.group(1).split()) == sorted(packages)
