"""Inheritance: what the classes of the analysed class's MRO contribute to its model.

- fields: those of every readable class (a subclass's type wins, the base's order stays);
- invariants: every class's, in every dialect (PEP 316, icontract and deal invariants all
  hold for subclasses);
- methods: each name resolves as Python resolves it (C3 MRO); `super()` and `Base.m(self)`
  calls are inlined as calls of the method the MRO gives;
- method contracts of an override, per dialect: PEP 316 as CrossHair reads it (the
  override's preconditions if it has any, else the inherited ones; postconditions
  accumulate); icontract with `icontract.DBC` preconditions are or-ed ("require else")
  and postconditions accumulate, without DBC an override has only its own; deal's and
  leading asserts belong to the function that carries them (not inherited).

A method that an unreadable base may define in front of the readable definition, and a
super call that lands in an unreadable base, get an opaque body: their effect is unknown,
so only the answers that depend on them are may.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from contractor.contracts import asserts, deal_dialect, icontract_dialect, pep316
from contractor.contracts.bases import BaseResolver, ClassSource, Linearised, Unreadable, c3
from contractor.contracts.clauses import Clauses
from contractor.contracts.constants import class_constants, module_constants, rebinds_class_attributes
from contractor.contracts.context import FileContext
from contractor.contracts.fields import read_fields
from contractor.contracts.methods import is_accessor, is_dataclass, param_names
from contractor.contracts.supercalls import SuperRewriter, SuperTarget, next_definition, rewrite
from contractor.contracts.types import TypeReader, enum_classes
from contractor.model import BaseClass, Condition, Field, FunctionNode, Opaque, TypeRef
from contractor.target import ResolvedTarget

DIALECT_ORDER = ("pep316", "icontract", "deal", "asserts")


@dataclass
class Reading:
    """One readable class of the MRO with the readers of its file."""

    src: ClassSource
    ctx: FileContext
    lines: list[str]
    types: TypeReader
    functions: dict[str, FunctionNode]


@dataclass
class Effective:
    """One dialect's contract of a method after inheritance: precondition groups (or-ed),
    postconditions (and-ed), declared exceptions."""

    groups: list[list[Condition]] = field(default_factory=list)
    post: list[Condition] = field(default_factory=list)
    raises: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Definition:
    """A method as one class of the MRO defines it (reading None: an unreadable base)."""

    reading: Reading | None
    fn: FunctionNode | None
    index: int  # position of the defining class in the MRO
    unreadable: Unreadable | None = None

    def readable(self) -> tuple[Reading, FunctionNode]:
        """The reading and the function of a definition in a readable class."""
        if self.reading is None or self.fn is None:  # the caller skipped the unreadable ones
            raise ValueError(f"the definition in MRO class {self.index} is in an unreadable class")
        return self.reading, self.fn


def functions_of(cls: ast.ClassDef, ctx: FileContext) -> dict[str, FunctionNode]:
    """The class's methods by name; a later definition replaces an earlier one, as in Python,
    except a property's setter or deleter, which keeps the getter."""
    found: dict[str, FunctionNode] = {}
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and not (node.name in found and is_accessor(node, ctx)):
            found[node.name] = node
    return found


def method_clauses(fn: FunctionNode, ctx: FileContext, lines: list[str],
                   snapshots: dict[str, ast.expr] | None = None) -> dict[str, Clauses]:
    """The method's own clauses per dialect; `snapshots`: icontract's of what it overrides."""
    names = param_names(fn)
    return {
        "pep316": pep316.read_method(fn, ctx, lines),
        "icontract": icontract_dialect.read_method(fn, ctx, names, snapshots),
        "deal": deal_dialect.read_method(fn, ctx, names),
        "asserts": asserts.read_method(fn, ctx),
    }


def _reading(src: ClassSource) -> Reading:
    ctx = FileContext.of(src.display_path, src.source, src.module)
    classes = frozenset(n.name for n in src.module.body if isinstance(n, ast.ClassDef))
    types = TypeReader(ctx, src.name, enum_classes(src.module), classes, module_constants(src.module),
                       class_constants(src.node))
    return Reading(src, ctx, src.source.splitlines(), types, functions_of(src.node, ctx))


