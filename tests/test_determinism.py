"""The same class gives the same typestate, witnesses included, whatever Python's string
hashing: PYTHONHASHSEED changed the order of a set of parameter groups (miniscope.py),
so z3 got the same formula in another order and chose other models as witnesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _typestate(seed: int, tmp_path: Path) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    out = subprocess.run([sys.executable, "-m", "contractor", "infer", str(ROOT / "samples" / "router.py:Router"),
                          "--backend", "z3", "--format", "json", "-q", "--out", str(tmp_path / str(seed))],
                         env=env, capture_output=True, text=True, check=True).stdout
    ts = json.loads(out)["typestates"][0]
    ts.pop("stats", None)
    return ts


def test_witnesses_do_not_depend_on_string_hashing(tmp_path: Path) -> None:
    first = _typestate(0, tmp_path)
    assert any(t.get("witness") for t in first["transitions"])
    for seed in (2, 3):
        assert _typestate(seed, tmp_path) == first, f"PYTHONHASHSEED={seed} changed the typestate"


# `fill` is handed a list built here that is one of two (`first` or `second`): what either
# holds may change (reach.py, _held_by), and a fresh truth is made for each item, in the
# order the lists are visited. That order was a set's of the lists' names (string hashing):
# PYTHONHASHSEED=2 named the truths the other way round from 0.
HELD = '''def fill(parts):
    for p in parts:
        if isinstance(p, list):
            p.append(1)


class C:
    def __init__(self, a, b) -> None:
        self.a = a
        self.b = b

    def go(self, flag: bool) -> None:
        first = [self.a]
        second = [self.b]
        fill(first if flag else second)

    def use(self) -> None:
        if not self.a:
            raise ValueError("empty")
'''

SHOW = '''import sys
from contractor.api import InferOptions, load_model
from contractor.z3backend.backend import Z3Backend
o = Z3Backend(load_model(sys.argv[1], InferOptions(backend="z3"))).outcome("go")
print(*(f"{k}: {v.z.sexpr() if v.z is not None else None}" for k, v in o.after.items()), sep="\\n")
'''


def test_terms_do_not_depend_on_string_hashing(tmp_path: Path) -> None:
    (tmp_path / "held.py").write_text(HELD)
    (tmp_path / "show.py").write_text(SHOW)

    def terms(seed: int) -> str:
        env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT)}
        return subprocess.run([sys.executable, str(tmp_path / "show.py"), f"{tmp_path / 'held.py'}:C"],
                               env=env, capture_output=True, text=True, check=True).stdout

    first = terms(0)
    assert "truth" in first  # the items' truths are in the fields after `go`
    assert terms(2) == first
