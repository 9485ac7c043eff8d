"""Membership in sets and dicts pushed through the operations that built them, before a
formula reaches the solver: `x in (s + [y])` is `x in s or x == y`, `x in remove(s, y)` is
`x in s and x != y`, `x in (A if c else B)` is `(x in A) if c else (x in B)`, and so on down
to the field's own sequence. z3's sequence solver decides `contains` over concatenations
poorly (it splits words: removing a session cannot make "admin" appear took it past any
timeout); after the rewrite the same facts are propositional.

Only set removal (mappings.remove, recognised by its shape) relies on the sequence being
distinct, which every set and dict-key sequence is; list operations are rewritten only by
rules valid for any sequence.
"""

from __future__ import annotations

from collections.abc import Callable

import z3
from z3 import z3 as _z3py
from z3 import z3core as C

from contractor.z3backend import dag
from contractor.z3backend import fastterms as F
from contractor.z3backend import mappings as M
from contractor.z3backend import rawapi as R
from contractor.z3backend.lenbounds import LenBounds, unrolled

NO_BOUNDS = LenBounds()

OP = z3.Z3_OP_SEQ_CONCAT


class Memo:
    """Rewritings by node address: a node rewritten to another term maps to (node,
    rewriting), one left as it is to _KEEP. `alive` holds the terms walked that no caller
    holds (a quantifier's body with its variables named; the formulas pushed, where the
    memo is kept from one push_all to the next): z3 reuses the memory (and the ids) of
    freed terms."""

    def __init__(self, bounds: LenBounds) -> None:
        self.bounds = bounds
        self.done: dict[int, tuple[z3.ExprRef, z3.ExprRef] | None] = {}
        self.alive: list[z3.ExprRef] = []


_KEEP = None  # a memo mark: the node is its own rewriting


def _is_op(e: z3.ExprRef, kind: int) -> bool:
    """z3.is_app_of(e, kind), read by fastterms.op_kind (the binding's makes a declaration
    object and asks its kind by checked calls; the rules ask it of every sequence they meet)."""
    return F.op_kind(e) == kind


def push(e: z3.ExprRef, bounds: LenBounds = NO_BOUNDS) -> z3.ExprRef:
    """e with every `Contains(S, Unit(x))` rewritten down S's structure, `Length(S)` through
    if-then-else and set removal, and `S[i]` through if-then-else and concatenation."""
    return push_all([e], bounds)[0]


def push_all(es: list[z3.ExprRef], bounds: LenBounds = NO_BOUNDS, memo: Memo | None = None) -> list[z3.ExprRef]:
    """`push` of each, sharing the rewriting of the subterms they share (the enabledness of
    every action after one method: the method's post-state terms, in each of them).
    `memo` (over `bounds`): the rewritings of earlier calls, kept (the formulas are kept
    alive in it, so the ids it holds stay their own)."""
    if memo is None:
        memo = Memo(bounds)  # every e stays alive meanwhile: the ids in the memo stay their own
    else:
        assert memo.bounds is bounds, "a memo holds the rewritings under one set of bounds"
        memo.alive.extend(es)
    return [e if _kept(e, memo) else _walk(e, memo) for e in es]


_REWRITTEN = (z3.Z3_OP_SEQ_CONTAINS, z3.Z3_OP_SEQ_LENGTH, z3.Z3_OP_SEQ_NTH)


def left_alone(terms: list[z3.ExprRef], substituted: bool = False) -> bool:
    """Whether `push_all` leaves every term as it is (and makes no term on the way): no
    quantifier, no membership, length or item read, no node `_walk` would take for a set
    removal. `substituted`: nor could one arise where terms are substituted for the
    constants in them (rebuilt nodes keep their declarations; a removal's shape needs a
    sequence-valued if-then-else or a concatenation). One read-only walk on bare pointers
    that ends at the first such node: the formulas of smtplib.SMTP's enabledness after
    each method (28 substituted formulas of 4,700 nodes, its after-state the only new
    part) were walked through in full to find nothing to rewrite (0.95 s of its run)."""
    return not dag.any_node(terms, lambda c, a, kind: _taken(c, a, kind, substituted))


