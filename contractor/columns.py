"""Columns as editors count them: 1-based characters on the line, from `ast`'s 0-based UTF-8
byte offsets (which run ahead after any non-ASCII character: `café.x` puts `x` at byte 6,
character 5)."""

from __future__ import annotations

from pathlib import Path


def char_column(line_text: str, byte_offset: int) -> int:
    """The 1-based character column of the 0-based UTF-8 `byte_offset` in `line_text`."""
    return len(line_text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore")) + 1


class SourceLines:
    """The lines of source files, read once each on demand (for one run's diagnostics);
    `known` gives texts already in memory, by path."""

    def __init__(self, known: dict[str, str] | None = None) -> None:
        self._texts: dict[str, list[str]] = {p: t.splitlines() for p, t in (known or {}).items()}

    def _lines(self, path: str) -> list[str]:
        if path not in self._texts:
            try:
                self._texts[path] = Path(path).read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                self._texts[path] = []
        return self._texts[path]

    def column(self, path: str, line: int, byte_offset: int) -> int:
        """The 1-based character column of a 0-based byte offset on `line` (1-based) of `path`;
        the byte offset plus one where the line cannot be read."""
        lines = self._lines(path)
        if not 0 < line <= len(lines):
            return byte_offset + 1
        return char_column(lines[line - 1], byte_offset)


__all__ = ["SourceLines", "char_column"]
