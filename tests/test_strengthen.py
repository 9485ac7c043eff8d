"""Tests of `contractor strengthen`: the paper's client on the strengthened door, behaviour
preservation by differential testing on every sample and dialect, CrossHair on the output,
golden files per dialect (refresh: CONTRACTOR_UPDATE_GOLDEN=1), source surgery and the CLI."""

from __future__ import annotations

import ast
import enum
import importlib.util
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import deal
import icontract
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contractor
from contractor import api
from contractor.cli import main
from contractor.errors import InputError
from contractor.model import DIALECTS
from contractor.strengthen import build_table, output_path, strengthen
from contractor.typestate import Typestate

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden" / "strengthen"
UPDATE = os.environ.get("CONTRACTOR_UPDATE_GOLDEN") == "1"
ERRORS = {"pep316": contractor.TypestateError, "icontract": icontract.ViolationError,
          "deal": deal.PreContractError, "asserts": AssertionError}
SAMPLES = ["door.py:Door", "stack.py:BoundedStack", "account.py:Account", "turnstile.py:Turnstile",
           "loop_counter.py:Countdown",
           pytest.param("int_queue.py:IntQueue", marks=pytest.mark.slow)]  # its inference takes minutes
_counter = itertools.count()


def load_module(path: Path):
    """Import a file as a fresh module under a unique name."""
    name = f"strengthened_{path.stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


GOLDEN_CLASSES = {"door": "Door", "stack": "BoundedStack"}


def golden_model(name: str):
    return api.load_model(f"tests/golden/strengthen/{name}.py:{GOLDEN_CLASSES[name]}", root=REPO)


def golden_typestate(name: str) -> Typestate:
    return Typestate.from_dict(json.loads((GOLDEN / f"{name}.typestate.json").read_text()))


def hand_typestate(cls: str, states: dict, transitions: list, inits=("S1",)) -> Typestate:
    """A typestate from {id: (enabled, invariant)} and [(source, method, target)]."""
    methods = sorted({m for enabled, _ in states.values() for m in enabled})
    return Typestate.from_dict({
        "class": cls, "source": "x.py", "methods": methods,
        "states": [{"id": k, "enabled": sorted(e), "invariant": i, "initial": k in inits} for k, (e, i) in states.items()],
        "transitions": [{"source": a, "method": m, "target": b, "certainty": "must"} for a, m, b in transitions],
        "initializations": [{"constructor": "__init__", "target": s, "certainty": "must"} for s in inits]})


