"""Reading a z3 model back as Python values: the witnesses (counterexamples, example
objects) shown with transitions and findings."""

from __future__ import annotations

from typing import Any

import z3
from z3 import z3 as _z3py
from z3 import z3core as C

from contractor.z3backend import fastterms as F
from contractor.z3backend import mappings as M
from contractor.z3backend import opaque as O
from contractor.z3backend import rawapi as R
from contractor.z3backend import values as V
from contractor.z3backend.modelread import NOT_PLAIN, Reader, term_parts
from contractor.z3backend.semantics import Outcome
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import plain_value, py_value, seq_elements


def witness(m: z3.ModelRef, o: Outcome, fields: dict[str, Val], with_source: bool) -> dict[str, Any]:
    """What a model says of a query: the arguments, the fields after, and before (`with_source`)."""

    def shown(k: str, v: Val) -> bool:
        return v.kind not in ("any", "undefined") and not (k.startswith("__") and k.endswith("__"))

    read = [*o.args.values(), *[v for k, v in o.after.items() if shown(k, v)],
            *([v for k, v in fields.items() if shown(k, v)] if with_source else [])]
    known: dict[int, z3.ExprRef] = {}
    for kind in BATCHED:
        known.update(opaque_values(m, [v.z for v in read if v.kind == kind and isinstance(v.z, z3.ExprRef)]))
    reader = Reader(m)
    w = {"args": {k: value(m, v, known, reader) for k, v in o.args.items()},
         "after": {k: value(m, v, known, reader) for k, v in o.after.items() if shown(k, v)}}
    if with_source:
        w = {"fields": {k: value(m, v, known, reader) for k, v in fields.items() if shown(k, v)}, **w}
    return w


# the kinds of values a witness evaluates at once (opaque_values): an int's, a Boolean's
# or a str's own evaluation is cheaper than its share of a batch (zipfile.ZipFile: 0.68 s
# of witnesses batching them too, 0.56 s not)
BATCHED = ("opaque",)


def opaque_values(m: z3.ModelRef, terms: list[z3.ExprRef]) -> dict[int, z3.ExprRef]:
    """What the terms (of one sort) evaluate to in m, by term id, in one evaluation of the
    sequence of them all (empty where m does not give it as a sequence of units).

    An untyped field's value after a method is an if-then-else over the paths that handed
    it to outside code, each on the whole path condition; evaluated one by one, every
    field evaluated those conditions again (HTTPConnection's witnesses: 0.37 s of model
    evaluation, 0.08 s at once). The evaluation of a term is that of each of its
    subterms, so each unit holds what the term's own evaluation gives. The sequence is
    made and read through z3's C API (the binding's Unit and Concat check and coerce
    every argument)."""
    distinct: dict[int, z3.ExprRef] = {}
    for t in terms:
        distinct.setdefault(F.node_id(t), t)
    if len(distinct) < 2:
        return {}
    first = next(iter(distinct.values()))
    ctx, ref = first.ctx, first.ctx_ref()
    sort = R.pointer(R.get_sort(ref, first.as_ast()))  # sorts are shared: one sort, one address
    if any(R.pointer(R.get_sort(ref, t.as_ast())) != sort for t in distinct.values()):
        return {}  # not of one sort after all: one by one
    units = [z3.SeqRef(C.Z3_mk_seq_unit(ref, t.as_ast()), ctx) for t in distinct.values()]  # each held
    array = (z3.Ast * len(units))(*[u.as_ast() for u in units])
    together = z3.SeqRef(C.Z3_mk_seq_concat(ref, len(units), array), ctx)
    items = _units(m.eval(together, model_completion=True))
    if items is None or len(items) != len(distinct):
        return {}
    return dict(zip(distinct, items))


def _units(e: z3.ExprRef) -> list[z3.ExprRef] | None:
    """The items of a concatenation of units, in order; None for any other term."""
    c, ctx = e.ctx_ref(), e.ctx
    out, todo = [], [e.as_ast()]
    while todo:
        a = todo.pop()
        if R.get_ast_kind(c, a) != z3.Z3_APP_AST:
            return None
        app = R.to_app(c, a)
        op = R.get_decl_kind(c, R.get_app_decl(c, app))
        if op == z3.Z3_OP_SEQ_CONCAT:
            todo.extend(reversed([R.get_app_arg(c, app, j) for j in range(R.get_app_num_args(c, app))]))
        elif op == z3.Z3_OP_SEQ_UNIT:
            out.append(_z3py._to_expr_ref(R.get_app_arg(c, app, 0), ctx))
        else:
            return None
    return out


