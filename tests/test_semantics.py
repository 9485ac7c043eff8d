"""One small class per semantic rule of the z3 backend (tests/semantic_cases.py), each
compared with the brute force; the findings a case lists must be reported, and every
counterexample and witness must do what it claims when run.
"""

from __future__ import annotations

import sys
import textwrap
from typing import Any

import pytest
from bruteforce import brute_force_typestate
from guard_cases import GUARD_CASES
from runtime_contracts import load_class
from semantic_cases import CASES, Case
from semantic_collection_cases import COLLECTION_CASES
from semantic_inheritance_cases import INHERITANCE_CASES
from semantic_outside_cases import OUTSIDE_CASES
from typestate_check import check

from contractor.api import InferOptions, infer
from contractor.model import PreconditionMode


def _resolve(domains: dict[str, list[Any]], cls: type) -> dict[str, list[Any]]:
    """Enum members are named "Enum.MEMBER" in the table and looked up in the imported module."""
    namespace = vars(sys.modules[cls.__module__])

    def value(v: Any) -> Any:
        if isinstance(v, str) and "." in v:
            kind, member = v.split(".")
            return namespace[kind][member]
        return v

    return {name: [value(v) for v in values] for name, values in domains.items()}


@pytest.mark.parametrize("case", [
    pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.slow else [])
    for c in CASES + GUARD_CASES + INHERITANCE_CASES + OUTSIDE_CASES + COLLECTION_CASES])
def test_semantic_rule(case: Case, tmp_path) -> None:
    source = textwrap.dedent(case.source).lstrip()
    path = tmp_path / f"{case.name}.py"
    path.write_text(source)
    mode = PreconditionMode(case.preconditions) if case.preconditions else None
    typestate = infer(f"{path}:C", InferOptions(backend="z3", unroll=case.unroll, preconditions=mode))
    if case.preconditions:
        assert typestate.preconditions == case.preconditions
    cls = load_class(path, "C")
    brute = brute_force_typestate(cls, _resolve(case.domains, cls), case.params,
                                  preconditions=typestate.preconditions)
    check(typestate, brute, cls, case.params, exact=case.exact, source=source)
    reported = {(f.kind, f.method) for f in typestate.findings}
    missing = [f for f in case.findings if f not in reported]
    assert not missing, f"findings {missing} not reported; got {sorted(reported, key=str)}\n{source}"
    for f in typestate.findings:  # check() replayed them; here: they must be there
        if (f.kind, f.method) in case.findings and f.kind in ("breaks_invariant", "may_raise"):
            assert f.counterexample and "fields" in f.counterexample, f
    if case.unknown:
        assert any(case.unknown in u.construct for u in typestate.unknowns), typestate.unknowns
        assert any(t.certainty == "may" for t in typestate.transitions)