def _taken(c: int, a: int, kind: int, substituted: bool) -> bool:
    """left_alone's test of one node (a bare pointer of kind `kind`)."""
    if kind == z3.Z3_QUANTIFIER_AST:
        return True
    if kind != z3.Z3_APP_AST:
        return False
    app = R.ptr_to_app(c, a)
    op = R.ptr_decl_kind(c, R.ptr_app_decl(c, app))
    if op in _REWRITTEN or _maybe_removal(c, app, op):
        return True
    return substituted and (op == OP or op == z3.Z3_OP_ITE
                            and R.ptr_sort_kind(c, R.ptr_sort(c, a)) == z3.Z3_SEQ_SORT)


def _kept(e: z3.ExprRef, memo: Memo) -> bool:
    """Whether `_walk` leaves e as it is, found by a read-only walk (each node once, on bare
    pointers) that ends at the first node the walk would rewrite or take (`_taken`) or
    whose rewriting the memo holds; when it leaves e, the memo marks the nodes met as left
    alone, as the walk would have (no term made either way). Most pushes rewrite nothing
    (HTTPConnection: 54 of 65), and the walk pays for its two visits of every node."""
    done = memo.done
    c = R.pointer(e.ctx_ref())
    arg = R.ptr_app_arg
    met: set[int] = set()
    stack = [R.pointer(e.as_ast())]
    while stack:
        a = stack.pop()
        if a in met:
            continue
        if a in done:
            if done[a] is not _KEEP:
                return False
            continue
        met.add(a)
        kind = R.ptr_ast_kind(c, a)
        if _taken(c, a, kind, False):
            return False
        if kind == z3.Z3_APP_AST:
            app = R.ptr_to_app(c, a)
            stack.extend([arg(c, app, j) for j in range(R.ptr_app_num_args(c, app))])
    done.update(dict.fromkeys(met, _KEEP))
    return True


def _walk(e: z3.ExprRef, memo: Memo) -> z3.ExprRef:
    """The rewriting of e: a walk over its DAG through z3's C API (as dag.py's walks), each
    node once; Python expressions are made only for the nodes a rule rewrites or whose
    children changed. (The walk through z3's Python objects made a wrapper of every child
    of every node: 3 s on zipfile.ZipFile's constructor, 84,000 edges over 2,600 nodes.)
    Nodes are known by their address: every node walked stays alive while the memo does
    (its formula is kept), so no address is another node's meanwhile, and an edge costs
    one C call (its child) instead of two (and the child's id)."""
    done = memo.done
    cref, ctx = e.ctx_ref(), e.ctx
    c = R.pointer(cref)  # the walk reads bare pointers (rawapi.py); `boxed` turns one into an AST object
    stack = [R.pointer(e.as_ast())]
    # node -> its children, the node as an application and its kind, while they are walked
    seen: dict[int, tuple[list[int], int, int]] = {}
    arg = R.ptr_app_arg
    while stack:
        a = stack[-1]
        if a in done:
            stack.pop()
            continue
        walked = seen.pop(a, None)
        if walked is not None:  # second visit: the children are done
            args, app, op = walked
            stack.pop()
        else:
            kind = R.ptr_ast_kind(c, a)
            if kind == z3.Z3_QUANTIFIER_AST:
                q = _z3py._to_expr_ref(R.boxed(a), ctx)
                _record(done, a, q, _quantifier(q, memo))
                stack.pop()
                continue
            if kind != z3.Z3_APP_AST:
                done[a] = _KEEP  # numerals, bound variables
                stack.pop()
                continue
            app = R.ptr_to_app(c, a)
            op = R.ptr_decl_kind(c, R.ptr_app_decl(c, app))
            if _maybe_removal(c, app, op):
                node = _z3py._to_expr_ref(R.boxed(a), ctx)
                removed = removal(node)
                if removed is not None:  # rewritten as a whole: its parts' rewritings would break its shape
                    stack.pop()
                    _record(done, a, node, _removal_walked(node, removed, memo))
                    continue
            n = R.ptr_app_num_args(c, app)
            if not n and op not in _REWRITTEN:  # a constant: nothing to rewrite
                done[a] = _KEEP
                stack.pop()
                continue
            args = [arg(c, app, j) for j in range(n)]
            pending = [x for x in args if x not in done]
            if pending:
                seen[a] = (args, app, op)
                stack.extend(pending)
                continue
            stack.pop()
        if op not in _REWRITTEN and all(done[x] is _KEEP for x in args):
            done[a] = _KEEP
            continue
        node = _z3py._to_expr_ref(R.boxed(a), ctx)
        if op in _REWRITTEN:
            kids = [_z3py._to_expr_ref(R.boxed(x), ctx) if done[x] is _KEEP else _out(done[x]) for x in args]
            _record(done, a, node, _rule(node, op, kids))
            continue
        # a child changed: the same declaration over the new children, made through the C API
        # (the Python call casts every argument against the declaration's domain)
        array = (z3.Ast * len(args))()
        for j, x in enumerate(args):
            array[j] = R.boxed(x) if done[x] is _KEEP else _out(done[x]).as_ast()
        made = C.Z3_mk_app(cref, R.get_app_decl(cref, R.boxed(app)), len(args), array)
        _record(done, a, node, _z3py._to_expr_ref(made, ctx))
    return _rewritten(e, done)


