"""The mutants of one module: small changes of its syntax tree, enumerated in a fixed order.

A mutant is one change at one place. The operator families (docs/mutation.md has examples):

- arithmetic and comparison operators swapped (``+`` for ``-``, ``<`` for ``<=``, also in
  ``+=``), ``and`` for ``or``, ``not x`` -> ``x``, ``-x`` -> ``x``;
- a binary operation reduced to its left operand (``a - 1`` -> ``a``), one operand of an
  ``and`` / ``or`` dropped;
- a condition (``if``, ``while``, ``x if c else y``, a comprehension's ``if``) replaced by
  ``True`` and by ``False``;
- constants: a number plus one and minus one, ``True`` for ``False``, a string spoiled (dict
  keys and values of event records included);
- statements, inside functions: a call, an assignment or an augmented assignment deleted
  (``pass``), ``+=`` -> ``=``, ``break`` <-> ``continue``; a call at module level deleted
  (the registrations of prompts and card texts);
- calls: ``max`` <-> ``min``, ``any`` <-> ``all``; a slice bound plus one;
- returns: ``return x`` -> ``return None``; ``return not x`` in a function that returns a
  ``bool`` (or returns a comparison); a returned container made empty (``return [...]`` ->
  ``return []``, also ``return out`` in a function annotated ``-> list[...]``).

Mutants are applied to the tree, which is compiled as it is, so every line keeps its number
(and a function its first line: how a worker finds its live function objects, see
``mutation.worker``). A change that removes the last use of a name in a function gets a dead
``if False:`` reference to that name at the end of the function, so that a closure keeps its
free variables (a code object is only swapped into a function with the same ones).

What is never mutated, and why:

- docstrings, annotations, ``assert`` statements (invariant checks: a mutant there can only
  fail a state that is already wrong), imports, ``__all__`` / ``__slots__``, ``if
  TYPE_CHECKING:`` blocks;
- prose: the strings and f-strings of ``raise`` statements (error messages) and string
  constants with a space in them (card names and texts, descriptions): they are copied to
  the reader, and a test would only compare them with a copy of themselves. Machine strings
  (card keys, moments, event types and fields) have no spaces and are mutated;
- assignments outside functions (module tables, class attributes): deleting one only fails
  the import; and the assignment of a local name bound nowhere else in its function:
  deleting it only turns the reads into ``UnboundLocalError``;
- a slice bound or a loop condition that is a constant (the constant itself is changed).

Mutants are numbered per module in the order of a depth-first walk; :func:`mutants` lists
them and :func:`mutated_tree` rebuilds the tree of one of them from the source.
"""

from __future__ import annotations

import ast
import copy
import types
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


_SWAPPED_CALLS = {"max": "min", "min": "max", "any": "all", "all": "any"}
# A return annotation naming one of these: `return x` -> the empty one.
_CONTAINERS = ("list", "tuple", "dict", "set")


@dataclass
class _Point:
    node: ast.AST
    # Which change: "op", "cmp:<i>", "value" (+1), "minus" (-1), "not", "neg", "return"
    # (None), "return_not", "return_empty:<kind>", "true", "false" (a condition), "drop:<i>"
    # (an and/or operand), "left" (a op b -> a), "delete" (a statement), "assign" (+= -> =),
    # "swap" (max/min, any/all), "slice" (a bound + 1), "loop" (break <-> continue).
    field: str
    statement: ast.AST  # the statement shown to the reader


