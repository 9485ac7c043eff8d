"""`contractor view` through HTTP: a real server on a free 127.0.0.1 port, its workers real
processes. The final typestate must be `contractor infer`'s; events arrive live, in order."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from contextlib import ExitStack
from pathlib import Path

import pytest
from view_helpers import (
    BAD,
    ROOT,
    SAMPLES,
    deaf_analyse,
    forking_analyse,
    get,
    get_json,
    post,
    read_events,
    slow_analyse,
    wait_status,
)

from contractor import api
from contractor.outputs import to_mermaid
from contractor.typestate import Typestate
from contractor.view.server import CSP, bind, running, strict_json
from contractor.view.session import Session

Z3 = api.InferOptions(backend="z3")
STATIC = ROOT / "contractor" / "view" / "static"


@pytest.fixture
def serve():
    """serve(root, **session_options) -> the base URL of a running view of `root`."""
    with ExitStack() as stack:
        def start(root: Path, **kwargs) -> str:
            session = Session(root, kwargs.pop("options", Z3), **kwargs)
            stack.callback(session.close)
            start.sessions.append(session)
            return stack.enter_context(running(session))
        start.sessions = []
        yield start


def _comparable(data: dict) -> dict:
    """typestate.json without the run's timing and query counts."""
    return {**data, "stats": {k: v for k, v in data["stats"].items()
                              if k in ("states", "transitions", "backend")}}


def test_page_and_assets_come_from_the_server_only(serve):
    base = serve(SAMPLES, watch=False)
    status, page, headers = get(base)
    assert status == 200 and headers["Content-Security-Policy"] == CSP
    assert "default-src 'self'" in CSP and "connect-src 'self'" in CSP
    html = page.decode()
    refs = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert refs and all(r.startswith(("/", "data:")) for r in refs), refs
    for name in ("view.js", "view.css"):
        status, body, _ = get(base + "static/" + name)
        assert status == 200 and body == (STATIC / name).read_bytes()
        assert set(re.findall(rb"https?://[^\s\"'`)]*", body)) <= {b"http://www.w3.org/2000/svg"}
    assert 'class="legend"' in html and "initial: a constructor" in html


def test_class_list(serve, monkeypatch):
    monkeypatch.chdir(ROOT)
    base = serve(SAMPLES, watch=False)
    data = get_json(base + "api/classes")
    targets = {c["target"]: c["evidence"] for c in data["classes"]}
    assert targets["samples/door.py:Door"] == ["pep316"]
    assert targets["samples/stack.py:BoundedStack"] == ["icontract"]


def test_door_live_events_and_final_typestate_equal_infer(serve, monkeypatch):
    monkeypatch.chdir(ROOT)
    base = serve(SAMPLES, watch=False)
    status, started = post(base + "api/run", {"target": "samples/door.py:Door"})
    assert status == 200 and started["target"] == "samples/door.py:Door"
    events = read_events(base, lambda e: e["type"] in ("done", "error"))
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["run", "model"] and kinds[-1] == "done", kinds
    announced: set[str] = set()
    for e in events:  # each edge only after its states; tooltips come with each element
        if e["type"] == "state":
            announced.add(e["id"])
            assert e["element"] == f"state-{e['id']}" and "enabled: " in e["tooltip"]
        elif e["type"] == "transition":
            assert {e["source"], e["target"]} <= announced
            assert e["element"] == f"transition-{e['index']}" and f"call: {e['method']}(" in e["tooltip"]
    assert kinds.count("state") == 6 and kinds.count("transition") == 15 and "progress" in kinds
    assert kinds.index("state") < kinds.index("done") and "diagram" in kinds
    done = events[-1]
    expected = api.infer("samples/door.py:Door", Z3).to_dict()
    assert _comparable(done["typestate"]) == _comparable(expected)
    assert done["status"] == "done" and done["tooltips"]["state-S1"].startswith("S1 (initial)\nenabled: alarm")

    assert _comparable(get_json(base + "api/export/typestate.json")) == _comparable(expected)
    status, mmd, headers = get(base + "api/export/typestate.mmd")
    assert mmd.decode() == to_mermaid(Typestate.from_dict(done["typestate"]))
    assert headers["Content-Disposition"] == 'attachment; filename="Door.typestate.mmd"'
    status, svg, headers = get(base + "api/export/typestate.svg")
    assert status == 200 and headers["Content-Type"].startswith("image/svg+xml")
    ids = {g.get("id") for g in ET.fromstring(svg).iter() if g.get("class") in ("node state", "node state initial")}
    assert ids == {f"state-S{i}" for i in range(1, 7)}
    assert get(base + "api/export/typestate.exe")[0] == 404

    status, text, _ = get(base + "api/source?path=samples/door.py")
    assert status == 200 and text.decode() == (SAMPLES / "door.py").read_text()
    assert get(base + "api/source?path=/etc/passwd")[0] == 404
    assert get(base + "api/source?path=" + str(ROOT / "contractor" / "api.py"))[0] == 404


