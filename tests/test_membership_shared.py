"""Sets built by unrolled loops share their parts: membership's rewriting of `len(s)` and
`s[i]` walks each shared sequence once per rewriting (a memo), not once per path through
the DAG. `set(mode) <= set("xrwab+")` over an untyped mode (as _pyio.FileIO's constructor
has it) made 755 K length walks of 60 sequences: 34 s under --budget 10, the typestate
partial; with the memo about 2 s, complete. The test counts the walks (a unit test does not
time anything: speed is measured in benchmarks/)."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

from contractor.api import InferOptions, infer
from contractor.z3backend import membership

MODES = textwrap.dedent('''\
    class Modes:
        def __init__(self, mode="r"):
            if not isinstance(mode, str):
                raise TypeError("invalid mode")
            if not set(mode) <= set("xrwab+"):
                raise ValueError("invalid mode")
            self.readable = "r" in mode

        def read(self):
            if not self.readable:
                raise ValueError("not readable")
            return 1
    ''')


def test_sets_of_unrolled_loops_are_walked_once_per_shared_part(tmp_path, monkeypatch):
    path = tmp_path / "modes.py"
    path.write_text(MODES)
    calls = {"length": 0, "item": 0}

    def counted(name):
        walk = getattr(membership, name)

        def count(*args, **kwargs):
            calls[name] += 1
            return walk(*args, **kwargs)
        return count

    for name in calls:  # the module's own recursive calls go through these names too
        monkeypatch.setattr(membership, name, counted(name))
    ts = infer(f"{path}:Modes", InferOptions(backend="z3", budget=20))
    # without the memo: 755 K length walks of 60 sequences, 157 K item walks of 712 pairs
    assert 0 < calls["length"] < 10_000 and calls["item"] < 10_000, calls
    assert ts.complete
    spec = importlib.util.spec_from_file_location("modes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.Modes("r").read() == 1
    with pytest.raises(ValueError):
        module.Modes("w").read()
    # both kinds of new object, read enabled and disabled, as concrete execution has them
    assert {s.enabled for s in ts.states if s.initial} == {("read",), ()}
