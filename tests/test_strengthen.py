"""Tests of `contractor strengthen`: the paper's client on the strengthened door, behaviour
preservation by differential testing on every sample and dialect, CrossHair on the output,
golden files per dialect (refresh: CONTRACTOR_UPDATE_GOLDEN=1), source surgery and the CLI."""

from __future__ import annotations

import ast
import copy
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
from hypothesis_profiles import examples

import contractor
from contractor import api
from contractor.cli import main
from contractor.errors import InputError
from contractor.model import DIALECTS
from contractor.strengthen import build_table, output_path, strengthen
from contractor.strengthen.source import add_docstring_lines
from contractor.typestate import Typestate

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden" / "strengthen"
UPDATE = os.environ.get("CONTRACTOR_UPDATE_GOLDEN") == "1"
ERRORS = {"pep316": contractor.TypestateError, "icontract": icontract.ViolationError,
          "deal": deal.PreContractError, "asserts": AssertionError}
SAMPLES = ["door.py:Door", "stack.py:BoundedStack", "account.py:Account", "turnstile.py:Turnstile",
           "loop_counter.py:Countdown", "int_queue.py:IntQueue"]
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
        "states": [{"id": k, "enabled": sorted(e), "invariant": i, "initial": k in inits}
                   for k, (e, i) in states.items()],
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


def test_the_strengthened_module_runs_without_contractor(tmp_path):
    write(tmp_path, strengthen(golden_model("door"), golden_typestate("door"), "pep316"), "door_s.py")
    client = ("import sys; sys.modules['contractor'] = None\n"  # makes `import contractor` fail
              "import door_s\nd = door_s.Door(); d.start(); d.alarm(); d.safe(); d.stop()\n"
              "try:\n    d.open()\nexcept AssertionError as e:\n    print(type(e).__module__, e)\n")
    run = subprocess.run([sys.executable, "-c", client], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.stdout.startswith("door_s Door.open() is not enabled in state S2"), run.stdout + run.stderr


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
    small = st.integers(-2, 6)
    kinds = {"int": small, "bool": st.booleans(), "float": st.floats(-2, 6), "str": st.text(max_size=3),
             "list": st.lists(small, max_size=4), "set": st.sets(small, max_size=4),
             "dict": st.dictionaries(small, small, max_size=3)}
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
    # each object gets its own copy of mutable arguments (a list one mutates is not the other's)
    o = original.__dict__[model.name](**copy.deepcopy(ctor_args))
    s = strengthened.__dict__[model.name](**copy.deepcopy(ctor_args))
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
        got = (outcome(lambda m=method, a=args: getattr(o, m)(**copy.deepcopy(a))),
               outcome(lambda m=method, a=args: getattr(s, m)(**copy.deepcopy(a))))
        assert got[0] == got[1], f"{method}({args})"
        assert fields(o) == fields(s), f"after {method}({args})"
        if got[0][0] == "raised":
            return
        assert holds(ts, s), f"after {method}({args}) the object is not in state {s._typestate.name}"


def holds(ts: Typestate, obj) -> bool:
    """Whether `obj` satisfies the invariant of the state its state field names (where the
    invariant has an executable form)."""
    scope = {**vars(sys.modules[type(obj).__module__]), "self": obj}
    return eval(ts.state(obj._typestate.name).executable or "True", scope)


_modules: dict[tuple[str, str], object] = {}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("target", SAMPLES)
def test_strengthened_samples_behave_like_the_originals(tmp_path_factory, target, dialect):
    model, ts, original = sample(target)
    if (target, dialect) not in _modules:
        path = tmp_path_factory.mktemp("strengthened") / f"{model.name.lower()}_{dialect}.py"
        _modules[target, dialect] = load_module(write(path.parent, strengthen(model, ts, dialect), path.name))
    strengthened = _modules[target, dialect]

    @settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.data())
    def check(data):
        run_sequence(data, model, ts, original, strengthened, dialect)

    check()


# --- CrossHair on the strengthened samples -------------------------------------------------

