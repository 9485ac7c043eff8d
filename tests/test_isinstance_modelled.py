"""`isinstance(x, C)` of a value z3 models (str, int, float, bool: a parameter typed by its
default, `mode="r"`) is True where C is a superclass of every class the value may have
at run time (a float-typed value may be an int: `v: float` takes 0). It was an untyped
answer, and _pyio.FileIO-style code (`if not isinstance(mode, str): raise TypeError`) got a may_raise finding whose
counterexample (`mode=''`) does not raise."""

from __future__ import annotations

import importlib.util
import textwrap

from contractor.api import InferOptions, infer

SOURCE = textwrap.dedent('''\
    class G:
        def __init__(self, mode="r", size=0):
            if not isinstance(mode, str) or not isinstance(size, (int, float)):
                raise TypeError("invalid mode")
            self.size = size

        def grow(self):
            if self.size > 3:
                raise ValueError("too big")
            self.size += 1
    ''')


def test_a_modelled_value_is_an_instance_of_its_class(tmp_path):
    path = tmp_path / "g.py"
    path.write_text(SOURCE)
    ts = infer(f"{path}:G", InferOptions(backend="z3"))
    assert not [f for f in ts.findings if f.kind == "may_raise"]
    assert all(t.certainty == "must" for t in [*ts.transitions, *ts.initializations])
    spec = importlib.util.spec_from_file_location("g", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.G("", 0).grow()  # the old counterexample's arguments: no TypeError
    module.G("w", 2.5).grow()


FLOATS = textwrap.dedent('''\
    class P:
        def __init__(self, v: float = 0.0):
            if isinstance(v, float):
                raise ValueError("floats are not wanted")
            self.v = v

        def get(self):
            return self.v
    ''')


def test_a_float_typed_value_may_be_an_int(tmp_path):
    # `v: float` accepts an int (the numeric tower), and P(0) makes an object: isinstance(v,
    # float) is not decided True (it was: no object could be made, an unsatisfiable_constructor)
    path = tmp_path / "p.py"
    path.write_text(FLOATS)
    spec = importlib.util.spec_from_file_location("p", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.P(0).get() == 0
    ts = infer(f"{path}:P", InferOptions(backend="z3"))
    assert not [f for f in ts.findings if f.kind == "unsatisfiable_constructor"]
    assert [s.enabled for s in ts.states] == [("get",)]
