"""The cheaper term shapes of issue 8's speed work denote the same values as the plain ones:
an opaque value's parts read through `obj(...)` and if-then-else, opaque values merged as
`obj(...)`, membership rewriting that leaves untouched subterms alone, and the memoised
walk asking whether a term reads a made-up constant. Each is proved equal by z3."""

import z3

from contractor.model import OPAQUE
from contractor.z3backend import dag
from contractor.z3backend import opaque as O
from contractor.z3backend import values as V
from contractor.z3backend.membership import NO_BOUNDS, Memo, left_alone, push, push_all
from contractor.z3backend.values import Val


def proved(claim: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.add(z3.Not(claim))
    return s.check() == z3.unsat


def test_parts_read_through_constructors_and_merges_are_the_accessors() -> None:
    a, b = O.fresh_well_formed("a"), O.fresh_well_formed("b")
    c, d = z3.Bools("c d")
    raw = z3.Const("raw", O.SORT)
    nested = z3.If(c, O.make(O.oid(a), O.is_none(b), z3.Not(O.truth(a))), z3.If(d, raw, b))
    for read, accessor in ((O.oid, O.SORT.oid), (O.is_none, O.SORT.none), (O.truth, O.SORT.truth)):
        assert proved(read(nested) == accessor(nested))
    assert O.oid(O.make(z3.IntVal(7), z3.BoolVal(False), c)).eq(z3.IntVal(7))  # no accessor left


def test_merged_opaque_values_are_the_if_then_else() -> None:
    a, b = Val(OPAQUE, O.fresh_well_formed("a")), Val(OPAQUE, O.fresh_well_formed("b"))
    c = z3.Bool("c")
    merged = V.ite(c, a, b)
    assert z3.is_app_of(merged.z, z3.Z3_OP_DT_CONSTRUCTOR)
    assert proved(merged.z == z3.If(c, a.z, b.z))


def test_membership_rewriting_keeps_untouched_terms_and_meaning() -> None:
    x, y = z3.Ints("x y")
    plain = z3.And(x + 1 > y, z3.Or(x == 2, y < 0))
    assert push(plain).eq(plain)  # nothing to rewrite: the very same term
    s = z3.Const("s", z3.SeqSort(z3.IntSort()))
    grown = z3.Concat(s, z3.Unit(y))
    mixed = z3.And(plain, z3.Contains(grown, z3.Unit(x)), z3.Length(z3.If(x > 0, s, grown)) > 1)
    rewritten = push(mixed)
    assert not rewritten.eq(mixed)
    assert proved(rewritten == mixed)


def test_made_up_constants_found_as_free_constants_finds_them() -> None:
    p, q = z3.Bools("p q")
    made = z3.Bool("m!make!3")
    memo: dict[int, bool] = {}
    shared = z3.And(p, z3.Or(q, made))
    terms = [z3.If(p, q, z3.Not(q)), shared, z3.Or(shared, p), z3.ForAll([z3.Int("i")], z3.Implies(p, q))]
    for t in terms:
        expected = any("!" in str(k) for k in dag.free_constants(t))
        assert dag.mentions_constant(t, lambda name: "!" in name, memo) == expected
    assert dag.constant_names(shared) == frozenset({"p", "q", "m!make!3"})


def _atoms_by_python_objects(formula: z3.BoolRef) -> set[int]:
    """readable.atoms as it was written over z3's Python objects (the reference)."""
    connectives = (z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_NOT, z3.Z3_OP_IMPLIES, z3.Z3_OP_XOR)
    seen: set[int] = set()
    visited: set[int] = set()
    todo = [formula]
    while todo:
        e = todo.pop()
        if e.get_id() in visited:
            continue
        visited.add(e.get_id())
        if z3.is_bool(e) and z3.is_app(e) and not z3.is_true(e) and not z3.is_false(e):
            k = e.decl().kind()
            if k in connectives or (k == z3.Z3_OP_EQ and z3.is_bool(e.arg(0))) or k == z3.Z3_OP_ITE:
                todo.extend(e.children())
                continue
            seen.add(e.get_id())
            continue
        if z3.is_app(e) and e.decl().kind() == z3.Z3_OP_ITE:
            todo.extend(e.children())
    return seen


def test_atoms_found_through_the_c_api_are_those_of_the_object_walk() -> None:
    x, y = z3.Ints("x y")
    p, q, r = z3.Bools("p q r")
    s = z3.String("s")
    f = z3.Function("f", z3.IntSort(), z3.BoolSort())
    formulas = [
        z3.And(p, z3.Or(x > 1, z3.Not(q)), z3.Implies(r, y == x + 1)),
        z3.If(p, x, y) > 2,  # an integer if-then-else: its condition and the comparison
        z3.Xor(p == q, z3.BoolVal(True)),
        z3.And(f(z3.If(q, x, 3)), z3.Length(s) == 2, z3.Distinct(x, y), z3.BoolVal(False)),
        z3.Or(z3.If(r, p, z3.And(q, x < y)), z3.Not(z3.Not(p))),
    ]
    for formula in formulas:
        assert {a.get_id() for a in dag.bool_atoms(formula)} == _atoms_by_python_objects(formula), formula
    try:
        dag.bool_atoms(z3.ForAll([x], f(x)))
    except ValueError:
        pass
    else:
        raise AssertionError("a quantifier is refused")


def _reference_push(e: z3.ExprRef, memo: dict[int, tuple[z3.ExprRef, z3.ExprRef]]) -> z3.ExprRef:
    """membership.push as first written: a recursive walk through z3's Python objects."""
    from contractor.z3backend.membership import item, length, member

    if e.get_id() in memo:
        return memo[e.get_id()][1]
    if z3.is_quantifier(e) or not z3.is_app(e) or e.num_args() == 0:
        out = e
    else:
        kids = [_reference_push(c, memo) for c in e.children()]
        if z3.is_app_of(e, z3.Z3_OP_SEQ_CONTAINS) and z3.is_app_of(kids[1], z3.Z3_OP_SEQ_UNIT):
            out = member(kids[0], kids[1].arg(0))
        elif z3.is_app_of(e, z3.Z3_OP_SEQ_LENGTH):
            out = length(kids[0])
        elif z3.is_app_of(e, z3.Z3_OP_SEQ_NTH):
            out = item(kids[0], kids[1])
        elif any(not k.eq(c) for k, c in zip(kids, e.children())):
            out = e.decl()(*kids)
        else:
            out = e
    memo[e.get_id()] = (e, out)
    return out


def test_membership_rewriting_through_the_c_api_is_the_object_walk() -> None:
    """The DAG walk (C API, new applications made by Z3_mk_app) gives the very term the
    object walk gives: wide shared conjunctions, rewritten nodes under unchanged ones,
    sequence reads, lengths, membership under if-then-else, arithmetic and a datatype."""
    x, y, z = z3.Ints("x y z")
    c = z3.Bool("c")
    s, t = z3.Consts("s t", z3.SeqSort(z3.IntSort()))
    grown = z3.Concat(s, z3.Unit(y), t)
    shared = z3.Or(z3.Contains(grown, z3.Unit(x)), z3.Length(z3.If(c, s, grown)) > z)
    wide = [z3.If(c, shared, x + i > y) for i in range(40)] + [shared, z3.Contains(t, z3.Unit(z))]
    formulas = [
        z3.And(*wide),
        z3.Or(z3.Not(shared), grown[z] == x, z3.If(c, grown, s)[0] > 3),
        z3.Implies(z3.And(*wide[:5]), z3.Length(grown) == z3.Length(s) + 2 * x),
        x * y + z > 2,  # nothing to rewrite
    ]
    for f in formulas:
        expected = _reference_push(f, {})
        got = push(f)
        assert got.eq(expected), (f, got, expected)
    assert push(formulas[-1]).eq(formulas[-1])


def test_model_values_read_through_the_c_api_are_the_python_api_ones() -> None:
    """py_value's C-API reading of Booleans and integers (and the opaque witness's reading of
    a constructor's parts) gives what z3's Python predicates give; anything else falls
    through to them (strings, reals, floats)."""
    from contractor.z3backend.witness import constructor_args
    from contractor.z3backend.z3util import py_value

    x, y = z3.Ints("x y")
    p = z3.Bool("p")
    s = z3.Solver()
    s.add(x == -7, y == 10 ** 30, z3.Not(p))
    assert s.check() == z3.sat
    m = s.model()
    for term, expected in ((x, -7), (y, 10 ** 30), (p, False), (z3.Not(p), True), (x + 7, 0)):
        value = m.eval(term, model_completion=True)
        assert py_value(value) == expected and type(py_value(value)) is type(expected)
    assert py_value(z3.StringVal("ab")) == "ab"
    assert py_value(z3.RealVal("1/2")) == 0.5
    obj = O.make(z3.IntVal(3), z3.BoolVal(False), z3.BoolVal(True))
    args = constructor_args(obj)
    assert args is not None and [a.sexpr() for a in args] == [c.sexpr() for c in obj.children()]
    assert constructor_args(x) is None and constructor_args(z3.IntVal(1)) is None


def _shared_sets(ctx: z3.Context, removals: bool = True, levels: int = 6) -> tuple[z3.SeqRef, z3.ExprRef]:
    """A set built as the translation builds one across branches (each branch adding to
    (or, with `removals`, removing from) the same earlier sets: zipfile.ZipFile's shape), a
    dict's keys merged through an if-then-else (a walk that makes terms of its own), and x."""
    from contractor.z3backend.mappings import remove

    ints = z3.IntSort(ctx)
    x = z3.Int("x", ctx)
    dt = z3.Datatype("D", ctx)
    dt.declare("mk", ("D.keys", z3.SeqSort(ints)), ("D.values", z3.SeqSort(ints)))
    d = dt.create()
    dicts = [z3.Const(f"d{i}", d) for i in range(2)]
    s = z3.Const("base", z3.SeqSort(ints))
    for k in range(levels):
        c, e = z3.Bool(f"c{k}", ctx), z3.Bool(f"e{k}", ctx)
        grown = z3.Concat(s, z3.Unit(z3.IntVal(k, ctx)))
        keys = d.accessor(0, 0)(z3.If(c, dicts[k % 2], d.mk(s, s)))  # D.keys
        other = remove(s, z3.IntVal(k, ctx)) if removals else z3.Concat(z3.Unit(z3.IntVal(-k, ctx)), s)
        s = z3.If(c, grown, z3.If(e, other, z3.Concat(keys, s)))
    return s, x


def test_membership_walks_a_shared_sequence_once_with_the_same_term() -> None:
    """`member` walks a sequence shared by several branches once (membership._member's
    memo): the very term the walk without it makes, with the same ids in a fresh context
    (z3's answers depend on them), meaning `x in s`."""
    from contractor.z3backend.membership import _member, member

    def ids(memoised: bool) -> list[int]:
        ctx = z3.Context()
        s, x = _shared_sets(ctx)
        out = member(s, x) if memoised else _member(s, x, {}, False)[0]
        return [out.get_id(), z3.Bool("after", ctx).get_id(), (z3.Int("y", ctx) + 1).get_id()]

    assert ids(True) == ids(False)
    s, x = _shared_sets(z3.main_ctx())
    assert member(s, x).eq(_member(s, x, {}, False)[0])
    # the meaning, where z3 decides it at once (a fresh context: the same ids in any run;
    # no removal: no distinctness to assume)
    s, x = _shared_sets(z3.Context(), removals=False, levels=2)
    solver = z3.Solver(ctx=s.ctx)
    solver.add(member(s, x) != z3.Contains(s, z3.Unit(x)))
    assert solver.check() == z3.unsat


def test_mentions_constant_ending_early_keeps_the_memo_right() -> None:
    """A walk that ends at the first constant found notes the nodes it walked down from
    (each holds that constant) and nothing else: later questions about any subterm, the
    ones it did not reach included, answer as a walk of their own does."""
    p, q = z3.Bools("p q")
    made = z3.Bool("m!fresh!1")
    clean = z3.And(p, z3.Or(q, z3.Not(p)))
    dirty = z3.Or(z3.And(made, q), p)
    terms = [z3.And(clean, dirty), clean, dirty, z3.And(made, q), z3.Or(clean, z3.Not(dirty)), z3.Not(clean), p]

    def reference(t: z3.ExprRef) -> bool:
        return any("!" in str(k) for k in dag.free_constants(t))

    for order in (terms, list(reversed(terms))):
        memo: dict[int, bool] = {}
        for t in order:
            assert dag.mentions_constant(t, lambda name: "!" in name, memo) == reference(t)
        for t in terms:  # every answer the memo keeps is right
            if t.get_id() in memo:
                assert memo[t.get_id()] == reference(t)


def test_left_alone_only_where_push_leaves_the_terms() -> None:
    """left_alone says yes only where push makes nothing: no membership, length or item
    read, no quantifier; for formulas terms are substituted in, no sequence-valued
    if-then-else or concatenation either (a set removal's shape could arise there)."""
    x, y = z3.Ints("x y")
    s, t, u = z3.Consts("s t u", z3.SeqSort(z3.IntSort()))
    plain = z3.And(x + 1 > y, z3.Or(x == 2, y < 0))
    chosen = z3.If(x > 0, s, t) == u
    for term in (plain, chosen):
        assert left_alone([term])
        assert push(term).eq(term)
    assert left_alone([plain], substituted=True)
    assert not left_alone([chosen], substituted=True)
    assert not left_alone([z3.Concat(s, t) == u], substituted=True)
    for term in (z3.Length(s) > 1, z3.Contains(s, z3.Unit(x)), s[0] == x,
                 z3.ForAll([x], z3.Implies(x > 0, plain))):
        assert not left_alone([plain, term])


def test_pushes_sharing_a_memo_rewrite_as_pushes_of_their_own() -> None:
    """push_all over one memo (ClassSemantics.push's): a formula with nothing to rewrite
    comes back as it is, found without the rewriting walk, and formulas after it that
    share its nodes, or hold rewritten ones, are rewritten as a push of their own does."""
    x, y = z3.Ints("x y")
    s, t = z3.Consts("s t", z3.SeqSort(z3.IntSort()))
    plain = z3.And(x + 1 > y, z3.Or(x == 2, y < 0))
    read = z3.Contains(z3.Concat(s, z3.Unit(y)), z3.Unit(x))
    formulas = [plain, z3.Or(plain, read), read, z3.And(plain, z3.If(x > 0, s, t) == s),
                z3.Implies(read, plain), z3.Not(plain), z3.Length(s) > 1]
    for order in (formulas, list(reversed(formulas))):
        memo = Memo(NO_BOUNDS)
        for f in order:
            [out] = push_all([f], NO_BOUNDS, memo)
            assert out.eq(push(f))
            if left_alone([f]):
                assert out is f
