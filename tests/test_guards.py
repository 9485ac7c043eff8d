"""Implicit preconditions (raise guards) through the public interface: the default
mode, `--preconditions`, the summary and JSON saying which applied, and the guards
sample checked in full (states, transitions, findings) against concrete execution."""

from __future__ import annotations

import json
from pathlib import Path

from bruteforce import brute_force_typestate
from click.testing import CliRunner
from runtime_contracts import load_class
from typestate_check import check

from contractor.api import InferOptions, infer
from contractor.cli import main
from contractor.model import PreconditionMode
from contractor.outputs.summary import to_text

ROOT = Path(__file__).resolve().parent.parent
GUARDS = ROOT / "samples" / "guards.py"
DOOR = ROOT / "samples" / "door.py"


def test_guards_sample_equals_brute_force_with_findings() -> None:
    ts = infer(f"{GUARDS}:Channel", InferOptions(backend="z3"))
    assert ts.preconditions == "implicit"
    cls = load_class(GUARDS, "Channel")
    domains = {"state": ["idle", "started", "sent"], "headers": [0, 1, 2, 3], "open": [False, True]}
    params = {"header": {"count": [-1, 0, 1, 2, 3, 4]}}
    brute = brute_force_typestate(cls, domains, params, preconditions="implicit")
    check(ts, brute, cls, params, exact=True)
    kinds = {(f.kind, f.method) for f in ts.findings}
    assert ("never_enabled", "reopen") in kinds
    assert ("may_raise", "receive") in kinds  # ZeroDivisionError: not a guard
    assert not any(f.kind == "may_raise" and f.method in ("start", "header", "send", "close") for f in ts.findings)


def _cli(*args: str, tmp: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["infer", *args, "--out", str(tmp), "--no-svg", "--no-html"])
    return result.exit_code, result.output


def test_summary_and_json_say_which_preconditions_applied(tmp_path: Path) -> None:
    code, out = _cli(f"{GUARDS}:Channel", tmp=tmp_path)
    assert code == 0, out
    assert "preconditions: implicit" in out
    assert json.loads((tmp_path / "typestate.json").read_text())["preconditions"] == "implicit"
    code, out = _cli(f"{DOOR}:Door", tmp=tmp_path)
    assert code == 0 and "preconditions: declared" in out


def test_flag_declared_turns_the_guards_off(tmp_path: Path) -> None:
    """Declared: only receive's leading assert is a precondition (two states, everything
    else always enabled); the explicit raises are may_raise findings again."""
    code, out = _cli(f"{GUARDS}:Channel", "--preconditions", "declared", "--backend", "z3", tmp=tmp_path)
    assert code == 0, out
    data = json.loads((tmp_path / "typestate.json").read_text())
    assert data["preconditions"] == "declared"
    rest = ["close", "header", "reopen", "send", "start"]
    assert sorted(s["enabled"] for s in data["states"]) == sorted([rest, sorted(rest + ["receive"])])
    assert any(f["kind"] == "may_raise" and f["method"] == "start" for f in data["findings"])


def test_flag_both_on_a_contract_class_keeps_the_door(tmp_path: Path) -> None:
    """The door's methods raise nothing: with both, the typestate is the declared one."""
    declared = infer(f"{DOOR}:Door", InferOptions(backend="z3"))
    both = infer(f"{DOOR}:Door", InferOptions(backend="z3", preconditions=PreconditionMode.BOTH))
    assert both.preconditions == "both"
    assert {s.enabled for s in both.states} == {s.enabled for s in declared.states}
    assert len(both.transitions) == len(declared.transitions) == 15


def test_crosshair_backend_refuses_raise_guards(tmp_path: Path) -> None:
    """Asked for explicitly; by default --backend crosshair reads the declared contracts."""
    code, out = _cli(f"{GUARDS}:Channel", "--backend", "crosshair", "--preconditions", "implicit", tmp=tmp_path)
    assert code == 2
    assert "guards.py" in out and "--preconditions declared" in out
    assert not (tmp_path / "typestate.json").exists()


UNTYPED = ROOT / "samples" / "untyped.py"
UNTYPED_DOMAINS = {"name": ["n"], "_Printer__state": [0, 1], "pages": [0, 1, 2, 3], "job": [None, "j"],
                   "log": [None, [], 0], "owner": [None, 1]}
UNTYPED_PARAMS = {"__init__": {"name": ["n"], "log": [None, [], 0]}, "start": {"job": ["j"]},
                  "refill": {"amount": [0, 1]}, "claim": {"who": [1]}}