def _maybe_removal(c: int, app: int, op: int) -> bool:
    """The node (an application of a declaration of kind `op`) may be a set removal
    (mappings.remove): an if-then-else whose else branch is a concatenation, or a
    concatenation of two parts the first an extraction (read on pointers: most nodes are
    neither, and get no Python object)."""
    if op == z3.Z3_OP_ITE:
        last = R.ptr_to_app(c, R.ptr_app_arg(c, app, 2))
        return bool(R.ptr_ast_kind(c, R.ptr_app_arg(c, app, 2)) == z3.Z3_APP_AST
                    and R.ptr_decl_kind(c, R.ptr_app_decl(c, last)) == OP)
    if op != OP or R.ptr_app_num_args(c, app) != 2:
        return False
    first = R.ptr_app_arg(c, app, 0)
    return bool(R.ptr_ast_kind(c, first) == z3.Z3_APP_AST
                and R.ptr_decl_kind(c, R.ptr_app_decl(c, R.ptr_to_app(c, first))) == z3.Z3_OP_SEQ_EXTRACT)


def _removal_walked(node: z3.SeqRef, removed: tuple[z3.SeqRef, z3.ExprRef], memo: Memo) -> z3.SeqRef:
    """A set removal over its base's and item's rewritings, built again in the same shape
    (`length` and `member` then see through it). Walking its children instead rewrites the
    `len(base)` its tail extracts to, and the shape is no longer one `removal` recognises:
    the rest of the formula then keeps `indexof` and extractions z3 decides poorly."""
    base, y = removed
    new_base, new_y = _walk(base, memo), _walk(y, memo)
    if new_base.eq(base) and new_y.eq(y):
        return node
    whole = _is_op(node, z3.Z3_OP_ITE)
    return M.remove(new_base, new_y) if whole else M.cut(new_base, new_y)


def _out(hit: tuple[z3.ExprRef, z3.ExprRef] | None) -> z3.ExprRef:
    assert hit is not None
    return hit[1]


def _record(done: dict[int, tuple[z3.ExprRef, z3.ExprRef] | None], key: int, node: z3.ExprRef,
            out: z3.ExprRef) -> None:
    """`key` (node's address) rewritten to out (node kept alive with its rewriting)."""
    done[key] = _KEEP if R.pointer(out.as_ast()) == key else (node, out)


def _rewritten(e: z3.ExprRef, done: dict[int, tuple[z3.ExprRef, z3.ExprRef] | None]) -> z3.ExprRef:
    hit = done[R.pointer(e.as_ast())]
    return e if hit is _KEEP else hit[1]


