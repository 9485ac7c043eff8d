"""Tests of `contractor infer`: options, errors and exit codes (with a concrete fake backend
standing in for the solver), and end-to-end runs on samples/door.py with the real z3 backend."""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from contractor import api
from contractor.backend import Target
from contractor.cli import main
from contractor.errors import InputError, Location
from contractor.model import BOOL, ClassModel, Field
from contractor.outputs import render as render_module
from contractor.outputs import to_json
from contractor.settings import DEFAULT_BUDGET, DEFAULT_CROSSHAIR_BUDGET
from contractor.typestate import Finding, Typestate

REPO = Path(__file__).resolve().parent.parent
DOOR = f"{REPO / 'samples' / 'door.py'}:Door"
DOOR_STATES = {  # the train door's typestate, numbered in BFS order (BACKGROUND.md)
    "S1": ("alarm", "open", "start"),
    "S2": ("safe", "start"),
    "S3": ("alarm", "close", "start"),
    "S4": ("alarm", "stop"),
    "S5": ("safe", "stop"),
    "S6": ("alarm", "close", "stop"),
}
DOOR_TRANSITIONS = {
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
}
ARTIFACTS = ["report.html", "typestate.dot", "typestate.json", "typestate.mmd", "typestate.svg"]


class ConcreteDoor:
    """A Backend that decides the door's typestate by enumerating its 6 concrete objects."""

    name = "fake"
    PRE = {
        "open": lambda c, m, d: c and not m,
        "close": lambda c, m, d: not c and not d,
        "start": lambda c, m, d: not m,
        "stop": lambda c, m, d: m,
        "alarm": lambda c, m, d: not d,
        "safe": lambda c, m, d: d,
    }
    POST = {
        "open": lambda c, m, d: (False, m, d),
        "close": lambda c, m, d: (True, m, d),
        "start": lambda c, m, d: (c or not d, True, d),
        "stop": lambda c, m, d: (c, False, d),
        "alarm": lambda c, m, d: (False, m, True),
        "safe": lambda c, m, d: (c, m, False),
    }

    def __init__(self, findings=(), on_targets=None):
        self.calls = 0
        self._findings = list(findings)
        self.on_targets = on_targets

    def enabled(self, obj):
        return frozenset(m for m, pre in self.PRE.items() if pre(*obj))

    def objects(self):
        bits = (False, True)
        return [(c, m, d) for c in bits for m in bits for d in bits if not (d and c)]

    def initial_targets(self, constructor):
        self.calls += 1
        return [Target(self.enabled((True, False, False)), "must", backend="fake")]

    def targets(self, source, method):
        self.calls += 1
        if self.on_targets:
            self.on_targets(self.calls)
        after = {
            self.enabled(self.POST[method](*o)) for o in self.objects() if self.enabled(o) == source
        }
        return [Target(e, "must", backend="fake") for e in after]

    def findings(self):
        return self._findings

    def state_invariant(self, enabled):
        return " or ".join(repr(o) for o in self.objects() if self.enabled(o) == enabled)

    def undecided(self, enabled):
        return ()

    def unknowns(self):
        return []

    def queries(self):
        return {"fake": self.calls}


def door_model() -> ClassModel:
    module = ast.parse("class Door:\n    pass\n")
    loc = Location("door.py", 1)
    return ClassModel(
        name="Door",
        path="door.py",
        source="",
        node=module.body[0],
        module=module,
        fields={n: Field(n, BOOL, loc) for n in ("closed", "moving", "danger")},
        invariants=(),
        methods={},
        actions=tuple(sorted(ConcreteDoor.PRE)),
        constructors=("__init__",),
        dialects=("pep316",),
    )


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """Run the CLI in tmp_path with the concrete door backend; record the options it got."""
    monkeypatch.chdir(tmp_path)
    Path("door.py").write_text("class Door:\n    pass\n")  # what the target Door resolves to
    seen = {"backend": ConcreteDoor()}

    def load_resolved(resolved, options):
        seen["target"], seen["options"] = resolved.name, options
        return door_model()

    monkeypatch.setattr(api, "load_resolved", load_resolved)
    monkeypatch.setattr(api, "make_backend", lambda model, options: seen["backend"])
    return seen


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def check_door(ts: Typestate) -> None:
    assert {s.id: s.enabled for s in ts.states} == DOOR_STATES
    assert {(t.source, t.method, t.target) for t in ts.transitions} == DOOR_TRANSITIONS
    assert len(ts.transitions) == 15 and ts.initial == ("S1",) and ts.complete


