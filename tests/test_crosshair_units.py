"""Unit tests of the CrossHair backend's parts: the search harness, the eager boolean
combinators, object construction from field types, the disk cache, budget and Ctrl-C."""

from __future__ import annotations

import ast
import enum
from pathlib import Path

import pytest

from contractor.api import InferOptions, infer, load_model
from contractor.crosshair_backend import make_crosshair_backend
from contractor.crosshair_backend.backend import CrosshairBackend
from contractor.crosshair_backend.cache import DiskCache
from contractor.crosshair_backend.eager import ch_all, ch_any, ch_not, holds
from contractor.crosshair_backend.harness import assume, search
from contractor.crosshair_backend.objects import build, python_type, snapshot
from contractor.crosshair_backend.program import _eager
from contractor.errors import InputError, Location
from contractor.explore import ExplorationInterrupted, explore
from contractor.model import Field, TypeRef

ROOT = Path(__file__).resolve().parent.parent
STACK = f"{ROOT}/samples/crosshair/stack.py:BoundedStack"


# -- harness ---------------------------------------------------------------------------
def test_search_finds_an_example_meeting_assumptions():
    def goal(v):
        assume(v["x"] > 3)
        return len(v["xs"]) == 1 and v["xs"][0] == v["x"] * 2

    out = search({"x": int, "xs": list[int]}, goal, 5)
    assert out.status == "found"
    assert out.example["x"] > 3 and out.example["xs"] == [out.example["x"] * 2]


def test_search_exhausts_when_nothing_qualifies():
    def goal(v):
        assume(v["x"] > 3)
        return v["x"] < 2

    assert search({"x": int}, goal, 5).status == "none"


def test_search_reports_unknown_on_timeout():
    out = search({"xs": list[int]}, lambda v: sum(v["xs"]) == 7 and len(v["xs"]) > 100, 0.3)
    assert out.status == "unknown" and "incomplete" in out.detail


def test_search_ends_a_path_where_user_code_raises():
    def goal(v):
        if v["x"] == 5:
            raise ValueError("boom")
        return v["x"] == 5

    assert search({"x": int}, goal, 5).status == "none"


def test_side_effects_of_user_code_are_blocked_during_a_search(tmp_path):
    target = tmp_path / "written.txt"

    def goal(v):
        with open(target, "w") as out:  # the audit-hook wall refuses this
            out.write("x")
        return True

    assert search({"x": int}, goal, 5).status == "none"
    assert not target.exists()


def test_keyboard_interrupt_passes_through_crosshair():
    def goal(v):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        search({"x": int}, goal, 5)


# -- eager combinators -------------------------------------------------------------------
CASES = ["a and b", "a or b", "not a", "a and not b or c", "0 <= x <= 3", "x < 3 < y",
         "xs and xs[0] > 0", "not xs or xs[0] > 0", "(not xs) and 1 / x > 0"]


@pytest.mark.parametrize("text", CASES)
@pytest.mark.parametrize("env", [
    dict(a=True, b=False, c=True, x=0, y=5, xs=[]),
    dict(a=False, b=True, c=False, x=2, y=1, xs=[1]),
    dict(a=True, b=True, c=False, x=-1, y=4, xs=[0]),
])
def test_eager_rewrite_agrees_with_python_on_concrete_values(text, env):
    expr = ast.parse(text, mode="eval").body
    tree = ast.fix_missing_locations(ast.Expression(_eager(expr)))
    scope = dict(env, __ch_all=ch_all, __ch_any=ch_any, __ch_not=ch_not)
    try:
        expected = bool(eval(text, {}, dict(env)))
    except Exception:
        expected = False
    assert holds(lambda: eval(compile(tree, "<t>", "eval"), scope)) == expected


