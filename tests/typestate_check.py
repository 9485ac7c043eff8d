"""Compare contractor's typestate with the brute-force one, and replay its witnesses concretely.

Shared by the differential, semantic and sample tests; every failure message lists the
differing states and transitions so that a failing class can be read off directly.
"""

from __future__ import annotations

import enum
import inspect
import math
import types
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from bruteforce import BruteTypestate, Enabled, ParamDomains, Runner, Triple, attribute, show, show_triple
from runtime_contracts import read_contracts

from contractor.typestate import State, Typestate


def covers(state: State, real: Enabled) -> bool:
    """Whether an object whose real enabled set is `real` may be in `state`: its decided
    methods exactly (a method undecided there, `m?`, may be enabled or not)."""
    return set(state.surely_enabled) <= real <= set(state.enabled)


def covered(states: list[State], real: Enabled) -> bool:
    return any(covers(s, real) for s in states)


def enabled_of(ts: Typestate, state_id: str) -> Enabled:
    return frozenset(ts.state(state_id).enabled)


def tool_initial(ts: Typestate) -> frozenset[Enabled]:
    return frozenset(enabled_of(ts, s) for s in ts.initial)


def tool_states(ts: Typestate) -> frozenset[Enabled]:
    return frozenset(frozenset(s.enabled) for s in ts.states)


def tool_transitions(ts: Typestate) -> dict[Triple, str]:
    return {(enabled_of(ts, t.source), t.method, enabled_of(ts, t.target)): t.certainty
            for t in ts.transitions}


def describe_tool(ts: Typestate) -> str:
    lines = [f"tool ({ts.stats.backend}, complete={ts.complete}):",
             "initial: " + ", ".join(sorted(map(show, tool_initial(ts)))), "states:"]
    lines += [f"  {s.id} {show(frozenset(s.enabled))}" for s in ts.states]
    lines.append("transitions:")
    lines += [f"  {show_triple(t)} [{c}]" for t, c in
              sorted(tool_transitions(ts).items(), key=lambda kv: (sorted(kv[0][0]), kv[0][1], sorted(kv[0][2])))]
    lines += [f"  finding {f.kind} {f.method}: {f.message}" for f in ts.findings]
    lines += [f"  unknown {u.method}:{u.line} {u.construct} {u.detail}" for u in ts.unknowns]
    return "\n".join(lines)


def differences(ts: Typestate, brute: BruteTypestate, *, exact: bool) -> list[str]:
    """What the tool misses (always wrong) and, if `exact`, what it has in excess."""
    problems = []
    if tuple(ts.methods) != tuple(brute.actions):
        problems.append(f"actions differ: tool {list(ts.methods)} vs brute {list(brute.actions)}")
    init, states, trans = tool_initial(ts), tool_states(ts), tool_transitions(ts)
    initial = [ts.state(s) for s in ts.initial]
    problems += [f"missing initial state {show(s)}" for s in sorted(brute.initial, key=sorted)
                 if not covered(initial, s)]
    problems += [f"missing state {show(s)}" for s in sorted(brute.states, key=sorted)
                 if not covered(list(ts.states), s)]
    problems += [f"missing transition {show_triple(t)} (e.g. {brute.examples[t]})"
                 for t in sorted(brute.transitions, key=show_triple)
                 if not any(m == t[1] and covers(ts.state(a), t[0]) and covers(ts.state(b), t[2])
                            for a, m, b in ((x.source, x.method, x.target) for x in ts.transitions))]
    if exact:
        problems += [f"extra initial state {show(s)}" for s in sorted(init - brute.initial, key=sorted)]
        problems += [f"extra state {show(s)}" for s in sorted(states - brute.states, key=sorted)]
        problems += [f"extra transition {show_triple(t)} [{trans[t]}]"
                     for t in sorted(trans.keys() - brute.transitions, key=show_triple)]
        witnessed = {frozenset(s.enabled) for s in ts.states if s.witnessed}
        problems += [f"state {show(s)} marked witnessed but no call sequence reaches it"
                     for s in sorted(witnessed - brute.witnessed_states, key=sorted)]
    return problems


def _type_args(hint: str) -> list[str]:
    """"tuple[int, dict[str, int]]" -> ["int", "dict[str, int]"] (top-level commas only)."""
    inner, depth, parts, cur = hint[hint.index("[") + 1:-1], 0, [], ""
    for ch in inner:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return parts + [cur.strip()] if cur.strip() else parts


def _hint_name(annotation: Any) -> str | None:
    """A parameter annotation as the typestate's field types spell it ("int", "dict[str, int]")."""
    if isinstance(annotation, types.GenericAlias):
        return str(annotation)
    return getattr(annotation, "__name__", None)


