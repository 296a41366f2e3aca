"""The checked-in list of equivalent mutants: every entry names a mutant that exists and
says why it cannot be killed."""

from __future__ import annotations

from pathlib import Path

import pytest

from mutation.__main__ import EQUIVALENT, engine_mutants, load_equivalent


def test_every_listed_mutant_exists_and_has_a_reason():
    listed = load_equivalent()
    keys = {m.key for m in engine_mutants(None)}
    assert listed, "the list is read"
    assert not [key for key in listed if key not in keys], "stale entries"
    assert all(len(reason) > 20 for reason in listed.values())


def test_an_entry_without_a_reason_or_listed_twice_is_refused(tmp_path: Path):
    bad = tmp_path / "equivalent.toml"
    bad.write_text('[[equivalent]]\nmutant = "a | b | c | d -> e"\nreason = ""\n')
    with pytest.raises(SystemExit, match="needs a reason"):
        load_equivalent(bad)
    entry = '[[equivalent]]\nmutant = "a | b | c | d -> e"\nreason = "why not"\n'
    bad.write_text(entry * 2)
    with pytest.raises(SystemExit, match="listed twice"):
        load_equivalent(bad)
    assert EQUIVALENT.name == "equivalent.toml"


def test_check_equivalent_fails_on_a_killed_entry(capsys: pytest.CaptureFixture[str]):
    from mutation.__main__ import _report_killed_equivalents
    from mutation.operators import mutants
    from mutation.runner import Outcome

    a, b = mutants("def f(x):\n    return x + 1\n", "m", "m.py")[:2]
    assert _report_killed_equivalents([Outcome(a, "survived"), Outcome(b, "survived")], 1.0) == 0
    assert "2 listed equivalent mutants run: 0 killed" in capsys.readouterr().out
    killed = Outcome(b, "killed", by="tests/engine/test_x.py::test_y")
    assert _report_killed_equivalents([Outcome(a, "survived"), killed], 1.0) == 1
    out = capsys.readouterr().out
    assert "1 killed" in out
    assert f"killed by tests/engine/test_x.py::test_y\n    key: {b.key}" in out
