"""Witnesses show every modelled value as plain JSON: a list of tuples held datatype values
that the list decoder could not print (an internal error, exit 70, on a class of the
python-by-contract corpus)."""

from __future__ import annotations

import json
from pathlib import Path

from contractor import api
from contractor.outputs import to_json

SOURCE = '''
class Ranges:
    """
    inv: len(self.ranges) <= 2
    """

    def __init__(self) -> None:
        self.ranges: list[tuple[int, int]] = []

    def add(self, lo: int, hi: int) -> None:
        """
        pre: len(self.ranges) < 2
        """
        self.ranges.append((lo, hi))

    def first(self) -> int:
        """
        pre: len(self.ranges) > 0
        """
        return self.ranges[0][0]
'''


def test_a_list_of_tuples_in_a_witness_is_a_list_of_lists(tmp_path: Path) -> None:
    path = tmp_path / "ranges.py"
    path.write_text(SOURCE)
    ts = api.infer(f"{path}:Ranges", api.InferOptions(backend="z3"))
    data = json.loads(to_json(ts))
    afters = [t["witness"]["after"]["ranges"] for t in data["transitions"] if t["method"] == "add"]
    assert afters and all(isinstance(r, list) for r in afters)
    for ranges in afters:
        assert ranges and all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, int) for x in p)
                              for p in ranges)
    # the witness is the object the real class reaches
    t = next(t for t in data["transitions"] if t["method"] == "add")
    before = t["witness"]["fields"]["ranges"]
    args = t["witness"]["args"]
    assert t["witness"]["after"]["ranges"] == before + [[args["lo"], args["hi"]]]


OUTSIDE = '''
class Relay:
    def __init__(self, sink, spare) -> None:
        self.sink = sink
        self.spare = spare
        self.sent = 0

    def send(self, data) -> None:
        if self.sink is None:
            raise ValueError("no sink")
        self.sink.write(data)
        if not self.sink:
            self.spare.write(data)
        self.sent += 1

    def swap(self) -> None:
        self.sink, self.spare = self.spare, self.sink
'''


def test_untyped_values_evaluated_at_once_are_those_evaluated_one_by_one(tmp_path: Path, monkeypatch) -> None:
    """witness.opaque_values evaluates every untyped value of a witness in one model
    evaluation (a sequence of them): each must be what its own evaluation gives, on the
    models of a real exploration (values handed to outside code: if-then-else over paths)."""
    import z3

    from contractor.z3backend import fastterms as F
    from contractor.z3backend import witness as W

    checked = []
    batch = W.opaque_values

    def compared(m, terms):  # type: ignore[no-untyped-def]
        known = batch(m, terms)
        for t in terms:
            if F.node_id(t) not in known:  # a kind with one value: evaluated alone
                assert len({F.node_id(x) for x in terms}) < 2
                continue
            one = m.eval(t, model_completion=True)
            assert known[F.node_id(t)].eq(one), (t, known[F.node_id(t)], one)
            checked.append(one)
        return known

    monkeypatch.setattr(W, "opaque_values", compared)
    path = tmp_path / "relay.py"
    path.write_text(OUTSIDE)
    ts = api.infer(f"{path}:Relay", api.InferOptions(backend="z3", jobs=1))
    assert ts.transitions
    assert len(checked) > 10 and len({c.sexpr() for c in checked}) > 2  # several objects and truths seen
    assert all(z3.is_app_of(c, z3.Z3_OP_DT_CONSTRUCTOR) for c in checked)  # untyped objects