def crosshair(path: Path, dialect: str) -> subprocess.Popen:
    kind = ["--analysis_kind=asserts"] if dialect == "asserts" else []
    return subprocess.Popen([sys.executable, "-m", "crosshair", "check", "--per_condition_timeout=2", *kind, path.name],
                            cwd=path.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.mark.slow  # about 10 s of CPU per sample
def test_crosshair_finds_no_violation_in_strengthened_samples(tmp_path):
    runs = {}
    for target in SAMPLES:  # in parallel: each takes a few seconds of CPU
        model, ts, _ = sample(target)
        dialect = model.dialects[0] if model.dialects else "asserts"
        written = write(tmp_path, strengthen(model, ts), f"{model.name.lower()}_strengthened.py")
        runs[target] = crosshair(written, dialect)
    for target, run in runs.items():
        output = run.communicate(timeout=300)[0]
        assert run.returncode == 0 and "error" not in output, f"{target}: {output}"


def test_crosshair_catches_a_typestate_table_that_disagrees_with_the_update(tmp_path):
    text = strengthen(golden_model("door"), golden_typestate("door"), "pep316")
    start = text.index('"open": {')
    wrong = text[:start] + text[start:].replace("(DoorState.S2,)", "(DoorState.S4,)", 1)
    run = crosshair(write(tmp_path, wrong, "door_wrong.py"), "pep316")
    output = run.communicate(timeout=300)[0]
    assert run.returncode == 1 and "when calling open(" in output, output


# --- golden files ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, dialect", [("door", d) for d in DIALECTS] + [("stack", "icontract")])
def test_golden(name, dialect):
    text = strengthen(golden_model(name), golden_typestate(name), dialect, origin=f"{name}.typestate.json")
    golden = GOLDEN / f"{name}.{dialect}.py"
    if UPDATE:
        golden.write_text(text)
    assert text == golden.read_text(), "refresh with CONTRACTOR_UPDATE_GOLDEN=1 if the change is intended"
    compile(text, str(golden), "exec")


# --- source surgery -------------------------------------------------------------------------

GATE = '''\
"""A gate: the module docstring stays."""
from __future__ import annotations

import dataclasses


# The gate class (this comment stays above it).
class Gate:
    def __init__(self, level: int = 0) -> None:
        self.level = level  # 0: closed
        if level < 0:
            self.level = 0
            return

    def lift(self, by: int, *rest: int, slowly: bool = False, **extra) -> int:
        """Lift the gate."""
        # an early return must still update the state
        if by <= 0:
            return self.level
        self.level += by + sum(rest)
        return self.level

    def drop(self): self.level = 0
'''
GATE_STATES = {"S1": (("lift",), "self.level == 0"), "S2": (("drop", "lift"), "self.level > 0")}
GATE_TRANSITIONS = [("S1", "lift", "S1"), ("S1", "lift", "S2"), ("S2", "lift", "S2"), ("S2", "drop", "S1")]


def gate(tmp_path, source=GATE, dialect="asserts", inits=("S1", "S2")):
    path = write(tmp_path, source, "gate.py")
    model = api.load_model(f"{path}:Gate")
    text = strengthen(model, hand_typestate("Gate", GATE_STATES, GATE_TRANSITIONS, inits), dialect)
    return text, load_module(write(tmp_path, text, "gate_strengthened.py"))


@pytest.mark.parametrize("dialect", DIALECTS)
def test_comments_early_returns_and_parameters_survive(tmp_path, dialect):
    text, module = gate(tmp_path, dialect=dialect)
    for kept in ('"""A gate: the module docstring stays."""', "# The gate class (this comment stays above it).",
                 "# 0: closed", "# an early return must still update the state", '"""Lift the gate.'):
        assert kept in text
    assert text.index("from __future__") < text.index("import enum")
    g = module.Gate()
    assert g._typestate is module.GateState.S1
    assert g.lift(0) == 0 and g._typestate is module.GateState.S1  # early return, state chosen by invariant
    assert g.lift(1, 2, 3, slowly=True, colour="red") == 6 and g._typestate is module.GateState.S2
    g.drop()
    assert (g.level, g._typestate) == (0, module.GateState.S1)
    with pytest.raises(ERRORS[dialect], match=r"Gate\.drop\(\) is not enabled in state S1 \(enabled: lift\); "
                                              r"to enable it, call lift\(\) first"):
        g.drop()


def test_several_initial_states_are_chosen_by_invariant(tmp_path):
    _, module = gate(tmp_path)
    assert module.Gate(3)._typestate is module.GateState.S2
    assert module.Gate(-1)._typestate is module.GateState.S1  # __init__ returns early here


def test_a_class_without_init_and_a_dataclass_get_their_state(tmp_path):
    plain = GATE.replace("    def __init__", "    level = 0\n\n    def __unused").replace("            return\n", "")
    _, module = gate(tmp_path, plain, inits=("S1",))
    assert module.Gate()._typestate is module.GateState.S1
    data = plain.replace("class Gate:", "@dataclasses.dataclass\nclass Gate:")
    data = data.replace("    level = 0", "    level: int = 0")
    _, module = gate(tmp_path, data)
    assert module.Gate(2)._typestate is module.GateState.S2 and module.Gate(2).level == 2


def test_a_factory_sets_the_state_of_the_object_it_returns(tmp_path):
    factory = GATE.replace("    def drop(self)", """    @classmethod
    def raised(cls, by: int = 1) -> "Gate":
        gate = cls(0)
        gate.level = by
        return gate

    def drop(self)""")
    path = write(tmp_path, factory, "gate.py")
    model = api.load_model(f"{path}:Gate")
    assert "raised" in model.constructors
    data = hand_typestate("Gate", GATE_STATES, GATE_TRANSITIONS).to_dict()
    data["initializations"] += [{"constructor": "raised", "target": s, "certainty": "must"} for s in ("S1", "S2")]
    module = load_module(write(tmp_path, strengthen(model, Typestate.from_dict(data)), "gate_strengthened.py"))
    assert module.Gate.raised(4)._typestate is module.GateState.S2
    assert module.Gate.raised(0)._typestate is module.GateState.S1


def test_bad_typestates_are_input_errors(tmp_path):
    model = golden_model("door")
    other = hand_typestate("Window", GATE_STATES, GATE_TRANSITIONS)
    with pytest.raises(InputError, match="the typestate is of class Window, not Door"):
        strengthen(model, other)
    partial = Typestate.from_dict({**golden_typestate("door").to_dict(), "complete": False})
    with pytest.raises(InputError, match="partial"):
        strengthen(model, partial)
    path = write(tmp_path, GATE, "gate.py")
    broken = hand_typestate("Gate", {**GATE_STATES, "S2": (("drop", "lift"), "self.level >")}, GATE_TRANSITIONS)
    with pytest.raises(InputError, match="cannot strengthen: .*state S2 .*no Python expression"):
        strengthen(api.load_model(f"{path}:Gate"), broken)  # no executable form (typestate.json of old)
    data = broken.to_dict()
    data["states"][1]["executable"] = "self.level >"
    with pytest.raises(InputError, match="invariant of state S2 .* is not a Python expression"):
        strengthen(api.load_model(f"{path}:Gate"), Typestate.from_dict(data))


@pytest.mark.parametrize("docstring", [
    '"One line."',
    "'''Two\\tparts.'''",
    r'"Quotes \"\"\" and a \\ here."',
    '"""\n    pre: x\n    """',
    None,
])
def test_contract_lines_join_any_docstring(docstring):
    text = add_docstring_lines(f"    {docstring}\n" if docstring else None, ["pre: a", "post: b"], "    ")
    value = ast.literal_eval(text.strip())
    if docstring:
        assert value.startswith(ast.literal_eval(docstring).rstrip())
    assert value.rstrip().endswith("    pre: a\n    post: b")


def test_state_table_search():
    table = build_table(golden_typestate("door"))
    assert table.enabling_calls("S2", "open") == ["close"]
    assert table.enabling_calls("S6", "open") == ["safe", "close", "stop"]
    assert table.methods["open"].constant_target == "S2" and not table.needs_invariants
    stack = build_table(golden_typestate("stack"))
    assert stack.needs_invariants == ("S1", "S2", "S3") and not stack.methods["push"].deterministic


# --- the command ----------------------------------------------------------------------------

def test_command_writes_what_the_api_returns(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    source = "tests/golden/strengthen/door.typestate.json"
    result = CliRunner().invoke(main, ["strengthen", "tests/golden/strengthen/door.py:Door", "--from", source,
                                       "--out", str(tmp_path), "--dialect", "deal"])
    assert result.exit_code == 0, result.output
    written = tmp_path / "door_strengthened.py"
    assert result.output == f"Wrote {written}\n"
    assert written.read_text() == strengthen(golden_model("door"), golden_typestate("door"), "deal", origin=source)
    assert output_path(golden_model("door")) == Path("output/tests.golden.strengthen.door.Door/door_strengthened.py")


@pytest.mark.parametrize("typestate, message", [
    ("{not json", "not JSON"),
    ('{"class": "Door"}', "not a typestate.json"),
    (None, "the typestate is of class BoundedStack, not Door"),
])
def test_command_errors_exit_2_and_write_nothing(tmp_path, monkeypatch, typestate, message):
    monkeypatch.chdir(REPO)
    source = tmp_path / "typestate.json"
    source.write_text(typestate if typestate else (GOLDEN / "stack.typestate.json").read_text())
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["strengthen", "tests/golden/strengthen/door.py:Door", "--from", str(source),
                                       "--out", str(out)])
    assert result.exit_code == 2 and message in result.output, result.output
    assert not out.exists()