def test_untyped_sample_is_read_not_refused() -> None:
    from contractor.api import load_model

    model = load_model(f"{UNTYPED}:Printer")
    types = {name: str(f.type) for name, f in model.fields.items()}
    assert types == {"name": "opaque", "__state": "int", "pages": "int", "job": "Optional[str]",
                     "log": "opaque", "owner": "Optional[int]"}
    assert str(model.method("refill").params[0].type) == "opaque"


def test_untyped_sample_equals_brute_force() -> None:
    """Every state and transition of the unannotated printer, against the real class run on
    a copy of every object of the domain (the raise guards decide enabledness)."""
    ts = infer(f"{UNTYPED}:Printer", InferOptions(backend="z3"))
    cls = load_class(UNTYPED, "Printer")
    brute = brute_force_typestate(cls, UNTYPED_DOMAINS, UNTYPED_PARAMS, preconditions="implicit")
    check(ts, brute, cls, UNTYPED_PARAMS, exact=True)
    # the opaque call (self.log.append) leaves the printer's own fields alone: feed's only
    # may-transitions are those through it, and none of them changes the state field
    assert {t.method for t in ts.transitions if t.certainty == "may"} == {"feed"}


READER = (  # one raise guard, on a field and an argument
    "class Reader:\n"
    "    def __init__(self) -> None:\n"
    "        self.open = False\n\n"
    "    def start(self) -> None:\n"
    "        self.open = True\n\n"
    "    def read(self, n: int) -> None:\n"
    "        if not self.open or n < 0:\n"
    "            raise ValueError('closed')\n")


def test_reading_a_raise_guard_stops_at_the_budget(tmp_path, monkeypatch):
    """Once the run's budget is spent, a raise guard's arguments are not eliminated (z3's
    quantifier elimination was given its full 2 s per guard whatever the budget: tarfile's
    TarFile took 26 s under --budget 10): the method's enabledness is an unknown, its
    answers may."""
    import time

    from contractor.z3backend import semantics

    path = tmp_path / "reader.py"
    path.write_text(READER)
    translate = semantics.ClassSemantics.run_once

    def late(self: semantics.ClassSemantics, method, guards: bool):
        out = translate(self, method, guards)
        if guards and method.name == "read":
            # the budget's share for reading guards ran out while translating
            self.guards_deadline = time.monotonic() - 1
        return out

    monkeypatch.setattr(semantics.ClassSemantics, "run_once", late)
    typestate = infer(f"{path}:Reader", InferOptions(backend="z3"))
    assert any("budget ran out before its raise guard was read" in u.construct for u in typestate.unknowns)
    summary = to_text(typestate)  # one sentence, not "...was read: (--budget)"
    assert "the time budget ran out before its raise guard was read (--budget)\n" in summary, summary
    # its enabledness is undecided where it may be enabled (`read?`), not guessed
    assert all("read" in st.undecided for st in typestate.states if "read" in st.enabled)
    monkeypatch.setattr(semantics.ClassSemantics, "run_once", translate)
    exact = infer(f"{path}:Reader", InferOptions(backend="z3"))
    assert not exact.unknowns and all(t.certainty == "must" for t in exact.transitions)


def test_hasattr_on_self_is_read_from_the_class(tmp_path: Path) -> None:
    """`hasattr(self, "...")` guards are exact where the class's source decides them
    (the semantic case `hasattr_on_self` checks the typestate against the brute force);
    a field, `__getattr__`, `setattr(self, ...)` or an unreadable base leave it undecided."""
    from guard_cases import GUARD_CASES

    from contractor.api import load_model
    from contractor.z3backend.selfattrs import static_hasattr

    (case,) = [c for c in GUARD_CASES if c.name == "hasattr_on_self"]
    (tmp_path / "ha.py").write_text(case.source)
    ts = infer(f"{tmp_path / 'ha.py'}:C", InferOptions(backend="z3"))
    assert not ts.unknowns and {t.certainty for t in ts.transitions} == {"must"}
    model = load_model(f"{tmp_path / 'ha.py'}:C")
    assert [static_hasattr(model, n) for n in ("peek", "LIMIT", "__class__", "rewind", "n")] == \
        [True, True, True, False, None]
    for extra in ("    def __getattr__(self, name):\n        return 0\n",
                  "    def set(self, k):\n        setattr(self, k, 1)\n",
                  "    @property\n    def rewind(self):\n        raise AttributeError\n"):
        (tmp_path / "dyn.py").write_text(case.source + "\n" + extra)
        assert static_hasattr(load_model(f"{tmp_path / 'dyn.py'}:C"), "rewind") is None
    (tmp_path / "sub.py").write_text("import socket\n\n\nclass C(socket.socket):\n"
                                     "    def go(self) -> None:\n        if not hasattr(self, 'x'):\n"
                                     "            raise ValueError\n")
    assert static_hasattr(load_model(f"{tmp_path / 'sub.py'}:C"), "x") is None  # _socket.socket: C code


