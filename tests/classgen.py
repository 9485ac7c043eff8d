"""A Hypothesis strategy generating small contract-annotated classes as Python source.

Each class `C` has bool fields and small int fields bounded by its invariant, 2-4
methods with random preconditions (PEP 316 docstrings or leading asserts) and random
guarded updates, so its field and parameter domains are finite and closed: the tool's
typestate must equal the brute force's. A third of the classes are split into a base `B`
and `C(B)` (inherited fields, invariants, constructor and methods, an optional
`super().__init__()` and an override extending the base's method through `super()`);
some loops run past the unroll bound (then the tool need only contain the brute force).
A class may have one str, tuple, dict or set field `c0` whose invariant pins it to a small
domain, read and updated by the operations of its `_Collection` (slicing, find, count,
comprehensions, sum/max, set algebra, dict views ...).
"""

from __future__ import annotations

import itertools
import types
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

CMP = ("<", "<=", "==", "!=", ">", ">=")
UNROLL = 4  # the --unroll the differential test runs with; some loops run past it
DIVISORS = (2, 3, -2)


@dataclass(frozen=True)
class Generated:
    source: str
    domains: dict[str, list[Any]]
    param_domains: dict[str, dict[str, list[Any]]]
    exact: bool = True  # no loop runs past UNROLL: the tool must equal the brute force


@dataclass
class _Scope:
    bools: list[str]  # readable bool terms: self.b0, a bool parameter
    ints: list[str]  # readable int terms: self.x0, an int parameter, loop variable, local
    bool_fields: list[str]
    int_fields: list[str]
    helper: bool = False  # may call self._h()
    in_loop: bool = False
    locals_: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Collection:
    """A str, tuple, dict or set field: its domain (exactly the values its invariant allows),
    the int and bool terms reading it, and statements updating it ({c}: 0 or 1)."""

    annotation: str
    invariant: str
    domain: list[Any]
    ints: tuple[str, ...]
    bools: tuple[str, ...]
    updates: tuple[str, ...]


_AB = ["".join(t) for n in range(3) for t in itertools.product("ab", repeat=n)]
COLLECTIONS = {
    "set": _Collection(
        "set[int]", "len(self.c0) <= 2 and self.c0 <= {0, 1}",
        [set(c) for n in range(3) for c in itertools.combinations([0, 1], n)],
        ("len(self.c0)", "sum(self.c0)", "max(self.c0, default=-1)"),
        ("{c} in self.c0", "self.c0 <= {{{c}}}", "any(x > 0 for x in self.c0)", "bool(self.c0 & {{{c}}})"),
        ("self.c0.add({c})", "self.c0.discard({c})", "self.c0 = self.c0 | {{{c}}}", "self.c0 -= {{{c}}}",
         "self.c0 = {{x for x in self.c0 if x != {c}}}", "self.c0 = self.c0 ^ {{{c}}}")),
    "str": _Collection(
        "str", 'len(self.c0) <= 2 and all(ch in "ab" for ch in self.c0)', _AB,
        ("len(self.c0)", 'self.c0.count("a")', 'self.c0.find("b")'),
        # no `self.c0 < "b"`: z3 ignored its timeout on such a query (reuse.py), hanging the run
        ('self.c0.startswith("a")', '"b" in self.c0', 'self.c0 == "ab"', 'self.c0.endswith("b")'),
        ('self.c0 = (self.c0 + "a")[-2:]', 'self.c0 = self.c0[1:]', 'self.c0 = "ab"[{c}:]',
         'self.c0 = ("b" + self.c0)[:2]')),
    "tuple": _Collection(
        "tuple[int, int]", "0 <= self.c0[0] <= 1 and 0 <= self.c0[1] <= 1",
        [(a, b) for a in range(2) for b in range(2)],
        ("self.c0[0]", "self.c0[-1]", "sum(self.c0)"),
        ("{c} in self.c0", "self.c0 == (0, 1)", "all(x == {c} for x in self.c0)"),
        ("self.c0 = (self.c0[1], self.c0[0])", "self.c0 = ({c}, self.c0[0])", "a, b = self.c0\nself.c0 = (b, {c})")),
    "dict": _Collection(
        "dict[int, int]", "len(self.c0) <= 2 and all(0 <= k <= 1 and 0 <= v <= 1 for k, v in self.c0.items())",
        [dict(zip(ks, vs)) for n in range(3) for ks in itertools.combinations([0, 1], n)
         for vs in itertools.product([0, 1], repeat=n)],
        ("len(self.c0)", "sum(self.c0.values())", "self.c0.get({c}, -1)"),
        ("{c} in self.c0", "self.c0.get({c}) == 1", "any(v == 0 for v in self.c0.values())"),
        ("self.c0[{c}] = 1 - self.c0.get({c}, 1)", "self.c0.pop({c}, None)",
         "self.c0 = {{k: 1 - v for k, v in self.c0.items()}}",
         "self.c0 = {{k: v for k, v in self.c0.items() if k != {c}}}")),
}


