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