def _rule(e: z3.ExprRef, op: int, kids: list[z3.ExprRef]) -> z3.ExprRef:
    """e (a contains, length or nth) over its children's rewritings `kids`."""
    if op == z3.Z3_OP_SEQ_LENGTH:
        return length(kids[0])
    if op == z3.Z3_OP_SEQ_NTH:
        return item(kids[0], kids[1])
    if _is_op(kids[1], z3.Z3_OP_SEQ_UNIT):
        return member(kids[0], kids[1].arg(0))
    return e.decl()(*kids) if any(not k.eq(c) for k, c in zip(kids, e.children())) else e


def _quantifier(q: z3.QuantifierRef, memo: Memo) -> z3.ExprRef:
    """The quantifier with its body rewritten (bound variables as fresh constants meanwhile);
    one over the positions of a sequence whose body reads only the item there (quantifiers.py's
    all/any) is pushed through the sequence's structure, as membership is."""
    names = [z3.Const(f"{q.var_name(k)}!{q.get_id()}", q.var_sort(k)) for k in range(q.num_vars())]
    body = z3.substitute_vars(q.body(), *reversed(names))  # de Bruijn index 0 is the last one
    if len(names) == 1:
        over = _over_items(q, names[0], body)
        if over is not None:
            seq, guard, pred = over
            each = _each(seq, guard, pred, q.is_forall(), memo.bounds)
            memo.alive.append(each)
            return _walk(each, memo)
    memo.alive.append(body)
    new = _walk(body, memo)
    if new.eq(body):
        return q
    return (z3.ForAll if q.is_forall() else z3.Exists)(names, new)


ItemPredicate = Callable[[z3.ExprRef], z3.BoolRef]


def _over_items(q: z3.QuantifierRef, i: z3.ArithRef, body: z3.BoolRef) \
        -> tuple[z3.SeqRef, ItemPredicate, ItemPredicate] | None:
    """(s, guard, pred) if q is `forall i. 0 <= i < len(s) and guard(s[i]) -> pred(s[i])` or
    `exists i. 0 <= i < len(s) and guard(s[i]) and pred(s[i])`, i used only in s[i]; also in
    the form z3.simplify gives them (the enabledness formulas are simplified): the forall as
    `not (range and guard) or pred`, `i < len(s)` as `not (len(s) <= i)`, and `s[i]` as
    `ite(range, nth_i(s, i), nth_u(s, i))`, perhaps lifted over the terms reading it."""
    if q.is_forall() and z3.is_implies(body):
        rng, pred = body.children()
        parts = rng.children() if z3.is_and(rng) else [rng]
    elif q.is_forall() and z3.is_or(body):
        negated = [a.arg(0) for a in body.children() if z3.is_not(a)]
        kept = [a for a in body.children() if not z3.is_not(a)]
        parts = [p for n in negated for p in (n.children() if z3.is_and(n) else [n])]
        pred = z3.Or(*kept) if len(kept) > 1 else kept[0] if kept else z3.BoolVal(False)
    elif q.is_exists() and z3.is_and(body):
        parts, pred = body.children(), z3.BoolVal(True)
    else:
        return None
    seq = next((s for s in (_below_length(p, i) for p in parts) if s is not None), None)
    if seq is None:
        return None
    uppers = [p for p in parts if _below_length(p, i) is not None]
    bounds = [p for p in parts if _zero_le(p, i)] + uppers
    if len(bounds) != 2 or len(uppers) != 1:
        return None
    rest = [p for p in parts if not any(p.eq(b) for b in bounds)]
    x = z3.FreshConst(seq.sort().basis(), "item")
    in_range = z3.And(i >= 0, z3.Not(z3.Length(seq) <= i))  # z3.simplify's guard of an item read
    items = [(seq[i], x), (_nth_i(seq, i), x)]
    guard = _in_range(z3.And(*rest) if rest else z3.BoolVal(True), in_range, items)
    pred2 = _in_range(pred, in_range, items)
    if _uses(guard, i) or _uses(pred2, i):
        return None
    return seq, (lambda v: z3.substitute(guard, (x, v))), (lambda v: z3.substitute(pred2, (x, v)))