class _Gen:
    def __init__(self, draw):
        self.draw = draw
        self.past_bound = False  # a loop may run more than UNROLL iterations
        self.collection: _Collection | None = None

    def coll_terms(self, kind: str) -> list[str]:
        c = self.collection
        if c is None:
            return []
        return [t.format(c=v) for t in (c.ints if kind == "int" else c.bools) for v in (0, 1)]

    def pick(self, options):
        return options[self.draw(st.integers(0, len(options) - 1))]

    def int_expr(self, s: _Scope, depth: int) -> str:
        atoms = s.ints + s.locals_
        kinds = ["const"] + ["atom"] * 3 * bool(atoms) + ["collection"] * bool(self.collection)
        if depth > 0:
            kinds += ["+", "-", "*", "//", "%", "abs", "minmax", "ifexp"]
        kind = self.pick(kinds)
        if kind == "const":
            return str(self.draw(st.integers(-3, 3)))
        if kind == "atom":
            return self.pick(atoms)
        if kind == "collection":
            return self.pick(self.coll_terms("int"))
        a = self.int_expr(s, depth - 1)
        if kind in ("+", "-"):
            return f"({a} {kind} {self.int_expr(s, depth - 1)})"
        if kind == "*":
            return f"({a} * {self.draw(st.integers(-2, 3))})"
        if kind in ("//", "%"):
            return f"({a} {kind} {self.pick(DIVISORS)})"
        if kind == "abs":
            return f"abs({a})"
        if kind == "minmax":
            return f"{self.pick(('min', 'max'))}({a}, {self.int_expr(s, depth - 1)})"
        return f"({a} if {self.bool_expr(s, depth - 1)} else {self.int_expr(s, depth - 1)})"

    def compare(self, s: _Scope, depth: int) -> str:
        if depth > 0 and self.draw(st.integers(0, 2)) == 0:
            return f"{self.int_expr(s, 1)} {self.pick(CMP)} {self.int_expr(s, 1)}"
        return f"{self.int_expr(s, 0)} {self.pick(CMP)} {self.draw(st.integers(-2, 3))}"

    def bool_expr(self, s: _Scope, depth: int) -> str:
        if self.collection is not None and self.draw(st.integers(0, 4)) == 0:
            return self.pick(self.coll_terms("bool"))
        kinds = ["atom"] * 3 * bool(s.bools) + ["not"] * 2 * bool(s.bools) + ["cmp"] * (
            3 if s.ints else not s.bools)
        if depth > 0:
            kinds += ["and", "and", "or", "or", "not()"] + ["chain"] * bool(s.ints)
        kind = self.pick(kinds)
        if kind == "atom":
            return self.pick(s.bools)
        if kind == "not":
            return f"not {self.pick(s.bools)}"
        if kind == "cmp":
            return self.compare(s, depth)
        if kind == "not()":
            return f"not ({self.bool_expr(s, depth - 1)})"
        if kind in ("and", "or"):
            return f"({self.bool_expr(s, depth - 1)} {kind} {self.bool_expr(s, depth - 1)})"
        lo = self.draw(st.integers(-2, 1))
        return (f"{lo} {self.pick(('<', '<='))} {self.int_expr(s, 1)} {self.pick(('<', '<='))} "
                f"{lo + self.draw(st.integers(1, 3))}")

    def simple(self, s: _Scope) -> list[str]:
        if self.collection is not None and self.draw(st.integers(0, 2)) == 0:
            update = self.pick(self.collection.updates).format(c=self.draw(st.integers(0, 1)))
            return update.split("\n")
        if s.int_fields and (not s.bool_fields or self.draw(st.booleans())):
            name = self.pick(s.int_fields)
            op = self.pick(("=", "+=", "-=", "*=")) if self.draw(st.booleans()) else "="
            rhs = self.int_expr(s, 2) if op == "=" else self.int_expr(s, 1)
            return [f"self.{name} {op} {rhs}"]
        value = self.pick(("True", "False", f"not self.{self.pick(s.bool_fields)}", self.bool_expr(s, 1)))
        return [f"self.{self.pick(s.bool_fields)} = {value}"]

    def block(self, s: _Scope, depth: int, count: int) -> list[str]:
        lines = []
        for _ in range(count):
            lines += self.statement(s, depth)
        return lines or ["pass"]

    def statement(self, s: _Scope, depth: int) -> list[str]:
        kinds = ["simple"] * 5
        if depth > 0:
            kinds += ["if"] * 3 + ["assert", "for", "ifexp"] + ["helper"] * s.helper
        kind = self.pick(kinds)
        if kind == "if":  # if / elif / else, maybe with an early return or a raise
            lines = [f"if {self.bool_expr(s, 1)}:"] + _indent(self.branch(s, depth))
            if self.draw(st.booleans()):
                lines += [f"elif {self.bool_expr(s, 1)}:"] + _indent(self.branch(s, depth))
            if self.draw(st.booleans()):
                lines += ["else:"] + _indent(self.branch(s, depth))
            return lines
        if kind == "assert":
            return [f"assert ({self.bool_expr(s, 1)} or {self.bool_expr(s, 0)})"]
        if kind == "helper":
            return ["self._h()"]
        if kind == "for" and not s.in_loop:
            inner = _Scope(s.bools, s.ints + ["i"], s.bool_fields, s.int_fields, s.helper, True, s.locals_)
            k = self.draw(st.sampled_from((1, 2, 3, 1, 2, 3, UNROLL + 2)))
            self.past_bound |= k > UNROLL
            return [f"for i in range({k}):"] + _indent(self.block(inner, depth - 1, self.draw(st.integers(1, 2))))
        if kind == "ifexp" and s.int_fields:
            return [f"self.{self.pick(s.int_fields)} = {self.int_expr(s, 1)} if {self.bool_expr(s, 1)} "
                    f"else {self.int_expr(s, 1)}"]
        return self.simple(s)

    def branch(self, s: _Scope, depth: int) -> list[str]:
        lines = self.block(s, depth - 1, self.draw(st.integers(1, 2)))
        ending = self.pick(("", "", "", "", "return", "raise"))
        if ending == "return" and not s.in_loop:
            lines.append("return")
        elif ending == "raise":
            lines.append('raise ValueError("refused")')
        return lines

    def body(self, s: _Scope) -> list[str]:
        lines = []
        if s.int_fields and self.draw(st.integers(0, 3)) == 0:
            lines.append(f"t = {self.int_expr(s, 1)}")
            s = _Scope(s.bools, s.ints, s.bool_fields, s.int_fields, s.helper, s.in_loop, ["t"])
        lines += self.block(s, 2, self.draw(st.integers(1, 3)))
        if lines[0].startswith("assert"):  # keep body asserts from reading as preconditions
            lines = self.simple(s) + lines
        return lines


