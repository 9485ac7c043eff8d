"""The client checker's test harness: check a snippet (or a corpus file) against the
corpus classes and compare the whole list of (line, code) findings with the expected
one, so a missing and an extra finding both fail (pyflakes' `flakes(source, *expected)`).

Typestates of the corpus classes (tests/check_corpus/classes) are inferred once per
session with the z3 backend and written as typestate.json files, so the checker is
exercised through the same `--typestate` path users take."""

from __future__ import annotations

import json
import re
import shlex
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from contractor import api
from contractor.check import CheckOptions, Mode, check, load_protocols

CORPUS = Path(__file__).resolve().parent / "check_corpus"
CLASSES = {"Door": CORPUS / "classes" / "door.py", "File": CORPUS / "classes" / "file.py",
           "Connection": CORPUS / "classes" / "connection.py"}
EXPECT = re.compile(r"#\s*expect:\s*([\w-]+(?:\s*,\s*[\w-]+)*)")
HEADER = re.compile(r"^#\s*check:\s*(.*)$", re.MULTILINE)


@cache
def typestate_file(cls: str) -> Path:
    """typestate.json of a corpus class, inferred once per session (z3 backend)."""
    ts = api.infer(f"{CLASSES[cls]}:{cls}", api.InferOptions(backend="z3"))
    path = Path(tempfile.mkdtemp(prefix="contractor-check-")) / f"{cls}.typestate.json"
    path.write_text(json.dumps(ts.to_dict()), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Spec:
    mode: Mode = Mode.SOUND
    strict: bool = False
    must_call: tuple[str, ...] = ()


def header_options(source: str) -> Spec:
    """The `# check: --mode complete --must-call C.m --strict` line of a corpus file."""
    match = HEADER.search(source)
    if not match:
        return Spec()
    args = shlex.split(match.group(1))
    mode, strict, must = Mode.SOUND, False, []
    for i, a in enumerate(args):
        if a == "--mode":
            mode = Mode(args[i + 1])
        elif a == "--strict":
            strict = True
        elif a == "--must-call":
            must.append(args[i + 1])
    return Spec(mode, strict, tuple(must))


def expected(source: str) -> list[tuple[int, str]]:
    out = []
    for number, line in enumerate(source.splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            out.extend((number, code.strip()) for code in match.group(1).split(","))
    return sorted(out)


def findings(paths: list[Path], spec: Spec, only: Path | None = None):
    protocols = load_protocols(typestates=[typestate_file(c) for c in CLASSES],
                               must_call=spec.must_call)
    found = check(paths, protocols, CheckOptions(spec.mode, spec.strict))
    return [d for d in found if only is None or Path(d.path) == only]


def flakes(tmp_path: Path, source: str, *expected_findings: tuple[int, str], strict: bool = False,
           mode: Mode = Mode.SOUND, must_call: tuple[str, ...] = (), extra: dict[str, str] | None = None):
    """Check `source` (as client.py, beside the `extra` modules) and assert its findings
    are exactly `expected_findings`; returns the diagnostics for further checks."""
    client = tmp_path / "client.py"
    client.write_text(source, encoding="utf-8")
    for name, text in (extra or {}).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = findings([tmp_path / n for n in ["client.py", *(extra or {})]], Spec(mode, strict, must_call),
                     only=client)
    assert sorted((d.line, d.code) for d in found) == sorted(expected_findings), "\n".join(
        f"{d.path}:{d.line}:{d.col}: {d.message} [{d.code}]" for d in found)
    return found