def test_the_diagram_is_redrawn_as_the_typestate_grows(serve, monkeypatch):
    monkeypatch.chdir(ROOT)
    base = serve(SAMPLES, watch=False, render_interval=0, worker=slow_analyse)  # ~2 s for the door
    run = post(base + "api/run", {"target": "samples/door.py:Door"})[1]["run"]
    wait_status(base, run, {"done"})
    streamed = [e for e in read_events(base, lambda e: e["type"] == "done") if e["type"] == "diagram"]
    assert len(streamed) == 1 and streamed[0]["final"] is True  # a late reader gets the latest only
    # every redraw, in the session's log: the diagram grew while the exploration ran
    redraws = [e for e in serve.sessions[0].log.since(0) if e["type"] == "diagram"]
    counts = [e["svg"].count('class="node state') for e in redraws]
    edges = [e["svg"].count('class="edge transition') for e in redraws]
    assert len(counts) >= 3 and counts == sorted(counts) and counts[0] < 6 and counts[-1] == 6, counts
    assert edges == sorted(edges) and edges[-1] == 15
    assert [e["final"] for e in redraws] == [False] * (len(redraws) - 1) + [True]


def test_stop_keeps_the_partial_typestate(serve, monkeypatch):
    monkeypatch.chdir(ROOT)
    base = serve(SAMPLES, watch=False, worker=slow_analyse)
    run = post(base + "api/run", {"target": "samples/door.py:Door"})[1]["run"]
    read_events(base, lambda e: e["type"] == "transition" and e["index"] >= 3)
    started = time.monotonic()
    assert post(base + "api/stop")[1] == {"run": run}
    status = wait_status(base, run, {"stopped"}, timeout=20)
    assert time.monotonic() - started < 5
    done = read_events(base, lambda e: e["type"] == "done")[-1]
    assert done["status"] == "stopped" and done["typestate"]["complete"] is False
    found = [t for t in done["typestate"]["transitions"] if t["target"] != "unexplored"]
    assert 4 <= len(found) < 15 and status["transitions"] == len(done["typestate"]["transitions"])
    # what the stop left unasked may lead to the `unexplored` state (contractor.unexplored)
    assert [s["id"] for s in done["typestate"]["states"] if s["unexplored"]] == ["unexplored"]
    assert any(f["kind"] == "incomplete" for f in done["typestate"]["findings"])
    assert get_json(base + "api/export/typestate.json")["complete"] is False


def test_a_new_run_replaces_a_running_one(serve, monkeypatch):
    monkeypatch.chdir(ROOT)
    base = serve(SAMPLES, watch=False, worker=slow_analyse)
    first = post(base + "api/run", {"target": "samples/door.py:Door"})[1]["run"]
    read_events(base, lambda e: e["type"] == "state")
    second = post(base + "api/run", {"target": "samples/turnstile.py:Turnstile"})[1]["run"]
    assert second == first + 1
    wait_status(base, second, {"done"})
    events = read_events(base, lambda e: e["type"] == "done" and e["run"] == second, start=0)
    old = [e for e in events if e["run"] == first]
    assert old[-1]["type"] in ("stopping", "done", "diagram")  # the first run was told to stop
    assert get_json(base + "api/export/typestate.json")["class"] == "Turnstile"


def test_editing_the_source_analyses_it_again(serve, tmp_path, monkeypatch):
    source = tmp_path / "bad.py"
    source.write_text(BAD)
    monkeypatch.chdir(tmp_path)
    base = serve(tmp_path)
    first = post(base + "api/run", {"target": "bad.py:Bad"})[1]["run"]
    events = read_events(base, lambda e: e["type"] == "done")
    finding = events[-1]["typestate"]["findings"][0]
    assert (finding["kind"], finding["method"], finding["line"]) == ("breaks_invariant", "dec", 12)
    time.sleep(0.5)  # the watcher is up once the model is read; give it a moment
    source.write_text(BAD.replace("pre: self.n < 5", "pre: self.n > 0"))
    rerun = read_events(base, lambda e: e["type"] == "run" and e["run"] > first, start=events[-1]["seq"] + 1)[-1]
    assert rerun["reason"] == "bad.py changed"
    done = read_events(base, lambda e: e["type"] == "done" and e["run"] == rerun["run"], start=rerun["seq"])[-1]
    assert done["typestate"]["findings"] == []  # dec now needs n > 0: the invariant holds
    expected = api.infer("bad.py:Bad", Z3).to_dict()
    assert _comparable(done["typestate"]) == _comparable(expected)


