"""What a call to code outside the analysed source can change: the objects handed to it.

Outside code (outside.py) receives its arguments and, for a method call, its receiver.
It keeps their identity (and so their None-ness) but may mutate them: an untyped
(opaque) object's truth may change, and so may the contents of a list, dict or set
(also inside an Optional or a tuple). The change is seen through every place holding
the same object: an opaque object is updated by identity in every local of every frame
on the call stack and every field of every object; a list is updated where it is
stored, and a list that another place may share (a local aliasing a field, an
expression that is neither a place nor a fresh value) makes the statement untranslated
(its paths unknown, never a guess). Immutable values (numbers, strings, None) stay.
An untyped object is "the same" where the code makes it so (an assignment, a value
that is one of several on different paths): two untyped values from different sources
(two parameters, a parameter and a field) are taken to be different objects.

Not covered (see README, "Code outside the analysed source"): an object reachable from
an argument only through another untyped object's attributes (a wrapper's buffer), and
objects outside code holds through global references.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import opaque as O
from contractor.z3backend import tuples as T
from contractor.z3backend import values as V
from contractor.z3backend.dag import constant_names_in
from contractor.z3backend.escape import may_be_self
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
    from contractor.z3backend.state import Frame
else:
    _Host = object

CONTAINERS = ("list", "dict", "set")
# expressions whose value is a new object no other place holds
FRESH_NODES = (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp, ast.Call, ast.BinOp,
               ast.Constant, ast.JoinedStr, ast.Tuple)


def holds_mutable(t: TypeRef) -> bool:
    """Whether outside code can change a value of type `t` in place."""
    if t.kind in CONTAINERS or t.kind == "opaque":
        return True
    return t.kind in ("tuple", "optional") and any(holds_mutable(a) for a in t.args)


class Reach(_Host):
    """Mixin of Executor (with OutsideEvaluator): havoc what outside code was handed."""

    def hand_out(self, node: ast.expr, v: Any, may_be_self_harmlessly: bool = False) -> None:
        """Outside code got `v` (the value of `node`): what it can change in it, changes.
        `may_be_self_harmlessly`: where `v` is the object itself, the code run is none that
        could change it (an operator the class does not define: outside.operator_call)."""
        if isinstance(v, Val) and self.known_type(v) is bytes:
            return  # nothing outside code can change, and not the object itself (pytypes.py)
        escape = self.facts.escape
        if escape is not None and may_be_self(v) and not may_be_self_harmlessly:
            raise UnsupportedConstruct(f"outside code handed an untyped value, which may be the object itself: "
                                       f"{escape}", self.loc(node))
        if not isinstance(v, Val) or not holds_mutable(v.type):
            return
        act = self.active()
        for identity, truth in self._opaque_parts(v):
            self.check_time(node)
            self._retruth_everywhere(identity, truth, act)
            for item in self._held_by(identity):  # and what a list built here holds
                for held, held_truth in self._opaque_parts(item):
                    self._retruth_everywhere(held, held_truth, act)
        if not holds_container(v.type):
            return
        if _empty_literal(v):
            if isinstance(node, FRESH_NODES):
                return
            raise UnsupportedConstruct("an empty container of unknown item type handed to outside code",
                                       self.loc(node))
        if isinstance(node, FRESH_NODES):
            return
        if not self._own_place(node):
            raise UnsupportedConstruct(f"a {v.type} that may be shared with a field, handed to outside code",
                                       self.loc(node))
        if any(name in f.aliases for f in self.all_frames() for name in f.locals
               if isinstance(f.locals[name], Val) and f.locals[name].kind in CONTAINERS):
            raise UnsupportedConstruct(f"a {v.type} handed to outside code while a local aliases a field",
                                       self.loc(node))
        current = self.eval(node)  # after the opaque parts changed
        self.store(node, V.ite(act, self._new_contents(current), current))

    def note_holds(self, new: z3.ExprRef, items: list[Val]) -> None:
        """The new untyped object `new` (a list built here) holds `items`: outside code
        handed it may change their untyped objects too."""
        held = [v for v in items if v.kind in ("opaque", "tuple")]
        if not held:
            return
        holds: dict[str, list[Val]] = self.__dict__.setdefault("_holds", {})
        for name in sorted(self._names(O.oid(new))):  # sorted: the dict's order is read (_held_by)
            holds.setdefault(name, []).extend(held)

    def _held_by(self, identity: z3.ArithRef) -> list[Val]:
        """What the lists built here that `identity` may be hold, through lists they hold."""
        holds: dict[str, list[Val]] = self.__dict__.get("_holds", {})
        if not holds:
            return []
        out: list[Val] = []
        seen: set[str] = set()
        todo = [identity]
        while todo:
            names = self._names(todo.pop())
            # in the order the lists were noted, not the set's (hash) order: the items'
            # fresh truths are made in it, and the terms' ids with them
            for name in [n for n in holds if n in names and n not in seen]:
                seen.add(name)
                for item in holds[name]:
                    out.append(item)
                    todo += [i for i, _ in self._opaque_parts(item)]
        return out

    # -- the parts ------------------------------------------------------------------

    def all_frames(self) -> list[Frame]:
        return [*self.callers, self.frame]

    def _own_place(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.frame.locals
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            own = self.frame.locals.get("self")
            return isinstance(own, Val) and own.kind == "class" and node.attr in self.state.objects[own.z]
        return False

    def _opaque_parts(self, v: Val) -> list[tuple[z3.ArithRef, z3.BoolRef]]:
        """(identity, new truth) of each opaque object inside `v` that is not None."""
        if v.kind == "opaque":
            t = self.fresh(BOOL, "truth").z
            return [(O.oid(v.z), F.and_(F.not_(O.is_none(v.z)), t))]
        if v.kind == "tuple":
            return [p for x in V.tuple_items(v) for p in self._opaque_parts(x)]
        return []

    def _names(self, term: z3.ExprRef) -> frozenset[str]:
        """The constants the values an identity term can take are built from: through
        if-then-else only the branches count (the conditions are path conditions, often
        the whole method's, and say which source it is, not what it is), and a field of a
        datatype value (an untyped object's identity, a tuple's item) is read through the
        values it is built from (`_through`). Memoised: the same terms recur in every place."""
        memo: dict[int, tuple[z3.ExprRef, frozenset[str]]] = self.__dict__.setdefault("_constant_names", {})
        todo = [term]
        while todo:
            t = todo[-1]
            key = F.node_id(t)
            if key in memo:
                todo.pop()
                continue
            parts = _through(t)
            if parts is None:
                memo[key] = (t, constant_names_in(t, self.__dict__.setdefault("_names_under", {})))
                todo.pop()
                continue
            pending = [b for b in parts if F.node_id(b) not in memo]
            if pending:
                todo.extend(pending)
                continue
            memo[key] = (t, frozenset().union(*(memo[F.node_id(b)][1] for b in parts)))
            todo.pop()
        return memo[F.node_id(term)][1]

    def _known_identities(self) -> dict[int, tuple[z3.ExprRef, z3.ArithRef, frozenset[str]]]:
        """`_identity`'s memo: the opaque value's node id -> (the value, kept alive so that its
        id stays its own; its identity term; `_names` of that)."""
        memo: dict[int, tuple[z3.ExprRef, z3.ArithRef, frozenset[str]]] = self.__dict__.setdefault("_identities", {})
        return memo

    def _identity(self, z: z3.ExprRef) -> tuple[z3.ArithRef, frozenset[str]]:
        """The identity term of the opaque value `z` and `_names` of it, memoised by z (every
        call to outside code asks it of every opaque place, and most places do not change)."""
        memo = self._known_identities()
        key = F.node_id(z)
        if key not in memo:
            mine = O.oid(z)
            memo[key] = (z, mine, self._names(mine))  # z kept alive: its id stays its own
        return memo[key][1], memo[key][2]

    def _retruth(self, v: Val, identity: z3.ArithRef, truth: z3.BoolRef, act: z3.BoolRef,
                 theirs: list[frozenset[str]]) -> Val:
        """`v` with the truth of the object `identity` (wherever it occurs in v) now `truth`,
        where v's identity is made of the same values (see the module docstring). `theirs`
        holds `_names(identity)` once asked (a list the caller shares between places: the
        same look-up for every place of every frame, made where it was first needed)."""
        if v.kind == "opaque":
            mine, names = self._identity(v.z)
            if mine.as_ast().value != identity.as_ast().value:  # z3.eq: the same node
                if not theirs:
                    theirs.append(self._names(identity))
                if not names & theirs[0]:
                    return v  # another object, as far as the code tells
            same = F.and_(act, F.eq(mine, identity))
            new = Val(v.type, O.make(mine, O.is_none(v.z), F.ite(same, truth, O.truth(v.z))))
            # what _identity would find for it (its identity is `mine` as it stands): the
            # next call to outside code asks it of every place again
            self._known_identities()[F.node_id(new.z)] = (new.z, mine, names)
            known = self.known_type(v)
            return new if known is None else self.note_type(new, known)  # its type stays (pytypes.py)
        if v.kind == "tuple" and any(holds_mutable(a) for a in v.type.args):
            items = [self._retruth(x, identity, truth, act, theirs) for x in V.tuple_items(v)]
            return Val(v.type, T.make(V.sort_of(v.type), [x.z for x in items]))
        return v

    def _retruth_everywhere(self, identity: z3.ArithRef, truth: z3.BoolRef, act: z3.BoolRef) -> None:
        """`_retruth` of every place. Most untyped places hold another object (HTTPConnection's
        raise guards: 23,971 of 24,888, 0.38 s): one whose identity `_identity` has met
        already and whose names share none with `identity`'s is passed over here, as
        `_retruth` would leave it, without a call per place."""
        places = [f.locals for f in self.all_frames()]
        places += [fields for oid, fields in self.state.objects.items() if oid >= 0]  # not __old__'s copy
        theirs: list[frozenset[str]] = []
        known = self._known_identities()
        target = identity.as_ast().value
        for place in places:
            for name, v in list(place.items()):
                if not isinstance(v, Val):
                    continue
                if v.kind == "opaque":
                    hit = known.get(F.node_id(v.z))
                    if hit is not None and hit[1].as_ast().value != target:
                        if not theirs:
                            theirs.append(self._names(identity))
                        if not hit[2] & theirs[0]:
                            continue  # another object, as far as the code tells (_retruth)
                    place[name] = self._retruth(v, identity, truth, act, theirs)
                elif v.kind == "tuple":
                    place[name] = self._retruth(v, identity, truth, act, theirs)

    def _new_contents(self, v: Val) -> Val:
        """`v` with arbitrary contents in its containers (identity and None-ness kept)."""
        if v.kind in CONTAINERS:
            return v if v.z is None else self.fresh(v.type, "handed")
        if v.kind == "optional" and holds_container(v.type):
            inner = self._new_contents(Val(v.type.args[0], v.z))
            return Val(v.type, inner.z, v.is_none)
        if v.kind == "tuple" and holds_container(v.type):
            items = [self._new_contents(x) for x in V.tuple_items(v)]
            return Val(v.type, T.make(V.sort_of(v.type), [x.z for x in items]))
        return v


def _through(t: z3.ExprRef) -> list[z3.ExprRef] | None:
    """The terms whose values `t` takes: the branches of an if-then-else; for a datatype
    field (an accessor) of a constructed value, that argument, and of an if-then-else,
    the field of each branch (a tuple item of a merged return value: (code, msg) of
    smtplib's getreply); None where `t` is none of these."""
    op = F.op_kind(t)
    if op == z3.Z3_OP_ITE:
        return [F.arg(t, 1), F.arg(t, 2)]
    if op != z3.Z3_OP_DT_ACCESSOR:
        return None
    inner, field = F.arg(t, 0), t.decl()
    inner_op = F.op_kind(inner)
    if inner_op == z3.Z3_OP_ITE:
        return [field(F.arg(inner, 1)), field(F.arg(inner, 2))]
    if inner_op == z3.Z3_OP_DT_CONSTRUCTOR:
        sort, made = inner.sort(), inner.decl()
        for i in range(sort.num_constructors()):
            if sort.constructor(i).eq(made):
                for j in range(made.arity()):
                    if sort.accessor(i, j).eq(field):
                        return [F.arg(inner, j)]
        return None
    parts = _through(inner)  # a field of a field: through the inner one's values
    return None if parts is None else [field(p) for p in parts]


def holds_container(t: TypeRef) -> bool:
    return t.kind in CONTAINERS or (t.kind in ("tuple", "optional") and any(holds_container(a) for a in t.args))


def holdable(v: Val, node: ast.expr) -> bool:
    """Whether a list built here may hold `v` as an untyped object's item: what outside
    code could change in it is then tracked (its untyped objects) or seen by no other
    place (a new container); not an object of the class or a shared container."""
    if names_other(v.type):
        return False
    return not holds_container(v.type) or (v.kind in CONTAINERS and isinstance(node, FRESH_NODES))


def names_other(t: TypeRef) -> bool:
    """Whether a value of `t` may be (or hold) an object of the class or a value z3 does not model."""
    return t.kind in ("class", "any", "undefined") or any(names_other(a) for a in t.args)


def _empty_literal(v: Val) -> bool:
    return v.kind in CONTAINERS and v.z is None


__all__ = ["Reach", "holdable", "holds_container", "holds_mutable"]
