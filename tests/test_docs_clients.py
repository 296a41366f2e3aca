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
