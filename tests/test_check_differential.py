"""Differential test of the client checker against concrete execution: random clients of
the train door (calls, branches on the inputs, loops, aliases, helpers, try/except,
early returns) are checked, then run for every input on the strengthened Door.

- sound mode misses nothing: every call that raises TypestateError is reported;
- a client without branches or loops is checked exactly: the first failing call is the
  only finding;
- complete mode reports a subset of sound mode's findings, and has no false alarm: a
  run reaching a line it reports fails there."""

from __future__ import annotations

import itertools
import json
import sys
import traceback
from functools import cache

from check_harness import CLASSES, typestate_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from contractor import api
from contractor.check import CheckOptions, Mode, check, load_protocols
from contractor.errors import TypestateError
from contractor.strengthen import strengthen
from contractor.typestate import Typestate

METHODS = ["alarm", "close", "open", "safe", "start", "stop"]


@cache
def strengthened_door() -> type:
    ts = Typestate.from_dict(json.loads(typestate_file("Door").read_text()))
    model = api.load_model(f"{CLASSES['Door']}:Door", api.InferOptions(backend="z3"))
    namespace: dict = {"__name__": "door_strengthened"}
    exec(compile(strengthen(model, ts), "door_strengthened", "exec"), namespace)  # noqa: S102 (generated code)
    return namespace["Door"]


@st.composite
def block(draw, depth: int, straight: bool, indent: str = "    ") -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        kinds = ["call", "call", "call", "alias", "helper"]
        if not straight and depth < 2:
            kinds += ["if", "for", "try", "return"]
        kind = draw(st.sampled_from(kinds))
        if kind == "call":
            lines.append(f"{indent}{draw(st.sampled_from(['d', 'e']))}.{draw(st.sampled_from(METHODS))}()")
        elif kind == "alias":
            lines.append(f"{indent}e = d")
        elif kind == "helper":
            lines.append(f"{indent}{draw(st.sampled_from(['h1', 'h2']))}(d)")
        elif kind == "if":
            lines.append(f"{indent}if {draw(st.sampled_from(['a', 'b', 'not a']))}:")
            lines += draw(block(depth + 1, straight, indent + "    "))
            if draw(st.booleans()):
                lines.append(f"{indent}else:")
                lines += draw(block(depth + 1, straight, indent + "    "))
        elif kind == "for":
            lines.append(f"{indent}for _ in range({draw(st.integers(0, 3))}):")
            lines += draw(block(depth + 1, straight, indent + "    "))
        elif kind == "try":
            lines.append(f"{indent}try:")
            lines += draw(block(depth + 1, straight, indent + "    "))
            lines.append(f"{indent}    if b:")
            lines.append(f"{indent}        raise ValueError()")
            lines += draw(block(depth + 1, straight, indent + "    "))
            lines.append(f"{indent}except ValueError:")
            lines += draw(block(depth + 1, straight, indent + "    "))
        elif kind == "return":
            lines.append(f"{indent}if a:")
            lines.append(f"{indent}    return")
    return lines


@st.composite
def client(draw, straight: bool) -> str:
    helpers = []
    for name in ("h1", "h2"):
        body = [f"    x.{draw(st.sampled_from(METHODS))}()" for _ in range(draw(st.integers(1, 2)))]
        helpers.append(f"def {name}(x):\n" + "\n".join(body) + "\n")
    body = ["    d = Door()", "    e = d"] + draw(block(0, straight))
    return "from door import Door\n\n" + "\n".join(helpers) + "\n\ndef client(a, b):\n" + "\n".join(body) + "\n"


def findings(tmp_path, source: str, mode: Mode) -> set[int]:
    path = tmp_path / "client.py"
    path.write_text(source)
    protocols = load_protocols(typestates=[typestate_file("Door")])
    return {d.line for d in check([path], protocols, CheckOptions(mode)) if d.code == "typestate-call"}


def runs(source: str) -> list[tuple[set[int], int | None]]:
    """For every input: (the lines of client() it ran, the line whose call raised
    TypestateError, or None)."""
    code = compile(source.replace("from door import Door", "pass", 1), "<client>", "exec")
    namespace: dict = {"Door": strengthened_door()}
    exec(code, namespace)  # noqa: S102 (the generated client)
    out = []
    for a, b in itertools.product([False, True], repeat=2):
        reached: set[int] = set()

        def trace(frame, event, arg, reached=reached):
            if frame.f_code.co_name == "client" and frame.f_code.co_filename == "<client>":
                if event == "line":
                    reached.add(frame.f_lineno)
                return trace
            return None

        failed = None
        sys.settrace(trace)
        try:
            namespace["client"](a, b)
        except TypestateError as err:
            frames = [f for f in traceback.extract_tb(err.__traceback__) if f.name == "client"]
            failed = frames[-1].lineno  # the call in client() (of the door or of a helper)
        finally:
            sys.settrace(None)
        out.append((reached, failed))
    return out


def failures(source: str) -> set[int]:
    """Lines of the client where some input makes a call raise TypestateError."""
    return {failed for _, failed in runs(source) if failed is not None}


SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(client(straight=False))
def test_sound_mode_misses_no_failing_call(tmp_path, source):
    reported = findings(tmp_path, source, Mode.SOUND)
    assert failures(source) <= reported, source
    assert findings(tmp_path, source, Mode.COMPLETE) <= reported, source


@SETTINGS
@given(client(straight=False))
def test_complete_mode_has_no_false_alarm(tmp_path, source):
    """Every run that reaches a line complete mode reports fails there."""
    for line in findings(tmp_path, source, Mode.COMPLETE):
        for reached, failed in runs(source):
            assert line not in reached or failed == line, source


@SETTINGS
@given(client(straight=True))
def test_straight_line_clients_are_checked_exactly(tmp_path, source):
    assert findings(tmp_path, source, Mode.SOUND) == failures(source), source
