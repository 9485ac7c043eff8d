"""Tests of the output formats and the writer on the train door's typestate, built by hand.

The door (BACKGROUND.md) has one concrete object per abstract state, so its typestate is
deterministic; S2 --start--> S5 is marked "may" here to test how may-transitions look.
"""

from __future__ import annotations

import itertools
import json
import re
import time
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from contractor.errors import ContractorError
from contractor.outputs import html as html_module
from contractor.outputs import render as render_module
from contractor.outputs import (
    render_png,
    render_svg,
    to_dot,
    to_html,
    to_json,
    to_mermaid,
    to_text,
    write_artifacts,
)
from contractor.outputs.dot import quote
from contractor.outputs.tooltips import witness_text
from contractor.typestate import (
    Finding,
    Initialization,
    State,
    Stats,
    Transition,
    Typestate,
    Unknown,
)

DOOR_STATES = {  # id -> (enabled, (closed, moving, danger))
    "S1": (("alarm", "open", "start"), (True, False, False)),
    "S2": (("safe", "start"), (False, False, True)),
    "S3": (("alarm", "close", "start"), (False, False, False)),
    "S4": (("alarm", "stop"), (True, True, False)),
    "S5": (("safe", "stop"), (False, True, True)),
    "S6": (("alarm", "close", "stop"), (False, True, False)),
}
DOOR_TRANSITIONS = [  # BFS order, methods sorted per state
    ("S1", "alarm", "S2"),
    ("S1", "open", "S3"),
    ("S1", "start", "S4"),
    ("S2", "safe", "S3"),
    ("S2", "start", "S5"),
    ("S3", "alarm", "S2"),
    ("S3", "close", "S1"),
    ("S3", "start", "S4"),
    ("S4", "alarm", "S5"),
    ("S4", "stop", "S1"),
    ("S5", "safe", "S6"),
    ("S5", "stop", "S2"),
    ("S6", "alarm", "S5"),
    ("S6", "close", "S4"),
    ("S6", "stop", "S3"),
]
MAY = ("S2", "start", "S5")


def _predicate(values: tuple[bool, bool, bool]) -> str:
    return " and ".join(
        f"self.{name}" if on else f"not self.{name}"
        for name, on in zip(("closed", "moving", "danger"), values)
    )


def door_typestate() -> Typestate:
    states = tuple(
        State(sid, enabled, _predicate(values), initial=sid == "S1", witnessed=True)
        for sid, (enabled, values) in DOOR_STATES.items()
    )
    transitions = tuple(
        (
            Transition(s, m, t, "may", None, "z3", "timeout")
            if (s, m, t) == MAY
            else Transition(
                s,
                m,
                t,
                "must",
                {
                    "fields": dict(zip(("closed", "moving", "danger"), DOOR_STATES[s][1])),
                    "args": {},
                },
            )
        )
        for s, m, t in DOOR_TRANSITIONS
    )
    return Typestate(
        class_name="Door",
        source="samples/door.py",
        methods=("alarm", "close", "open", "safe", "start", "stop"),
        constructors=("__init__",),
        states=states,
        transitions=transitions,
        initializations=(Initialization("__init__", "S1", "must", {"args": {}}),),
        findings=(
            Finding(
                "breaks_invariant",
                "start can break the invariant <danger -> not closed>",
                method="start",
                counterexample={"fields": {"danger": True}, "args": {}},
                line=12,
            ),
        ),
        unknowns=(Unknown("open", 20, "while loop", "beyond the unroll bound"),),
        stats=Stats(6, 15, 42, 0.25, "z3", {"z3": 42}),
        dialects=("pep316",),
        fields={"closed": "bool", "moving": "bool", "danger": "bool"},
    )


def stuck_typestate() -> Typestate:
    return Typestate(
        class_name="Jam",
        source="jam.py",
        methods=("go",),
        constructors=("__init__",),
        states=(State("S1", ("go",), "self.n == 0", initial=True), State("S2", (), "self.n == 1")),
        transitions=(Transition("S1", "go", "S2", "must"),),
        initializations=(Initialization("__init__", "S1", "must"),),
        findings=(Finding("no_enabled_method", "state S2 enables no method", state="S2"),),
        unknowns=(),
        stats=Stats(2, 1, 3, 0.01, "z3", {"z3": 3}),
        complete=False,
    )


