"""Re-analysis when the analysed source file changes: one watcher thread (watchfiles) on
the current run's file, replaced when the view switches to another class."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path


class SourceWatcher:
    """Calls `on_change(path)` after `path` is modified (debounced by watchfiles)."""

    def __init__(self, on_change: Callable[[Path], None]) -> None:
        self._on_change = on_change
        self._lock = threading.Lock()
        self._path: Path | None = None
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None

    @property
    def path(self) -> Path | None:
        return self._path

    def watch(self, path: Path) -> None:
        """Watch `path` (resolved) instead of the previous file; a no-op if it is the same."""
        path = path.resolve()
        with self._lock:
            if path == self._path:
                return
            self._close_locked()
            stop = threading.Event()
            thread = threading.Thread(target=self._loop, args=(path, stop), daemon=True,
                                      name=f"contractor-view-watch {path.name}")
            self._path, self._stop, self._thread = path, stop, thread
            thread.start()

    def _loop(self, path: Path, stop: threading.Event) -> None:
        from watchfiles import watch

        # Editors often replace a file instead of writing it: watch its folder, keep its events.
        for changes in watch(path.parent, stop_event=stop, debounce=300, rust_timeout=200,
                             yield_on_timeout=False, raise_interrupt=False):
            if stop.is_set():
                return
            if any(Path(p).resolve() == path for _, p in changes) and path.is_file():
                self._on_change(path)

    def close(self) -> None:
        with self._lock:
            self._close_locked()

    def _close_locked(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._path = self._stop = self._thread = None


__all__ = ["SourceWatcher"]