# --- usage and errors (no solver needed) ---


def test_help_documents_exit_codes():
    result = run("infer", "--help")
    assert result.exit_code == 0
    assert (
        "Exit codes:" in result.output
        and "130" in result.output
        and "--max-states" in result.output
    )


def test_unknown_command_suggests_a_close_one():
    result = run("infre", "x")
    assert result.exit_code == 2 and "Did you mean 'infer'?" in result.output


def test_unknown_option_suggests_a_close_one():
    result = run("infer", "--outt", "x", "Door")
    assert result.exit_code == 2 and "--out" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--backend", "z4"],
        ["--format", "xml"],
        ["--unroll", "-1"],
        ["--timeout", "0"],
        ["--max-states", "0"],
        ["--methods", "a b"],
    ],
)
def test_bad_option_values_exit_2(fake, args):
    result = run("infer", "Door", *args)
    assert result.exit_code == 2 and "Invalid value" in result.output
    assert "options" not in fake and not Path("output").exists()


def test_missing_target_file_is_an_error_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("infer", "nosuch.py:Door")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "nosuch.py" in result.stderr
    assert result.stdout == "" and list(tmp_path.iterdir()) == []


def test_missing_class_names_close_matches(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("door.py").write_text("class Door:\n    pass\n")
    result = run("infer", "door.py:Dor")
    assert result.exit_code == 2 and "Door" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["door.py"]


def test_input_error_names_file_and_line(fake, monkeypatch):
    def broken(resolved, options):
        raise InputError("cannot read this precondition", Location("door.py", 7, 4), "lambda")

    monkeypatch.setattr(api, "load_resolved", broken)
    result = run("infer", "door.py:Door")
    assert result.exit_code == 2
    assert result.stderr == "error: door.py:7:5: cannot read this precondition [lambda]\n"
    assert not Path("output").exists()


def test_png_without_system_dot_writes_nothing(fake, monkeypatch):
    monkeypatch.setattr(render_module, "system_dot", lambda: None)
    result = run("infer", "Door", "--png")
    assert result.exit_code == 2 and "PNG output needs the Graphviz `dot`" in result.stderr
    assert not Path("output").exists()


# --- options and outputs, with the concrete backend ---


def test_options_reach_the_api(fake):
    Path("pkg").mkdir()
    Path("pkg/door.py").write_text("class Door:\n    pass\n")
    result = run(
        "infer",
        "pkg.door:Door",
        "--methods",
        "open,close",
        "--methods",
        " start ",
        "--exclude",
        "alarm",
        "--backend",
        "auto",
        "--unroll",
        "3",
        "--timeout",
        "2.5",
        "--max-states",
        "50",
        "--jobs",
        "3",
        "--crosshair-budget",
        "4",
        "--no-svg",
        "--no-html",
    )
    assert result.exit_code == 0, result.output
    options = fake["options"]
    assert fake["target"] == "Door"
    assert options == api.InferOptions(
        backend="auto",
        methods=("open", "close", "start"),
        exclude=("alarm",),
        unroll=3,
        timeout=2.5,
        max_states=50,
        jobs=3,
        budget=DEFAULT_BUDGET,
        crosshair_options={"budget": 4.0},
    )


@pytest.mark.parametrize("short, long", [
    (["-j", "3", "-q"], ["--jobs", "3", "--quiet"]),
    (["-j3", "-qv"], ["--jobs", "3", "--quiet", "--verbose"]),  # click's short forms, parsed as always
    (["-q", "-j=3"], None),  # not a short option on its own: click's way, which rejects "=3"
])
def test_short_options_as_their_long_forms_without_a_failed_long_match(fake, monkeypatch, short, long):
    import click.parser

    built = []  # click builds a "no such option" error (difflib, gettext) before trying a short option

    class Counted(click.parser.NoSuchOption):
        def __init__(self, *args, **kwargs):
            built.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(click.parser, "NoSuchOption", Counted)
    result = run("infer", "Door", *short)
    if long is None:
        assert result.exit_code == 2 and "Invalid value" in result.output
        return
    assert result.exit_code == 0, result.output
    options = fake["options"]
    assert not built or short == ["-j3", "-qv"]
    assert run("infer", "Door", *long).exit_code == 0 and fake["options"] == options


def test_defaults(fake):
    assert run("infer", "Door", "--quiet").exit_code == 0
    assert fake["options"] == api.InferOptions(  # no run unbounded, nor CrossHair's share
        budget=DEFAULT_BUDGET, crosshair_options={"budget": DEFAULT_CROSSHAIR_BUDGET})


def test_text_summary_and_files(fake):
    result = run("infer", "Door")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Door (door.py): 6 states, 15 transitions (0 may)\n")
    assert "  S1 (initial): alarm, open, start\n" in result.stdout
    assert "  S2 --start--> S5\n" in result.stdout
    assert "Solver queries: " in result.stdout
    assert result.stdout.rstrip().endswith(
        "Wrote output/door.Door/: typestate.json, typestate.dot, "
        "typestate.mmd, typestate.svg, report.html"
    )
    assert sorted(p.name for p in Path("output/door.Door").iterdir()) == ARTIFACTS
    check_door(Typestate.from_dict(json.loads(Path("output/door.Door/typestate.json").read_text())))


def test_json_format_prints_exactly_the_file(fake, tmp_path):
    result = run("infer", "Door", "--format", "json", "--out", "here", "--no-html")
    assert result.exit_code == 0
    printed = json.loads(result.stdout)
    assert printed == {"schema": 1, "typestates": [json.loads((tmp_path / "here" / "typestate.json").read_text())],
                       "errors": []}
    check_door(Typestate.from_dict(printed["typestates"][0]))
    assert "Wrote here/" in result.stderr
    assert sorted(p.name for p in (tmp_path / "here").iterdir()) == [
        "typestate.dot",
        "typestate.json",
        "typestate.mmd",
        "typestate.svg",
    ]


def test_quiet_prints_nothing(fake):
    result = run("infer", "Door", "--quiet", "--progress", "--no-svg")
    assert result.exit_code == 0 and result.stdout == "" and result.stderr == ""
    assert sorted(p.name for p in Path("output/door.Door").iterdir()) == [
        "report.html",
        "typestate.dot",
        "typestate.json",
        "typestate.mmd",
    ]


def test_progress_on_stderr(fake):
    result = run("infer", "Door", "--progress", "--no-svg", "--no-html")
    assert result.exit_code == 0
    assert "\rexploring: " in result.stderr
    assert result.stderr.endswith("\rexploring: 6 states, 15 transitions \n")
    assert "exploring" not in result.stdout
    assert "exploring" not in run("infer", "Door", "--no-svg", "--no-html").stderr


def test_findings_change_the_exit_code_only_with_fail_on(fake):
    fake["backend"] = ConcreteDoor(
        findings=[Finding("never_enabled", "jam is never enabled", "jam")]
    )
    result = run("infer", "Door", "--no-svg", "--no-html")
    assert result.exit_code == 0 and ": warning: Door: jam is never enabled [never_enabled]" in result.stdout
    assert run("infer", "Door", "--no-svg", "--no-html", "--fail-on", "error").exit_code == 0
    assert run("infer", "Door", "--no-svg", "--no-html", "--fail-on", "warning").exit_code == 1


def test_max_states_gives_a_partial_result_with_exit_0(fake):
    result = run("infer", "Door", "--max-states", "2", "--no-svg", "--no-html")
    assert result.exit_code == 0 and "PARTIAL" in result.stdout.splitlines()[0]
    assert json.loads(Path("output/door.Door/typestate.json").read_text())["complete"] is False


def test_ctrl_c_writes_the_partial_typestate_and_exits_130(fake):
    def interrupt(calls):
        if calls == 4:
            os.kill(os.getpid(), signal.SIGINT)

    fake["backend"] = ConcreteDoor(on_targets=interrupt)
    result = run("infer", "Door", "--no-svg", "--no-html")
    assert result.exit_code == 130
    assert "PARTIAL" in result.stderr and "PARTIAL" in result.stdout.splitlines()[0]
    data = json.loads(Path("output/door.Door/typestate.json").read_text())
    assert data["complete"] is False and len(data["transitions"]) < 15
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_while_loading_writes_nothing(fake, monkeypatch):
    def load_resolved(resolved, options):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "load_resolved", load_resolved)
    result = run("infer", "Door")
    assert result.exit_code == 130 and "nothing written" in result.stderr
    assert not Path("output").exists()


