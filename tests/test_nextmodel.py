"""nextmodel.py: an all-SAT check answered from the enumeration's last model, its
after-state changed, is answered with a model of the check (every assertion and
assumption true in it) that keeps the last model's path; where the path itself must
change, the check is left to the solver. Whole explorations give the same targets,
with the same certainty, as without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import z3
from outside_conn import CONN

from contractor.api import InferOptions, load_model
from contractor.explore import explore
from contractor.model import ClassModel, TypeKind, TypeRef
from contractor.z3backend import Z3Backend
from contractor.z3backend.nextmodel import NextModel, NextModels, value_leaves
from contractor.z3backend.values import Val, fresh
from contractor.z3backend.z3util import make_solver

ROOT = Path(__file__).resolve().parent.parent
INT = TypeRef(TypeKind.INT)


def _query() -> tuple[z3.Solver, dict[str, Val], dict[str, Val], z3.BoolRef, z3.BoolRef, z3.ExprRef]:
    """A method whose after-state is a value outside code chose (`chosen`) on one path, a
    constant on the other; the post bit reads it."""
    field = fresh(INT, "nm_state")
    path = z3.Bool("nm_path")
    chosen = z3.Int("nm_chosen")
    after = Val(INT, z3.If(path, chosen, z3.IntVal(3)))
    bit = z3.Bool("post!nm_big")
    s = make_solver(5000)
    s.add(bit == (after.z > 5), field.z >= 0, z3.Implies(path, field.z > 1))
    return s, {"state": field}, {"state": after}, bit, path, chosen


def test_value_leaves_skip_the_conditions() -> None:
    a, b, c = z3.Ints("nm_a nm_b nm_c")
    p = z3.Bool("nm_p")
    found = {str(x) for x in value_leaves([z3.If(p, a + b, z3.If(c > 0, c, 2))])}
    assert found == {"nm_a", "nm_b", "nm_c"}  # c as a value; p, only a condition, is not one


def test_the_next_model_is_a_model_of_the_check_on_the_same_path() -> None:
    s, fields, after, bit, path, chosen = _query()
    nexts = NextModels()
    nexts.prepare("m", fields, after, [bit], [])
    guard = z3.Bool("nm_guard")
    assert s.check(guard, path) == z3.sat
    last = s.model()
    was = z3.is_true(last.eval(bit, model_completion=True))
    s.add(z3.Implies(guard, bit != was))  # the blocking clause of the state found
    got = nexts.next_model("m", s, [guard, path], last)
    assert isinstance(got, NextModel)
    for f in [*s.assertions(), guard, path]:
        assert z3.is_true(got.eval(f, model_completion=True))
    assert z3.is_true(got.eval(bit, model_completion=True)) != was
    # the path and the pre-object are the last model's
    field = fields["state"].z
    assert got.eval(field, model_completion=True).eq(last.eval(field, model_completion=True))
    assert z3.is_true(got.eval(path, model_completion=True))


def test_the_first_model_from_another_source_state_changes_the_pre_object_too() -> None:
    s, fields, after, bit, path, chosen = _query()
    pre = z3.Bool("pre!nm_high")
    s.add(pre == (fields["state"].z > 3))
    nexts = NextModels()
    nexts.prepare("m", fields, after, [bit], [pre])
    first, second = z3.Bools("nm_enum1 nm_enum2")
    assert s.check(first, pre) == z3.sat
    last = s.model()
    s.add(z3.Implies(first, bit == z3.is_true(last.eval(bit, model_completion=True))), z3.Not(first))  # retired
    assert nexts.next_model("m", s, [second, z3.Not(pre)], last) is None  # the source differs: not narrowly
    got = nexts.next_model("m", s, [second, z3.Not(pre)], last, wide=True, retired=[first])
    assert isinstance(got, NextModel)
    for f in [*s.assertions(), second, z3.Not(pre)]:
        assert z3.is_true(got.eval(f, model_completion=True))
    assert got.eval(fields["state"].z, model_completion=True).as_long() <= 3


def _three_states() -> tuple[z3.Solver, dict[str, Val], dict[str, Val], list[z3.BoolRef], z3.BoolRef]:
    """A method whose after-state is a value outside code chose (`chosen`), read by two
    post bits: three states (neither, small only, both), all on one path."""
    field = fresh(INT, "nr_state")
    chosen = z3.Int("nr_chosen")
    after = Val(INT, chosen)
    small, big = z3.Bools("post!nr_small post!nr_big")
    pre = z3.Bool("pre!nr_high")
    s = make_solver(5000)
    s.add(small == (chosen > 0), big == (chosen > 10), pre == (field.z > 3), field.z >= 0)
    return s, {"state": field}, {"state": after}, [small, big], pre


def _run(nexts: NextModels, s: z3.Solver, bits: list[z3.BoolRef], on: list[z3.BoolRef], guard: z3.BoolRef,
         got: Any) -> set[tuple[bool, ...]]:
    """Blocks each model's state and asks for the next from it, as the all-SAT does; the
    states seen (each model checked to be a model of the check)."""
    seen: set[tuple[bool, ...]] = set()
    while got is not None:
        for f in [*s.assertions(), *on]:
            assert z3.is_true(got.eval(f, model_completion=True))
        state = tuple(z3.is_true(got.eval(b, model_completion=True)) for b in bits)
        assert state not in seen
        seen.add(state)
        s.add(z3.Implies(guard, z3.Or(*[b != z3.BoolVal(v) for b, v in zip(bits, state)])))
        got = nexts.next_model("m", s, on, got)
    return seen


def test_a_run_of_next_models_finds_each_state_once() -> None:
    s, fields, after, bits, pre = _three_states()
    nexts = NextModels()
    nexts.prepare("m", fields, after, bits, [pre])
    guard = z3.Bool("nr_guard")
    assert s.check(guard, pre) == z3.sat
    assert _run(nexts, s, bits, [guard, pre], guard, s.model()) == {(False, False), (True, False), (True, True)}
    assert s.check(guard, pre) == z3.unsat  # (no state left: the run found them all)


def test_a_run_begun_from_another_source_state_goes_on_with_its_pre_object() -> None:
    s, fields, after, bits, pre = _three_states()
    nexts = NextModels()
    nexts.prepare("m", fields, after, bits, [pre])
    first, second = z3.Bools("nr_enum1 nr_enum2")
    assert s.check(first, pre) == z3.sat
    last = s.model()
    s.add(z3.Not(first))  # retired
    on = [second, z3.Not(pre)]
    got = nexts.next_model("m", s, on, last, wide=True, retired=[first])
    assert isinstance(got, NextModel)
    # the run goes on from the wide model: its pre-object meets the new source (not pre)
    assert _run(nexts, s, bits, on, second, got) == {(False, False), (True, False), (True, True)}


def test_an_isolated_solver_answers_as_the_main_context_does() -> None:
    from contractor.z3backend.isolated import IsolatedSolver

    x, y = z3.Ints("nm_x nm_y")
    b = z3.Bool("nm_b")
    iso = IsolatedSolver([x > 0, z3.Implies(b, y == x + 1)], 5000)
    iso.add(y < 3)
    assert iso.check(b) == z3.sat
    m = iso.model()
    assert m.eval(y, model_completion=True).as_long() == m.eval(x, model_completion=True).as_long() + 1
    assert iso.check(b, x > 5) == z3.unsat
    assert [str(a) for a in iso.assertions()] == [str(a) for a in [x > 0, z3.Implies(b, y == x + 1), y < 3]]


def test_where_the_path_must_change_the_solver_decides() -> None:
    s, fields, after, bit, path, chosen = _query()
    nexts = NextModels()
    nexts.prepare("m", fields, after, [bit], [])
    guard = z3.Bool("nm_guard2")
    assert s.check(guard, z3.Not(path)) == z3.sat  # after = 3: the bit is false
    last = s.model()
    s.add(z3.Implies(guard, bit))  # another state: only the other path reaches it
    assert nexts.next_model("m", s, [guard], last) is None
    assert s.check(guard) == z3.sat  # (it exists: the solver finds it)


def test_an_unsatisfiable_check_is_never_answered() -> None:
    s, fields, after, bit, path, chosen = _query()
    nexts = NextModels()
    nexts.prepare("m", fields, after, [bit], [])
    assert s.check(path) == z3.sat
    last = s.model()
    s.add(bit, z3.Not(bit))
    assert nexts.next_model("m", s, [path], last) is None


class WithoutNext(Z3Backend):
    """The enumeration as before nextmodel.py: every check asked of the solver."""

    def next_model(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


class Counting(Z3Backend):
    """Counts the checks answered from the last model."""

    answered = 0

    def next_model(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        got = super().next_model(*args, **kwargs)
        self.answered += got is not None
        return got

# an untranslated path (fresh after-values), loops past the bound, several sources
SAMPLES = ["untyped.py", "loop_past_bound.py", "player.py", "stack.py", "turnstile.py"]


def _models(path: Path) -> list[ClassModel]:
    import ast

    names = [n.name for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef)]
    found = [load_model(f"{path}:{n}", InferOptions(backend="z3")) for n in names]
    return [m for m in found if m.actions]


def _same_targets(model: ClassModel) -> int:
    """Explores with and without nextmodel.py; the number of checks it answered."""
    plain = Counting(model, timeout=30.0, reuse=False)
    before = WithoutNext(model, timeout=30.0, reuse=False)
    before.sem = plain.sem  # one translation
    got, want = explore(model, plain), explore(model, before)
    assert got.states == want.states
    assert [(t.source, t.method, t.target, t.certainty) for t in got.transitions] == \
        [(t.source, t.method, t.target, t.certainty) for t in want.transitions]
    return plain.answered


@pytest.fixture(autouse=True)
def _always_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    """Next models tried after every check (not only after costly ones, NEXT_FROM)."""
    from contractor.z3backend import backend

    monkeypatch.setattr(backend, "NEXT_FROM", 0)


def test_outside_code_choosing_the_state_gives_the_same_targets(tmp_path: Path) -> None:
    path = tmp_path / "conn.py"
    path.write_text(CONN)
    (model,) = _models(path)
    assert _same_targets(model) > 0  # (checks were answered from the last model)


@pytest.mark.parametrize("sample", SAMPLES)
def test_explorations_find_the_same_targets(sample: str) -> None:
    for model in _models(ROOT / "samples" / sample):
        _same_targets(model)