class _Walker:
    """Finds the mutation points of a module, in a fixed depth-first order."""

    def __init__(self) -> None:
        self.points: list[tuple[_Point, str, tuple[tuple[str, int], ...], bool]] = []
        self._scope: list[tuple[str, int]] = []
        self._qual: list[str] = []
        self._in_function = 0
        self._statement: ast.AST | None = None
        # Per enclosing function: its return annotation, and how often each name is bound.
        self._returns: list[ast.expr | None] = []
        self._bindings: list[dict[str, int]] = []

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
        if isinstance(stmt, ast.Return) and stmt.value is not None and self._in_function:
            self._returned(stmt, stmt.value)
        if isinstance(stmt, ast.AugAssign) and type(stmt.op) in _BINOP_SWAP:
            self._add(_Point(stmt, "op", stmt))
        if self._deletable(stmt):
            self._add(_Point(stmt, "delete", stmt))
        if isinstance(stmt, ast.AugAssign) and self._in_function:
            self._add(_Point(stmt, "assign", stmt))
        if isinstance(stmt, ast.Break | ast.Continue):
            self._add(_Point(stmt, "loop", stmt))
        if isinstance(stmt, ast.If | ast.While):
            self._condition(stmt.test, stmt)
        self._other(stmt, stmt)

    def _returned(self, stmt: ast.Return, value: ast.expr) -> None:
        if not isinstance(value, ast.Constant):  # constants change by themselves
            self._add(_Point(stmt, "return", stmt))
        returns = self._returns[-1] if self._returns else None
        boolean = isinstance(value, ast.Compare) or (
            isinstance(returns, ast.Name) and returns.id == "bool"
        )
        if boolean and not isinstance(value, ast.Constant):
            self._add(_Point(stmt, "return_not", stmt))
        kind = _container_kind(value) or _annotated_container(returns)
        if kind and not _is_empty_container(value) and not isinstance(value, ast.Constant):
            self._add(_Point(stmt, f"return_empty:{kind}", stmt))

    def _deletable(self, stmt: ast.stmt) -> bool:
        """A call statement anywhere; an assignment inside a function, unless it binds only
        local names bound nowhere else in the function (see the module's docstring)."""
        if isinstance(stmt, ast.Expr):
            return isinstance(stmt.value, ast.Call)
        if not self._in_function:
            return False
        if isinstance(stmt, ast.AugAssign):
            return True
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is None:
                return False
            targets: list[ast.expr] = [stmt.target]
        elif isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        else:
            return False
        names = _target_names(targets)
        if names is None:  # an attribute or an item is set: state the caller sees
            return True
        bound = self._bindings[-1] if self._bindings else {}
        return any(bound.get(name, 0) > 1 for name in names)

    def _condition(self, test: ast.expr, stmt: ast.AST) -> None:
        """A condition replaced by True and by False (a constant one is left alone)."""
        if isinstance(test, ast.Constant):
            return
        self._add(_Point(test, "true", stmt))
        self._add(_Point(test, "false", stmt))

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
        self._returns.append(fn.returns)
        self._bindings.append(_bindings(fn))
        self._in_function += 1
        self._body(fn.body)
        self._in_function -= 1
        self._bindings.pop()
        self._returns.pop()
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
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAP:
            self._add(_Point(node, "op", stmt))
            self._add(_Point(node, "left", stmt))
        elif isinstance(node, ast.BoolOp):
            self._add(_Point(node, "op", stmt))
            for i in range(len(node.values)):
                self._add(_Point(node, f"drop:{i}", stmt))
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
                    self._add(_Point(node, "minus", stmt))
                    return  # the literal itself is this point
                self._add(_Point(node, "neg", stmt))
        elif isinstance(node, ast.Constant):
            if _mutable_constant(node.value):
                self._add(_Point(node, "value", stmt))
                if _is_number(node):
                    self._add(_Point(node, "minus", stmt))
            return
        elif isinstance(node, ast.IfExp):
            self._condition(node.test, stmt)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _SWAPPED_CALLS
        ):
            self._add(_Point(node, "swap", stmt))
        elif isinstance(node, ast.Slice):
            for bound in (node.lower, node.upper):
                if bound is not None and not _is_constant(bound):
                    self._add(_Point(bound, "slice", stmt))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._expr(child)
            elif isinstance(child, ast.comprehension):
                self._expr(child.target)
                self._expr(child.iter)
                for cond in child.ifs:
                    self._condition(cond, stmt)
                    self._expr(cond)
            elif isinstance(child, ast.keyword):
                self._expr(child.value)
            elif isinstance(child, ast.arguments):
                continue  # a lambda's parameters

    def _add(self, point: _Point) -> None:
        scope = self._scope[-1][0] if self._scope else ""
        defs = tuple(reversed(self._scope))
        self.points.append((point, scope, defs, not self._in_function))


