"""icontract decorators: `require`, `ensure`, `snapshot` on methods and `invariant` on the class.

icontract binds a condition's arguments by name, so lambda parameters are the method's
own parameter names (plus `result` and `OLD` for postconditions). `result` becomes
`__return__`, and `OLD.name` becomes the snapshot's capture expression evaluated before
the call (`self` -> `__old__.self`, a parameter p -> `__old__.p`). A snapshot without
`name=` is named after its capture function's single argument (icontract's rule); with
`icontract.DBC`, an override's postconditions may use the snapshots of the methods it
overrides (contracts/inherit.py passes them).
"""

from __future__ import annotations

import ast
import copy

from contractor.contracts.clauses import Clauses
from contractor.contracts.context import FileContext, as_lambda, decorator_call, keyword, lambda_params, string_value
from contractor.contracts.normalize import RETURN, free_names, name_ref, replace_attributes, substitute, to_old
from contractor.model import ClauseKind, Condition, FunctionNode

PREFIX = "icontract."


def _kind(ctx: FileContext, dec: ast.expr) -> tuple[str | None, ast.expr, list[ast.expr], list[ast.keyword]]:
    func, args, kws = decorator_call(dec)
    qual = ctx.qualname(func) or ""
    return (qual[len(PREFIX):] if qual.startswith(PREFIX) else None), func, args, kws


def _disabled(kws: list[ast.keyword]) -> bool:
    flag = keyword(kws, "enabled")
    return isinstance(flag, ast.Constant) and flag.value is False


def _description(args: list[ast.expr], kws: list[ast.keyword]) -> str | None:
    return string_value(keyword(kws, "description") or (args[1] if len(args) > 1 else None))


def _check_params(lam: ast.Lambda, allowed: list[str], ctx: FileContext, construct: str) -> None:
    for name in lambda_params(lam):
        if name not in allowed:
            raise ctx.error(
                f"{construct}: the condition's argument {name!r} is not an argument of the method "
                f"(icontract binds by name; expected some of: {', '.join(allowed)})", lam, ctx.text(lam))


def snapshots(fn: FunctionNode, ctx: FileContext, params: list[str]) -> dict[str, ast.expr]:
    """The method's own `@snapshot`s: name -> capture expression over `__old__`."""
    snaps: dict[str, ast.expr] = {}
    for dec in fn.decorator_list:
        kind, _, args, kws = _kind(ctx, dec)
        if kind != "snapshot" or _disabled(kws):
            continue
        lam = as_lambda(keyword(kws, "capture") or (args[0] if args else None), ctx, "icontract.snapshot", dec)
        _check_params(lam, params, ctx, "icontract.snapshot")
        name = string_value(keyword(kws, "name") or (args[1] if len(args) > 1 else None))
        if name is None:
            if len(lambda_params(lam)) != 1:
                raise ctx.error("icontract.snapshot with several arguments needs name=", dec, ctx.text(dec))
            name = lambda_params(lam)[0]
        snaps[name] = to_old(lam.body, set(lambda_params(lam)))
    return snaps


def _old(expr: ast.expr, snaps: dict[str, ast.expr], ctx: FileContext) -> ast.expr:
    def replace(node: ast.Attribute) -> ast.expr:
        if node.attr not in snaps:
            known = ", ".join(sorted(snaps)) or "none"
            raise ctx.error(f"OLD.{node.attr} has no @snapshot (snapshots: {known})", node, ctx.text(node))
        return copy.deepcopy(snaps[node.attr])

    result = replace_attributes(expr, "OLD", replace)
    bare = free_names(result, {"OLD"})
    if bare:
        raise ctx.error("OLD can only be used as OLD.<snapshot name>", bare[0], "OLD")
    return result


def read_method(fn: FunctionNode, ctx: FileContext, params: list[str],
                inherited: dict[str, ast.expr] | None = None) -> Clauses:
    """params: the method's parameter names, self first; `inherited`: the snapshots of the
    methods it overrides (with `icontract.DBC`, a postcondition may use a base's snapshot)."""
    found = Clauses()
    snaps: dict[str, ast.expr] | None = None
    for dec in fn.decorator_list:
        kind, func, args, kws = _kind(ctx, dec)
        if kind is None:
            continue
        found.found = True
        if kind not in ("require", "ensure") or _disabled(kws):
            continue
        construct = f"icontract.{kind}"
        lam = as_lambda(keyword(kws, "condition") or (args[0] if args else None), ctx, construct, dec)
        if kind == "require":
            _check_params(lam, params, ctx, construct)
            found.pre.append(_make(lam.body, lam, "pre", args, kws, ctx))
            continue
        _check_params(lam, [*params, "result", "OLD"], ctx, construct)
        if snaps is None:
            snaps = {**(inherited or {}), **snapshots(fn, ctx, params)}
        expr = substitute(lam.body, {"result": lambda n: name_ref(RETURN, n)})
        found.post.append(_make(_old(expr, snaps, ctx), lam, "post", args, kws, ctx))
    return found


def read_class(cls: ast.ClassDef, ctx: FileContext) -> Clauses:
    found = Clauses()
    for dec in cls.decorator_list:
        kind, func, args, kws = _kind(ctx, dec)
        if kind is None:
            continue
        found.found = True
        if kind != "invariant" or _disabled(kws):
            continue
        lam = as_lambda(keyword(kws, "condition") or (args[0] if args else None), ctx, "icontract.invariant", dec)
        _check_params(lam, ["self"], ctx, "icontract.invariant")
        found.inv.append(_make(lam.body, lam, "inv", args, kws, ctx))
    return found


def _make(expr: ast.expr, lam: ast.Lambda, kind: ClauseKind, args: list[ast.expr], kws: list[ast.keyword],
          ctx: FileContext) -> Condition:
    if expr is lam.body:
        expr = copy.deepcopy(expr)  # the model never shares nodes with the module
    return Condition(expr, ctx.text(lam.body), kind, "icontract", ctx.loc(lam.body), _description(args, kws))
