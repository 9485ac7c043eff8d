"""The client checker's corpus (tests/check_corpus): each file's findings are exactly the
`# expect:` comments, and each is confirmed by running the client on the strengthened
classes (a reported call raises TypestateError for some input, a reported leak leaves an
object unreleased); clean client functions run without one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from check_harness import (
    CLASSES,
    CORPUS,
    expected,
    findings,
    header_options,
    typestate_file,
)

from contractor import api
from contractor.check import Mode
from contractor.strengthen import strengthen
from contractor.typestate import Typestate

CLIENTS = sorted(p for p in CORPUS.glob("*.py"))
HELPERS = CORPUS / "helpers_lib.py"


@pytest.mark.parametrize("client", CLIENTS, ids=lambda p: p.stem)
def test_corpus_findings(client: Path):
    source = client.read_text(encoding="utf-8")
    found = findings(sorted({client, HELPERS}), header_options(source), only=client)
    got = sorted((d.line, d.code) for d in found)
    assert got == expected(source), "\n".join(f"{d.path}:{d.line}:{d.col}: {d.message}" for d in found)


RUNNER = r'''
import gc, inspect, itertools, json, sys, traceback
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import connection
from contractor.errors import TypestateError
released = set(json.loads(sys.argv[4]))
leaked = []
def _del(self):
    if getattr(self, "_typestate", None) is not None and self._typestate.name not in released:
        leaked.append(self._typestate.name)
connection.Connection.__del__ = _del
VALUES = {"bool": [False, True], "int": [0, 1, 2]}
out = {}
kept = []
for name in json.loads(sys.argv[3]):
    module = __import__(name)
    for fname, f in vars(module).items():
        if not fname.startswith("client") or not inspect.isfunction(f) or f.__module__ != name:
            continue
        params = list(inspect.signature(f).parameters.values())
        domains = [VALUES[p.annotation if isinstance(p.annotation, str) else p.annotation.__name__]
                   for p in params]
        raised, leaks = [], []
        for args in itertools.product(*domains):
            leaked.clear()
            try:
                kept.append(f(*args))
            except TypestateError:
                frames = [fr for fr in traceback.extract_tb(sys.exc_info()[2]) if fr.filename == module.__file__]
                raised.append(frames[-1].lineno)
            except Exception:
                pass
            gc.collect()
            if leaked:
                leaks.append(list(leaked))
        out[f"{name}.{fname}"] = {"raised": sorted(set(raised)), "leaked": bool(leaks),
                                  "lines": [f.__code__.co_firstlineno,
                                            max(l for _, _, l in f.__code__.co_lines() if l)]}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """Every corpus client function run on the strengthened classes, for every input."""
    folder = tmp_path_factory.mktemp("strengthened")
    released: set[str] = set()
    for cls, path in CLASSES.items():
        ts = Typestate.from_dict(json.loads(typestate_file(cls).read_text()))
        model = api.load_model(f"{path}:{cls}", api.InferOptions(backend="z3"))
        (folder / path.name).write_text(strengthen(model, ts), encoding="utf-8")
        if cls == "Connection":
            released = {t.target for t in ts.transitions if t.method == "close"}
    names = [c.stem for c in CLIENTS]
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(folder), str(CORPUS), json.dumps(names),
                           json.dumps(sorted(released))], check=False, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("client", CLIENTS, ids=lambda p: p.stem)
def test_corpus_confirmed_by_running(client: Path, runs: dict):
    source = client.read_text(encoding="utf-8")
    spec = header_options(source)
    expect = expected(source)
    raised: set[int] = set()
    for name, run in runs.items():
        if not name.startswith(client.stem + "."):
            continue
        raised |= set(run["raised"])
        first, last = run["lines"]
        leaks = {line for line, code in expect if code == "typestate-leak" and first <= line <= last}
        assert run["leaked"] == bool(leaks), f"{name}: leaked {run['leaked']}, expected {sorted(leaks)}"
    calls = {line for line, code in expect if code == "typestate-call"}
    if spec.mode is Mode.SOUND:  # every finding is real, and no other call fails
        assert raised == calls, f"raised TypestateError at lines {sorted(raised)}, expected {sorted(calls)}"
    else:  # complete mode leaves out calls that fail on some paths only
        assert calls <= raised, f"raised TypestateError at lines {sorted(raised)}, expected {sorted(calls)}"