def _bindings(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, int]:
    """How many times each name is bound in the function's own scope (parameters count; the
    scopes of nested functions, classes and comprehensions do not; ``x += 1`` does not, as
    it needs ``x`` bound before)."""
    counts: dict[str, int] = {}
    args = fn.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            counts[arg.arg] = counts.get(arg.arg, 0) + 1
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.AugAssign):  # reads the name first: it needs a binding before
            stack.append(node.value)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, ast.ExceptHandler) and node.name:
            counts[node.name] = counts.get(node.name, 0) + 1
        if isinstance(
            node,
            ast.FunctionDef
            | ast.AsyncFunctionDef
            | ast.ClassDef
            | ast.Lambda
            | ast.ListComp
            | ast.SetComp
            | ast.DictComp
            | ast.GeneratorExp,
        ):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                counts[node.name] = counts.get(node.name, 0) + 1
            continue
        stack.extend(ast.iter_child_nodes(node))
    return counts


def _target_names(targets: list[ast.expr]) -> list[str] | None:
    """The names assigned, or None if a target is an attribute or an item."""
    names: list[str] = []
    stack = list(targets)
    while stack:
        target = stack.pop()
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            stack.extend(target.elts)
        elif isinstance(target, ast.Starred):
            stack.append(target.value)
        else:
            return None
    return names


def _container_kind(value: ast.expr) -> str:
    if isinstance(value, ast.List | ast.ListComp):
        return "list"
    if isinstance(value, ast.Tuple):
        return "tuple"
    if isinstance(value, ast.Dict | ast.DictComp):
        return "dict"
    if isinstance(value, ast.Set | ast.SetComp):
        return "set"
    return ""


def _annotated_container(returns: ast.expr | None) -> str:
    """The container a return annotation names (``list[int]``, ``dict``), if any."""
    node = returns.value if isinstance(returns, ast.Subscript) else returns
    if isinstance(node, ast.Name) and node.id in _CONTAINERS:
        return node.id
    return ""


def _is_empty_container(value: ast.expr) -> bool:
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    return False


def _is_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)
    )


