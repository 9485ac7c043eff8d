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


def _sensitive_by_objects(terms: list) -> bool:
    """The walk through z3's Python objects that history_sensitive's C-API walk replaced."""
    import z3

    from contractor.z3backend.isolated import HISTORY_SENSITIVE

    seen, stack = set(), list(terms)
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if t.sort().kind() in HISTORY_SENSITIVE:
            return True
        if z3.is_quantifier(t):
            stack.append(t.body())
        elif z3.is_app(t):
            stack.extend(t.children())
    return False


def test_history_sensitive_matches_the_object_walk() -> None:
    """Sequences built inside an int formula (Unit, a literal), under a quantifier, in an
    array, and nowhere: the C-API walk answers as the object walk did, on hand-made terms
    and on every part of the samples' and Contractor.NET classes' method splits."""
    import z3

    from contractor import api
    from contractor.z3backend import Z3Backend

    x, y, b = z3.Int("x"), z3.Int("y"), z3.Bool("b")
    a = z3.Array("a", z3.IntSort(), z3.IntSort())
    i = z3.Int("i")
    cases = [[x > 0, b], [z3.Length(z3.Unit(x)) == 1], [z3.ForAll([i], z3.Length(z3.Unit(i)) > 0)],
             [z3.ForAll([i], i + x > y)], [a[x] == y], [z3.If(b, x, y) > 2, z3.Not(b)],
             [z3.StringVal("ab") == z3.StringVal("ab")]]
    checked = 0
    for target in ["samples/door.py:Door", "samples/int_queue.py:IntQueue", "samples/account.py:Account",
                   "samples/tag_set.py:TagSet", "samples/text_buffer.py:TextBuffer",
                   "benchmarks/contractor_net/file.py:File", "benchmarks/contractor_net/linked_list.py:LinkedList"]:
        model = api.load_model(str(ROOT / target.split(":")[0]) + ":" + target.split(":")[1])
        backend = Z3Backend(model)
        for action in sorted(model.actions):
            split = backend.reuse.split(action) if backend.reuse is not None else None
            for g, *_ in split.parts if split is not None else ():
                cases.append([*g.constraints, *(v.z for _, _, v in g.terms if isinstance(v.z, z3.ExprRef))])
                checked += 1
    assert checked > 10
    assert any(_sensitive_by_objects(c) for c in cases) and not all(_sensitive_by_objects(c) for c in cases)
    for terms in cases:
        assert history_sensitive(terms) == _sensitive_by_objects(terms), terms
