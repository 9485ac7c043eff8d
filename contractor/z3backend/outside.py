"""Code outside the analysed source, and values contractor cannot type (opaque values).

A name the class does not define (a module function, an imported module, a builtin the
backend does not model), an attribute of an opaque value, and a call to any of them give
opaque results (opaque.py): fresh, None or not, unless a builtin's result type is known
(`len`, `int`, `str`, ...). Such a call reaches only what is handed to it: its arguments
and the object whose method it is may change in place (reach.py: an untyped object's
truth, a container's contents, seen through every place holding them; identity and
None-ness stay); `self`'s fields change only if `self` (or another object of the class)
is passed, and then the path is not followed further (every field the method may write
becomes arbitrary). It may raise: that is a `may_raise` finding, never a raise guard.
Using an opaque value that is None (an attribute, a call) raises as Python does.
Comparisons, operators and subscripts on opaque values give fresh results; `is None`,
`is` and truth tests are tracked.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, FLOAT, INT, OPAQUE, STR, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import opaque as O
from contractor.z3backend import valops as P
from contractor.z3backend import values as V
from contractor.z3backend.dag import mentions_constant
from contractor.z3backend.escape import may_be_self
from contractor.z3backend.fileclasses import Truth
from contractor.z3backend.pytypes import result_type
from contractor.z3backend.state import Site
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object

# builtins whose result type is known whatever their arguments
_RESULT_TYPES = {"len": INT, "isinstance": BOOL, "issubclass": BOOL, "hasattr": BOOL, "callable": BOOL,
                 "str": STR, "repr": STR, "format": STR, "int": INT, "round": INT, "float": FLOAT,
                 "ord": INT, "hash": INT, "id": INT}

# builtins whose result is what their argument's own method answers (__len__, __round__, ...)
_PROTOCOL = frozenset({"round", "int", "float"})

# builtins that raise on no argument (of the arities Python accepts)
_NEVER_RAISE = frozenset({"isinstance", "hasattr", "callable", "id", "bool", "type", "print"})

# outside functions that only observe their arguments: `sys.audit(event, *args)` hands
# them to the audit hooks, taken to observe (log, veto by raising), not to change them;
# the standard library hands `self` to it in every socket-using class (README, "What is
# assumed, not proved")
_OBSERVERS = frozenset({"sys.audit"})


# the methods an operator may call on its operands (each side's, reflected included)
OPERATOR_METHODS = frozenset(
    [f"__{n}__" for n in ("eq", "ne", "lt", "le", "gt", "ge", "contains", "getitem", "neg", "pos", "invert")]
    + [f"__{r}{n}__" for n in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift",
                                "rshift", "and", "or", "xor") for r in ("", "r")])


@dataclass(frozen=True)
class External:
    """A name from outside the analysed class (module global, import, builtin)."""

    name: str


@dataclass(frozen=True)
class Member:
    """`base.attr` on an opaque value: a value when read, a method when called."""

    base: Val
    node: ast.expr  # the expression of `base`, to write its havocked value back
    attr: str


def escapes_self(node: ast.AST) -> bool:
    """Whether evaluating `node` may hand `self` to code or call the class's methods
    (reading `self.<field>` does neither)."""
    parents = {id(c): p for p in ast.walk(node) for c in ast.iter_child_nodes(p)}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == "self":
            parent = parents.get(id(sub))
            if not isinstance(parent, ast.Attribute):
                return True
            grand = parents.get(id(parent))
            if isinstance(grand, ast.Call) and grand.func is parent:
                return True
    return False


class OutsideEvaluator(_Host):
    """Mixin of Executor (after ExprEvaluator): opaque values and code outside the source."""

    def note_outside(self, what: str, node: ast.AST | None) -> None:
        """The paths running here use a value outside code chose: their answers are may."""
        c = self.active()
        self.state.outside = F.or_(self.state.outside, c)
        self.state.outside_sites.append(Site(c, what, getattr(node, "lineno", 0), self.frame.method))

    def fresh_opaque(self, hint: str, node: ast.AST | None = None) -> Val:
        self.note_outside(hint, node)
        return self.fresh(OPAQUE, hint)

    def fresh_typed(self, t: TypeRef, hint: str, node: ast.AST | None = None) -> Val:
        self.note_outside(hint, node)
        if t == INT and hint.startswith("len"):
            v = self.fresh(INT, hint)
            return Val(INT, F.ite(v.z < 0, -v.z, v.z))
        return self.fresh(t, hint)

    def none_raises(self, v: Val, exc: str, node: ast.AST) -> None:
        """Using an opaque value that is None raises, as Python does. While reading raise
        guards, only where the object's state or the arguments decide it is None: a value
        outside code made (a call's result) is taken to be one its caller can use, as that
        code is taken to return normally there."""
        none = O.is_none(v.z)
        if self._made_up(none):  # made up on the way (see z3backend/guards.py): chosen with the outcome
            self.outside_raise_if(none, exc, node)
            return
        self.raise_if(none, exc, node)

    def _made_up(self, term: z3.ExprRef) -> bool:
        """Whether `term` reads a value made up on the way (a constant named `prefix!hint!n`);
        memoised over the translation, the terms asked about kept alive."""
        memo = self.__dict__.setdefault("_made_up_memo", ({}, []))
        memo[1].append(term)
        return mentions_constant(term, lambda name: "!" in name, memo[0])

    def as_value(self, r: Any, node: ast.AST) -> Any:
        """An External or Member read as a value: an opaque value (None-ness checked)."""
        if isinstance(r, External):
            return self.fresh_opaque(r.name, node)
        if isinstance(r, Member):
            self.none_raises(r.base, "AttributeError", node)
            return self.fresh_opaque(r.attr, node)
        return r

    def tolerant(self, node: ast.expr) -> Any:
        """An argument handed to outside code: its value, or an opaque one where the backend
        cannot translate it (unless it could reach `self`)."""
        try:
            return self.as_value(self.eval_any(node), node)
        except UnsupportedConstruct:
            if escapes_self(node):
                raise
            return self.fresh_opaque("arg", node)

    def outside_call(self, target: Any, node: ast.Call, evaluated: list[Val] | None = None) -> Val:
        """A call to code outside the analysed source (see the module docstring);
        `evaluated`: the values of its positional arguments (no keywords), already read."""
        args = [(a.value if isinstance(a, ast.Starred) else a) for a in node.args]
        args += [k.value for k in node.keywords]
        values = list(evaluated) if evaluated is not None else [self.tolerant(a) for a in args]
        observer = isinstance(target, External) and target.name in _OBSERVERS
        for a, v in zip(args, values):
            if observer:
                break
            if isinstance(v, Val) and v.kind == "any":  # a typed value z3 does not model
                raise UnsupportedConstruct(f"{V.a_value_of(v.type)} handed to {type(target).__name__.lower()} code",
                                           self.loc(a))
            if isinstance(v, Val) and v.kind == "class":
                raise UnsupportedConstruct("an object of the class handed to code outside the analysed source",
                                           self.loc(a))
        name = target.name if isinstance(target, External) else (
            target.attr if isinstance(target, Member) else "an opaque value")
        if isinstance(target, Member):
            self.none_raises(target.base, "AttributeError", node)
            self.hand_out(target.node, target.base)  # a method may change its object
            if target.base.kind == "opaque" and any("!new!" in n for n in self._names(O.oid(target.base.z))):
                # `items.append(x)` on a list built here (a new object): it holds x now
                self.note_holds(target.base.z, [v for v in values if isinstance(v, Val)])
        elif isinstance(target, Val) and target.kind == "opaque":
            self.none_raises(target, "TypeError", node)
            self.hand_out(node.func, target)
        for a, v in zip(args, values):  # and its arguments (reach.py)
            if not observer:
                self.hand_out(a, v)
        if not (isinstance(target, External) and target.name in _NEVER_RAISE):
            fails = self.fresh(BOOL, f"raises!{name}")
            self.outside_raise_if(fails.z, f"an exception from {name}()", node)
        if isinstance(target, External) and target.name == "bool" and len(values) == 1 \
                and isinstance(values[0], Val) and values[0].kind not in ("any", "class"):
            return Val(BOOL, V.truthy(values[0]))
        if isinstance(target, External) and target.name in _PROTOCOL and values \
                and isinstance(values[0], Val) and values[0].kind == "opaque" \
                and all(self.caller_chosen(v) for v in values):
            # round(x), int(x), ... of the caller's own untyped object: its __round__ answers
            # (of a modelled value, say int(a_str), it is outside code's answer)
            return self.fresh(_RESULT_TYPES[target.name], target.name)
        if isinstance(target, External) and target.name in _RESULT_TYPES:
            return self.fresh_typed(_RESULT_TYPES[target.name], target.name, node)
        truth = self.facts.plain_classes.get(target.name) if isinstance(target, External) else None
        if truth is not None:  # a plain class of the file: a new object, never None (fileclasses.py)
            truthy = z3.BoolVal(True) if truth is Truth.TRUE else self.fresh_typed(BOOL, f"truth!{name}", node).z
            return Val(OPAQUE, self.new_object(truthy))
        result = self.fresh_opaque(f"call!{name}", node)
        known = result_type(self.known_type(target.base), target.attr) if isinstance(target, Member) else (
            bytes if isinstance(target, External) and target.name == "str.encode" else None)
        return result if known is None else self.note_type(result, known)  # b"".join(...): bytes

    def operator_call(self, operands: list[tuple[ast.expr, Any]], dunder: str, node: ast.AST) -> None:
        """An operator on an untyped object (`x + y`, `x < y`, `x == y`, `y in x`, `x[k]`, `-x`)
        calls that object's method (`dunder`: `__add__` or the reflected `__radd__` of the
        other side, `__lt__`, `__eq__`, `__contains__`, `__getitem__`, `__neg__`), handing it
        the other operands: outside code, as a method call is (outside_call), so what it can
        reach in every operand may change (reach.py), an object of the class (or a value z3
        does not model) handed to it leaves the path untranslated, and it may raise (a
        TypeError, a KeyError: a `may_raise` finding, never a guard), except `==` and `!=`
        (README, "What is assumed"). Where every operand is the caller's own (an untyped
        argument of the analysed call, a scalar), the code run is the caller's object's, so
        what it leaves is the caller's choice still (choose_by_caller)."""
        for sub, v in operands:
            if isinstance(v, Val) and v.kind == "class":
                raise UnsupportedConstruct("an object of the class handed to an untyped value's operator",
                                           self.loc(sub))
            if isinstance(v, Val) and v.kind == "any":
                raise UnsupportedConstruct(f"{V.a_value_of(v.type)} handed to an untyped value's operator",
                                           self.loc(sub))
        chosen = all(self.caller_chosen(v) for _, v in operands)
        # where `self` was handed out (escape.py), one untyped operand may be the object: it
        # then runs the class's own operator with the others (typed values, which run none of
        # theirs on it), so it changes nothing unless the class defines one
        selfish = [v for _, v in operands if may_be_self(v)]
        harmless = len(selfish) == 1 and not self._defines_operators()
        for sub, v in operands:
            self.hand_out(sub, v, may_be_self_harmlessly=harmless)
        if dunder not in ("__eq__", "__ne__"):
            fails = self.fresh(BOOL, f"raises!{dunder}")
            self.outside_raise_if(fails.z, f"an exception from {dunder}()", node)
        if chosen:
            for sub, v in operands:
                if isinstance(v, Val) and v.kind == "opaque" and isinstance(sub, ast.Name):
                    self.choose_by_caller(self.eval(sub))

    def _defines_operators(self) -> bool:
        """Whether the class (or a base) defines an operator's method, or has a base whose
        code cannot be read (which might)."""
        return any(name in self.model.methods for name in OPERATOR_METHODS) or \
            any(not b.readable for b in self.model.bases)

    def opaque_compare(self, op: ast.cmpop, a: Val, b: Val) -> z3.BoolRef:
        if isinstance(op, (ast.Is, ast.IsNot)):
            same = P.equal(a, b) if "none" not in (a.kind, b.kind) else (
                O.is_none(V.to_opaque(b if a.kind == "none" else a)))
            return same if isinstance(op, ast.Is) else F.not_(same)
        if isinstance(op, (ast.Eq, ast.NotEq)) and "none" in (a.kind, b.kind):
            same = O.is_none(V.to_opaque(b if a.kind == "none" else a))
            return same if isinstance(op, ast.Eq) else F.not_(same)
        if self.caller_chosen(a) and self.caller_chosen(b):
            # the caller's own object answers (its __lt__, __eq__, ...): any answer is one
            # some argument gives, as an argument's value is: not a value outside code chose
            return self.fresh(BOOL, "compare").z
        return self.fresh_typed(BOOL, "compare").z

    def choose_by_caller(self, v: Val) -> None:
        """`v` is an argument of the analysed call (or an item unpacked from one): any
        object the caller likes, so what its own methods answer is the caller's choice."""
        if v.kind == "opaque" and isinstance(v.z, z3.ExprRef):
            self.__dict__.setdefault("_caller_chosen", {})[v.z.get_id()] = v.z  # kept alive: ids stay

    def caller_chosen(self, v: Any) -> bool:
        """Whether `v` is a value the caller chose: a modelled scalar, or an untyped argument
        of the analysed call (choose_by_caller) not handed to outside code since."""
        if not isinstance(v, Val):
            return False
        if v.kind in ("int", "bool", "str", "float", "none"):
            return True
        if v.kind == "tuple":  # `x in ("a", "b")`: the caller's object's __eq__ answers
            return all(self.caller_chosen(x) for x in V.tuple_items(v))
        return v.kind == "opaque" and isinstance(v.z, z3.ExprRef) and \
            v.z.get_id() in self.__dict__.get("_caller_chosen", {})

    def opaque_operation(self, hint: str, node: ast.AST | None = None) -> Val:
        return self.fresh_opaque(hint, node)

    # -- expressions no other module translates -------------------------------------

    def e_JoinedStr(self, node: ast.JoinedStr) -> Val:
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                self.tolerant(part.value)
        return self.fresh_typed(STR, "fstring", node)

    def _opaque_expr(self, node: Any) -> Val:  # Any: it is also e_Dict, e_Set, ... (each its own node type)
        if escapes_self(node):
            raise UnsupportedConstruct(f"{type(node).__name__} using self", self.loc(node))
        return self.fresh_opaque(type(node).__name__, node)

    e_Dict = e_Set = e_ListComp = e_SetComp = e_DictComp = e_GeneratorExp = e_Lambda = _opaque_expr

    def e_Starred(self, node: ast.Starred) -> Any:
        return self.tolerant(node.value)


__all__ = ["External", "Member", "OutsideEvaluator", "escapes_self"]