class Hierarchy:
    """The analysed class and its bases, read from source."""

    def __init__(self, resolved: ResolvedTarget, root: Path):
        self.resolver = BaseResolver(root)
        top = ClassSource(resolved.name, resolved.path, resolved.display_path, resolved.source,
                          resolved.module, resolved.node)
        self.mro: list[Linearised] = c3(top, self.resolver)
        self.readings: dict[int, Reading] = {i: _reading(c) for i, c in enumerate(self.mro)
                                             if isinstance(c, ClassSource)}
        self.top = self.readings[0]
        self.dbc = any(self._uses_dbc(r) for r in self.readings.values())
        self.used: set[str] = set()
        self.declaring: set[str] = set()  # the dialects of `used` that declare a contract (Clauses.declares)
        self._clauses: dict[tuple[int, str], dict[str, Clauses]] = {}

    # -- facts ------------------------------------------------------------------------

    @staticmethod
    def _uses_dbc(r: Reading) -> bool:
        node = r.src.node
        return any(r.ctx.qualname(b) == "icontract.DBC" for b in node.bases) or any(
            k.arg == "metaclass" and r.ctx.qualname(k.value) == "icontract.DBCMeta" for k in node.keywords)

    @property
    def unreadable(self) -> list[Unreadable]:
        return [c for c in self.mro if isinstance(c, Unreadable)]

    def bases(self) -> tuple[BaseClass, ...]:
        out = []
        for c in self.mro[1:]:
            if isinstance(c, Unreadable):
                out.append(BaseClass(c.name, c.location.path, None, c.reason, c.location.line))
            else:
                out.append(BaseClass(c.name, c.display_path, c.node, None, c.node.lineno))
        return tuple(out)

    def enums(self) -> dict[str, TypeRef]:
        out: dict[str, TypeRef] = {}
        for i in sorted(self.readings, reverse=True):
            out.update(self.readings[i].types.enums)
        return out

    def class_constants(self) -> dict[str, Any]:
        """Class constants (see constants.py) of every readable class; a subclass's win."""
        out: dict[str, Any] = {}
        if any(rebinds_class_attributes(r.src.node) for r in self.readings.values()):
            return out  # a metaclass may change them: reading one is reading outside code
        for i in sorted(self.readings, reverse=True):
            r = self.readings[i]
            out.update(class_constants(self.mangled(r.src.node, r.src.name)))
        return out

    def fields(self, constants: frozenset[str] = frozenset()) -> dict[str, Field]:
        """Fields of every readable class, bases first; a subclass's type wins."""
        out: dict[str, Field] = {}
        for i in sorted(self.readings, reverse=True):
            r = self.readings[i]
            out.update(read_fields(self.mangled(r.src.node, r.src.name), r.ctx, r.types, constants, out))
        return out

    def invariants(self) -> list[Condition]:
        out: list[Condition] = []
        for i in sorted(self.readings):
            r = self.readings[i]
            for dialect, clauses in (("pep316", pep316.read_class(r.src.node, r.ctx, r.lines)),
                                     ("icontract", icontract_dialect.read_class(r.src.node, r.ctx)),
                                     ("deal", deal_dialect.read_class(r.src.node, r.ctx))):
                out += [self.mangled_condition(c, r.src.name) for c in clauses.inv]
                if clauses.any:
                    self.used.add(dialect)
                if clauses.declares:
                    self.declaring.add(dialect)
        return out

    def dataclass_lineage(self) -> list[tuple[ast.ClassDef, FileContext]]:
        """The dataclasses whose fields the inherited constructor takes, bases first: from the
        first class of the MRO that is a dataclass (before any that defines `__init__`), it
        and every dataclass after it; [] if the constructor is not a dataclass's."""
        for i, c in enumerate(self.mro):
            if isinstance(c, Unreadable) or "__init__" in self.readings[i].functions:
                return []
            if is_dataclass(c.node, self.readings[i].ctx):
                later = [j for j in range(i, len(self.mro)) if j in self.readings
                         and is_dataclass(self.readings[j].src.node, self.readings[j].ctx)]
                return [(self.readings[j].src.node, self.readings[j].ctx) for j in reversed(later)]
        return []

    # -- methods ----------------------------------------------------------------------

    def defines(self, c: ClassSource, method: str) -> bool:
        index = next(i for i, x in enumerate(self.mro) if x.key == c.key)
        return method in self.readings[index].functions

    def definition(self, name: str, start: int = 0) -> Definition | None:
        """What `name` resolves to from `mro[start]` on (an unreadable class may define it)."""
        for i in range(start, len(self.mro)):
            c = self.mro[i]
            if isinstance(c, Unreadable):
                return Definition(None, None, i, c)
            fn = self.readings[i].functions.get(name)
            if fn is not None:
                return Definition(self.readings[i], fn, i)
        return None

    def names(self) -> list[str]:
        """Every method name some readable class of the MRO defines, in order of appearance."""
        seen: dict[str, None] = {}
        for i in sorted(self.readings):
            seen.update(dict.fromkeys(self.readings[i].functions))
        return list(seen)

    def own_clauses(self, d: Definition) -> dict[str, Clauses]:
        reading, fn = d.readable()
        key = (d.index, fn.name)
        if key not in self._clauses:
            clauses = method_clauses(fn, reading.ctx, reading.lines, self.inherited_snapshots(d))
            self.used.update(k for k, c in clauses.items() if c.any)
            self.declaring.update(k for k, c in clauses.items() if c.declares)
            owner = reading.src.name
            for c in clauses.values():
                c.pre = [self.mangled_condition(x, owner) for x in c.pre]
                c.post = [self.mangled_condition(x, owner) for x in c.post]
            self._clauses[key] = clauses
        return self._clauses[key]

    def inherited_snapshots(self, d: Definition) -> dict[str, ast.expr]:
        """icontract's snapshots of the readable methods `d` overrides (with `icontract.DBC`
        postconditions accumulate, so an override's may read a base's `OLD.name`)."""
        below = self.definition(d.readable()[1].name, d.index + 1) if self.dbc else None
        if below is None or below.reading is None:
            return {}
        reading, fn = below.readable()
        return {**self.inherited_snapshots(below), **icontract_dialect.snapshots(fn, reading.ctx, param_names(fn))}

    def contracts(self, d: Definition) -> dict[str, Effective]:
        """The method's contracts per dialect, after inheritance (see the module docstring)."""
        own = self.own_clauses(d)
        below = self.definition(d.readable()[1].name, d.index + 1)
        base = self.contracts(below) if below is not None and below.reading is not None else None
        out: dict[str, Effective] = {}
        for dialect in DIALECT_ORDER:
            c = own[dialect]
            mine = Effective([list(c.pre)] if c.pre else [], list(c.post), list(c.raises))
            inherited = base[dialect] if base is not None else None
            if inherited is None or dialect in ("deal", "asserts") or (dialect == "icontract" and not self.dbc):
                out[dialect] = mine
            elif dialect == "pep316":
                out[dialect] = Effective(mine.groups or inherited.groups, inherited.post + mine.post,
                                         _union(inherited.raises, mine.raises))
            else:
                out[dialect] = Effective(inherited.groups + mine.groups, inherited.post + mine.post,
                                         _union(inherited.raises, mine.raises))
        return out

    def body(self, d: Definition) -> tuple[FunctionNode, list[SuperTarget]]:
        """The definition's function with its super calls resolved, and where they land."""
        reading, fn = d.readable()
        rewriter = SuperRewriter(self.mro, d.index, self.defines, self.explicit)
        return self.mangled(rewrite(fn, rewriter), reading.src.name), rewriter.needed

    # -- private names ---------------------------------------------------------------

    def mangled(self, node: ast.AST, owner: str) -> Any:
        """`node` with `self.__x` spelled as Python stores it (`self._Owner__x`), so that a
        base's and a subclass's private fields stay apart; a single class keeps `__x`."""
        if len(self.readings) < 2:
            return node
        return _Mangler(owner).visit(copy.deepcopy(node))

    def mangled_condition(self, c: Condition, owner: str) -> Condition:
        return replace(c, expr=self.mangled(c.expr, owner)) if len(self.readings) > 1 else c

    def explicit(self, dotted: str, method: str) -> SuperTarget | None:
        """`Base.method(self, ...)`: Base's own MRO gives the definition."""
        if dotted in ("super", "self"):
            return None
        index = next((i for i, c in self.readings.items() if c.src.name == dotted.rsplit(".", 1)[-1]), None)
        if index is None:
            return None
        own_mro = c3(self.readings[index].src, self.resolver)
        return next_definition(own_mro, 0, method, self.defines)