def _below_length(p: z3.BoolRef, i: z3.ArithRef) -> z3.SeqRef | None:
    """s if p is `i < len(s)` or `not (len(s) <= i)`."""
    if _is_op(p, z3.Z3_OP_LT) and p.arg(0).eq(i) and _is_op(p.arg(1), z3.Z3_OP_SEQ_LENGTH):
        return p.arg(1).arg(0)
    if z3.is_not(p) and _is_op(p.arg(0), z3.Z3_OP_LE):
        n, j = p.arg(0).children()
        if j.eq(i) and _is_op(n, z3.Z3_OP_SEQ_LENGTH):
            return n.arg(0)
    return None


def _nth_i(seq: z3.SeqRef, i: z3.ArithRef) -> z3.ExprRef:
    """seq.nth_i(seq, i): z3's read of an index in range (no Python constructor makes it)."""
    read = z3.simplify(z3.Const("nth!probe", seq.sort())[i])
    return read.arg(1).decl()(seq, i)


def _in_range(f: z3.BoolRef, in_range: z3.BoolRef, items: list[tuple[z3.ExprRef, z3.ExprRef]]) -> z3.BoolRef:
    """f, read where i is in range, with every `ite(in_range, a, b)` as a and the item reads
    `items` replaced."""
    for _ in range(16):
        ites = _ites_on(f, in_range)
        if not ites:
            break
        f = z3.substitute(f, *ites)
    return z3.substitute(f, *items)


def _ites_on(e: z3.ExprRef, cond: z3.BoolRef) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    todo, seen, out = [e], set(), []
    while todo:
        y = todo.pop()
        if y.get_id() in seen or not z3.is_app(y):
            continue
        seen.add(y.get_id())
        if _is_op(y, z3.Z3_OP_ITE) and y.arg(0).eq(cond):
            out.append((y, y.arg(1)))
            continue
        todo.extend(y.children())
    return out


def _zero_le(p: z3.BoolRef, i: z3.ArithRef) -> bool:
    """p is `0 <= i` (or `i >= 0`)."""
    if _is_op(p, z3.Z3_OP_LE):
        zero, var = p.children()
    elif _is_op(p, z3.Z3_OP_GE):
        var, zero = p.children()
    else:
        return False
    return bool(var.eq(i) and z3.is_int_value(zero) and zero.as_long() == 0)


def _uses(e: z3.ExprRef, x: z3.ExprRef) -> bool:
    todo, seen = [e], set()
    while todo:
        y = todo.pop()
        if y.get_id() in seen:
            continue
        seen.add(y.get_id())
        if y.eq(x):
            return True
        if z3.is_app(y):
            todo.extend(y.children())
    return False


def _each(s: z3.SeqRef, guard: ItemPredicate, pred: ItemPredicate, forall: bool, bounds: LenBounds) -> z3.BoolRef:
    """forall/exists x in s (as a sequence of distinct items where it is a set's): guard(x) ->/and pred(x);
    over a sequence whose length the invariant bounds, unrolled (lenbounds.py)."""
    s = _keys_inside(s)

    def one(v: z3.ExprRef) -> z3.BoolRef:
        return z3.Implies(guard(v), pred(v)) if forall else z3.And(guard(v), pred(v))

    if _is_op(s, z3.Z3_OP_SEQ_EMPTY):
        return z3.BoolVal(forall)
    if _is_op(s, z3.Z3_OP_SEQ_UNIT):
        return one(s.arg(0))
    if _is_op(s, z3.Z3_OP_ITE):
        return z3.If(s.arg(0), _each(s.arg(1), guard, pred, forall, bounds),
                     _each(s.arg(2), guard, pred, forall, bounds))
    removed = removal(s)
    if removed is not None:
        base, y = removed
        return _each(base, lambda v: z3.And(v != y, guard(v)), pred, forall, bounds)
    if _is_op(s, OP):
        parts = [_each(p, guard, pred, forall, bounds) for p in s.children()]
        return z3.And(*parts) if forall else z3.Or(*parts)
    i = z3.FreshInt("i")
    rng = z3.And(0 <= i, i < z3.Length(s))
    if forall:
        q = z3.ForAll([i], z3.Implies(z3.And(rng, guard(s[i])), pred(s[i])))
    else:
        q = z3.Exists([i], z3.And(rng, guard(s[i]), pred(s[i])))
    n = bounds.of(s)
    return q if n is None else unrolled(s, n, one, forall, q)


