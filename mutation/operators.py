"""The mutants of one module: small changes of its syntax tree, enumerated in a fixed order.

A mutant is one change at one place: an arithmetic or comparison operator swapped, ``and`` for
``or``, a ``not`` dropped, a constant changed (a number plus one, ``True`` for ``False``, a
string spoiled: dict keys and values of event records included), a ``return`` of a value made
``return None``. Mutants are applied to the tree, which is compiled as it is, so every line
keeps its number (and a function its first line: how a worker finds its live function
objects, see ``mutation.worker``).

What is never mutated, and why:

- docstrings, annotations, ``assert`` statements (invariant checks: a mutant there can only
  fail a state that is already wrong), imports, ``__all__`` / ``__slots__``, ``if
  TYPE_CHECKING:`` blocks;
- prose: the strings and f-strings of ``raise`` statements (error messages) and string
  constants with a space in them (card names and texts, descriptions): they are copied to
  the reader, and a test would only compare them with a copy of themselves. Machine strings
  (card keys, moments, event types and fields) have no spaces and are mutated.

Mutants are numbered per module in the order of a depth-first walk; :func:`mutants` lists
them and :func:`mutated_tree` rebuilds the tree of one of them from the source.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass

_BINOP_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitAnd,
}
_CMP_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_SKIPPED_NAMES = {"__all__", "__slots__"}


@dataclass(frozen=True)
class Mutant:
    """One mutant of a module. ``scope`` is the qualified name of the innermost function
    it is in ("" at module level); ``defs`` the (qualname, first line) of that function and
    of every function around it, innermost first; ``at_import`` whether the changed code
    runs when the module is imported (module level, class bodies, decorators, defaults).
    ``statement`` is the changed statement (its first line), ``before`` / ``after`` the
    changed expression; ``occurrence`` tells identical changes in one statement apart."""

    module: str  # dotted module name
    path: str  # file path, relative to the repository
    index: int
    line: int
    end_line: int
    scope: str
    defs: tuple[tuple[str, int], ...]
    at_import: bool
    statement: str
    before: str
    after: str
    occurrence: int = 1
    # What the changed statement defines (assigned names, a function's name): where to look
    # first for tests that read it (import-time mutants).
    defines: tuple[str, ...] = ()

    @property
    def ident(self) -> str:
        return f"{self.module}:{self.index}"

    @property
    def key(self) -> str:
        """A name that survives edits elsewhere in the file (the equivalent-mutant list uses
        it): the file, the function, the statement and the change."""
        where = self.scope or "<module>"
        nth = f" #{self.occurrence}" if self.occurrence > 1 else ""
        return f"{self.path} | {where} | {self.statement} | {self.before} -> {self.after}{nth}"


@dataclass
class _Point:
    node: ast.AST
    field: str  # which change: "op", "cmp:<i>", "value", "not", "neg", "return"
    statement: ast.AST  # the statement shown to the reader


class _Walker:
    """Finds the mutation points of a module, in a fixed depth-first order."""

    def __init__(self) -> None:
        self.points: list[tuple[_Point, str, tuple[tuple[str, int], ...], bool]] = []
        self._scope: list[tuple[str, int]] = []
        self._qual: list[str] = []
        self._in_function = 0
        self._statement: ast.AST | None = None

    # -- traversal ---------------------------------------------------------------------

    def module(self, tree: ast.Module) -> None:
        self._body(tree.body)

    def _body(self, body: list[ast.stmt]) -> None:
        for i, stmt in enumerate(body):
            if i == 0 and _is_docstring(stmt):
                continue
            self._stmt(stmt)

    def _stmt(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assert | ast.Import | ast.ImportFrom | ast.Global | ast.Nonlocal):
            return
        if isinstance(stmt, ast.If) and _is_type_checking(stmt.test):
            return
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and _assigns_skipped_name(stmt):
            return
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self._function(stmt)
            return
        if isinstance(stmt, ast.ClassDef):
            for dec in stmt.decorator_list:
                self._expr_root(dec, stmt)
            for base in stmt.bases:
                self._expr_root(base, stmt)
            self._qual.append(stmt.name)
            self._body(stmt.body)
            self._qual.pop()
            return
        if isinstance(stmt, ast.Raise):
            # The exception's message is prose; what is raised is not mutated either.
            return
        if (
            isinstance(stmt, ast.Return)
            and stmt.value is not None
            and self._in_function
            and not isinstance(stmt.value, ast.Constant)  # constants change by themselves
        ):
            self._add(_Point(stmt, "return", stmt))
        if isinstance(stmt, ast.AugAssign) and type(stmt.op) in _BINOP_SWAP:
            self._add(_Point(stmt, "op", stmt))
        self._other(stmt, stmt)

    def _body_no_doc(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self._stmt(stmt)

    def _other(self, node: ast.AST, stmt: ast.stmt) -> None:
        """Walk the fields of a statement, or of one of its parts (handlers, match cases,
        with-items, comprehension parts): expressions are mutated as parts of ``stmt``."""
        for name, value in ast.iter_fields(node):
            if name in ("annotation", "returns", "type_comment"):
                continue
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    self._body_no_doc(value)
                else:
                    for item in value:
                        if isinstance(item, ast.expr):
                            self._expr_root(item, stmt)
                        elif isinstance(item, ast.AST):
                            self._other(item, stmt)
            elif isinstance(value, ast.expr):
                self._expr_root(value, stmt)
            elif isinstance(value, ast.AST):
                self._other(value, stmt)

    def _function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        # Decorators and defaults run where the function is defined (the enclosing scope).
        for dec in fn.decorator_list:
            self._expr_root(dec, fn)
        for default in [*fn.args.defaults, *[d for d in fn.args.kw_defaults if d is not None]]:
            self._expr_root(default, fn)
        qualname = ".".join([*self._qual, fn.name])
        # The code object's first line is its first decorator's (what workers match on).
        first = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
        self._scope.append((qualname, first))
        self._qual.extend([fn.name, "<locals>"])
        self._in_function += 1
        self._body(fn.body)
        self._in_function -= 1
        del self._qual[-2:]
        self._scope.pop()

    def _expr_root(self, expr: ast.expr, stmt: ast.stmt) -> None:
        self._statement = stmt
        self._expr(expr)

    def _expr(self, node: ast.expr) -> None:
        stmt = self._statement
        assert stmt is not None
        if isinstance(node, ast.JoinedStr):
            return  # f-strings are messages
        if isinstance(node, ast.Lambda):
            self._expr(node.body)
            return
        if (isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAP) or isinstance(
            node, ast.BoolOp
        ):
            self._add(_Point(node, "op", stmt))
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _CMP_SWAP:
                    self._add(_Point(node, f"cmp:{i}", stmt))
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                self._add(_Point(node, "not", stmt))
            elif isinstance(node.op, ast.USub):
                if _is_number(node.operand):
                    self._add(_Point(node, "value", stmt))
                    return  # the literal itself is this point
                self._add(_Point(node, "neg", stmt))
        elif isinstance(node, ast.Constant):
            if _mutable_constant(node.value):
                self._add(_Point(node, "value", stmt))
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._expr(child)
            elif isinstance(child, ast.comprehension):
                self._expr(child.target)
                self._expr(child.iter)
                for cond in child.ifs:
                    self._expr(cond)
            elif isinstance(child, ast.keyword):
                self._expr(child.value)
            elif isinstance(child, ast.arguments):
                continue  # a lambda's parameters

    def _add(self, point: _Point) -> None:
        scope = self._scope[-1][0] if self._scope else ""
        defs = tuple(reversed(self._scope))
        self.points.append((point, scope, defs, not self._in_function))


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _assigns_skipped_name(stmt: ast.Assign | ast.AnnAssign) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return any(isinstance(t, ast.Name) and t.id in _SKIPPED_NAMES for t in targets)


def _is_number(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    )


def _mutable_constant(value: object) -> bool:
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return True
    if isinstance(value, str):
        return " " not in value
    return False


# -- applying one change --------------------------------------------------------------------


def _apply(point: _Point, root: ast.AST) -> None:
    """Change the node of ``point`` in place; ``root`` is a tree (or statement) holding it,
    private to the caller."""
    node = point.node
    kind = point.field
    if kind == "return":
        assert isinstance(node, ast.Return)
        node.value = ast.Constant(value=None)
    elif kind == "op" and isinstance(node, ast.BinOp | ast.AugAssign):
        node.op = _BINOP_SWAP[type(node.op)]()
    elif kind == "op" and isinstance(node, ast.BoolOp):
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind.startswith("cmp:"):
        assert isinstance(node, ast.Compare)
        i = int(kind[4:])
        node.ops[i] = _CMP_SWAP[type(node.ops[i])]()
    elif kind in ("not", "neg"):  # `not x` -> `x`, `-x` -> `x`
        assert isinstance(node, ast.UnaryOp)
        _replace(root, node, node.operand)
    elif kind == "value" and isinstance(node, ast.UnaryOp):  # a negative literal: plus one
        assert isinstance(node.operand, ast.Constant)
        number = node.operand.value
        assert isinstance(number, int | float)
        if number > 1:
            node.operand = ast.Constant(value=number - 1)
        else:
            _replace(root, node, ast.Constant(value=1 - number))
    elif kind == "value":
        assert isinstance(node, ast.Constant)
        node.value = _changed_constant(node.value)
    else:
        raise AssertionError(f"no such change {kind} on {type(node).__name__}")


def _replace(root: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(root):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return
    raise AssertionError("the node to replace is not in its tree")


def _changed_constant(value: object) -> bool | int | float | str:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return f"XX{value}XX"
    raise AssertionError(f"constant {value!r} is not mutated")


def _show(node: ast.AST, limit: int = 160) -> str:
    """Source on one line: an expression, or a statement's first line (a compound
    statement's header)."""
    if isinstance(node, ast.If | ast.While):
        text = ("if " if isinstance(node, ast.If) else "while ") + ast.unparse(node.test)
    elif isinstance(node, ast.For):
        text = f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}"
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        text = f"def {node.name}"
    elif isinstance(node, ast.ClassDef):
        text = f"class {node.name}"
    elif isinstance(node, ast.With):
        text = "with " + ", ".join(ast.unparse(i) for i in node.items)
    elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and _long(node):
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        text = f"{ast.unparse(target)} = ..."
    else:
        text = ast.unparse(node)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _defines(stmt: ast.AST) -> tuple[str, ...]:
    """The names a statement binds: assignment targets, a function's or class's name."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return (stmt.name,)
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        targets = [stmt.target]
    names: list[str] = []
    for target in targets:
        names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    return tuple(names)


def _long(node: ast.stmt) -> bool:
    return (node.end_lineno or node.lineno) - node.lineno > 3


# -- the public interface ------------------------------------------------------------------


def _walk(source: str, filename: str) -> tuple[ast.Module, _Walker]:
    tree = ast.parse(source, filename)
    walker = _Walker()
    walker.module(tree)
    return tree, walker


def mutants(source: str, module: str, path: str) -> list[Mutant]:
    """Every mutant of a module's source, in index order."""
    _, walker = _walk(source, path)
    out: list[Mutant] = []
    statements: dict[int, str] = {}
    seen: dict[tuple[str, str, str, str], int] = {}
    for index, (point, scope, defs, at_import) in enumerate(walker.points):
        stmt = point.statement
        if id(stmt) not in statements:
            statements[id(stmt)] = _show(stmt, 100)
        # The change, shown on a copy of the changed node.
        node = copy.deepcopy(point.node)
        holder = ast.Module(body=[ast.Expr(value=node)], type_ignores=[])  # type: ignore[arg-type]
        before = _show(point.node)
        _apply(_Point(node, point.field, stmt), holder)
        changed = holder.body[0]
        after = _show(changed.value if isinstance(changed, ast.Expr) else changed)
        name = (scope, statements[id(stmt)], before, after)
        seen[name] = seen.get(name, 0) + 1
        line = getattr(point.node, "lineno", 0)
        end = getattr(point.node, "end_lineno", line) or line
        out.append(
            Mutant(
                module,
                path,
                index,
                line,
                end,
                scope,
                defs,
                at_import,
                statements[id(stmt)],
                before,
                after,
                seen[name],
                _defines(stmt),
            )
        )
    return out


def mutated_tree(source: str, path: str, index: int) -> ast.Module:
    """The module's tree with mutant ``index`` applied (line numbers kept)."""
    tree, walker = _walk(source, path)
    _apply(walker.points[index][0], tree)
    ast.fix_missing_locations(tree)
    return tree


def iter_code(code: object) -> Iterator[object]:
    """A code object and every code object nested in it (functions, classes, lambdas)."""
    stack = [code]
    while stack:
        current = stack.pop()
        yield current
        for const in getattr(current, "co_consts", ()):
            if hasattr(const, "co_code"):
                stack.append(const)
