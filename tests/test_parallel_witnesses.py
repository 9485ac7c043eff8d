"""A parallel exploration of a class with list fields gives the sequential run's witnesses.

Each run is a fresh process, as `contractor infer` is: z3's models over sequences depend
on what the context saw before, and a worker sees other queries than one process, so
the list elements a witness shows used to differ (samples/int_queue.py did). Parts over
such sorts are solved in contexts of their own (z3backend/isolated.py) and a copied part
always from the same method's group (reuse.py): the whole typestate, witnesses included,
is now the sequential one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from contractor.z3backend.isolated import history_sensitive

ROOT = Path(__file__).resolve().parent.parent

SHELF = textwrap.dedent('''\
    class Shelf:
        """A shelf of at most three numbered boxes, and a lock.

        inv: len(self.boxes) <= 3
        """

        def __init__(self) -> None:
            self.boxes: list[int] = []
            self.locked = False

        def put(self, x: int) -> None:
            """pre: not self.locked and len(self.boxes) < 3 and x > 0"""
            self.boxes.append(x)

        def take(self) -> int:
            """pre: not self.locked and len(self.boxes) > 0"""
            return self.boxes.pop()

        def swap(self) -> None:
            """pre: len(self.boxes) >= 2 and self.boxes[0] != self.boxes[1]"""
            self.boxes[0], self.boxes[1] = self.boxes[1], self.boxes[0]

        def lock(self) -> None:
            """pre: not self.locked"""
            self.locked = True

        def unlock(self) -> None:
            """pre: self.locked"""
            self.locked = False
    ''')

RUN = textwrap.dedent('''\
    import json, sys
    from contractor.api import InferOptions, load_model, make_backend
    from contractor.explore import explore
    from contractor.parallel import ParallelBackend
    target, mode = sys.argv[1:3]
    options = InferOptions(backend="z3")
    model = load_model(target, options)
    backend = make_backend(model, options)
    if mode == "parallel":  # workers forced on, whatever the class's size
        backend = ParallelBackend(backend, jobs=2, min_pairs=0, min_pair_seconds=0)
    ts = explore(model, backend)
    pairs = backend.parallel_pairs if mode == "parallel" else 0
    if mode == "parallel":
        backend.close()
    print(json.dumps({"pairs": pairs, "transitions": [[t.source, t.method, t.target, t.certainty, t.witness]
                                                      for t in ts.transitions]}, default=str))
    ''')


def _run(target: str, mode: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", RUN, target, mode], env=env, check=True,
                          capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout)


@pytest.mark.slow  # four fresh processes, two of them forking workers
@pytest.mark.parametrize("which", ["int_queue", "shelf"])
def test_list_witnesses_are_the_sequential_ones(which: str, tmp_path: Path) -> None:
    if which == "shelf":
        (tmp_path / "shelf.py").write_text(SHELF)
        target = f"{tmp_path / 'shelf.py'}:Shelf"
    else:
        target = f"{ROOT / 'samples' / 'int_queue.py'}:IntQueue"
    sequential, parallel = _run(target, "sequential"), _run(target, "parallel")
    assert parallel["pairs"] > 0  # the workers answered pairs
    assert any(w and any(isinstance(v, list) and v for v in w["fields"].values())
               for *_, w in sequential["transitions"])  # witnesses with list elements
    assert parallel["transitions"] == sequential["transitions"]


def test_history_sensitive_sorts() -> None:
    import z3

    x, s = z3.Int("x"), z3.Const("s", z3.SeqSort(z3.IntSort()))
    assert not history_sensitive([x > 0, z3.Bool("b")])
    assert history_sensitive([z3.Length(s) > x])
    assert history_sensitive([z3.Length(z3.String("t")) == 2])