def test_eager_conditions_do_not_fork_per_conjunct():
    # independent conjuncts and disjuncts: with `and`/`or` CrossHair would fork at each;
    # the eager form forks once (in the goal), so the search explores at most two paths
    def goal(v):
        both = ch_all(lambda: v["a"] > 0, lambda: v["b"] > 0, lambda: v["c"] > 0, lambda: v["a"] + v["b"] < v["c"])
        either = ch_any(lambda: v["a"] > 5, lambda: v["b"] > 5, lambda: ch_not(lambda: v["f"]))
        return holds(lambda: both & either & (v["a"] + v["b"] + v["c"] < 0))

    out = search({"a": int, "b": int, "c": int, "f": bool}, goal, 5)
    assert out.status == "none"
    assert out.paths <= 2, f"{out.paths} paths: a combinator forked"


# -- objects -----------------------------------------------------------------------------
class Colour(enum.Enum):
    RED = 1


class Box:
    def __init__(self, size: int) -> None:
        self.size = size


def _module():
    import types

    module = types.ModuleType("m")
    module.Colour, module.Box = Colour, Box
    return module


def test_python_types_for_field_types():
    m = _module()
    assert python_type(TypeRef("list", (TypeRef("int"),)), m, "f") == list[int]
    assert python_type(TypeRef("dict", (TypeRef("str"), TypeRef("class", name="Box"))), m, "f") == dict[str, Box]
    assert python_type(TypeRef("optional", (TypeRef("enum", name="Colour"),)), m, "f") == Colour | None
    assert python_type(TypeRef("tuple", (TypeRef("int"), TypeRef("bool"))), m, "f") == tuple[int, bool]


def test_a_field_of_unknown_type_names_the_field_and_how_to_annotate_it():
    field = Field("items", TypeRef("any"), Location("k.py", 7, 8))
    with pytest.raises(InputError) as err:
        python_type(field.type, _module(), "field 'items' of K", field)
    assert "k.py:7:9" in str(err.value) and "'items'" in str(err.value) and "annotate" in str(err.value)


def test_build_skips_init_and_snapshot_is_json_friendly():
    box = build(Box, {"size": 3})
    assert box.size == 3
    assert snapshot({"b": box, "c": Colour.RED, "s": {2, 1}, "t": (1, "x")}) == \
        {"b": {"__class__": "Box", "size": 3}, "c": "Colour.RED", "s": [1, 2], "t": [1, "x"]}


# -- cache ---------------------------------------------------------------------------------
def test_cache_round_trip_and_atomic_entries(tmp_path):
    cache = DiskCache.for_setting({"source": "class A: pass", "timeout": 1}, tmp_path)
    assert cache.get(["step", ["a"], "m"]) is None
    cache.put(["step", ["a"], "m"], {"targets": [1, 2]})
    assert cache.get(["step", ["a"], "m"]) == {"targets": [1, 2]}
    assert not list(cache.folder.glob("*.tmp"))
    other = DiskCache.for_setting({"source": "class A: pass", "timeout": 2}, tmp_path)
    assert other.folder != cache.folder and other.get(["step", ["a"], "m"]) is None


def test_cache_ignores_a_damaged_entry(tmp_path):
    cache = DiskCache.for_setting({"s": 1}, tmp_path)
    cache.put(["q"], [1])
    next(cache.folder.glob("*.json")).write_text('{"query": ["q"], "val')
    assert cache.get(["q"]) is None


def test_second_run_is_answered_from_the_cache(tmp_path):
    options = InferOptions(backend="crosshair", timeout=5, crosshair_options={"cache_dir": str(tmp_path)})
    first = infer(STACK, options)
    second = infer(STACK, options)
    assert first.stats.queries > 0 and second.stats.queries == 0
    strip = lambda ts: {k: v for k, v in ts.to_dict().items() if k != "stats"}  # noqa: E731
    assert strip(first) == strip(second)


def test_cache_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("CONTRACTOR_CACHE_DIR", str(tmp_path / "c"))
    infer(STACK, InferOptions(backend="crosshair", timeout=5))
    assert list((tmp_path / "c").rglob("*.json"))


