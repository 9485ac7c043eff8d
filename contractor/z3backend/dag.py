"""Fast walks over a z3 formula's DAG, each node once, through z3's C API.

z3's Python objects make every visited child a wrapper (reference counting, sort and kind
look-ups): on the formulas of real classes (raise guards of http.client's methods, a few
thousand shared nodes with wide `And`/`Or`) the object walks took seconds. These walks
read raw AST pointers instead; they stay valid while the root expression is alive, and
only the nodes a caller asks for are turned back into Python expressions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

import z3
from z3 import z3 as _z3py
from z3 import z3core as C

from contractor.z3backend import rawapi as R


class Node(NamedTuple):
    """One node of the DAG: its raw pointer (an address), AST kind, declaration kind (applications),
    and its children's ids (a quantifier's only child is its body). A named tuple: made
    once per node of every walk, 3x faster than a frozen dataclass."""

    ast: int
    kind: int
    decl_kind: int | None
    args: tuple[int, ...]


def postorder(e: z3.ExprRef) -> dict[int, Node]:
    """Every node under `e` by id, children before parents (dicts keep insertion order).
    The nodes' pointers are bare addresses (rawapi.py); `expr` makes a node's expression."""
    c = R.pointer(e.ctx_ref())
    out: dict[int, Node] = {}
    raw: dict[int, tuple[Any, ...]] = {}  # id -> (ast, kind, decl_kind, child asts), before its children are done
    stack = [R.pointer(e.as_ast())]
    ast_id, arg = R.ptr_ast_id, R.ptr_app_arg
    while stack:
        a = stack[-1]
        key = ast_id(c, a)
        if key in out:
            stack.pop()
            continue
        if key not in raw:
            kind = R.ptr_ast_kind(c, a)
            decl_kind = None
            children: list[Any] = []
            if kind in (z3.Z3_APP_AST, z3.Z3_NUMERAL_AST):
                app = R.ptr_to_app(c, a)
                decl_kind = R.ptr_decl_kind(c, R.ptr_app_decl(c, app))
                children = [arg(c, app, j) for j in range(R.ptr_app_num_args(c, app))]
            elif kind == z3.Z3_QUANTIFIER_AST:
                children = [R.ptr_quantifier_body(c, a)]
            raw[key] = (a, kind, decl_kind, children)
            stack.extend(children)
            continue
        stack.pop()
        a, kind, decl_kind, children = raw.pop(key)
        out[key] = Node(a, kind, decl_kind, tuple([ast_id(c, x) for x in children]))
    return out


def expr(root: z3.ExprRef, node: Node) -> z3.ExprRef:
    """The Python expression of a node under `root`."""
    return _z3py._to_expr_ref(R.boxed(node.ast), root.ctx)


def is_constant(node: Node) -> bool:
    """An uninterpreted 0-ary symbol (what z3's Python API calls a constant)."""
    return node.kind == z3.Z3_APP_AST and not node.args and node.decl_kind == z3.Z3_OP_UNINTERPRETED


def name(root: z3.ExprRef, node: Node) -> str:
    """The symbol of an application node (a constant's name)."""
    c = root.ctx_ref()
    return str(C.Z3_get_symbol_string(c, C.Z3_get_decl_name(c, R.get_app_decl(c, R.to_app(c, R.boxed(node.ast))))))


def free_constants(e: z3.ExprRef) -> list[z3.ExprRef]:
    """The uninterpreted constants (0-ary symbols) `e` mentions, sorted by name."""
    found = {name(e, n): n for n in postorder(e).values() if is_constant(n)}
    return [expr(e, found[k]) for k in sorted(found)]


def constant_names(e: z3.ExprRef) -> frozenset[str]:
    """The names of the uninterpreted constants `e` mentions (no expression built, none printed)."""
    return frozenset(name(e, n) for n in postorder(e).values() if is_constant(n))


def constant_names_in(e: z3.ExprRef, memo: dict[int, frozenset[str]]) -> frozenset[str]:
    """`constant_names(e)`, with `memo` (node id -> the names under it) carried over between
    calls, so the nodes terms share are visited once (reach.py asks it of every untyped
    place's identity at every call to outside code: zipfile.ZipFile's constructor walked
    the same path conditions again for each); the caller keeps the terms it asked about
    alive (z3 reuses the ids of freed nodes)."""
    return _fold_constants(e, memo, lambda name: frozenset([name]), _NO_NAMES,
                           lambda parts: parts[0].union(*parts[1:]) if len(parts) > 1 else parts[0])


def mentions_constant(e: z3.ExprRef, pred: Callable[[str], bool], memo: dict[int, bool]) -> bool:
    """Whether an uninterpreted constant under `e` has a name meeting `pred`. `memo` (node id
    -> answer) carries over between calls, so the nodes terms share are visited once; the
    caller keeps the terms it asked about alive (z3 reuses the ids of freed nodes).

    The walk (depth first, on bare pointers as _fold_constants') ends at the first such
    constant, or the first node the memo knows holds one: the nodes it was walking down
    from then hold it too (each is an ancestor of it) and are noted so; the nodes not
    reached yet stay out of the memo. smtplib.SMTP's raise sites (`none_raises`) asked
    whole path conditions whose first branches read the constants made on the way."""
    cref = e.ctx_ref()
    c = R.pointer(cref)
    ast_id, arg = R.ptr_ast_id, R.ptr_app_arg
    waiting: dict[int, None] = {}  # the nodes walked down from, in order (each an ancestor of the top)
    stack = [R.pointer(e.as_ast())]
    while stack:
        a = stack[-1]
        key = ast_id(c, a)
        found = memo.get(key)
        if found is None:
            if key in waiting:  # second visit: no child holds one
                del waiting[key]
                memo[key] = False
                stack.pop()
                continue
            kind = R.ptr_ast_kind(c, a)
            if kind == z3.Z3_APP_AST:
                app = R.ptr_to_app(c, a)
                n = R.ptr_app_num_args(c, app)
                if n:
                    waiting[key] = None
                    stack.extend([arg(c, app, j) for j in range(n)])
                    continue
                found = memo[key] = pred(_symbol(cref, a)) \
                    if R.ptr_decl_kind(c, R.ptr_app_decl(c, app)) == z3.Z3_OP_UNINTERPRETED else False
            elif kind == z3.Z3_QUANTIFIER_AST:
                waiting[key] = None
                stack.append(R.ptr_quantifier_body(c, a))
                continue
            else:  # numerals, bound variables
                found = memo[key] = False
        stack.pop()
        if found:
            for k in waiting:
                memo[k] = True
            return True
    return memo[ast_id(c, R.pointer(e.as_ast()))]


_NO_NAMES: frozenset[str] = frozenset()
T = TypeVar("T")


def _fold_constants(e: z3.ExprRef, memo: dict[int, T], leaf: Callable[[str], T], empty: T,
                    combine: Callable[[list[T]], T]) -> T:
    """A value of every node under `e`, bottom up on bare pointers (rawapi.py: HTTPConnection's
    raise sites asked 0.2 s of the binding's wrappers): `leaf(name)` at an uninterpreted
    constant, `empty` at other leaves (numerals, bound variables, interpreted constants),
    `combine` of the children's values elsewhere (a quantifier's: its body's). `memo` (node
    id -> value) is filled and carried over between calls."""
    cref = e.ctx_ref()
    c = R.pointer(cref)
    ast_id, arg = R.ptr_ast_id, R.ptr_app_arg
    waiting: dict[int, list[int]] = {}  # id -> its children's ids, while they are walked
    stack = [R.pointer(e.as_ast())]
    while stack:
        a = stack[-1]
        key = ast_id(c, a)
        if key in memo:
            stack.pop()
            continue
        if key in waiting:  # second visit: the children are done
            stack.pop()
            memo[key] = combine([memo[i] for i in waiting.pop(key)])
            continue
        kind = R.ptr_ast_kind(c, a)
        children: list[Any] = []
        if kind == z3.Z3_APP_AST:
            app = R.ptr_to_app(c, a)
            children = [arg(c, app, j) for j in range(R.ptr_app_num_args(c, app))]
            if not children:
                memo[key] = leaf(_symbol(cref, a)) \
                    if R.ptr_decl_kind(c, R.ptr_app_decl(c, app)) == z3.Z3_OP_UNINTERPRETED else empty
                stack.pop()
                continue
        elif kind == z3.Z3_QUANTIFIER_AST:
            children = [R.ptr_quantifier_body(c, a)]
        else:  # numerals, bound variables
            memo[key] = empty
            stack.pop()
            continue
        waiting[key] = [ast_id(c, x) for x in children]
        stack.extend(children)
    return memo[ast_id(c, R.pointer(e.as_ast()))]


def _symbol(cref: Any, a: int) -> str:
    """The symbol of the application at address `a`, as `name` reads it."""
    return str(C.Z3_get_symbol_string(cref, C.Z3_get_decl_name(cref, R.get_app_decl(cref, R.to_app(cref, R.boxed(a))))))


_CONNECTIVES = (z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_NOT, z3.Z3_OP_IMPLIES, z3.Z3_OP_XOR, z3.Z3_OP_ITE)


def bool_atoms(e: z3.BoolRef) -> list[z3.BoolRef]:
    """The Boolean atoms of a quantifier-free formula (readable.atoms): its Boolean
    subterms below connectives, `==` of Booleans and if-then-else (of any sort), that are
    neither connectives nor `true`/`false`; in the order first met (ValueError on a quantifier)."""
    c = e.ctx_ref()
    out: dict[int, Any] = {}
    visited: set[int] = set()
    todo = [e.as_ast()]
    while todo:
        a = todo.pop()
        key = R.get_ast_id(c, a)
        if key in visited:
            continue
        visited.add(key)
        kind = R.get_ast_kind(c, a)
        if kind == z3.Z3_QUANTIFIER_AST:
            raise ValueError("quantified")
        if kind != z3.Z3_APP_AST:
            continue
        app = R.to_app(c, a)
        decl_kind = R.get_decl_kind(c, R.get_app_decl(c, app))
        is_bool = R.get_sort_kind(c, R.get_sort(c, a)) == z3.Z3_BOOL_SORT
        n = R.get_app_num_args(c, app)
        if decl_kind in _CONNECTIVES or (is_bool and decl_kind == z3.Z3_OP_EQ and R.get_sort_kind(
                c, R.get_sort(c, R.get_app_arg(c, app, 0))) == z3.Z3_BOOL_SORT):
            if is_bool or decl_kind == z3.Z3_OP_ITE:
                todo.extend(R.get_app_arg(c, app, j) for j in range(n))
                continue
        if is_bool and decl_kind not in (z3.Z3_OP_TRUE, z3.Z3_OP_FALSE):
            out.setdefault(key, a)
    return [_z3py._to_expr_ref(a, e.ctx) for a in out.values()]


def has_sort(terms: list[z3.ExprRef], kinds: tuple[int, ...]) -> bool:
    """Whether any subterm of `terms` (quantifier bodies included) has a sort of one of the
    `kinds` (z3's sort kinds); each shared node is visited once, the walk stops at the first."""
    seen: set[int] = set()
    for t in terms:
        c = t.ctx_ref()
        stack = [t.as_ast()]
        while stack:
            a = stack.pop()
            key = R.get_ast_id(c, a)
            if key in seen:
                continue
            seen.add(key)
            if R.get_sort_kind(c, R.get_sort(c, a)) in kinds:
                return True
            kind = R.get_ast_kind(c, a)
            if kind == z3.Z3_APP_AST:
                app = R.to_app(c, a)
                stack.extend(R.get_app_arg(c, app, j) for j in range(R.get_app_num_args(c, app)))
            elif kind == z3.Z3_QUANTIFIER_AST:
                stack.append(R.get_quantifier_body(c, a))
    return False


def tree_size(e: z3.ExprRef, cap: int) -> int:
    """How many nodes `e` has written out as a tree (shared nodes counted once per
    occurrence, as z3's printer visits them), counted up to `cap` + 1. A DAG of a few
    hundred nodes can stand for a tree of millions."""
    sizes: dict[int, int] = {}
    for key, node in postorder(e).items():
        sizes[key] = min(cap + 1, 1 + sum(sizes[a] for a in node.args))
    return sizes[e.get_id()]


def has_quantifier(e: z3.ExprRef) -> bool:
    """Whether a quantifier occurs in `e`: a walk over raw pointers, each shared node once,
    that stops at the first (the qe results it is asked of are quantifier-free and wide:
    building `postorder`'s nodes for them was 0.1 s of zipfile.ZipFile's guards)."""
    return any_node([e], lambda c, a, kind: kind == z3.Z3_QUANTIFIER_AST)


def any_node(terms: list[z3.ExprRef], hit: Callable[[int, int, int], bool]) -> bool:
    """Whether a node under `terms` meets `hit(context, node, AST kind)` (bare pointers): a
    walk, each shared node once (by address: the terms are alive meanwhile), that stops at
    the first (into a quantifier's body too)."""
    if not terms:
        return False
    c = R.pointer(terms[0].ctx_ref())
    arg = R.ptr_app_arg
    seen: set[int] = set()
    stack = [R.pointer(t.as_ast()) for t in terms]
    while stack:
        a = stack.pop()
        if a in seen:
            continue
        seen.add(a)
        kind = R.ptr_ast_kind(c, a)
        if hit(c, a, kind):
            return True
        if kind == z3.Z3_APP_AST:
            app = R.ptr_to_app(c, a)
            stack.extend([arg(c, app, j) for j in range(R.ptr_app_num_args(c, app))])
        elif kind == z3.Z3_QUANTIFIER_AST:
            stack.append(R.ptr_quantifier_body(c, a))
    return False


__all__ = ["Node", "any_node", "bool_atoms", "constant_names", "constant_names_in", "expr", "free_constants",
           "has_quantifier", "has_sort", "is_constant", "mentions_constant", "name", "postorder",
           "tree_size"]