def write(tmp_path: Path, text: str, name: str = "out.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# --- the paper's client -------------------------------------------------------------------

def paper_client(module, *, corrected: bool):
    door = module.Door()
    door.start(), door.alarm(), door.safe(), door.stop()
    if corrected:
        door.close()
    door.open()
    return door


@pytest.mark.parametrize("dialect", DIALECTS)
def test_paper_client_fails_at_open_and_corrected_client_runs(tmp_path, dialect):
    module = load_module(write(tmp_path, strengthen(golden_model("door"), golden_typestate("door"), dialect)))
    with pytest.raises(ERRORS[dialect]) as failure:
        paper_client(module, corrected=False)
    assert ("Door.open() is not enabled in state S2 (enabled: alarm, close, start); "
            "to enable it, call close() first") in str(failure.value)
    door = paper_client(module, corrected=True)
    assert (door.closed, door.moving, door.danger) == (False, False, False)
    assert door._typestate is module.DoorState.S2


def test_paper_client_on_the_real_pipeline(tmp_path):
    model = api.load_model(str(REPO / "samples" / "door.py") + ":Door")
    module = load_module(write(tmp_path, strengthen(model, api.infer_model(model))))
    with pytest.raises(contractor.TypestateError, match=r"Door\.open\(\) is not enabled .*call close\(\) first"):
        paper_client(module, corrected=False)
    assert paper_client(module, corrected=True).closed is False


# --- behaviour preservation ---------------------------------------------------------------

_typestates: dict[str, tuple] = {}


def sample(target: str):
    """(model, typestate, original module) of a sample, inferred once per test session."""
    if target not in _typestates:
        model = api.load_model(str(REPO / "samples" / target))
        _typestates[target] = (model, api.infer_model(model), load_module(REPO / "samples" / target.split(":")[0]))
    return _typestates[target]


def norm(value):
    """Field values comparable across the two modules (their Enum classes differ)."""
    if isinstance(value, enum.Enum):
        return (type(value).__name__, value.name)
    if isinstance(value, (list, tuple)):
        return [norm(v) for v in value]
    if isinstance(value, dict):
        return {norm(k): norm(v) for k, v in value.items()}
    return value


def fields(obj, *, state: bool = False) -> dict:
    return {k: norm(v) for k, v in vars(obj).items() if state or not k.startswith("_typestate")}


def arguments(data, model, module, method: str, obj=None, *, meet_pre: bool = True) -> dict | None:
    """Arguments meeting `method`'s preconditions (None if 20 tries find none), or any."""
    m = model.methods[method]
    kinds = {"int": st.integers(-2, 6), "bool": st.booleans(), "float": st.floats(-2, 6), "str": st.text(max_size=3)}
    for _ in range(20):
        args = {}
        for p in m.params:
            kind = p.type.kind if p.type else "any"
            if kind == "enum":
                args[p.name] = data.draw(st.sampled_from(list(getattr(module, p.type.name))))
            else:
                args[p.name] = data.draw(kinds.get(kind, st.integers(-2, 6)))
        if not meet_pre:
            return args
        scope = {**vars(module), **args, "self": obj}
        try:
            if all(eval(compile(ast.Expression(c.expr), "<pre>", "eval"), scope) for c in m.preconditions):
                return args
        except Exception:
            pass
    return None


def outcome(call):
    try:
        return ("ok", norm(call()))
    except Exception as e:  # the original's own contract violations must happen alike
        return ("raised", type(e).__name__)


def run_sequence(data, model, ts, original, strengthened, dialect):
    ctor_args = arguments(data, model, original, "__init__")
    if ctor_args is None:
        return
    o, s = original.__dict__[model.name](**ctor_args), strengthened.__dict__[model.name](**ctor_args)
    assert fields(o) == fields(s) and holds(ts, s)
    for _ in range(data.draw(st.integers(0, 12))):
        enabled = ts.state(s._typestate.name).enabled
        allowed = enabled and data.draw(st.integers(0, 9)) > 0
        method = data.draw(st.sampled_from(enabled if allowed else ts.methods))
        if method not in enabled:  # the first disallowed call: rejected, nothing changed
            before = fields(s, state=True)
            # Checks in another dialect than the class's own may come after its own checks.
            expected = ERRORS[dialect] if dialect in model.dialects or dialect in ("icontract", "deal") else Exception
            with pytest.raises(expected) as rejected:
                getattr(s, method)(**arguments(data, model, original, method, meet_pre=False))
            if expected is not Exception:
                assert f"{model.name}.{method}() is not enabled in state {s._typestate.name}" in str(rejected.value)
            assert fields(s, state=True) == before
            return
        args = arguments(data, model, original, method, o)
        if args is None:
            continue
        got = outcome(lambda: getattr(o, method)(**args)), outcome(lambda: getattr(s, method)(**args))
        assert got[0] == got[1], f"{method}({args})"
        assert fields(o) == fields(s), f"after {method}({args})"
        if got[0][0] == "raised":
            return
        assert holds(ts, s), f"after {method}({args}) the object is not in state {s._typestate.name}"


def holds(ts: Typestate, obj) -> bool:
    """Whether `obj` satisfies the invariant of the state its state field names."""
    scope = {**vars(sys.modules[type(obj).__module__]), "self": obj}
    return eval(ts.state(obj._typestate.name).invariant or "True", scope)


_modules: dict[tuple[str, str], object] = {}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("target", SAMPLES)
def test_strengthened_samples_behave_like_the_originals(tmp_path_factory, target, dialect):
    model, ts, original = sample(target)
    if (target, dialect) not in _modules:
        path = tmp_path_factory.mktemp("strengthened") / f"{model.name.lower()}_{dialect}.py"
        _modules[target, dialect] = load_module(write(path.parent, strengthen(model, ts, dialect), path.name))
    strengthened = _modules[target, dialect]

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.data())
    def check(data):
        run_sequence(data, model, ts, original, strengthened, dialect)

    check()
