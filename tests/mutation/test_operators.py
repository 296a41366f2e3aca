"""The mutation tool's mutants (mutation/operators.py): what is changed, what is left alone,
and that a changed module keeps its line numbers (workers find functions by them)."""

from __future__ import annotations

import textwrap

from mutation.operators import iter_code, mutants, mutated_tree

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
        (4, "3", "2"),
        (10, "seat < LIMIT and (not state)", "True"),
        (10, "seat < LIMIT and (not state)", "False"),
        (10, "seat < LIMIT and (not state)", "seat < LIMIT or not state"),
        (10, "seat < LIMIT and (not state)", "not state"),
        (10, "seat < LIMIT and (not state)", "seat < LIMIT"),
        (10, "seat < LIMIT", "seat <= LIMIT"),
        (10, "not state", "state"),
        (12, "state['glory'] += 2", "state['glory'] -= 2"),
        (12, "state['glory'] += 2", "pass"),
        (12, "state['glory'] += 2", "state['glory'] = 2"),
        (12, "'glory'", "'XXgloryXX'"),
        (12, "2", "3"),
        (12, "2", "1"),
        (13, "emit(-1, {'type': 'quest', 'seat': seat, 'note': 'a sentence'})", "pass"),
        (13, "-1", "0"),
        (13, "-1", "-2"),
        (13, "'type'", "'XXtypeXX'"),
        (13, "'seat'", "'XXseatXX'"),
        (13, "'note'", "'XXnoteXX'"),
        (13, "'quest'", "'XXquestXX'"),
        (14, "return seat * 2", "return None"),
        (14, "seat * 2", "seat / 2"),
        (14, "seat * 2", "seat"),
        (14, "2", "3"),
        (14, "2", "1"),
    ]


def test_docstrings_annotations_asserts_raises_and_prose_are_left_alone():
    lines = {line for line, _, _ in _changes()}
    assert not lines & {2, 7, 8, 9, 11}, "docstring, signature, docstring, assert, raise"
    assert all(before != "'a sentence'" for _, before, _ in _changes()), "prose is not spoiled"


def test_keys_name_the_function_and_statement_and_count_repeats():
    source = "def g(x):\n    return [x + 1, x + 1]\n"
    keys = [m.key for m in mutants(source, "m", "m.py")]
    assert "m.py | g | return [x + 1, x + 1] | x + 1 -> x - 1" in keys
    assert "m.py | g | return [x + 1, x + 1] | x + 1 -> x - 1 #2" in keys
    module_level = mutants("A = 5\n", "m", "m.py")
    assert [(m.key, m.at_import) for m in module_level] == [
        ("m.py | <module> | A = 5 | 5 -> 6", True),
        ("m.py | <module> | A = 5 | 5 -> 4", True),
    ]


def test_a_mutated_module_keeps_every_line_number():
    for m in mutants(SOURCE, "m", "m.py"):
        code = compile(mutated_tree(SOURCE, "m.py", m.index), "m.py", "exec")
        functions = [c for c in code.co_consts if hasattr(c, "co_firstlineno")]
        assert [(c.co_name, c.co_firstlineno) for c in functions] == [("f", 7)]
        namespace: dict[str, object] = {"emit": lambda *a: None}
        exec(code, namespace)
        assert callable(namespace["f"])


def _new_changes(source: str) -> list[tuple[str, str]]:
    return [(m.before, m.after) for m in mutants(textwrap.dedent(source), "m", "m.py")]


def test_conditions_become_true_and_false_and_operands_are_dropped():
    changes = _new_changes(
        """
        def f(a, b, c, xs):
            while a and b or c:
                a = [x for x in xs if x > 0] if b else None
            return a
        """
    )
    for test in ("a and b or c", "b", "x > 0"):
        assert (test, "True") in changes and (test, "False") in changes
    assert ("a and b or c", "c") in changes and ("a and b or c", "a and b") in changes
    assert ("a and b", "b") in changes and ("a and b", "a") in changes
    loop = _new_changes("def g():\n    while True:\n        break\n")
    assert loop == [("True", "False"), ("break", "continue")], "a constant: flipped once"


def test_operations_lose_their_right_operand_and_numbers_go_down_by_one():
    changes = _new_changes(
        """
        def f(a):
            return (a - 1) * -2 + 0.5
        """
    )
    assert ("a - 1", "a") in changes
    assert ("(a - 1) * -2", "a - 1") in changes
    assert ("1", "0") in changes and ("-2", "-3") in changes and ("0.5", "-0.5") in changes
    assert ("-2", "-1") in changes, "plus one stays"


def test_statements_are_deleted_and_augmented_assignments_become_plain_ones():
    changes = _new_changes(
        """
        def f(state, n):
            total = 0
            only = n * 2
            state.doomed = []
            state.glory += only
            total = state.glory
            state.emit(total)
            for x in state.xs:
                if x:
                    break
                continue
        """
    )
    assert ("state.doomed = []", "pass") in changes
    assert ("state.glory += only", "pass") in changes
    assert ("state.glory += only", "state.glory = only") in changes
    assert ("state.emit(total)", "pass") in changes
    assert ("total = 0", "pass") in changes and ("total = state.glory", "pass") in changes
    assert ("only = n * 2", "pass") not in changes, "a local bound once: only UnboundLocalError"
    assert ("break", "continue") in changes and ("continue", "break") in changes


