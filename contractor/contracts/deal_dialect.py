"""deal decorators: `pre`, `post`, `ensure`, `raises` on methods and `inv` on the class.

deal calls a validator with the method's own arguments, so lambda parameters are mapped
positionally onto (self, *params); `ensure` also passes `result` by keyword and `post`
passes only the result. A validator with the single parameter `_` is deal's short form:
`_.x` is the argument x (`_.result` the result). `inv`'s one parameter is the object.
`message=` becomes the description. Other deal decorators (pure, safe, has, reason, ...)
are recorded in Method.decorators and otherwise ignored.
"""

from __future__ import annotations

import ast

from contractor.contracts.clauses import Clauses
from contractor.contracts.context import FileContext, as_lambda, decorator_call, keyword, lambda_params, string_value
from contractor.contracts.normalize import RETURN, free_names, name_ref, rename, replace_attributes, substitute
from contractor.model import ClauseKind, Condition, FunctionNode

PREFIX = "deal."


def _kind(ctx: FileContext, dec: ast.expr) -> tuple[str | None, list[ast.expr], list[ast.keyword]]:
    func, args, kws = decorator_call(dec)
    qual = ctx.qualname(func) or ""
    return (qual[len(PREFIX):] if qual.startswith(PREFIX) else None), args, kws


def _short(lam: ast.Lambda, names: dict[str, str], ctx: FileContext) -> ast.expr:
    """deal's `lambda _: _.x ...`: `_.x` is the argument named x."""
    def replace(node: ast.Attribute) -> ast.expr:
        if node.attr not in names:
            raise ctx.error(f"`_.{node.attr}` names no argument (known: {', '.join(names)})", node, ctx.text(node))
        return name_ref(names[node.attr], node)

    expr = replace_attributes(lam.body, "_", replace)
    bare = free_names(expr, {"_"})
    if bare:
        raise ctx.error("in deal's short form, `_` can only be used as `_.<argument>`", bare[0], "_")
    return expr


def _positional(lam: ast.Lambda, params: list[str], ctx: FileContext, construct: str,
                result: bool) -> ast.expr:
    names = lambda_params(lam)
    mapping: dict[str, str] = {}
    rest = [n for n in names if not (result and n == "result")]
    if len(rest) > len(params):
        raise ctx.error(f"{construct}: the condition takes {len(rest)} arguments but the method has "
                        f"{len(params)} ({', '.join(params)}); deal passes the method's arguments in order",
                        lam, ctx.text(lam))
    mapping.update(zip(rest, params))
    if result and "result" in names:
        mapping["result"] = RETURN
    return rename(lam.body, mapping)


def _condition(expr: ast.expr, lam: ast.Lambda, kind: ClauseKind, kws: list[ast.keyword],
               ctx: FileContext) -> Condition:
    return Condition(expr, ctx.text(lam.body), kind, "deal", ctx.loc(lam.body),
                     string_value(keyword(kws, "message")))


def read_method(fn: FunctionNode, ctx: FileContext, params: list[str]) -> Clauses:
    """params: the method's parameter names, self first."""
    found = Clauses()
    for dec in fn.decorator_list:
        kind, args, kws = _kind(ctx, dec)
        if kind is None:
            continue
        found.found = True
        if kind == "raises":
            found.raises += [ast.unparse(a) for a in args if ast.unparse(a) not in found.raises]
            continue
        if kind not in ("pre", "post", "ensure"):
            continue
        construct = f"deal.{kind}"
        lam = as_lambda(keyword(kws, "validator") or (args[0] if args else None), ctx, construct, dec)
        names = lambda_params(lam)
        if names == ["_"]:
            known = {p: p for p in params}
            if kind != "pre":
                known["result"] = RETURN
            expr = _short(lam, known, ctx)
        elif kind == "post":
            if len(names) != 1:
                raise ctx.error("deal.post's condition takes exactly one argument, the result "
                                "(use deal.ensure to see the arguments too)", lam, ctx.text(lam))
            expr = substitute(lam.body, {names[0]: lambda n: name_ref(RETURN, n)})
        else:
            expr = _positional(lam, params, ctx, construct, result=kind == "ensure")
        clause: ClauseKind = "pre" if kind == "pre" else "post"
        (found.pre if clause == "pre" else found.post).append(_condition(expr, lam, clause, kws, ctx))
    return found


def read_class(cls: ast.ClassDef, ctx: FileContext) -> Clauses:
    found = Clauses()
    for dec in cls.decorator_list:
        kind, args, kws = _kind(ctx, dec)
        if kind is None:
            continue
        found.found = True
        if kind != "inv":
            continue
        lam = as_lambda(keyword(kws, "validator") or (args[0] if args else None), ctx, "deal.inv", dec)
        names = lambda_params(lam)
        if names == ["_"]:
            expr = replace_attributes(lam.body, "_", lambda n: ast.copy_location(
                ast.Attribute(name_ref("self", n), n.attr, ast.Load()), n))
        elif len(names) == 1:
            expr = substitute(lam.body, {names[0]: lambda n: name_ref("self", n)})
        else:
            raise ctx.error("deal.inv's condition takes exactly one argument, the object", lam, ctx.text(lam))
        found.inv.append(_condition(expr, lam, "inv", kws, ctx))
    return found