def value(m: z3.ModelRef, v: Val, known: dict[int, z3.ExprRef] | None = None,
          reader: Reader | None = None) -> Any:
    """The Python value (as JSON-able data) v has in model m; `known`: untyped values
    already evaluated (`opaque_values`); `reader`: m's (modelread.py), where a plain value
    is read without the binding's objects."""
    if v.kind == "none":
        return None
    if reader is not None and v.kind in PLAIN_KINDS and isinstance(v.z, z3.ExprRef):
        fast = _plain(v, known, reader)
        if fast is not NOT_PLAIN:
            return fast
    if v.kind == "opaque":  # None, a falsy stand-in (0), or the object's identity
        obj = known.get(F.node_id(v.z)) if known else None
        if obj is None:
            obj = m.eval(v.z, model_completion=True)  # obj(identity, none, truth): one evaluation
        parts = constructor_args(obj)  # the parts as they are (no accessor terms)
        if parts is None:
            parts = [m.eval(read(obj), model_completion=True) for read in (O.oid, O.is_none, O.truth)]
        identity, none, truthy = parts
        if plain_value(none) is True:  # (z3.is_true through the C API: a witness reads thousands)
            return None
        if plain_value(truthy) is not True:
            return 0
        number = plain_value(identity)  # an integer prints as z3 prints its numeral
        return f"<object {number if isinstance(number, int) and not isinstance(number, bool) else identity}>"
    if v.kind == "optional":
        if z3.is_true(m.eval(v.is_none, model_completion=True)):
            return None
        return value(m, Val(v.type.args[0], v.z))
    if v.kind == "list":  # elements by their own type (a list of tuples holds datatype values)
        if v.z is None:
            return []
        return [value(m, Val(v.type.args[0], x)) for x in seq_elements(m, v.z)]
    if v.kind == "tuple":
        return [value(m, x) for x in V.tuple_items(Val(v.type, m.eval(v.z, model_completion=True)))]
    if v.kind in ("set", "dict"):
        return container_value(m, v)
    if v.kind == "enum":
        k = m.eval(v.z, model_completion=True).as_long()
        return f"{v.type.name}.{v.type.members[k]}" if 0 <= k < len(v.type.members) else k
    if v.kind == "class":
        return f"<{v.type.name} object>"
    got = known.get(F.node_id(v.z)) if known and isinstance(v.z, z3.ExprRef) else None
    return py_value(got if got is not None else m.eval(v.z, model_completion=True))


PLAIN_KINDS = ("opaque", "bool", "int")  # the kinds whose values `_plain` reads


def _plain(v: Val, known: dict[int, z3.ExprRef] | None, reader: Reader) -> Any:
    """`value` of a Boolean, an integer or an untyped value whose parts are plain, read on
    pointers (modelread.py), else NOT_PLAIN (then read as `value` reads it)."""
    if v.kind != "opaque":
        return reader.plain(v.z)
    obj = known.get(F.node_id(v.z)) if known else None
    parts = term_parts(obj) if obj is not None else reader.opaque(v.z)
    if parts is NOT_PLAIN or len(parts) != 3:
        return NOT_PLAIN
    identity, none, truthy = parts
    if none is True:
        return None
    if truthy is not True:
        return 0
    return f"<object {identity}>" if type(identity) is int else NOT_PLAIN


def container_value(m: z3.ModelRef, v: Val) -> list[Any]:
    """A set as the list of its elements, a dict as the list of its [key, value] pairs."""
    if v.z is None:
        return []
    keys = [Val(v.type.args[0], k) for k in seq_elements(m, V.seq_of(v))]
    if v.kind == "set":
        return [value(m, k) for k in keys]
    vals = M.vals(v.z)
    return [[value(m, k), value(m, Val(v.type.args[1], vals[k.z]))] for k in keys]


def constructor_args(e: z3.ExprRef) -> list[z3.ExprRef] | None:
    """The arguments of a datatype constructor's application, None for any other term (read
    through z3's C API: `is_app_of` and `children` cost a wrapper and checks per call, and
    a witness reads every opaque value of every model)."""
    c, a = e.ctx_ref(), e.as_ast()
    if R.get_ast_kind(c, a) != z3.Z3_APP_AST:
        return None
    app = R.to_app(c, a)
    if R.get_decl_kind(c, R.get_app_decl(c, app)) != z3.Z3_OP_DT_CONSTRUCTOR:
        return None
    return [_z3py._to_expr_ref(R.get_app_arg(c, app, j), e.ctx) for j in range(R.get_app_num_args(c, app))]