EDGE = re.compile(r'^\s*"(\w+)" -> "(\w+)" \[(.*)\];$', re.M)


def test_door_typestate_is_the_papers():
    ts = door_typestate()
    assert len(ts.states) == 6 and len(ts.transitions) == 15
    assert {s.enabled for s in ts.states} == {
        ("alarm", "open", "start"),
        ("alarm", "close", "start"),
        ("alarm", "close", "stop"),
        ("alarm", "stop"),
        ("safe", "start"),
        ("safe", "stop"),
    }
    for t in ts.transitions:  # every transition leaves by an enabled method
        assert t.method in ts.state(t.source).enabled


def test_dot_edges_dashed_exactly_for_may_transitions():
    dot = to_dot(door_typestate())
    edges = [(s, t, attrs) for s, t, attrs in EDGE.findall(dot) if s != "__start__"]
    assert len(edges) == 15
    dashed = {(s, t) for s, t, attrs in edges if 'style="dashed"' in attrs}
    assert dashed == {("S2", "S5")}
    assert 'label="start?"' in next(a for s, t, a in edges if (s, t) == ("S2", "S5"))
    labels = {(s, re.search(r'label="([^"]*)"', a).group(1), t) for s, t, a in edges}
    assert labels == {(s, m + "?" if (s, m, t) == MAY else m, t) for s, m, t in DOOR_TRANSITIONS}


def test_dot_marks_initial_state_with_a_start_dot_not_a_double_circle():
    dot = to_dot(door_typestate())
    assert "doublecircle" not in dot
    start = re.search(r'^\s*"__start__" \[(.*)\];$', dot, re.M).group(1)
    assert 'shape="point"' in start and "invis" not in start
    init = re.search(r'^\s*"__start__" -> "S1" \[(.*)\];$', dot, re.M).group(1)
    assert 'label="__init__"' in init and 'id="init-0"' in init and 'minlen="2"' in init
    s1 = re.search(r'^\s*"S1" \[(.*)\];$', dot, re.M).group(1)
    assert 'style="bold"' in s1 and 'class="state initial"' in s1 and 'id="state-S1"' in s1
    assert 'label="S1\\nalarm, open, start"' in s1
    s2 = re.search(r'^\s*"S2" \[(.*)\];$', dot, re.M).group(1)
    assert "bold" not in s2 and 'label="S2\\nsafe, start"' in s2


def test_dot_tooltips_explain_states_and_transitions():
    dot = to_dot(door_typestate())
    s1 = re.search(r'^\s*"S1" \[(.*)\];$', dot, re.M).group(1)
    assert ('tooltip="S1 (initial)\\nenabled: alarm, open, start\\n'
            'invariant: self.closed and not self.moving and not self.danger"') in s1
    edges = {(s, t): a for s, t, a in EDGE.findall(dot)}
    alarm = edges[("S1", "S2")]
    assert 'id="transition-0"' in alarm and 'class="transition must"' in alarm
    assert "object before: closed=True, moving=False, danger=False" in alarm
    assert "call: alarm()" in alarm
    may = edges[("S2", "S5")]
    assert 'class="transition may"' in may and "may: the solver could not decide" in may
    assert "reason: timeout" in may


def test_witness_text_is_readable():
    witness = {"fields": {"n": 1, "name": "a"}, "args": {"x": None, "xs": [1, 2]},
               "after": {"n": 2, "name": "a"}}
    assert witness_text(witness, "push") == (
        "object before: n=1, name='a'; call: push(x=None, xs=[1, 2]); changed: n=2")
    assert witness_text({"args": {}, "after": {"ok": True}}, "__init__") == (
        "call: __init__(); object after: ok=True")
    assert witness_text(None, "m") == ""
    assert witness_text({"args": {"when": float("nan"), "x": float("-inf")}}, "f") == (
        "call: f(when=float('nan'), x=float('-inf'))")