def test_a_bad_target_is_an_error_event(serve, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = serve(tmp_path, watch=False)
    assert post(base + "api/run", {"nothing": 1})[0] == 400
    post(base + "api/run", {"target": "nosuch.py:Nope"})
    error = read_events(base, lambda e: e["type"] in ("error", "done"))[-1]
    assert error["type"] == "error" and "no such file: nosuch.py" in error["message"]
    assert get_json(base + "api/status")["status"] == "failed"


def test_cli_help_and_bad_input_exit_2(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    help_text = subprocess.run([sys.executable, "-m", "contractor", "view", "--help"], capture_output=True,
                               text=True, env=env, cwd=tmp_path)
    assert help_text.returncode == 0 and "--no-browser" in help_text.stdout and "127.0.0.1" in help_text.stdout
    bad = subprocess.run([sys.executable, "-m", "contractor", "view", "nosuch.py:Nope", "--no-browser"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert bad.returncode == 2 and "error: no such file: nosuch.py" in bad.stderr
    taken = bind(0)
    try:
        busy = subprocess.run([sys.executable, "-m", "contractor", "view", "--no-browser", "--port",
                               str(taken.getsockname()[1])], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=60)
    finally:
        taken.close()
    assert busy.returncode == 2 and "cannot listen on 127.0.0.1:" in busy.stderr and "--port" in busy.stderr


def test_cli_view_of_a_target_starts_its_analysis_and_stops_on_ctrl_c():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "contractor", "view", "samples/door.py:Door", "--port", "0",
                             "--no-browser", "--backend", "z3"], cwd=ROOT, env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", line).group(1)
        status = wait_status(url, 1, {"done"})
        assert (status["states"], status["transitions"]) == (6, 15)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_events_are_strict_json_even_with_nan_witnesses(serve, tmp_path):
    base = serve(tmp_path, watch=False)
    session = serve.sessions[0]
    session.log.append({"type": "transition", "run": 0, "witness": {"args": {"when": float("nan")},
                                                                     "after": {"t": float("-inf"), "n": 1.5}}})

    def strict(text: str):
        return json.loads(text, parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))

    raw = get_stream_line(base)
    assert strict(raw)["witness"] == {"args": {"when": {"__float__": "nan"}},
                                      "after": {"t": {"__float__": "-inf"}, "n": 1.5}}
    assert strict(strict_json([float("inf"), (1, float("nan"))])) == [{"__float__": "inf"}, [1, {"__float__": "nan"}]]


def get_stream_line(base: str) -> str:
    import urllib.request

    with urllib.request.urlopen(f"{base}api/events?from=0", timeout=10) as stream:
        for raw in stream:
            if raw.startswith(b"data: "):
                return raw[len(b"data: "):].decode()
    raise AssertionError("no event")


def test_a_worker_deaf_to_stop_is_ended_and_its_states_kept(serve, tmp_path):
    base = serve(tmp_path, watch=False, worker=deaf_analyse, stop_grace=0.5)
    run = post(base + "api/run", {"target": "stuck.py:Stuck"})[1]["run"]
    read_events(base, lambda e: e["type"] == "state")
    process = serve.sessions[0].current.process
    post(base + "api/stop")
    wait_status(base, run, {"stopped"}, timeout=10)
    done = read_events(base, lambda e: e["type"] == "done")[-1]
    assert [s["id"] for s in done["typestate"]["states"]] == ["S1"] and done["typestate"]["complete"] is False
    process.join(timeout=5)
    assert not process.is_alive()


def test_the_analysis_may_start_processes_of_its_own(serve, monkeypatch):
    monkeypatch.chdir(ROOT)
    base = serve(SAMPLES, watch=False, worker=forking_analyse)
    run = post(base + "api/run", {"target": "samples/door.py:Door"})[1]["run"]
    status = wait_status(base, run, {"done", "failed"})
    assert status["status"] == "done", read_events(base, lambda e: e["type"] in ("done", "error"))[-1]