# -- budget, options, interruption ---------------------------------------------------------------
def test_exhausted_budget_stops_querying_says_so_and_writes_no_cache(tmp_path):
    options = InferOptions(backend="crosshair", timeout=5,
                           crosshair_options={"budget": 0, "cache_dir": str(tmp_path)})
    ts = infer(STACK, options)
    assert ts.stats.queries_by_backend["crosshair"] == 0  # z3 answered instead
    assert not list(tmp_path.rglob("*.json"))
    assert any(f.kind == "crosshair_unavailable" and "budget" in f.message for f in ts.findings)


def test_budget_used_up_midway_keeps_known_states_as_may(tmp_path):
    model = load_model(STACK)
    backend = CrosshairBackend(model, timeout=5)  # the engine the worker runs, in this process
    (init,) = backend.initial_targets("__init__")
    backend.budget = 0  # used up from now on
    targets = backend.targets(init.enabled, "push")
    assert {t.certainty for t in targets} == {"may"} and {t.enabled for t in targets} == {init.enabled}
    assert "budget" in targets[0].reason


def test_unknown_crosshair_option_is_refused():
    model = load_model(STACK)
    with pytest.raises(ValueError, match="budgett"):
        make_crosshair_backend(model, InferOptions(backend="crosshair", crosshair_options={"budgett": 1}))


def test_ctrl_c_during_a_query_gives_a_partial_typestate(tmp_path, monkeypatch):
    from contractor.crosshair_backend import backend as backend_module

    calls = {"n": 0}
    real = backend_module.search

    def interrupting(inputs, goal, timeout):
        calls["n"] += 1
        if calls["n"] == 4:
            def goal(v):  # noqa: F811  (raised inside CrossHair's path loop)
                raise KeyboardInterrupt
        return real(inputs, goal, timeout)

    monkeypatch.setattr(backend_module, "search", interrupting)
    model = load_model(STACK)
    with pytest.raises(ExplorationInterrupted) as stopped:  # a KeyboardInterrupt, with the partial result
        explore(model, CrosshairBackend(model, timeout=5))  # the engine, in this process
    ts = stopped.value.typestate
    assert isinstance(stopped.value, KeyboardInterrupt) and ts.complete is False
    assert any(f.kind == "incomplete" for f in ts.findings)


def test_unannotated_parameter_is_an_input_error_naming_it(tmp_path):
    source = tmp_path / "k.py"
    source.write_text("class K:\n    def __init__(self) -> None:\n        self.n = 0\n\n"
                      "    def add(self, x):\n        '''pre: x > 0'''\n        self.n += x\n")
    with pytest.raises(InputError) as err:
        infer(f"{source}:K", InferOptions(backend="crosshair", crosshair_options={"cache": False}))
    assert "k.py:5:" in str(err.value) and "'x'" in str(err.value) and "annotation" in str(err.value)


def test_no_undecided_finding_when_each_candidate_is_decided_one_by_one(monkeypatch):
    """An enumeration that cannot finish, then every candidate decided on its own: all
    answers are must, so no finding says that undecided ones stay may."""
    from contractor.crosshair_backend import backend as backend_module
    from contractor.crosshair_backend.harness import Outcome

    real, calls = backend_module.search, {"n": 0}

    def first_search_gives_up(inputs, goal, timeout):
        calls["n"] += 1
        return Outcome("unknown", detail="gave up") if calls["n"] == 1 else real(inputs, goal, timeout)

    monkeypatch.setattr(backend_module, "search", first_search_gives_up)
    engine = CrosshairBackend(load_model(STACK), timeout=5)
    (init,) = engine.initial_targets("__init__", candidates=frozenset({frozenset({"push"})}), restrict=True)
    assert init.certainty == "must" and calls["n"] > 1
    assert not [f for f in engine.findings() if f.kind == "unknown"]
