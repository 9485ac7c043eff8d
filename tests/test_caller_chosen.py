"""What an untyped argument's own methods answer (`n < 1`, `x in ("a",)`, `round(x)`) is
the caller's choice, as the argument is: any answer is one some object gives. So those
answers are not "values outside code chose", and transitions through them are must, each
witnessed by a real object (checked here by running the class on scripted objects). A
value outside code made (a call's result) keeps its transitions may (wave's parameters:
542 of 868 transitions were may, 192 now)."""

from __future__ import annotations

import copy

from runtime_contracts import load_class

from contractor.api import InferOptions, infer

BOX = '''
class Box:
    def __init__(self) -> None:
        self.n = 0
        self.kind = "NONE"

    def put(self, n, kind):
        if n < 1:
            raise ValueError("too small")
        if kind not in ("NONE", "RAW"):
            raise ValueError("unknown kind")
        self.n = n
        self.kind = kind

    def put_pair(self, pair):
        n, kind = pair
        self.put(n, kind)

    def get(self):
        if not self.n:
            raise ValueError("empty")
        return self.n

    def load(self):
        v = fetch()
        if v < 1:
            raise ValueError("too small")
        self.n = v

    def grow(self):
        self.n = round(str(self.n + 1))  # round of a str: outside code's answer, not the caller's
'''


class Scripted:
    """An object whose comparisons say it is not below anything and whose truth is given."""

    def __init__(self, truth: bool):
        self.truth = truth

    def __lt__(self, other: object) -> bool:
        return False

    def __bool__(self) -> bool:
        return self.truth


def enabled(obj: object, methods: tuple[str, ...], args: dict[str, tuple]) -> tuple[str, ...]:
    out = []
    for m in methods:
        try:
            getattr(copy.copy(obj), m)(*args.get(m, ()))
        except ValueError:
            continue
        out.append(m)
    return tuple(sorted(out))


def test_answers_of_the_callers_objects_are_must_and_realised(tmp_path) -> None:
    path = tmp_path / "box.py"
    path.write_text(BOX)
    ts = infer(f"{path}:Box", InferOptions(backend="z3", jobs=1, methods=("put", "put_pair", "get")))
    puts = [t for t in ts.transitions if t.method in ("put", "put_pair")]
    assert puts and all(t.certainty == "must" for t in puts), [(t.method, t.reason) for t in puts]
    # each target of put from the new object is the state of a real object: a truthy
    # argument (get enabled) and a falsy one that is not below 1 (get disabled)
    by_id = {s.id: s.enabled for s in ts.states}
    initial = {i.target for i in ts.initializations}
    targets = {by_id[t.target] for t in puts if t.method == "put" and t.source in initial}
    cls = load_class(path, "Box")
    seen = set()
    for truth in (True, False):
        box = cls()
        box.put(Scripted(truth), "NONE")
        seen.add(enabled(box, ("get", "put", "put_pair"),
                         {"put": (Scripted(True), "NONE"), "put_pair": ((Scripted(True), "RAW"),)}))
    assert seen == targets


def test_a_value_outside_code_made_keeps_its_transitions_may(tmp_path) -> None:
    path = tmp_path / "box.py"
    path.write_text(BOX)
    ts = infer(f"{path}:Box", InferOptions(backend="z3", jobs=1, methods=("load", "get", "grow")))
    for method in ("load", "grow"):
        found = [t for t in ts.transitions if t.method == method]
        assert found and all(t.certainty == "may" for t in found), method