def _annotation(name: str, bool_fields: list[str], collection: _Collection | None) -> str:
    if name == "c0" and collection is not None:
        return collection.annotation
    return "bool" if name in bool_fields else "int"


def _indent(lines: list[str], n: int = 1) -> list[str]:
    return ["    " * n + line for line in lines]


ALL_KINDS = (None, None, "set", "str", "tuple", "dict")


@st.composite
def classes(draw, kinds: tuple[str | None, ...] = ALL_KINDS) -> Generated:
    g = _Gen(draw)
    bool_fields = [f"b{i}" for i in range(draw(st.integers(1, 3)))]
    int_fields = [f"x{i}" for i in range(draw(st.integers(0, 2)))]
    bounds = {}
    for name in int_fields:
        lo = draw(st.integers(-2, 0))
        bounds[name] = (lo, lo + draw(st.integers(1, 3)))
    domains: dict[str, list[Any]] = {n: [False, True] for n in bool_fields}
    domains.update({n: list(range(lo, hi + 1)) for n, (lo, hi) in bounds.items()})
    kind = draw(st.sampled_from(kinds))
    if kind is not None:  # a field of a Python data type
        g.collection = COLLECTIONS[kind]
        domains["c0"] = g.collection.domain
        # z3's sequence theory times out on some classes with a set field (their answers
        # are then may): for those the tool need only contain the brute force
        g.past_bound |= kind == "set"
    init = {n: draw(st.sampled_from(domains[n])) for n in domains}
    fields_scope = _Scope([f"self.{n}" for n in bool_fields], [f"self.{n}" for n in int_fields],
                          bool_fields, int_fields)
    extra = g.bool_expr(fields_scope, 0)  # a conjunct the constructor satisfies
    if not eval(f"lambda self: {extra}")(types.SimpleNamespace(**init)):
        extra = f"not ({extra})"
    if draw(st.sampled_from((True, True, False))):  # weakened, like the door's `not (danger and closed)`
        extra = f"({extra} or {g.bool_expr(fields_scope, 1)})"
    invariants = [f"{lo} <= self.{n} <= {hi}" for n, (lo, hi) in bounds.items()] + [extra]
    if g.collection is not None:
        invariants.insert(0, g.collection.invariant)
    init_lines = ["    def __init__(self) -> None:"]
    init_lines += [f"        self.{n}: {_annotation(n, bool_fields, g.collection)} = {init[n]!r}" for n in domains]
    helper = draw(st.booleans())
    helper_lines = ["", "    def _h(self) -> None:"] + _indent(g.body(fields_scope), 2) if helper else []
    param_domains: dict[str, dict[str, list[Any]]] = {}
    # name, signature, call, lines, range, whether the precondition is leading asserts
    methods: list[tuple[str, str, str, list[str], list[str], bool]] = []
    for index in range(draw(st.integers(2, 4))):
        name = f"m{index}"
        scope = _Scope(list(fields_scope.bools), list(fields_scope.ints), bool_fields, int_fields, helper)
        pres, signature, call = [], "", ""
        kind = draw(st.sampled_from(["none", "none", "bool", "int"]))
        if kind == "bool":
            signature, call, scope.bools = ", p: bool", "p", scope.bools + ["p"]
            param_domains[name] = {"p": [False, True]}
        elif kind == "int":
            lo = draw(st.integers(-1, 0))
            hi = lo + draw(st.integers(1, 2))
            signature, call, scope.ints = ", k: int", "k", scope.ints + ["k"]
            pres.append(f"{lo} <= k <= {hi}")
            param_domains[name] = {"k": list(range(lo, hi + 1))}
        if draw(st.sampled_from((True, True, True, False))):
            pres.append(g.bool_expr(scope, draw(st.sampled_from((0, 0, 1, 2)))))
        lines = ["", f"    def {name}(self{signature}) -> None:"]
        asserts = bool(pres) and draw(st.booleans())
        if asserts:
            lines += _indent([f"assert {p}" for p in pres], 2)
        elif pres:
            lines += ['        """', *(f"        pre: {p}" for p in pres), '        """']
        lines += _indent(g.body(scope), 2)
        methods.append((name, signature, call, lines, pres[:1] if kind == "int" else [], asserts))
    if not draw(st.sampled_from((False, False, True))):  # one class
        lines = ["class C:", '    """', *(f"    inv: {i}" for i in invariants), '    """', "", *init_lines,
                 *helper_lines, *(line for m in methods for line in m[3])]
        return Generated("\n".join(lines) + "\n", domains, param_domains, exact=not g.past_bound)
    # the same class split into a base B and C(B): B has the constructor, the helper, some
    # invariants and methods; C the others, maybe its own __init__ calling super().__init__(),
    # and maybe an override of one of B's methods extending it through super()
    split = draw(st.integers(0, len(methods)))
    inv_split = draw(st.integers(0, len(invariants)))
    base = ["class B:", '    """', *(f"    inv: {i}" for i in invariants[:inv_split]), '    """', "",
            *init_lines, *helper_lines, *(line for m in methods[:split] for line in m[3])]
    derived = ["class C(B):", '    """', *(f"    inv: {i}" for i in invariants[inv_split:]), '    """']
    if draw(st.booleans()):
        derived += ["", "    def __init__(self) -> None:", "        super().__init__()"]
    derived += [line for m in methods[split:] for line in m[3]]
    if split and draw(st.booleans()):
        name, signature, call, _, ranges, asserts = methods[draw(st.integers(0, split - 1))]
        scope = _Scope(list(fields_scope.bools), list(fields_scope.ints), bool_fields, int_fields, helper)
        own = draw(st.booleans())  # PEP 316: an own precondition replaces the inherited one
        derived += ["", f"    def {name}(self{signature}) -> None:"]
        if own:
            own_pres = ranges + [g.bool_expr(scope, 1)]  # the parameter keeps its bounded domain
            derived += ['        """', *(f"        pre: {p}" for p in own_pres), '        """']
        elif asserts:
            # leading asserts are not inherited: without its own, the override would accept
            # arguments outside the brute force's finite domain (and rightly may raise there)
            derived += _indent([f"assert {r}" for r in ranges], 2)
        derived += [f"        super().{name}({call})"] + _indent(g.simple(scope), 2)
    lines = base + ["", ""] + derived
    return Generated("\n".join(lines) + "\n", domains, param_domains, exact=not g.past_bound)
