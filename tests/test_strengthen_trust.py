"""`contractor strengthen` can be trusted: the options of `contractor infer`, a warning listing
the may-transitions it keeps, a refusal naming the state where it would need an invariant
it cannot evaluate (never code that fails), the user's lines kept byte for byte, and
strengthened list, str, dict and set classes run against random call sequences."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_runs import contractor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from test_strengthen import load_module, run_sequence

from contractor import api
from contractor.strengthen import strengthen

REPO = Path(__file__).resolve().parent.parent

ODD = '''\
"""A module whose author does not use black."""
import os ,sys   # odd spacing, kept
LIMITS = {'low':0,
          'high' : 3}


class Gauge:
    """inv: 0 <= self.level <= 3"""

    def __init__(self) -> None:
        self.level = 0

    def up(self) -> None:
        """pre: self.level < 3"""
        self.level = self.level+1   # no spaces around +, kept

    def reset(self) -> None:
        """pre: self.level > 0"""
        self.level = 0


def helper( x ):
    return [x,x]
'''

SEEN = '''\
class Seen:
    """A set of at most two numbers (CrossHair answers what z3 cannot about sets).

    inv: len(self.items) <= 2
    """

    def __init__(self) -> None:
        self.items: set[int] = set()

    def add_one(self) -> None:
        """pre: len(self.items) < 2"""
        self.items.add(len(self.items) + 10)

    def remove(self, k: int) -> None:
        """pre: len(self.items) > 0"""
        self.items.discard(k)

    def reset(self) -> None:
        """pre: len(self.items) > 0"""
        self.items = set()
'''

LINE = '''\
class Line:
    """inv: len(self.text) <= 3"""

    def __init__(self) -> None:
        self.text = ""

    def type_a(self) -> None:
        """pre: len(self.text) < 3"""
        self.text += "a"

    def backspace(self, n: int) -> None:
        """pre: len(self.text) > 0"""
        self.text = self.text[:-1] if n > 0 else self.text
'''

REGISTRY = '''\
class Registry:
    """inv: len(self.entries) <= 2"""

    def __init__(self) -> None:
        self.entries: dict[int, int] = {}

    def put(self) -> None:
        """pre: len(self.entries) < 2"""
        self.entries[len(self.entries)] = 0

    def drop(self, k: int) -> None:
        """pre: len(self.entries) > 0"""
        self.entries.pop(k, None)
'''
INLINE = {"seen": ("Seen", SEEN), "line": ("Line", LINE), "registry": ("Registry", REGISTRY)}


def _strengthen(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return contractor(cwd, "strengthen", *args)  # the command line, in this process (cli_runs.py)


def test_every_line_of_the_users_module_is_kept_byte_for_byte(tmp_path):
    (tmp_path / "gauge.py").write_text(ODD)
    run = _strengthen(tmp_path, "gauge.py:Gauge", "--backend", "z3", "--out", "out")
    assert run.returncode == 0, run.stderr
    written = (tmp_path / "out" / "gauge_strengthened.py").read_text().splitlines()
    # The original's lines are a subsequence of the output's, but for the one-line method
    # docstrings that gain the state contracts.
    kept = [line for line in ODD.splitlines() if '"""pre:' not in line]
    rest = iter(written)
    missing = [line for line in kept if not any(line == w for w in rest)]
    assert missing == []
    assert "import os ,sys   # odd spacing, kept" in written


def test_the_same_options_as_infer_and_auto_by_default(tmp_path):
    door = str(REPO / "samples" / "door.py") + ":Door"
    run = _strengthen(tmp_path, door, "--out", "a", "--timeout", "5", "--unroll", "2", "--budget", "30",
                      "--no-cache")
    assert run.returncode == 0, run.stderr
    header = (tmp_path / "a" / "door_strengthened.py").read_text()
    assert "6 states, 15 transitions" in header
    (tmp_path / "pyproject.toml").write_text('[tool.contractor]\nbackend = "nonsense"\n')
    bad = _strengthen(tmp_path, door, "--out", "b")
    assert bad.returncode == 2 and "backend must be one of z3, crosshair, auto" in bad.stderr


def test_a_warning_lists_the_may_transitions_kept(tmp_path):
    target = str(REPO / "samples" / "loop_past_bound.py") + ":Countdown"
    run = _strengthen(tmp_path, target, "--backend", "z3", "--out", "out")
    assert run.returncode == 0, run.stderr
    assert "warning:" in run.stderr and "may-transition" in run.stderr
    assert "--tick_all--> S1" in run.stderr or "--tick_all-->" in run.stderr


UNREDUCED = '''\
class Finder:
    """inv: 0 <= self.n <= 3"""

    def __init__(self) -> None:
        self.n = 0

    def add(self) -> None:
        """pre: self.n < 3"""
        self.n += 1

    def pick(self, x: int) -> int:
        """pre: x % 3 == 2 and 0 <= x < self.n"""
        return x
'''


def test_a_state_without_an_executable_invariant_is_refused_by_name(tmp_path):
    """pick() is enabled when some x below n leaves 2 modulo 3: no exact expression over the
    fields was found for that (`x % 3` is no bound on x), and add() can lead to a state
    enabling pick() or not, so strengthening refuses, naming the state, and writes nothing
    (it used to write a module raising NameError 'enabled')."""
    (tmp_path / "finder.py").write_text(UNREDUCED)
    run = _strengthen(tmp_path, "finder.py:Finder", "--backend", "z3", "--out", "out")
    assert run.returncode == 2, run.stderr
    assert "cannot strengthen" in run.stderr and "state S1" in run.stderr and "(no x:" in run.stderr
    assert not (tmp_path / "out").exists()


def _random_sequences(model, ts, source: Path, tmp_path: Path, dialect: str = "pep316") -> None:
    original = load_module(source)
    out = tmp_path / f"{model.name.lower()}_strengthened.py"
    out.write_text(strengthen(model, ts, dialect))
    strengthened = load_module(out)

    @settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.data())
    def check(data):
        run_sequence(data, model, ts, original, strengthened, dialect)

    check()


@pytest.mark.parametrize("target", [
    "crosshair/listitr.py:ListItr", "crosshair/stack.py:BoundedStack", "seen", "line", "registry",
    pytest.param("crosshair/textfile.py:TextFile", marks=pytest.mark.slow),  # CrossHair, no cache
    pytest.param("crosshair/pool.py:ConnectionPool", marks=pytest.mark.slow),
    "text_buffer.py:TextBuffer", "player.py:Mp3Player",
])
def test_strengthened_list_str_dict_and_set_classes_run_random_call_sequences(tmp_path, target):
    """Each has a call leading to several states, so the generated class evaluates state
    invariants (z3's, or read off the preconditions where CrossHair answered, with the
    parameters of the methods eliminated: `some sid: sid in self.sessions` is
    `len(self.sessions) > 0`). Random call sequences: the strengthened class behaves as the
    original and fails exactly at the first call its typestate does not enable."""
    if target in INLINE:
        name, text = INLINE[target]
        (tmp_path / f"{target}.py").write_text(text)
        target = str(tmp_path / f"{target}.py") + f":{name}"
    else:
        target = str(REPO / "samples" / target)
    options = api.InferOptions(backend="auto", crosshair_options={"cache": False})
    model = api.load_model(target, options)
    ts = api.infer_model(model, options)
    assert ts.complete and ts.states
    assert any(len({t.target for t in ts.transitions if (t.source, t.method) == (u.source, u.method)}) > 1
               for u in ts.transitions)
    _random_sequences(model, ts, Path(target.rpartition(":")[0]), tmp_path)