class OpaqueStandIn:
    """An untyped value of a witness (`0`: falsy, `"<object N>"`: truthy) replayed as an
    object whose methods return normally, as the raise guards assume outside code does."""

    def __init__(self, truth: bool):
        self.truth = truth

    def __bool__(self) -> bool:
        return self.truth

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None

    def __repr__(self) -> str:
        return f"<{'truthy' if self.truth else 'falsy'} object>"


def _from_json(value: Any, namespace: Mapping[str, Any], hint: str | None, stand_in: bool = False) -> Any:
    standing = value == 0 or (isinstance(value, str) and value.startswith("<object"))
    if stand_in and hint in ("opaque", "_empty") and standing and not isinstance(value, bool):
        return OpaqueStandIn(value != 0)
    if hint == "str" or value is None or isinstance(value, bool):
        return value
    if hint and hint.startswith("tuple[") and isinstance(value, list):
        return tuple(_from_json(v, namespace, h) for v, h in zip(value, _type_args(hint)))
    if hint and hint.startswith("set[") and isinstance(value, list):
        return {_from_json(v, namespace, _type_args(hint)[0]) for v in value}
    if hint and hint.startswith("dict[") and isinstance(value, list):  # [[key, value], ...]
        k, v = _type_args(hint)
        return {_from_json(a, namespace, k): _from_json(b, namespace, v) for a, b in value}
    if isinstance(value, list):
        inner = hint[hint.index("[") + 1:-1] if hint and "[" in hint else None
        return [_from_json(v, namespace, inner) for v in value]
    if isinstance(value, str):
        name, _, member = value.partition(".")
        kind = namespace.get(name)
        if isinstance(kind, type) and issubclass(kind, enum.Enum) and member in kind.__members__:
            return kind[member]
        if hint and "float" in hint:
            return float(Fraction(value))
    if hint and "float" in hint and isinstance(value, int):
        return float(value)
    return value


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, abs_tol=1e-9)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b):
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b and type(a) is type(b) or (a == b and {type(a), type(b)} <= {int, float})


def with_witness_strings(params: ParamDomains, ts: Typestate) -> dict[str, dict[str, list[Any]]]:
    """The str parameter domains plus every str in the witnesses (and one in none of them):
    a witness object's state depends on arguments such as its own dict keys (`path in
    self.routes`), which z3 picks freely."""
    found: set[str] = {"unused-by-any-witness"}

    def collect(v: Any) -> None:
        if isinstance(v, str):
            found.add(v)
        elif isinstance(v, (list, tuple)):
            for x in v:
                collect(x)
        elif isinstance(v, dict):
            for x in v.values():
                collect(x)

    for t in ts.transitions:
        collect(t.witness or {})
    return {m: {p: list(dom) + sorted(found - set(dom)) if dom and all(isinstance(x, str) for x in dom) else dom
                for p, dom in ps.items()} for m, ps in params.items()}


def witness_problems(ts: Typestate, cls: type, param_domains: ParamDomains) -> list[str]:
    """Replay every must-transition's witness on the real class; list what does not hold."""
    contracts = read_contracts(cls, actions=tuple(ts.methods), preconditions=ts.preconditions)
    runner = Runner(contracts, with_witness_strings(param_domains, ts))
    namespace = inspect.getmodule(contracts.cls).__dict__
    problems = []
    for t in ts.transitions:
        if t.certainty != "must" or not t.witness or "fields" not in t.witness:
            continue
        where = f"witness of {t.source} --{t.method}--> {t.target} {t.witness}"
        fields = {n: _from_json(v, namespace, ts.fields.get(n), stand_in=True)
                  for n, v in t.witness["fields"].items()}
        signature = inspect.signature(contracts.methods[t.method].function)
        hints = {p.name: p.annotation for p in signature.parameters.values()}
        args = {n: _from_json(v, namespace, _hint_name(hints.get(n)), stand_in=True)
                for n, v in (t.witness.get("args") or {}).items()}
        obj = runner.make(fields)
        source, target = enabled_of(ts, t.source), enabled_of(ts, t.target)
        if not contracts.invariant(obj):
            problems.append(f"{where}: the source object breaks the invariant")
        elif not covers(ts.state(t.source), runner.state(obj)):
            problems.append(f"{where}: the source object is in {show(runner.state(obj))}, not {show(source)}")
        elif not contracts.precondition(t.method, obj, args):
            problems.append(f"{where}: the arguments do not meet the precondition")
        else:
            after = runner.run(t.method, obj, args)
            if after is None:
                problems.append(f"{where}: running {t.method} raises")
            elif not contracts.invariant(after):
                problems.append(f"{where}: the object after {t.method} breaks the invariant")
            elif not covers(ts.state(t.target), runner.state(after)):
                problems.append(f"{where}: the object lands in {show(runner.state(after))}, not {show(target)}")
            else:
                for n, v in (t.witness.get("after") or {}).items():
                    real = getattr(after, attribute(contracts.cls, n), None)
                    if ts.fields.get(n) == "opaque" or _object_form(v, ts.fields.get(n)):  # None-ness and truth only
                        if (v is None, bool(v)) != (real is None, bool(real)):
                            problems.append(f"{where}: after the call {n} == {real!r}, witness says {v!r}")
                        continue
                    if not _same(_from_json(v, namespace, ts.fields.get(n)), real):
                        problems.append(f"{where}: after the call {n} == {real!r}, witness says {v!r}")
    return problems


