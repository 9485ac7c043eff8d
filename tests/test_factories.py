"""Classmethod factories are constructors: their objects' states are initial states,
as running the real factory shows."""

import importlib.util
import sys

from contractor.api import InferOptions, infer

CONN = '''
class Conn:
    """inv: self.retries >= 0"""

    def __init__(self, retries: int) -> None:
        """pre: retries >= 0"""
        self.open = False
        self.retries = retries

    @classmethod
    def opened(cls) -> "Conn":
        c = cls(3)
        c.open = True
        return c

    def connect(self) -> None:
        """pre: not self.open and self.retries > 0"""
        self.open = True
        self.retries -= 1

    def close(self) -> None:
        """pre: self.open"""
        self.open = False
'''


def enabled(c) -> tuple[str, ...]:
    return tuple(sorted(m for m, on in (("close", c.open), ("connect", not c.open and c.retries > 0)) if on))


def test_factory_initial_state_matches_running_it(tmp_path):
    path = tmp_path / "conn.py"
    path.write_text(CONN)
    ts = infer(f"{path}:Conn", InferOptions(backend="z3"))
    assert ts.constructors == ("__init__", "opened")
    spec = importlib.util.spec_from_file_location("conn_factory", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["conn_factory"] = module
    spec.loader.exec_module(module)
    by_ctor = {}
    for i in ts.initializations:
        by_ctor.setdefault(i.constructor, set()).add(ts.state(i.target).enabled)
    assert by_ctor["opened"] == {enabled(module.Conn.opened())}
    assert by_ctor["__init__"] == {enabled(module.Conn(r)) for r in range(3)}
    assert all(i.certainty == "must" for i in ts.initializations)
    assert not ts.unknowns
