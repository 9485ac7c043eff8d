"""Which fields a method may change: a syntactic over-approximation of its write set.

Where the z3 backend cannot follow a statement, the fields the statement may change get
arbitrary values. Havocking every field is sound but loses what the method plainly leaves
alone (a `closed` flag that a `write` never touches). `writes(model, name)` gives the
fields a method (with the methods of the class it calls on `self`) may change, or None
when it cannot tell, and then every field is havocked. The rules, all syntactic:

- `self.x = ...`, `self.x += ...`, `del self.x`, `self.x[...] = ...` write `x`;
- a field of a mutable type (list, dict, set, an untyped object, one of them inside an
  Optional or tuple, or one contractor does not model) written nowhere may still be
  changed through its value, so any mention of it counts as a write,
  except `len(self.x)` and `... in self.x`;
- a field holding another user object: None (that object may hold `self` and change it);
- `self` handed to any code (an argument, an assignment, `setattr`, `vars`, `super()`),
  a call of a method the class does not define, an unreadable base class, or a class of
  the MRO with a metaclass, decorators other than icontract/deal/dataclass, or defining
  `__setattr__`/properties: None. (Readable bases are fine: their methods are the
  model's, `super()` calls are rewritten into calls of them.)

What it cannot see: code reaching the object through a global reference to it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from contractor.model import ClassModel, Opaque, TypeRef

MUTABLE = ("list", "dict", "set", "tuple")  # tuple: its items may be mutable
KNOWN_CLASS_DECORATORS = ("invariant", "inv", "dataclass")
READS = ("len",)


def _class_is_plain(model: ClassModel) -> bool:
    """No code the write set cannot see: every base readable, and no class of the MRO with
    a metaclass, an unknown class decorator, attribute hooks or properties."""
    if any(not b.readable for b in model.bases):
        return False
    for node in [model.node] + [b.node for b in model.bases if b.node is not None]:
        if node.keywords:
            return False
        for d in node.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name not in KNOWN_CLASS_DECORATORS:
                return False
        names = {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if names & {"__setattr__", "__delattr__", "__getattr__", "__getattribute__"}:
            return False
    return not any(m.kind == "property" for m in model.methods.values())


def _self_attr(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


class _Scan(ast.NodeVisitor):
    """Collects one method's direct writes, its calls on self, and whether self escapes."""

    def __init__(self, model: ClassModel):
        self.model = model
        self.written: set[str] = set()
        self.mentioned: set[str] = set()
        self.calls: set[str] = set()
        self.unknown = False
        self._parents: dict[ast.AST, ast.AST] = {}

    def scan(self, stmts: Iterable[ast.stmt]) -> None:
        for stmt in stmts:
            for parent in ast.walk(stmt):
                for child in ast.iter_child_nodes(parent):
                    self._parents[child] = parent
            self.visit(stmt)

    def _store(self, target: ast.expr) -> None:
        while isinstance(target, (ast.Subscript, ast.Attribute)) and _self_attr(target) is None:
            target = target.value  # self.x[i] = ..., self.x.y = ...: x changes
        name = _self_attr(target)
        if name is not None:
            self.written.add(name)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._store(elt)
        elif isinstance(target, ast.Starred):
            self._store(target.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._store(t)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign | ast.AnnAssign) -> None:
        self._store(node.target)
        self.generic_visit(node)

    visit_AnnAssign = visit_AugAssign

    def visit_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            self._store(t)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        self._store(node.target)
        self.generic_visit(node)

    def visit_withitem(self, node: ast.withitem) -> None:
        if node.optional_vars is not None:
            self._store(node.optional_vars)
        self.generic_visit(node)

    def visit_Opaque(self, node: Opaque) -> None:
        if not node.rest:  # code contractor cannot read: it may write anything
            self.unknown = True
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "self":
            parent = self._parents.get(node)
            if not (isinstance(parent, ast.Attribute) and parent.value is node) and \
                    not isinstance(parent, ast.Return):
                self.unknown = True  # self handed to other code
        elif node.id in ("setattr", "delattr", "vars", "super", "globals", "exec", "eval"):
            self.unknown = True

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = _self_attr(node)
        if name is not None:
            parent = self._parents.get(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                if name in self.model.methods:
                    self.calls.add(name)
                else:
                    self.unknown = True
            elif name == "__dict__" or name == "__class__":
                self.unknown = True
            elif isinstance(node.ctx, ast.Load) and not _is_read(node, parent):
                self.mentioned.add(name)
        self.generic_visit(node)


def _holds_objects(t: TypeRef) -> bool:
    return t.kind in ("class", "any") or any(_holds_objects(a) for a in t.args)


def _mutable(t: TypeRef) -> bool:
    """A value code can change in place: a container, an untyped object, or one inside an
    Optional or a tuple."""
    return t.kind in MUTABLE or t.kind == "opaque" or any(_mutable(a) for a in t.args)


def _is_read(node: ast.AST, parent: ast.AST | None) -> bool:
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in READS \
            and node in parent.args:
        return True
    return isinstance(parent, ast.Compare) and any(
        isinstance(op, (ast.In, ast.NotIn)) and right is node for op, right in zip(parent.ops, parent.comparators))


def _own_writes(model: ClassModel, scan: _Scan) -> set[str] | None:
    """What the scanned statements write themselves (calls on self aside): the fields they
    assign, and the mutable ones they mention; None where they cannot tell."""
    if scan.unknown:
        return None
    out = set(scan.written)
    for field in scan.mentioned:
        f = model.fields.get(field)
        if f is None or _holds_objects(f.type):
            return None
        if _mutable(f.type):
            out.add(field)
    return out


def writes(model: ClassModel, name: str) -> frozenset[str] | None:
    """The fields method `name` may change (None: cannot tell, assume all)."""
    if not _class_is_plain(model):
        return None
    out: set[str] = set()
    todo, done = [name], set()
    while todo:
        current = todo.pop()
        if current in done:
            continue
        done.add(current)
        method = model.methods.get(current)
        if method is None:
            return None
        scan = _Scan(model)
        scan.scan(method.body)
        own = _own_writes(model, scan)
        if own is None:
            return None
        out |= own
        todo.extend(scan.calls)
    return frozenset(out)


def statement_writes(model: ClassModel, stmts: list[ast.stmt]) -> frozenset[str] | None:
    """The fields `stmts` (a loop's body) may change, with the methods of the class they
    call on self (None: cannot tell, assume all)."""
    if not _class_is_plain(model):
        return None
    scan = _Scan(model)
    scan.scan(stmts)
    own = _own_writes(model, scan)
    if own is None:
        return None
    out = set(own)
    for name in scan.calls:
        called = writes(model, name)
        if called is None:
            return None
        out |= called
    return frozenset(out)