# item's and length's answers within one rewriting: (sequence id[, index id]) -> (the key's
# terms kept alive, the answer)
SeqMemo = dict[tuple[int, ...], tuple[z3.ExprRef, ...]]


def item(s: z3.SeqRef, i: z3.ArithRef, memo: SeqMemo | None = None) -> z3.ExprRef:
    """s[i] for an index in range (every read the translation makes is guarded by its range),
    pushed through if-then-else and concatenation. `memo` (of one rewriting) holds each
    sequence's (and index's) answer: the walk is over a DAG, and sequences built by unrolled
    loops share their parts (`set(mode) <= set("xrwab+")` over 8 unrolled characters: 157 K
    walks of 712 pairs, 755 K lengths of 60 sequences, 30 s past a --budget of 10)."""
    memo = {} if memo is None else memo
    key = (F.node_id(s), F.node_id(i))
    hit = memo.get(key)
    if hit is not None:
        return hit[-1]
    whole = s
    s = _keys_inside(s)
    if _is_op(s, z3.Z3_OP_ITE):
        out = z3.If(s.arg(0), item(s.arg(1), i, memo), item(s.arg(2), i, memo))
    elif _is_op(s, z3.Z3_OP_SEQ_UNIT):
        out = s.arg(0)
    elif _is_op(s, OP) and removal(s) is None:
        head, *rest = s.children()
        tail = z3.Concat(*rest) if len(rest) > 1 else rest[0]
        out = z3.If(i < length(head, memo), item(head, i, memo), item(tail, i - length(head, memo), memo))
    else:
        out = s[i]
    memo[key] = (whole, i, out)  # the keys' terms kept alive: their ids stay their own
    return out


def length(s: z3.SeqRef, memo: SeqMemo | None = None) -> z3.ArithRef:
    """len(s), pushed through if-then-else, set removal, concatenation and a dict's key
    accessor (`memo`: as item's)."""
    memo = {} if memo is None else memo
    key = (F.node_id(s),)
    hit = memo.get(key)
    if hit is not None:
        return hit[-1]
    whole = s
    s = _keys_inside(s)
    removed = removal(s)
    if removed is not None:
        base, y = removed
        out = z3.If(member(base, y), length(base, memo) - 1, length(base, memo))
    elif _is_op(s, z3.Z3_OP_ITE):
        out = z3.If(s.arg(0), length(s.arg(1), memo), length(s.arg(2), memo))
    elif _is_op(s, OP):  # any concatenation (valid for lists too)
        out = z3.Sum(*[length(part, memo) for part in s.children()])
    elif _is_op(s, z3.Z3_OP_SEQ_UNIT):
        out = z3.IntVal(1)
    elif _is_op(s, z3.Z3_OP_SEQ_EMPTY):
        out = z3.IntVal(0)
    else:
        out = z3.Length(s)
    memo[key] = (whole, out)
    return out


def _keys_inside(s: z3.SeqRef) -> z3.SeqRef:
    """keys(mk(ks, vs)) is ks; keys(d1 if c else d2) is keys(d1) if c else keys(d2)."""
    if _is_op(s, z3.Z3_OP_DT_ACCESSOR) and s.decl().name().endswith(".keys"):
        d = s.arg(0)
        if _is_op(d, z3.Z3_OP_DT_CONSTRUCTOR):
            return _keys_inside(d.arg(0))
        if _is_op(d, z3.Z3_OP_ITE):
            acc = s.decl()
            return z3.If(d.arg(0), _keys_inside(acc(d.arg(1))), _keys_inside(acc(d.arg(2))))
    return s


def member(s: z3.SeqRef, x: z3.ExprRef) -> z3.BoolRef:
    """x in s, pushed through concatenation, if-then-else, units, the empty sequence, set
    removal and a dict's key accessor."""
    return _member(s, x, {}, True)[0]


