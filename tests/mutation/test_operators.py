"""The mutation tool's mutants (mutation/operators.py): what is changed, what is left alone,
and that a changed module keeps its line numbers (workers find functions by them)."""

from __future__ import annotations

import textwrap

from mutation.operators import mutants, mutated_tree

SOURCE = textwrap.dedent(
    '''
    """Docstring."""

    LIMIT: int = 3


    def f(state: dict[str, int], seat: int) -> int:
        """Not mutated."""
        assert seat >= 0, "invariant"
        if seat < LIMIT and not state:
            raise ValueError(f"seat {seat} is wrong")
        state["glory"] += 2
        emit(-1, {"type": "quest", "seat": seat, "note": "a sentence"})
        return seat * 2
    '''
)


def _changes(source: str = SOURCE) -> list[tuple[int, str, str]]:
    return [(m.line, m.before, m.after) for m in mutants(source, "m", "m.py")]


def test_the_mutants_of_a_small_module():
    assert _changes() == [
        (4, "3", "4"),
        (10, "seat < LIMIT and (not state)", "seat < LIMIT or not state"),
        (10, "seat < LIMIT", "seat <= LIMIT"),
        (10, "not state", "state"),
        (12, "state['glory'] += 2", "state['glory'] -= 2"),
        (12, "'glory'", "'XXgloryXX'"),
        (12, "2", "3"),
        (13, "-1", "0"),
        (13, "'type'", "'XXtypeXX'"),
        (13, "'seat'", "'XXseatXX'"),
        (13, "'note'", "'XXnoteXX'"),
        (13, "'quest'", "'XXquestXX'"),
        (14, "return seat * 2", "return None"),
        (14, "seat * 2", "seat / 2"),
        (14, "2", "3"),
    ]


def test_docstrings_annotations_asserts_raises_and_prose_are_left_alone():
    lines = {line for line, _, _ in _changes()}
    assert not lines & {2, 7, 8, 9, 11}, "docstring, signature, docstring, assert, raise"
    assert all("a sentence" not in before for _, before, _ in _changes())


def test_keys_name_the_function_and_statement_and_count_repeats():
    source = "def g(x):\n    return [x + 1, x + 1]\n"
    keys = [m.key for m in mutants(source, "m", "m.py")]
    assert "m.py | g | return [x + 1, x + 1] | x + 1 -> x - 1" in keys
    assert "m.py | g | return [x + 1, x + 1] | x + 1 -> x - 1 #2" in keys
    module_level = mutants("A = 5\n", "m", "m.py")
    assert [(m.key, m.at_import) for m in module_level] == [
        ("m.py | <module> | A = 5 | 5 -> 6", True)
    ]


def test_a_mutated_module_keeps_every_line_number():
    for m in mutants(SOURCE, "m", "m.py"):
        code = compile(mutated_tree(SOURCE, "m.py", m.index), "m.py", "exec")
        functions = [c for c in code.co_consts if hasattr(c, "co_firstlineno")]
        assert [(c.co_name, c.co_firstlineno) for c in functions] == [("f", 7)]
        namespace: dict[str, object] = {"emit": lambda *a: None}
        exec(code, namespace)
        assert callable(namespace["f"])