_NUMBERS = {"int", "float", "bool", "Optional[int]", "Optional[float]", "Optional[bool]"}


def _object_form(v: Any, hint: str | None) -> bool:
    """A witness value in the form of an opaque value, `<object N>` (true) or `0` (false):
    a field whose declared type z3 does not model (`Optional[Node]`, `Optional[list[int]]`)
    is opaque, see z3backend/fieldtypes.py."""
    if isinstance(v, str):
        return v.startswith("<object ")
    return v == 0 and not isinstance(v, bool) and hint not in _NUMBERS


def finding_problems(ts: Typestate, brute: BruteTypestate, cls: type, param_domains: ParamDomains,
                     *, exact: bool) -> list[str]:
    """Replay the counterexamples of breaks_invariant and may_raise; if `exact`, the methods
    found never enabled / breaking the invariant / raising must be the brute force's."""
    contracts = read_contracts(cls, actions=tuple(ts.methods), preconditions=ts.preconditions)
    runner = Runner(contracts, with_witness_strings(param_domains, ts))
    namespace = inspect.getmodule(contracts.cls).__dict__
    problems = []
    for f in ts.findings:
        if f.kind not in ("breaks_invariant", "may_raise") or f.method not in ts.methods or not f.counterexample:
            continue
        cx = f.counterexample
        if str(cx.get("exception", "")).startswith("an exception from"):
            continue  # code outside the analysed source may raise: a claim no run can confirm
        fields = {n: _from_json(v, namespace, ts.fields.get(n)) for n, v in cx.get("fields", {}).items()}
        args = {n: _from_json(v, namespace, None) for n, v in (cx.get("args") or {}).items()}
        obj = runner.make(fields)
        where = f"counterexample of {f.kind} {f.method} {cx}"
        if not contracts.invariant(obj) and "invariant was not fully translated" in f.message:
            continue  # said so: the example object may not meet the invariant
        if not contracts.invariant(obj) or not contracts.precondition(f.method, obj, args):
            problems.append(f"{where}: the object breaks the invariant or the precondition")
            continue
        after = runner.run(f.method, obj, args)
        if f.kind == "may_raise" and after is not None:
            problems.append(f"{where}: running it does not raise")
        if f.kind == "breaks_invariant" and (after is None or contracts.invariant(after)):
            problems.append(f"{where}: running it {'raises' if after is None else 'keeps the invariant'}")
    if exact:
        # a check the solver could not decide is an `unknown` finding naming the method: the
        # finding may then be missing, never reported wrongly
        undecided = {f.method for f in ts.findings if f.kind == "unknown"}
        for kind, expected in (("never_enabled", set(brute.never_enabled)),
                               ("breaks_invariant", set(brute.breaks_invariant)),
                               ("may_raise", set(brute.may_raise))):
            found = [f for f in ts.findings if f.kind == kind and f.method in ts.methods]
            got = {f.method for f in found}
            claimed = {f.method for f in found if not _outside_exception(f)}  # outside code's: may
            if not claimed <= expected or not expected - got <= undecided:
                problems.append(f"finding {kind}: tool reports {sorted(got)}, brute force {sorted(expected)}")
    return problems


def _outside_exception(f: Any) -> bool:
    """A may_raise finding about code outside the analysed source (`Node()` of a class of
    the file, a module function): a claim that it may raise, which no run can refute."""
    cx = f.counterexample or {}
    return f.kind == "may_raise" and str(cx.get("exception", "")).startswith("an exception from")


def check(ts: Typestate, brute: BruteTypestate, cls: type, param_domains: ParamDomains,
          *, exact: bool, source: str = "") -> None:
    """Fail with the class's source, both typestates and every difference."""
    problems = (differences(ts, brute, exact=exact) + witness_problems(ts, cls, param_domains)
                + finding_problems(ts, brute, cls, param_domains, exact=exact))
    if problems:
        raise AssertionError("\n".join(
            ["tool and brute force disagree:"] + [f"- {p}" for p in problems]
            + (["", "source:", source] if source else []) + ["", describe_tool(ts), "", brute.describe()]))