def precondition_list(contracts: dict[str, Effective]) -> list[Condition]:
    """Preconditions as one conjunction: each dialect's groups or-ed into one condition."""
    out: list[Condition] = []
    for dialect in DIALECT_ORDER:
        groups = contracts[dialect].groups
        if len(groups) == 1:
            out += groups[0]
        elif groups:
            out.append(any_of(groups))
    return out


def any_of(groups: list[list[Condition]]) -> Condition:
    """One precondition holding when some group's conditions all hold (icontract's "require else")."""
    exprs = [g[0].expr if len(g) == 1 else ast.BoolOp(ast.And(), [c.expr for c in g]) for g in groups]
    first = groups[-1][0]
    expr = ast.copy_location(ast.BoolOp(ast.Or(), exprs), first.expr)
    ast.fix_missing_locations(expr)
    text = " or ".join("(" + " and ".join(c.text for c in g) + ")" for g in groups)
    return Condition(expr, text, "pre", first.dialect, first.location, first.description)


def opaque_body(reason: str, at: ast.AST, rest: list[ast.stmt] | None = None, base: str = "") -> tuple[ast.stmt, ...]:
    """One opaque statement; `rest`: the statements it replaces, if known; `base`: the
    unreadable base class whose method it stands for (see model.Opaque)."""
    # an ast node takes its _fields as keywords; typeshed's ast.stmt knows only the position ones
    opaque = Opaque(reason=reason, rest=list(rest or []), base=base)  # type: ignore[call-arg]
    return (ast.copy_location(opaque, at),)


