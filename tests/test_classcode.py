"""contractor.classcode: the compiled methods of contractor's dataclasses kept in the user
cache. A process that reads them must build the same classes as one that compiles them,
a broken file must only cost time, other code's dataclasses are not cached, and
CONTRACTOR_USER_CACHE=0 switches it off (as the test suite runs by default). Importing
contractor as a library routes `dataclasses`' exec only while contractor's modules load;
the console script keeps it routed for the modules its run imports later."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOOR = str(ROOT / "samples" / "door.py") + ":Door"

PROBE = """
import dataclasses, json
import contractor
from contractor import classcode
from contractor.model import INT, TypeKind, TypeRef
from contractor.typestate import Transition

assert "exec" not in vars(dataclasses)  # a library import leaves dataclasses as it was
cache = classcode.process_cache()  # what `import contractor` read and compiled
before = None if cache is None else len(cache.codes)

@dataclasses.dataclass(frozen=True)
class Outside:
    "not contractor's: compiled as usual"
    a: int

ref = TypeRef(TypeKind.LIST, (INT,))
try:
    ref.kind = TypeKind.STR
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
print(json.dumps({
    "cached": None if cache is None else [before, len(cache.codes), cache.added, len(cache.used)],
    "repr": repr(ref), "eq": ref == TypeRef(TypeKind.LIST, (INT,)), "hash": hash(ref) == hash(TypeRef("list", (INT,))),
    "frozen": frozen, "outside": repr(Outside(1)), "fields": [f.name for f in dataclasses.fields(Transition)],
    "replace": repr(dataclasses.replace(ref, name="x")),
}))
"""


def _run(home: Path, *args: str, cache: str = "1") -> subprocess.CompletedProcess:
    env = {**os.environ, "CONTRACTOR_USER_CACHE": cache, "XDG_CACHE_HOME": str(home)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120, env=env,
                          check=True, cwd=ROOT)


def _probe(home: Path, cache: str = "1") -> dict:
    return json.loads(_run(home, "-c", PROBE, cache=cache).stdout)


def test_a_second_process_reads_what_the_first_compiled_and_builds_the_same_classes(tmp_path):
    first = _probe(tmp_path)
    files = list((tmp_path / "contractor").glob("classcode-*.marshal"))
    assert len(files) == 1
    before, after, added, used = first["cached"]
    assert 100 < before <= after and added and used == after  # before: those `import contractor` made
    second = _probe(tmp_path)
    assert second["cached"] == [after, after, False, after]  # nothing compiled: all read
    off = _probe(tmp_path, cache="0")
    assert off["cached"] is None
    for probe in (first, second):
        assert {k: v for k, v in probe.items() if k != "cached"} == {k: v for k, v in off.items() if k != "cached"}
    assert off["frozen"] and off["eq"] and off["hash"] and off["repr"].startswith("TypeRef(kind=")


def test_a_broken_file_is_compiled_afresh_and_replaced(tmp_path):
    folder = tmp_path / "contractor"
    folder.mkdir()
    broken = folder / f"classcode-{sys.implementation.cache_tag}-{MAGIC_NUMBER.hex()}.marshal"
    broken.write_bytes(b"\x00not marshal")
    before, after, added, used = _probe(tmp_path)["cached"]
    assert added and used == after
    assert broken.read_bytes() != b"\x00not marshal"  # the very file was replaced
    assert _probe(tmp_path)["cached"][:3] == [after, after, False]


def test_the_door_end_to_end_is_the_same_with_the_cache_read(tmp_path):
    outs = {}
    for name in ("fill", "read", "off"):
        _run(tmp_path / "home", "-m", "contractor", "infer", DOOR, "--out", str(tmp_path / name), "--quiet",
             cache="0" if name == "off" else "1")
        data = json.loads((tmp_path / name / "typestate.json").read_text())
        del data["stats"]["seconds"]
        outs[name] = data
    assert outs["fill"] == outs["read"] == outs["off"]


def test_past_its_limit_the_file_keeps_only_what_the_run_used(tmp_path, monkeypatch):
    """Texts of classes edited since are not kept forever: loading costs time per entry."""
    from contractor import classcode

    monkeypatch.setattr(classcode, "MAX_ENTRIES", 3)
    cache = classcode.CodeCache(tmp_path / "codes.marshal")
    for i in range(5):
        namespace: dict = {"__name__": "contractor.probe"}
        cache.exec(f"def f{i}():\n return {i}\n", namespace)
        assert namespace[f"f{i}"]() == i
    cache.used = {"def f4():\n return 4\n"}
    cache.save()
    assert set(classcode.CodeCache(tmp_path / "codes.marshal").codes) == cache.used
    outside: dict = {"__name__": "elsewhere"}
    cache.exec("def g():\n return 7\n", outside)  # not contractor's: compiled, not kept
    assert outside["g"]() == 7 and "def g():\n return 7\n" not in cache.codes


def test_the_console_script_caches_the_modules_its_run_imports_later(tmp_path):
    """`import contractor` loads a few modules; an analysis imports the z3 backend, the
    explorer and the outputs later: their dataclasses come from the cache too, so a second
    command compiles nothing (the file is not rewritten)."""
    _run(tmp_path / "home", "-m", "contractor", "infer", DOOR, "--out", str(tmp_path / "a"), "--quiet")
    files = list((tmp_path / "home" / "contractor").glob("classcode-*.marshal"))
    assert len(files) == 1
    imported = _probe(tmp_path / "home")["cached"][0]  # entries there before the probe's own import
    assert imported > _probe(tmp_path / "fresh")["cached"][1]  # more than `import contractor` alone compiles
    stamp = files[0].stat().st_mtime_ns
    _run(tmp_path / "home", "-m", "contractor", "infer", DOOR, "--out", str(tmp_path / "b"), "--quiet")
    assert files[0].stat().st_mtime_ns == stamp  # nothing new compiled: every text was read