def test_dot_lists_always_enabled_methods_once():
    ts = replace(
        door_typestate(),
        states=tuple(replace(s, enabled=tuple(sorted(s.enabled + ("peek",)))) for s in door_typestate().states),
        transitions=door_typestate().transitions + (Transition("S1", "peek", "S1", "must"),
                                                    Transition("S2", "peek", "S3", "may")),
    )
    dot = to_dot(ts)
    assert "always enabled (in every state, self-loops not drawn): peek" in dot
    assert 'label="S1\\nalarm, open, start"' in dot
    edges = EDGE.findall(dot)
    assert not any(s == t == "S1" for s, t, _ in edges)  # the self-loop of peek is hidden
    assert any((s, t) == ("S2", "S3") and 'label="peek?"' in a for s, t, a in edges)


def test_dot_styles_stuck_states_and_titles_partial_results():
    dot = to_dot(stuck_typestate())
    s2 = re.search(r'^\s*"S2" \[(.*)\];$', dot, re.M).group(1)
    assert "stuck" in s2 and 'style="filled"' in s2
    assert "PARTIAL" in dot
    assert "PARTIAL" not in to_dot(door_typestate())


def test_dot_quotes_special_characters():
    assert quote('a "b" \\ c\nd') == '"a \\"b\\" \\\\ c\\nd"'


def test_mermaid():
    mmd = to_mermaid(door_typestate()).splitlines()
    assert mmd[0] == "stateDiagram-v2"
    assert "    [*] --> S1 : __init__" in mmd
    assert "    S1 : alarm, open, start" in mmd
    assert "    S2 --> S5 : start (may)" in mmd
    assert "    S1 --> S2 : alarm" in mmd
    arrows = [line for line in mmd if "-->" in line and "[*]" not in line]
    assert len(arrows) == 15 and sum("(may)" in a for a in arrows) == 1
    stuck = to_mermaid(stuck_typestate())
    assert "S2 : stuck: no method enabled" in stuck and "class S2 stuck" in stuck


def test_svg_parses_and_shows_every_state_and_the_dashed_edge():
    svg = render_svg(to_dot(door_typestate()))
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    texts = {t.text for t in root.iter() if t.tag.endswith("text")}
    assert {f"S{i}" for i in range(1, 7)} <= texts
    assert "start?" in texts
    dashed = [e for e in root.iter() if e.tag.endswith("path") and e.get("stroke-dasharray")]
    assert len(dashed) == 1


def test_png_needs_system_dot(monkeypatch):
    monkeypatch.setattr(render_module, "system_dot", lambda: None)
    with pytest.raises(ContractorError, match="PNG output needs the Graphviz `dot`"):
        render_png("digraph { a -> b }")


def test_bad_dot_is_a_contractor_error():
    with pytest.raises(ContractorError, match="could not render"):
        render_svg("digraph { a -> ")


def test_html_report():
    ts = replace(
        door_typestate(),
        findings=(
            Finding(
                "may_raise",
                "open can raise <ValueError> & more",
                method="open",
                counterexample={"fields": {"closed": True}},
            ),
        ),
    )
    page = to_html(ts, render_svg(to_dot(ts)))
    assert page.startswith("<!DOCTYPE html>")
    assert "<?xml" not in page and page.count("<svg") - page.count('<svg width="') == 1
    for sid in DOOR_STATES:
        assert f'<tr id="state-{sid}"><td>{sid}</td>' in page
    assert "open can raise &lt;ValueError&gt; &amp; more" in page
    assert "while loop" in page and "PARTIAL" not in page
    assert page.count('class="may"') == 1
    assert "<strong>PARTIAL</strong>" in to_html(stuck_typestate(), None)
    # fitted to the page's width, with a legend, readable witnesses, no empty columns
    assert re.search(r'<svg [^>]*class="typestate-diagram" width="100%" style="max-width: \d+pt"', page)
    assert 'class="legend"' in page and "initial: a constructor" in page and "stuck: no method" in page
    assert "call: alarm(); changed:" not in page  # the sample's witnesses have no "after"
    assert "object before: closed=True, moving=False, danger=False; call: alarm()" in page
    assert "witnessed" in page  # the sample's states are witnessed: the column is shown
    unwitnessed = replace(ts, states=tuple(replace(s, witnessed=False) for s in ts.states))
    assert "<th>witnessed</th>" not in to_html(unwitnessed, None)



