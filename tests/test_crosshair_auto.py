"""The CrossHair and auto backends against the z3 backend on the z3-subset samples: the
same typestate (states, initial states, transitions with their certainty), with each
transition attributed to the backend that decided it."""

from __future__ import annotations

from pathlib import Path

import pytest

from contractor.api import InferOptions, infer, load_model, make_backend
from contractor.explore import explore
from contractor.typestate import Typestate

ROOT = Path(__file__).resolve().parent.parent
Z3_SUBSET = ["door.py:Door", "turnstile.py:Turnstile", "int_queue.py:IntQueue", "stack.py:BoundedStack",
             "loop_counter.py:Countdown", "account.py:Account"]


def shape(ts: Typestate):
    enabled = {s.id: frozenset(s.enabled) for s in ts.states}
    return (
        {frozenset(s.enabled) for s in ts.states},
        {enabled[i.target] for i in ts.initializations},
        {(enabled[t.source], t.method, enabled[t.target], t.certainty) for t in ts.transitions},
    )


def run(target: str, backend: str, tmp_path) -> Typestate:
    options = InferOptions(backend=backend, timeout=5, crosshair_options={"cache_dir": str(tmp_path)})
    return infer(f"{ROOT}/samples/{target}", options)


# The quick loop: the door, the turnstile (raise guards: auto asks z3 alone) and the stack;
# CrossHair on a list field (int_queue.py) is also in test_crosshair_samples' test_listitr.
QUICK = ("door.py:Door", "turnstile.py:Turnstile", "stack.py:BoundedStack")


@pytest.mark.parametrize("target", [t if t in QUICK else pytest.param(t, marks=pytest.mark.slow)
                                    for t in Z3_SUBSET])
def test_crosshair_and_auto_agree_with_z3(target, tmp_path):
    z3 = run(target, "z3", tmp_path)
    crosshair = run(target, "crosshair", tmp_path)
    auto = run(target, "auto", tmp_path)
    assert shape(crosshair) == shape(z3)
    assert shape(auto) == shape(z3)
    assert {t.backend for t in crosshair.transitions} == {"crosshair"}
    assert set(crosshair.stats.queries_by_backend) == {"crosshair"}
    # raise guards (the turnstile has leading asserts only) are read by z3 alone
    assert set(auto.stats.queries_by_backend) == ({"z3"} if auto.preconditions == "implicit" else {"z3", "crosshair"})


def test_auto_never_imports_a_class_z3_translates_fully():
    model = load_model(f"{ROOT}/samples/door.py:Door")
    backend = make_backend(model, InferOptions(backend="auto", timeout=5))
    ts = explore(model, backend)
    assert backend._crosshair is None  # the user's module was never imported
    assert ts.stats.queries_by_backend["crosshair"] == 0
    assert {t.backend for t in ts.transitions} == {"z3"}


COUNTER = """
class Counter:
    \"\"\"
    inv: self.n >= 0
    \"\"\"

    def __init__(self) -> None:
        self.n = 0

    def bump(self) -> None:
        \"\"\"
        pre: self.n < 3
        \"\"\"
        self.n = int(str(self.n + 1))  # str(): beyond the z3 subset, fine for CrossHair

    def reset(self) -> None:
        \"\"\"
        pre: self.n > 0
        \"\"\"
        self.n = 0
"""


def test_auto_uses_crosshair_where_z3_is_not_exact(tmp_path):
    source = tmp_path / "counter.py"
    source.write_text(COUNTER)
    model = load_model(f"{source}:Counter")
    backend = make_backend(model, InferOptions(backend="auto", timeout=5,
                                                crosshair_options={"cache_dir": str(tmp_path / "cache")}))
    ts = explore(model, backend)
    for t in ts.transitions:  # z3 translates reset, but not bump
        assert t.backend == ("crosshair" if t.method == "bump" else "z3")
    assert ts.stats.queries_by_backend["crosshair"] > 0 and ts.stats.queries_by_backend["z3"] > 0
    assert all(t.certainty == "must" for t in ts.transitions)
    # bump from {bump} (n == 0) or {bump, reset} (n in 1..2) to {bump, reset} or {reset} (n == 3)
    enabled = {s.id: frozenset(s.enabled) for s in ts.states}
    got = {(enabled[t.source], t.method, enabled[t.target]) for t in ts.transitions}
    B, BR, R = frozenset({"bump"}), frozenset({"bump", "reset"}), frozenset({"reset"})
    assert got == {(B, "bump", BR), (BR, "bump", BR), (BR, "bump", R), (BR, "reset", B), (R, "reset", B)}
