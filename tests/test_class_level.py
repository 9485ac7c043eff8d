"""A field read before the constructor sets it reads the class-level value, as Python does
(`_fd = -1` in the class body, `if self._fd >= 0:` in __init__): _pyio.FileIO's
constructor was found unable to make any object (AttributeError on every path, 0 states),
since `-1` is a unary minus in the syntax tree, not a literal."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

from contractor.api import InferOptions, infer

Z3 = InferOptions(backend="z3", budget=30)

FD = textwrap.dedent('''\
    class Fd:
        _fd = -1
        _span = (0, -2)
        _owner = None

        def __init__(self, fd: int) -> None:
            if self._fd >= 0 or self._owner is not None:
                raise ValueError("already open")
            if self._span[1] != -2:
                raise ValueError("spanned")
            self._fd = fd
            self._owner = "me"

        def close(self) -> None:
            if self._fd < 0:
                raise ValueError("closed")
            self._fd = -1
    ''')

OPAQUE = textwrap.dedent('''\
    class Buf:
        _parts = []

        def __init__(self) -> None:
            if self._parts is None:
                raise ValueError("no parts")
            self.n = 0

        def bump(self) -> None:
            if self.n > 0:
                raise ValueError("bumped")
            self.n = 1
            self._parts = None
    ''')


def _load(path: Path, name: str) -> type:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_literal_class_defaults_are_read_before_the_constructor_sets_them(tmp_path):
    path = tmp_path / "fd.py"
    path.write_text(FD)
    ts = infer(f"{path}:Fd", Z3)
    assert not [f for f in ts.findings if f.kind in ("unsatisfiable_constructor", "may_raise")]
    assert ts.states and all(t.certainty == "must" for t in ts.transitions)
    # as concrete execution has it: a new object with fd >= 0 is open, one with fd < 0 is closed
    fd = _load(path, "Fd")
    fd(3).close()
    try:
        fd(-5).close()
        raise AssertionError("close() on a closed Fd returned")
    except ValueError:
        pass
    opened = {s.enabled for s in ts.states if s.initial}
    assert opened == {("close",), ()}


def test_an_untranslated_class_default_is_an_unknown_not_an_attribute_error(tmp_path):
    path = tmp_path / "buf.py"
    path.write_text(OPAQUE)
    ts = infer(f"{path}:Buf", Z3)
    _load(path, "Buf")().bump()  # the constructor makes an object, as Python does
    assert ts.states and not [f for f in ts.findings if f.kind == "unsatisfiable_constructor"]
    assert any("class-level value of `self._parts`" in u.construct for u in ts.unknowns)
