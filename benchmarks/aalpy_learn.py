"""AALpy's side of bench_aalpy.py: learn a class's protocol by active automata learning.

Runs in the benchmark's own environment (benchmarks/.venv-aalpy, made by
`bench_aalpy.py --setup`), never imports contractor. The system under learning is the
class itself, run concretely: an input letter is a constructor or method with concrete
argument values (ints from INT_VALUES, both bools, every member of an Enum), a word is
accepted iff every call in it meets its precondition (the `pre:` lines of the method's
docstring, evaluated on the live object) and the first letter, and only the first, is a
constructor. AALpy's L* (or KV) learns the DFA of accepted words, with its query cache
(memoisation) on; the equivalence oracle is AALpy's W-method, complete for systems with up to --extra
states more than the hypothesis, then its random W-method (random walks from every
state's access word, each ending with a characterising suffix; --walks per state,
--walk-len letters), seeded.

    benchmarks/.venv-aalpy/bin/python benchmarks/aalpy_learn.py FILE CLASS [--algorithm kv]

Prints one JSON object: learning seconds (AALpy's learning call alone), call_seconds and
call_cpu (the whole `learn`: loading the class's module, its alphabet, learning; wall and
CPU time), queries and steps, and the learned DFA's accepting part (states, initial,
transitions as [source, method, args, target]).
"""

from __future__ import annotations

import argparse
import enum
import importlib.util
import inspect
import itertools
import json
import random
import re
import sys
import time
from typing import Any

from aalpy.base import SUL, Oracle
from aalpy.learning_algs import run_KV, run_Lstar
from aalpy.oracles import RandomWMethodEqOracle, WMethodEqOracle

INT_VALUES = (0, 1, 3)
CONSTRUCTOR = "__init__"
PRE = re.compile(r"^\s*pre:\s*(.+)$", re.MULTILINE)


def _domain(annotation: Any, module: Any) -> tuple[Any, ...]:
    if isinstance(annotation, str):
        annotation = eval(annotation, vars(module))  # noqa: S307 - the benchmark's own inputs
    if annotation is bool:
        return (False, True)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return tuple(annotation)
    return INT_VALUES


def _letters(name: str, function: Any, module: Any) -> list[tuple[str, tuple[Any, ...]]]:
    params = list(inspect.signature(function).parameters.values())[1:]
    domains = [_domain(p.annotation, module) for p in params]
    return [(name, values) for values in itertools.product(*domains)]


class ClassSUL(SUL):
    """The class under learning: each query builds a fresh object and calls the word on it."""

    def __init__(self, cls: type, module: Any) -> None:
        super().__init__()
        self.cls, self.module = cls, module
        self.pre_of: dict[str, list[str]] = {}
        self.params: dict[str, list[str]] = {}
        for name, function in self.methods().items():
            self.pre_of[name] = PRE.findall(inspect.getdoc(function) or "")
            self.params[name] = list(inspect.signature(function).parameters)[1:]
        self.obj: Any = None
        self.dead = False
        self.started = False

    def methods(self) -> dict[str, Any]:
        found = {CONSTRUCTOR: self.cls.__init__}
        for name, value in vars(self.cls).items():
            if callable(value) and not name.startswith("_"):
                found[name] = value
        return found

    def alphabet(self) -> list[tuple[str, tuple[Any, ...]]]:
        return [letter for name, f in self.methods().items() for letter in _letters(name, f, self.module)]

    def pre(self) -> None:
        self.obj, self.dead, self.started = None, False, False

    def post(self) -> None:
        self.obj = None

    def _enabled(self, name: str, args: tuple[Any, ...]) -> bool:
        scope = dict(vars(self.module))
        scope.update(zip(self.params[name], args))
        if self.obj is not None:
            scope["self"] = self.obj
        return all(eval(pre, scope) for pre in self.pre_of[name])  # noqa: S307

    def step(self, letter: tuple[str, tuple[Any, ...]] | None) -> bool:
        if letter is None:
            return True  # the empty word: nothing called yet
        if self.dead:
            return False
        name, args = letter
        if (name == CONSTRUCTOR) == self.started or not self._enabled(name, args):
            self.dead = True
            return False
        if name == CONSTRUCTOR:
            self.obj, self.started = self.cls(*args), True
        else:
            getattr(self.obj, name)(*args)
        return True


class WThenRandomOracle(Oracle):
    """The W-method for up to `extra` states more than the hypothesis (exhaustive), then
    seeded random W-method walks (longer sequences, e.g. counters past the bound)."""

    def __init__(self, alphabet: list, sul: SUL, extra: int, walks: int, walk_len: int) -> None:
        super().__init__(alphabet, sul)
        self.extra = extra
        self.exhaustive = WMethodEqOracle(alphabet, sul, max_number_of_states=1)
        self.walks = RandomWMethodEqOracle(alphabet, sul, walks_per_state=walks, walk_len=walk_len)

    def find_cex(self, hypothesis: Any) -> tuple | None:
        for oracle in (self.exhaustive, self.walks):
            oracle.sul = self.sul  # the learner wraps the SUL in its cache
        self.exhaustive.m = len(hypothesis.states) + self.extra
        cex = self.exhaustive.find_cex(hypothesis) or self.walks.find_cex(hypothesis)
        self.num_queries = self.exhaustive.num_queries + self.walks.num_queries
        self.num_steps = self.exhaustive.num_steps + self.walks.num_steps
        return cex


def learn(path: str, class_name: str, algorithm: str, extra: int, walks: int, walk_len: int) -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location("aalpy_subject", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["aalpy_subject"] = module
    spec.loader.exec_module(module)
    sul = ClassSUL(getattr(module, class_name), module)
    alphabet = sul.alphabet()
    random.seed(0)
    oracle = WThenRandomOracle(alphabet, sul, extra, walks, walk_len)
    began = time.perf_counter()
    run = run_KV if algorithm == "kv" else run_Lstar
    model = run(alphabet, sul, oracle, automaton_type="dfa", cache_and_non_det_check=True, print_level=0)
    seconds = time.perf_counter() - began
    live = [s for s in model.states if s.is_accepting]
    transitions = [[s.state_id, letter[0], repr(letter[1]), t.state_id]
                   for s in live for letter, t in s.transitions.items() if t.is_accepting]
    return {"seconds": seconds, "queries": sul.num_queries, "steps": sul.num_steps,
            "states": [s.state_id for s in live], "initial": model.initial_state.state_id,
            "transitions": transitions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("cls")
    parser.add_argument("--algorithm", choices=["lstar", "kv"], default="lstar")
    parser.add_argument("--extra", type=int, default=1, help="W-method: states beyond the hypothesis")
    parser.add_argument("--walks", type=int, default=100, help="random walks per state of each hypothesis")
    parser.add_argument("--walk-len", type=int, default=20, help="letters per random walk")
    args = parser.parse_args()
    wall, cpu = time.perf_counter(), time.process_time()
    result = learn(args.file, args.cls, args.algorithm, args.extra, args.walks, args.walk_len)
    # the whole call, as contractor_inprocess.py times contractor's: load the class, learn
    result["call_seconds"], result["call_cpu"] = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps(result))


if __name__ == "__main__":
    main()