def _empty(kind: str) -> ast.expr:
    if kind == "list":
        return ast.List(elts=[], ctx=ast.Load())
    if kind == "tuple":
        return ast.Tuple(elts=[], ctx=ast.Load())
    if kind == "dict":
        return ast.Dict(keys=[], values=[])
    return ast.Call(func=ast.Name(id="set", ctx=ast.Load()), args=[], keywords=[])


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
    elif kind == "return_not":
        assert isinstance(node, ast.Return) and node.value is not None
        node.value = ast.UnaryOp(op=ast.Not(), operand=node.value)
    elif kind.startswith("return_empty:"):
        assert isinstance(node, ast.Return)
        node.value = _empty(kind.partition(":")[2])
    elif kind == "op" and isinstance(node, ast.BinOp | ast.AugAssign):
        node.op = _BINOP_SWAP[type(node.op)]()
    elif kind == "op" and isinstance(node, ast.BoolOp):
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind.startswith("drop:"):
        assert isinstance(node, ast.BoolOp)
        i = int(kind[5:])
        if len(node.values) == 2:
            _replace(root, node, node.values[1 - i])
        else:
            del node.values[i]
    elif kind == "left":
        assert isinstance(node, ast.BinOp)
        _replace(root, node, node.left)
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
    elif kind == "minus" and isinstance(node, ast.UnaryOp):  # a negative literal: minus one
        assert isinstance(node.operand, ast.Constant)
        number = node.operand.value
        assert isinstance(number, int | float)
        node.operand = ast.Constant(value=number + 1)
    elif kind == "minus":
        assert isinstance(node, ast.Constant) and isinstance(node.value, int | float)
        if node.value >= 1:
            node.value = node.value - 1
        else:  # 0 -> -1, 0.5 -> -0.5: written as a negative literal
            _replace(root, node, ast.UnaryOp(op=ast.USub(), operand=ast.Constant(1 - node.value)))
    elif kind in ("true", "false"):
        _replace(root, node, ast.Constant(value=kind == "true"))
    elif kind == "delete":
        _replace(root, node, ast.Pass())
    elif kind == "assign":
        assert isinstance(node, ast.AugAssign)
        _replace(root, node, ast.Assign(targets=[node.target], value=node.value))
    elif kind == "swap":
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        node.func = ast.Name(id=_SWAPPED_CALLS[node.func.id], ctx=ast.Load())
    elif kind == "slice":
        assert isinstance(node, ast.expr)
        _replace(root, node, ast.BinOp(left=node, op=ast.Add(), right=ast.Constant(value=1)))
    elif kind == "loop":
        _replace(root, node, ast.Continue() if isinstance(node, ast.Break) else ast.Break())
    else:
        raise AssertionError(f"no such change {kind} on {type(node).__name__}")


def _replace(root: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """Put ``new`` where ``old`` is in the tree (at its place in the source)."""
    ast.copy_location(new, old)
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
    free = _free_variables(source, path)
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    names_before = [_names(fn) for fn in functions]
    _apply(walker.points[index][0], tree)
    for fn, before in zip(functions, names_before, strict=True):
        first = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
        lost = (before - _names(fn)) & free.get((fn.name, first), set())
        if lost:  # keep them referenced: a closure keeps its free variables
            fn.body.append(_dead_reference(sorted(lost), fn))
    ast.fix_missing_locations(tree)
    return tree


def _free_variables(source: str, path: str) -> dict[tuple[str, int], set[str]]:
    """(name, first line) of each function -> its free variables (closures)."""
    out: dict[tuple[str, int], set[str]] = {}
    for code in iter_code(compile(source, path, "exec")):
        if isinstance(code, types.CodeType) and code.co_freevars:
            out[(code.co_name, code.co_firstlineno)] = set(code.co_freevars)
    return out


def _names(node: ast.AST) -> set[str]:
    """The names a node reads or binds; ``__class__`` too where it calls ``super()``, whose
    cell the compiler makes for it (a deleted ``super().__init__(...)`` loses that free
    variable like any other)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if "super" in names:
        names.add("__class__")
    return names


def _dead_reference(names: list[str], fn: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.stmt:
    """``if False: (a, b)`` on the function's last line: the compiler emits nothing for it,
    but the names stay in the function's scope."""
    line = fn.end_lineno or fn.lineno
    refs: list[ast.expr] = [ast.Name(id=name, ctx=ast.Load()) for name in names]
    dead = ast.If(
        test=ast.Constant(value=False),
        body=[ast.Expr(value=ast.Tuple(elts=refs, ctx=ast.Load()))],
        orelse=[],
    )
    for node in ast.walk(dead):
        node.lineno = node.end_lineno = line  # type: ignore[attr-defined]
        node.col_offset = node.end_col_offset = 0  # type: ignore[attr-defined]
    return dead


def iter_code(code: object) -> Iterator[object]:
    """A code object and every code object nested in it (functions, classes, lambdas)."""
    stack = [code]
    while stack:
        current = stack.pop()
        yield current
        for const in getattr(current, "co_consts", ()):
            if hasattr(const, "co_code"):
                stack.append(const)
