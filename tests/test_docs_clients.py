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
    lives in server.service (_messages): a watcher that is only behind gets every event (no
    MAX_BACKLOG), a resync comes only for events no longer kept (DEFAULT_EVENT_CAP). If the
    server brings back a backlog limit or changes the cap, this fails until the paragraph
    says so."""
    from server import service

    text = " ".join(DOC.read_text(encoding="utf-8").split())
    start = text.index("**A resync in the middle of a stream.**")
    paragraph = text[start : text.index("**", start + 40)]
    assert not hasattr(service, "MAX_BACKLOG") and "MAX_BACKLOG" not in paragraph, (
        "server/service.py resyncs a watcher for being behind (MAX_BACKLOG): docs/clients.md "
        "('A resync in the middle of a stream') says every event comes; rewrite it from "
        "server.service._messages"
    )
    assert "still gets every event" in paragraph
    caps = {
        int(m.group(1).replace("_", ""))
        for path in (ROOT / "server").rglob("*.py")
        for m in re.finditer(r"^DEFAULT_EVENT_CAP = ([\d_]+)", path.read_text(), re.M)
    }
    assert len(caps) == 1, f"DEFAULT_EVENT_CAP defined {len(caps)} times in server/"
    assert f"newest {caps.pop():,} events (`DEFAULT_EVENT_CAP`)" in paragraph