# --- end to end with the z3 backend on samples/door.py ---


def test_door_end_to_end(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("infer", DOOR)
    assert result.exit_code == 0, result.output
    assert "6 states, 15 transitions" in result.stdout.splitlines()[0]
    out = tmp_path / "output" / "door.Door"  # a file outside the working folder: its stem
    assert sorted(p.name for p in out.iterdir()) == ARTIFACTS
    ts = Typestate.from_dict(json.loads((out / "typestate.json").read_text()))
    check_door(ts)
    # the default backend is auto; every door method translates, so z3 decides everything
    assert ts.stats.backend == "auto" and ts.stats.queries > 0
    assert {t.backend for t in ts.transitions} == {"z3"}
    assert ts.stats.queries_by_backend.get("crosshair", 0) == 0
    assert all(t.certainty == "must" for t in ts.transitions)


def test_door_json_with_selected_methods(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("infer", DOOR, "--format", "json", "--methods", "open,close", "--out", "o")
    assert result.exit_code == 0, result.output
    ts = Typestate.from_dict(json.loads(result.stdout)["typestates"][0])
    assert ts.methods == ("close", "open")
    # a moving door that close() shuts enables neither open() nor close(): a stuck state
    assert {s.id: s.enabled for s in ts.states} == {"S1": ("open",), "S2": ("close",), "S3": ()}
    assert {(t.source, t.method, t.target) for t in ts.transitions} == {
        ("S1", "open", "S2"),
        ("S2", "close", "S1"),
        ("S2", "close", "S3"),
    }
    assert [(f.kind, f.state) for f in ts.findings if f.kind == "no_enabled_method"] == [
        ("no_enabled_method", "S3")
    ]


def test_cli_prints_what_the_api_returns(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("infer", DOOR, "--format", "json", "--exclude", "safe", "--no-svg", "--no-html")
    assert result.exit_code == 0, result.output
    (printed,) = json.loads(result.stdout)["typestates"]
    expected = json.loads(to_json(api.infer(DOOR, api.InferOptions(exclude=("safe",)))))
    for data in (printed, expected):
        del data["stats"]["seconds"]
    assert printed == expected and "safe" not in printed["methods"]


def _console() -> list[str]:
    script = Path(sys.executable).parent / "contractor"
    return [str(script)] if script.exists() else [sys.executable, "-m", "contractor"]


def test_console_script_end_to_end(tmp_path):
    proc = subprocess.run(
        [*_console(), "infer", DOOR, "--format", "json", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["typestates"] == [json.loads((tmp_path / "typestate.json").read_text())]
    check_door(Typestate.from_dict(json.loads(proc.stdout)["typestates"][0]))


def test_module_entry_point_reports_errors(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "contractor", "infer", "nosuch.py:Door"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and proc.stdout == ""
    assert list(tmp_path.iterdir()) == []


def fresh_interpreter(code: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`code` run by a new interpreter after importing the command line (what a run imports
    is only visible there: this process has imported everything)."""
    prelude = "import sys\nfrom click.testing import CliRunner\nfrom contractor.cli import main\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


def test_infer_does_not_import_strengthen():
    code = (
        "result = CliRunner().invoke(main, ['infer', '--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        "assert 'contractor.strengthen' not in sys.modules\n"
        "result = CliRunner().invoke(main, ['--help'])\n"
        "assert 'strengthen' in result.output and 'infer' in result.output\n"
    )
    proc = fresh_interpreter(code)
    assert proc.returncode == 0, proc.stderr


def test_a_default_infer_run_imports_only_what_it_uses(tmp_path):
    """The door with default outputs (report.html included) imports no template engine,
    no CrossHair (z3 decides it), and none of the other subcommands' subsystems."""
    code = (
        f"result = CliRunner().invoke(main, ['infer', {DOOR!r}, '--out', 'out'])\n"
        "assert result.exit_code == 0, result.output\n"
        "heavy = ['jinja2', 'crosshair', 'libcst', 'rich', 'contractor.strengthen', 'contractor.view',\n"
        "         'contractor.check']\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    proc = fresh_interpreter(code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]"
    assert (tmp_path / "out" / "report.html").read_text().count('class="legend"') == 1


def test_group_help_lists_every_command_without_importing_them():
    code = (
        "result = CliRunner().invoke(main, ['--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        "print(sorted(m for m in ('contractor.strengthen', 'contractor.check', 'contractor.view', 'libcst',\n"
        "                         'black', 'contractor.cache_command') if m in sys.modules))\n"
        "print(result.output)\n"
    )
    proc = fresh_interpreter(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "[]"
    for name in ("cache", "check", "infer", "strengthen", "view"):
        assert f"\n  {name} " in proc.stdout


def test_each_lazy_command_summary_is_its_help():
    import click

    from contractor.cli import main

    ctx = click.Context(main)
    for name, lazy in main.lazy.items():
        loaded = main.get_command(ctx, name)
        for limit in (30, 45, 60, 200):
            assert click.Command(name, help=lazy.summary).get_short_help_str(limit) == \
                loaded.get_short_help_str(limit), name


def test_module_entry_point_ends_quickly_with_the_commands_status_and_output(tmp_path):
    """`python -m contractor` leaves by os._exit once the command is done (contractor.entry):
    the status, the printed text and the files written are those of the command."""
    def run(*args: str) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered, as usual
        return subprocess.run([sys.executable, "-m", "contractor", *args], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path, env=env)

    done = run("infer", DOOR, "--out", "out", "--backend", "z3")
    assert done.returncode == 0 and "6 states, 15 transitions" in done.stdout and done.stdout.endswith("\n")
    assert json.loads((tmp_path / "out" / "typestate.json").read_text())["stats"]["states"] == 6
    assert (tmp_path / "out" / "report.html").read_text().endswith("</html>\n")
    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("contractor, version")
    assert run("nosuch").returncode == 2


def test_a_profiler_watching_the_run_still_writes_its_results(tmp_path):
    """Under `python -m cProfile -o F -m contractor` the quick exit would end the process
    before the profiler writes F; with a profiler (or tracer, or coverage) on, the exit is
    the ordinary one."""
    stats = tmp_path / "run.prof"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "contractor", "--version"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("contractor, version")
    assert stats.is_file() and stats.stat().st_size > 0


def test_a_reader_closing_the_output_is_not_an_internal_error(tmp_path):
    """`contractor infer ... | head`: the reader goes away; the command ends quietly with
    141, as one killed by SIGPIPE, not with a traceback and exit 70."""
    proc = subprocess.Popen([sys.executable, "-m", "contractor", "infer", DOOR, "--out", "out", "--backend", "z3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before anything is printed
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "internal error" not in err


def test_exit_status_is_pythons():
    from contractor.entry import exit_status

    assert exit_status(None) == 0 and exit_status(3) == 3 and exit_status("bye") == 1


def test_the_command_line_collects_cyclic_garbage_less_often(monkeypatch):
    """contractor.entry raises the collector's thresholds for the command's process (a small
    class made ~60 young collections, mostly rescanning modules and classes); library
    callers are not affected, and the process's status is still the command's."""
    import atexit
    import gc

    import contractor.cli
    from contractor import entry

    seen: list[tuple[int, int, int]] = []

    def command(prog_name: str) -> None:
        seen.append(gc.get_threshold())
        raise SystemExit(3)

    def leave(status: int) -> None:
        raise SystemExit(("left", status))

    before = gc.get_threshold()
    monkeypatch.setattr(contractor.cli, "main", command)
    monkeypatch.setattr(os, "_exit", leave)
    # the quick exit runs the exit handlers: not pytest's (multiprocessing's would mark this
    # process as exiting, and a process forked later would never flush its queue)
    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: None)
    try:
        with pytest.raises(SystemExit) as left:
            entry.run()
    finally:
        gc.set_threshold(*before)
    assert left.value.code in (("left", 3), 3)  # 3: the ordinary exit (a thread or a tracer is on)
    assert seen == [entry.GC_THRESHOLD] and entry.GC_THRESHOLD[0] > before[0]