def test_module_level_calls_are_deleted_but_not_module_level_assignments():
    changes = _new_changes(
        """
        TABLE = {}
        register(TABLE, 1)
        """
    )
    assert ("register(TABLE, 1)", "pass") in changes
    assert ("TABLE = {}", "pass") not in changes


def test_calls_swap_and_slice_bounds_go_up():
    changes = _new_changes(
        """
        def f(xs, k):
            return max(xs[k:len(xs) - 1]) + min(xs) + any(xs) + all(xs[:2])
        """
    )
    assert ("max(xs[k:len(xs) - 1])", "min(xs[k:len(xs) - 1])") in changes
    assert ("min(xs)", "max(xs)") in changes
    assert ("any(xs)", "all(xs)") in changes and ("all(xs[:2])", "any(xs[:2])") in changes
    assert ("k", "k + 1") in changes and ("len(xs) - 1", "len(xs) - 1 + 1") in changes
    assert ("2", "3") in changes and ("2", "2 + 1") not in changes, "a constant bound: +1 once"


def test_returns_are_negated_or_emptied():
    changes = _new_changes(
        """
        def ok(x) -> bool:
            return x.ready
        def same(a, b):
            return a == b
        def cards(x) -> list[int]:
            return x.cards
        def pair(x):
            return (x, x)
        def table(x) -> dict[str, int]:
            return {k: 1 for k in x}
        def none(x) -> list[int]:
            return []
        def count(x) -> int:
            return len(x)
        """
    )
    assert ("return x.ready", "return not x.ready") in changes
    assert ("return a == b", "return not a == b") in changes
    assert ("return x.cards", "return []") in changes
    assert ("return (x, x)", "return ()") in changes
    assert ("return {k: 1 for k in x}", "return {}") in changes
    assert ("return []", "return []") not in changes, "already empty"
    assert ("return len(x)", "return not len(x)") not in changes, "not a bool"


def test_the_new_mutants_run_and_do_what_they_say():
    source = textwrap.dedent(
        """
        def f(xs: list[int], n: int) -> list[int]:
            out = []
            total = 0
            for x in xs[n:]:
                if x > 2 and x < 9:
                    total += max(x, n)
                    out.append(total)
            return out
        """
    )
    results: dict[tuple[str, str], object] = {}
    for m in mutants(source, "m", "m.py"):
        namespace: dict[str, object] = {}
        exec(compile(mutated_tree(source, "m.py", m.index), "m.py", "exec"), namespace)
        fn = namespace["f"]
        assert callable(fn)
        try:
            results[(m.before, m.after)] = fn([1, 3, 5, 10], 0)
        except Exception as exc:  # a mutant may fail: a change too
            results[(m.before, m.after)] = type(exc).__name__
    assert results[("x > 2 and x < 9", "True")] == [1, 4, 9, 19]
    assert results[("x > 2 and x < 9", "False")] == []
    assert results[("x > 2 and x < 9", "x < 9")] == [1, 4, 9]
    assert results[("total += max(x, n)", "pass")] == [0, 0]
    assert results[("total += max(x, n)", "total = max(x, n)")] == [3, 5]
    assert results[("max(x, n)", "min(x, n)")] == [0, 0]
    assert results[("out.append(total)", "pass")] == []
    assert results[("n", "n + 1")] == [3, 8]  # xs[1:] skips only the 1
    assert results[("return out", "return []")] == []
    assert results[("2", "1")] == [3, 8] and results[("9", "8")] == [3, 8]


def test_a_closure_keeps_its_free_variables():
    """Deleting the only use of an enclosing function's variable would change the inner
    code's free variables: workers could not swap it in. A dead reference keeps them."""
    source = textwrap.dedent(
        """
        def outer(log):
            def inner(x):
                log.append(x)
                return x
            return inner
        """
    )
    found = [m for m in mutants(source, "m", "m.py") if m.after == "pass"]
    assert len(found) == 1
    namespace: dict[str, object] = {}
    exec(compile(mutated_tree(source, "m.py", found[0].index), "m.py", "exec"), namespace)
    log: list[int] = []
    inner = namespace["outer"](log)  # type: ignore[operator]
    assert inner.__code__.co_freevars == ("log",)
    assert inner(3) == 3 and log == [], "the call is gone"


def test_a_deleted_super_call_keeps_the_class_cell():
    """Deleting the only ``super().__init__(...)`` of a method would leave a code object
    without the ``__class__`` free variable the live method has: it could not be swapped in."""
    import types

    source = (
        "class Problem(ValueError):\n"
        "    def __init__(self, text: str) -> None:\n"
        "        super().__init__(text)\n"
        "        self.text = text\n"
    )
    found = [m for m in mutants(source, "m", "m.py") if m.after == "pass" and "super" in m.before]
    assert found, "the call is deleted by some mutant"
    for m in found:
        code = compile(mutated_tree(source, "m.py", m.index), "m.py", "exec")
        init = next(
            c for c in iter_code(code) if isinstance(c, types.CodeType) and c.co_name == "__init__"
        )
        assert init.co_freevars == ("__class__",)
