"""The AALpy benchmark's inputs and its model comparison, against concrete execution.

Each class ported from Contractor.NET's examples is run concretely (breadth-first over
call sequences with small argument values, preconditions evaluated on live objects, as
the AALpy membership oracle does): every edge between enabled-method sets that concrete
objects take must be in contractor's typestate (soundness), and the comparison used by
bench_aalpy.py must find a language difference exactly when there is one.
"""

from __future__ import annotations

import copy
import enum
import importlib.util
import inspect
import itertools
import json
import re
import sys
from pathlib import Path

import pytest

from contractor import api
from contractor.outputs.json_out import to_json

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from automata_compare import INIT, LTS, epa_edges, from_typestate, language_difference  # noqa: E402
from bench_aalpy import CLASSES  # noqa: E402

PRE = re.compile(r"^\s*pre:\s*(.+)$", re.MULTILINE)


def _concrete_lts(path: str, name: str, depth: int) -> LTS:
    spec = importlib.util.spec_from_file_location(f"cn_{name}", ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cls = getattr(module, name)

    def letters(function):
        params = list(inspect.signature(function).parameters.values())[1:]
        domains = [tuple(p.annotation) if isinstance(p.annotation, type) and issubclass(p.annotation, enum.Enum)
                   else (False, True) if p.annotation in (bool, "bool") else (0, 1, 3) for p in params]
        names = [p.name for p in params]
        return [dict(zip(names, values)) for values in itertools.product(*domains)]

    def enabled(function, obj, args) -> bool:
        scope = dict(vars(module), **args)
        if obj is not None:
            scope["self"] = obj
        return all(eval(pre, scope) for pre in PRE.findall(inspect.getdoc(function) or ""))  # noqa: S307

    methods = {n: f for n, f in vars(cls).items() if callable(f) and not n.startswith("_")}
    lts = LTS("new")
    frontier = []
    for args in letters(cls.__init__):
        if enabled(cls.__init__, None, args):
            obj = cls(**args)
            frontier.append(obj)
            lts.add("new", INIT, repr(vars(obj)))
    for _ in range(depth):
        nxt = []
        for obj in frontier:
            for name, function in methods.items():
                for args in letters(function):
                    if enabled(function, obj, args):
                        after = copy.deepcopy(obj)
                        getattr(after, name)(**args)
                        key = repr(vars(after))
                        if key not in lts.edges:
                            nxt.append(after)
                        lts.add(repr(vars(obj)), name, key)
        frontier = nxt
    return lts


@pytest.mark.parametrize(("path", "name"), CLASSES, ids=[c for _, c in CLASSES])
def test_concrete_behaviour_is_in_the_typestate(path: str, name: str) -> None:
    typestate = json.loads(to_json(api.infer(f"{ROOT / path}:{name}")))
    concrete = _concrete_lts(path, name, depth=5)
    ours = from_typestate(typestate)
    # states of the last layer have unexplored successors: compare only complete ones
    explored = {s for s, out in concrete.edges.items() if out}
    concrete_edges = {(concrete.enabled(s), m, concrete.enabled(t)) for s in explored
                      for m, ts in concrete.edges[s].items() for t in ts if t in explored}
    assert concrete_edges <= epa_edges(ours)


def test_language_difference_finds_a_missing_call() -> None:
    a, b = LTS("n"), LTS("n")
    for lts in (a, b):
        lts.add("n", INIT, "s")
        lts.add("s", "open", "t")
    a.add("t", "close", "s")
    assert language_difference(a, a) is None
    assert language_difference(a, b) == (INIT, "open", "close")
