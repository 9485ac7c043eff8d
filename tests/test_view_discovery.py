"""The view's class chooser: classes with contracts or raise guards, found with `ast` only."""

from __future__ import annotations

import sys
from pathlib import Path

from view_helpers import SAMPLES

from contractor.view.discovery import Evidence, discover


def test_samples_are_listed_with_their_contract_kinds():
    found = {f"{e.name}@{Path(e.path).resolve().relative_to(SAMPLES).as_posix()}": e.evidence
             for e in discover(SAMPLES)}
    assert found["Door@door.py"] == (Evidence.PEP316,)
    assert found["BoundedStack@stack.py"] == (Evidence.ICONTRACT,)
    assert found["Account@account.py"] == (Evidence.DEAL,)
    assert found["Turnstile@turnstile.py"] == (Evidence.ASSERTS,)
    assert found["ListItr@crosshair/listitr.py"] == (Evidence.PEP316, Evidence.ASSERTS)


def test_raise_guards_count_plain_classes_do_not_and_nothing_is_imported(tmp_path, monkeypatch):
    (tmp_path / "conn.py").write_text(
        "import sys\nsys.exit('imported!')\n"
        "class Conn:\n"
        "    def __init__(self):\n        self.sock = None\n"
        "    def send(self, data):\n"
        "        if self.sock is None:\n            raise RuntimeError('not connected')\n"
        "class Plain:\n    def go(self):\n        return 1\n")
    (tmp_path / "broken.py").write_text("class Broken(:\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "lib.py").write_text("class Hidden:\n    def f(self):\n        assert False\n")
    monkeypatch.chdir(tmp_path)
    entries = discover(tmp_path)
    assert [(e.name, e.target, e.line, e.evidence) for e in entries] == [
        ("Conn", "conn.py:Conn", 3, (Evidence.RAISE_GUARDS,))]
    assert "conn" not in sys.modules
    assert discover(tmp_path / "conn.py") == entries  # a single file works too


def test_decorators_imported_by_name_count(tmp_path, monkeypatch):
    (tmp_path / "s.py").write_text(
        "from icontract import require\n"
        "class S:\n    @require(lambda self: self.n > 0)\n    def pop(self):\n        self.n -= 1\n")
    monkeypatch.chdir(tmp_path)
    assert [e.to_dict() for e in discover(tmp_path)] == [
        {"name": "S", "path": "s.py", "line": 2, "target": "s.py:S", "evidence": ["icontract"]}]


def test_the_cache_parses_only_changed_files(tmp_path, monkeypatch):
    import contractor.view.discovery as discovery

    (tmp_path / "a.py").write_text("class A:\n    def f(self):\n        assert self\n")
    (tmp_path / "b.py").write_text("class B:\n    def f(self):\n        raise ValueError\n")
    monkeypatch.chdir(tmp_path)
    parsed: list[str] = []
    original = discovery.classes_in_file
    monkeypatch.setattr(discovery, "classes_in_file", lambda p: parsed.append(p.name) or original(p))
    cache: dict = {}
    assert [e.name for e in discover(tmp_path, cache)] == ["A", "B"]
    assert [e.name for e in discover(tmp_path, cache)] == ["A", "B"] and parsed == ["a.py", "b.py"]
    (tmp_path / "b.py").write_text("class C:\n    def g(self):\n        raise ValueError('changed')\n")
    assert [e.name for e in discover(tmp_path, cache)] == ["A", "C"] and parsed == ["a.py", "b.py", "b.py"]