def test_json_round_trip_and_stability():
    ts = door_typestate()
    text = to_json(ts)
    data = json.loads(text)
    assert Typestate.from_dict(data) == ts
    assert text == to_json(Typestate.from_dict(data))
    assert list(data)[:3] == ["schema", "class", "source"]
    assert data["initial"] == ["S1"]
    assert data["stats"]["states"] == 6 and data["stats"]["transitions"] == 15
    assert text.endswith("}\n") and '\n  "class": "Door",' in text


def test_summary_text():
    text = to_text(door_typestate())
    assert text.startswith("Door (samples/door.py): 6 states, 15 transitions (1 may)\n")
    assert "  S1 (initial, witnessed): alarm, open, start\n" in text
    assert "      invariant: self.closed and not self.moving and not self.danger\n" in text
    assert "  S1 --alarm--> S2\n" in text
    assert "  S2 --start--> S5  [may: timeout]\n" in text
    assert "  __init__ -> S1\n" in text
    assert ("\nsamples/door.py:12:1: error: Door: start can break the invariant <danger -> not closed> "
            "[breaks_invariant]\n") in text
    assert "counterexample: fields: danger=True; args: -" in text
    assert "  open, line 20: while loop: beyond the unroll bound\n" in text
    assert "Solver queries: 42 (z3: 42)" in text
    assert "PARTIAL" not in text
    stuck = to_text(stuck_typestate())
    assert "PARTIAL" in stuck.splitlines()[0] and "S2: nothing (stuck)" in stuck


def test_writer_writes_every_artifact(tmp_path):
    out = tmp_path / "output" / "Door"
    paths = write_artifacts(door_typestate(), out, png=False)
    names = [p.name for p in paths]
    assert names == [
        "typestate.json",
        "typestate.dot",
        "typestate.mmd",
        "typestate.svg",
        "report.html",
    ]
    assert sorted(p.name for p in out.iterdir()) == sorted(names)
    assert (out / "typestate.json").read_text() == to_json(door_typestate())
    assert (out / "typestate.mmd").read_text() == to_mermaid(door_typestate())


def test_writer_options_and_stale_files(tmp_path):
    (tmp_path / "typestate.png").write_bytes(b"old png")
    (tmp_path / "notes.txt").write_text("mine")
    paths = write_artifacts(door_typestate(), tmp_path, svg=False, html=False)
    assert [p.name for p in paths] == ["typestate.json", "typestate.dot", "typestate.mmd"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "notes.txt",
        "typestate.dot",
        "typestate.json",
        "typestate.mmd",
    ]


def _fail(*args, **kwargs):
    raise ContractorError("renderer broke")