def _member(s: z3.SeqRef, x: z3.ExprRef, done: dict[int, tuple[z3.ExprRef, z3.BoolRef]],
            stable: bool) -> tuple[z3.BoolRef, bool]:
    """`member` and whether its walk made no term its answer does not hold (a dict's keys
    read through an if-then-else: `_keys_inside`). A sequence shared by several branches
    (zipfile.ZipFile's sets: 6,200 walks of 220 sequences) is walked once per `member`:
    `done` maps a subterm of the first sequence (`stable`: reached without making a term)
    whose walk made no other term, to its answer. The answer a second walk would make is
    the first's (z3 shares equal terms, alive in the first answer), so skipping it makes
    and frees no term: z3's ids, and its answers, stay the same."""
    key = F.node_id(s) if stable else -1
    hit = done.get(key) if stable else None
    if hit is not None:
        return hit[1], True
    inner = _keys_inside(s)
    clean = inner is s
    deeper = stable and clean
    s = inner
    if F.op_kind(s) == z3.Z3_OP_SEQ_EMPTY:
        out = z3.BoolVal(False)
    elif F.op_kind(s) == z3.Z3_OP_SEQ_UNIT:
        out = s.arg(0) == x
    elif F.op_kind(x) == z3.Z3_OP_SEQ_NTH and x.arg(0).eq(s):  # s[i] in s
        out = F.and_(0 <= x.arg(1), x.arg(1) < z3.Length(s))
    elif (removed := removal(s)) is not None:
        base, y = removed
        inside, ok = _member(base, x, done, deeper)
        out, clean = F.and_(inside, x != y), clean and ok
    elif F.op_kind(s) == z3.Z3_OP_ITE:
        (a, a_ok), (b, b_ok) = _member(s.arg(1), x, done, deeper), _member(s.arg(2), x, done, deeper)
        out, clean = F.ite(s.arg(0), a, b), clean and a_ok and b_ok
    elif F.op_kind(s) == OP:
        parts = [_member(part, x, done, deeper) for part in s.children()]
        out, clean = F.or_(*[p for p, _ in parts]), clean and all(ok for _, ok in parts)
    else:
        out = z3.Contains(s, z3.Unit(x))
    if stable and clean:
        done[key] = (s, out)  # s is a subterm of the first sequence: alive as long as it is
    return out, clean


def removal(s: z3.ExprRef) -> tuple[z3.SeqRef, z3.ExprRef] | None:
    """(base, y) if s is mappings.remove(base, y): `base if at < 0 else base[:at] +
    base[at + 1:len(base)]` with at = base.index(y), or its second branch alone."""
    if _is_op(s, z3.Z3_OP_ITE):
        cond, same, cut = s.children()
        found = _removal_cut(cut)
        if found is None or not found[0].eq(same) or not _is_op(cond, z3.Z3_OP_LT):
            return None
        at, zero = cond.children()
        if _is_op(at, z3.Z3_OP_SEQ_INDEX) and z3.is_int_value(zero) and zero.as_long() == 0 \
                and at.arg(0).eq(same) and at.arg(1).eq(z3.Unit(found[1])):
            return found
        return None
    return _removal_cut(s)


def _removal_cut(s: z3.ExprRef) -> tuple[z3.SeqRef, z3.ExprRef] | None:
    if not _is_op(s, OP) or s.num_args() != 2:
        return None
    head, tail = s.children()
    if not (_is_op(head, z3.Z3_OP_SEQ_EXTRACT) and _is_op(tail, z3.Z3_OP_SEQ_EXTRACT)):
        return None
    base, start, at = head.children()
    if not (z3.is_int_value(start) and start.as_long() == 0 and _is_op(at, z3.Z3_OP_SEQ_INDEX)):
        return None
    b2, after, length = tail.children()
    if not (b2.eq(base) and _is_op(length, z3.Z3_OP_SEQ_LENGTH) and length.arg(0).eq(base)):
        return None
    if not (_is_op(after, z3.Z3_OP_ADD) and after.arg(0).eq(at)):
        return None
    needle = at.arg(1)
    if not (at.arg(0).eq(base) and _is_op(needle, z3.Z3_OP_SEQ_UNIT)):
        return None
    return base, needle.arg(0)