def test_an_elimination_the_budget_cut_says_so_once(tmp_path, monkeypatch):
    """A raise guard's elimination given what was left of the budget, and failing because
    that ran out, is the budget's doing: one unknown of the method saying so, not also "z3
    could not eliminate the arguments" (zipfile's `write` under --budget 20 had both)."""
    import time

    from contractor.z3backend import guards

    path = tmp_path / "reader.py"
    path.write_text(READER)
    eliminate = guards.eliminate_quantifiers

    def slow(formula, effort, **kwargs):  # type: ignore[no-untyped-def]
        time.sleep(effort.cap_ms / 1000 + 0.1)  # z3 used the whole time it had, and gave up
        return formula

    monkeypatch.setattr(guards, "eliminate_quantifiers", slow)
    typestate = infer(f"{path}:Reader", InferOptions(backend="z3", budget=1.0))
    read = [u for u in typestate.unknowns if u.method == "read"]
    assert len(read) == 1, typestate.unknowns
    # "while its raise guard was being read (--budget)"; "before ..." on a machine so loaded
    # that translating took the guards' whole share
    assert "time budget ran out" in read[0].construct, read
    assert not any("could not eliminate" in u.detail for u in typestate.unknowns), typestate.unknowns
    monkeypatch.setattr(guards, "eliminate_quantifiers", eliminate)
    exact = infer(f"{path}:Reader", InferOptions(backend="z3", budget=None))
    assert not exact.unknowns


def test_abstracted_constants_are_the_free_constants_of_its_formula() -> None:
    """guards._abstracted gives the constants free_constants would read from the formula it
    made: those outside the replaced applications (one reached only under one is not), the
    fresh ones, by name."""
    import z3

    from contractor.z3backend import dag
    from contractor.z3backend.guards import _abstracted

    f_ = z3.Function("opaque!as!Int", z3.IntSort(), z3.IntSort())
    field, arg, hidden = z3.Int("abs.field"), z3.Int("abs.arg"), z3.Int("abs.hidden")
    formula = z3.And(f_(arg) > 0, f_(field) < 3, f_(hidden) == arg, z3.Exists([z3.Int("abs.q")], arg > 1))
    made, size, constants = _abstracted(formula, {"abs.field"})
    assert size == len(dag.postorder(formula))
    assert [c.get_id() for c in constants] == [c.get_id() for c in dag.free_constants(made)]
    names = [str(c) for c in constants]
    assert "abs.hidden" not in names and "abs.field" in names and "guard!app!0" in names
    plain, _, same = _abstracted(z3.And(field > 0, arg < 1), {"abs.field"})
    assert [c.get_id() for c in same] == [c.get_id() for c in dag.free_constants(plain)]


DOCUMENTED = '''
class Stack:
    """A stack whose docstrings name the exceptions, as Sphinx documentation does."""

    def __init__(self) -> None:
        self.size = 0

    def push(self) -> None:
        self.size += 1

    def pop(self) -> None:
        """Remove the top item.

        :raises IndexError: if the stack is empty
        raises: IndexError
        """
        if self.size == 0:
            raise IndexError("pop from an empty stack")
        self.size -= 1
'''


def test_docstring_raises_lines_alone_keep_the_raise_guards(tmp_path: Path) -> None:
    """`:raises X:` (Sphinx) and `raises:` lines name exceptions and declare no condition:
    the class's preconditions stay the raise guards (they made it `declared`, every method
    always enabled, on sortedcontainers' and packaging's classes), and pop, disabled on an
    empty stack, does raise there when run."""
    path = tmp_path / "documented.py"
    path.write_text(DOCUMENTED)
    ts = infer(f"{path}:Stack", InferOptions(backend="z3"))
    assert ts.dialects == ("pep316",) and ts.preconditions == "implicit"
    initial = next(s for s in ts.states if s.initial)
    assert "pop" not in initial.enabled and "push" in initial.enabled
    cls = load_class(path, "Stack")
    obj = cls()
    try:
        obj.pop()
    except IndexError:
        pass
    else:
        raise AssertionError("pop ran on an empty stack")
    obj.push()
    obj.pop()  # enabled after a push: runs
    declared = infer(f"{path}:Stack", InferOptions(backend="z3", preconditions=PreconditionMode.DECLARED))
    assert all("pop" in s.enabled for s in declared.states)  # what the default gave before