@pytest.mark.parametrize("what", ["svg", "html"])
def test_writer_failure_leaves_existing_output_untouched(tmp_path, monkeypatch, what):
    out = tmp_path / "Door"
    out.mkdir()
    (out / "typestate.json").write_text("previous run")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    # the writer imports the renderers when it needs them: patch them where they live
    module = render_module if what == "svg" else html_module
    monkeypatch.setattr(module, "render_svg" if what == "svg" else "to_html", _fail)
    with pytest.raises(ContractorError, match="renderer broke"):
        write_artifacts(door_typestate(), out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_writer_failure_creates_no_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(render_module, "render_png", _fail)
    out = tmp_path / "output" / "Door"
    with pytest.raises(ContractorError):
        write_artifacts(door_typestate(), out, png=True)
    assert not (tmp_path / "output").exists()


def test_writer_write_error_removes_temporary_files(tmp_path, monkeypatch):
    out = tmp_path / "output" / "Door"
    real_open = open
    calls = []

    def flaky_open(path, mode="r", *args, **kwargs):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", flaky_open)
    with pytest.raises(ContractorError, match="No space left"):
        write_artifacts(door_typestate(), out, svg=False, html=False)
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


def test_writer_interrupted_while_writing_leaves_existing_output(tmp_path, monkeypatch):
    (tmp_path / "typestate.json").write_text("previous run")
    real_open = open
    calls = []

    def interrupted_open(path, mode="r", *args, **kwargs):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", interrupted_open)
    with pytest.raises(KeyboardInterrupt):
        write_artifacts(door_typestate(), tmp_path, svg=False, html=False)
    monkeypatch.undo()
    assert [(p.name, p.read_text()) for p in tmp_path.iterdir()] == [
        ("typestate.json", "previous run")
    ]


def test_writer_refuses_a_file_as_folder(tmp_path):
    target = tmp_path / "taken"
    target.write_text("x")
    with pytest.raises(ContractorError, match="not a folder"):
        write_artifacts(door_typestate(), target, svg=False, html=False)
    assert Path(target).read_text() == "x"


def flags_typestate(n: int) -> Typestate:
    """n independent flags, each with set_i/clear_i: 2^n states, n * 2^n transitions."""
    ids = {bits: f"S{k + 1}" for k, bits in enumerate(itertools.product((0, 1), repeat=n))}
    states = tuple(
        State(
            sid,
            tuple(sorted(f"{'clear' if b else 'set'}_{i}" for i, b in enumerate(bits))),
            "",
            initial=not any(bits),
        )
        for bits, sid in ids.items()
    )
    transitions = tuple(
        Transition(
            sid,
            f"{'clear' if bits[i] else 'set'}_{i}",
            ids[bits[:i] + (1 - bits[i],) + bits[i + 1 :]],
            "must",
        )
        for bits, sid in ids.items()
        for i in range(n)
    )
    return Typestate(
        "Flags",
        "flags.py",
        (),
        ("__init__",),
        states,
        transitions,
        (Initialization("__init__", "S1", "must"),),
        (),
        (),
        Stats(),
    )


def test_large_typestates_use_a_fast_layout():
    small, large = to_dot(flags_typestate(4)), to_dot(flags_typestate(6))
    assert "layout" not in small and 'layout="neato"' in large
    started = time.perf_counter()
    root = ET.fromstring(render_svg(large))  # dot's own layout takes minutes here
    assert time.perf_counter() - started < 10
    texts = {t.text for t in root.iter() if t.tag.endswith("text")}
    assert {"S1", "S64", "set_5", "clear_0"} <= texts


def test_system_dot_is_preferred_when_present(monkeypatch):
    import graphviz

    calls = []

    def pipe(self, format, engine):
        calls.append((format, engine, self.source.strip()))
        if "broken" in self.source:
            raise graphviz.CalledProcessError(1, ["dot"], stderr=b"syntax error in line 1")
        return b"<" + format.encode() + b">"

    monkeypatch.setattr(render_module, "system_dot", lambda: "/usr/bin/dot")
    monkeypatch.setattr(graphviz.Source, "pipe", pipe)
    assert render_svg("digraph { a }") == b"<svg>" and render_png("digraph { a }") == b"<png>"
    assert calls == [("svg", "dot", "digraph { a }"), ("png", "dot", "digraph { a }")]
    with pytest.raises(ContractorError, match="syntax error in line 1"):
        render_png("digraph { broken")


def _always_typestate() -> Typestate:
    """The door with a `log` method enabled everywhere, self-looping in each state."""
    door = door_typestate()
    states = tuple(replace(s, enabled=tuple(sorted(s.enabled + ("log",)))) for s in door.states)
    loops = tuple(Transition(s.id, "log", s.id, "must") for s in door.states)
    moves = (Transition("S1", "log", "S2", "may"),)  # not a self-loop: still shown
    return replace(door, states=states, transitions=door.transitions + loops + moves,
                   methods=tuple(sorted(door.methods + ("log",))))


def test_always_enabled_property():
    assert door_typestate().always_enabled == ()
    ts = _always_typestate()
    assert ts.always_enabled == ("log",)
    assert replace(ts, states=ts.states[:1]).always_enabled == ("alarm", "log", "open", "start")
    assert replace(ts, states=()).always_enabled == ()


def test_summary_and_mermaid_show_always_enabled_once():
    ts = _always_typestate()
    text = to_text(ts)
    assert "always enabled: log (in every state" in text
    assert "  S1 (initial, witnessed): alarm, open, start\n" in text
    assert "--log--> S1\n" not in text and "  S1 --log--> S2  [may]\n" in text
    assert text.count("--log-->") == 1
    mmd = to_mermaid(ts)
    assert "note right of S1 : always enabled (in every state): log" in mmd
    assert "    S1 : alarm, open, start\n" in mmd
    assert "    S1 --> S2 : log (may)\n" in mmd and mmd.count(" : log") == 1
    only = replace(ts, states=tuple(replace(s, enabled=("log",)) for s in ts.states))
    assert "S1 (initial, witnessed): only the always-enabled methods" in to_text(only)
    assert "S1 : always-enabled methods only" in to_mermaid(only)


def test_large_typestates_get_a_note_instead_of_an_unreadable_drawing(monkeypatch):
    """Beyond DRAW_LIMIT edges (after folding) the SVG is a note, and Graphviz never starts."""
    from contractor.outputs import diagram as diagram_module

    monkeypatch.setattr(render_module, "render_svg", _fail)
    ts = flags_typestate(6)  # 64 states, 384 transitions, no self-loop, no method enabled everywhere
    d = diagram_module.diagram(ts)
    assert d.dot is None and "384 transitions" in d.note
    started = time.perf_counter()
    files = writer_module_render(ts)
    assert time.perf_counter() - started < 2
    root = ET.fromstring(files["typestate.svg"])
    text = " ".join(t.text for t in root.iter() if t.tag.endswith("text"))
    assert "too many to draw" in text and "typestate.json" in text
    assert "too many to draw" in files["report.html"].decode()
    assert files["typestate.dot"].decode().count(" -> ") == 384 + 1  # the DOT file keeps the whole graph


def writer_module_render(ts):
    from contractor.outputs.writer import render_artifacts

    return render_artifacts(ts)


def test_folded_diagram_lists_self_loops_and_leaves_out_methods_enabled_everywhere():
    from contractor.outputs.diagram import DRAW_LIMIT, diagram

    base = flags_typestate(4)  # 16 states, 64 transitions
    lookers = ("look", "peek", "size", "show", "view")
    states = tuple(replace(s, enabled=tuple(sorted(s.enabled + lookers + ("reset",)))) for s in base.states)
    loops = tuple(Transition(s.id, m, s.id, "must") for s in states for m in lookers)
    resets = tuple(Transition(s.id, "reset", "S1", "may") for s in states)
    ts = replace(base, states=states, transitions=base.transitions + loops + resets)
    assert len(ts.transitions) > DRAW_LIMIT  # 160, of which 80 self-loops
    d = diagram(ts)
    assert d.dot is not None and "self-loops" in d.note and "not drawn" not in d.note
    assert d.dot.count(" -> ") == 1 + 64 + 15 and "loops: look, peek, size" in d.dot  # S1 --reset--> S1 folds
    more = replace(ts, transitions=ts.transitions + tuple(
        Transition(s.id, "reset", f"S{k}", "may") for s in states for k in range(2, 7)))
    d = diagram(more)  # 64 + 96 resets > DRAW_LIMIT: reset (enabled everywhere) is left out
    assert d.dot is not None and "reset (enabled everywhere) not drawn" in d.dot
    assert d.dot.count(" -> ") == 1 + 64


def test_report_text_is_escaped_as_jinja2_autoescaping_escapes_it():
    """report.html is written without a template engine; its escaping is markupsafe's."""
    from markupsafe import escape

    from contractor.outputs.htmltext import html_text
    from contractor.typestate import FindingKind

    for value in ["a<b & c>'d'\"e\"", "plain", 3, None, 1.5, list(FindingKind)[0], "&amp;"]:
        assert html_text(value) == str(escape(value))
    ts = door_typestate()
    page = to_html(replace(ts, class_name="D<o>or", dialects=("a&b",)), None)
    assert "<title>D&lt;o&gt;or typestate</title>" in page and "contracts: a&amp;b</p>" in page