def until_first_await(fn: ast.AsyncFunctionDef, body: tuple[ast.stmt, ...]) -> tuple[ast.stmt, ...]:
    """An async method's effect as contractor models it: its statements up to the first
    one that may suspend (an `await`, `async for` or `async with` anywhere in it), then an
    opaque rest, so only the answers depending on the rest are may."""
    suspends = (ast.Await, ast.AsyncFor, ast.AsyncWith)
    for i, stmt in enumerate(body):
        if any(isinstance(n, suspends) for n in ast.walk(stmt)):
            return body[:i] + opaque_body(f"async method {fn.name} after its first await", stmt,
                                          list(body[i:]))
    return body


def mangle(name: str, owner: str) -> str:
    """`__x` as Python stores it inside class `owner` (`_Owner__x`); other names unchanged."""
    prefix = "_" + owner.lstrip("_")
    if name.startswith("__") and not name.endswith("__") and prefix != "_":
        return prefix + name
    return name


class _Mangler(ast.NodeTransformer):
    """Python's private name mangling within the class `owner`: attributes (`self.__x`) and
    the names the class body itself binds (`__x = 0` at class level)."""

    def __init__(self, owner: str):
        self.owner = owner
        self.top = True

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        if self.top:  # the class's own body (a nested class mangles with its own name)
            self.top = False
            for stmt in node.body:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else \
                    [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
                for t in targets:
                    if isinstance(t, ast.Name):
                        t.id = mangle(t.id, self.owner)
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = mangle(node.attr, self.owner)
        return node


def _union(a: list[str], b: list[str]) -> list[str]:
    return a + [x for x in b if x not in a]


__all__ = ["until_first_await", "Hierarchy", "Definition", "Effective", "precondition_list", "opaque_body",
           "functions_of", "method_clauses"]
