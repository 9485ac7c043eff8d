"""The disk cache of CrossHair answers: one JSON file per (class source, options, query),
under `.contractor-cache/` in the working directory or $CONTRACTOR_CACHE_DIR.

Each entry is written to a temporary file and renamed into place, so an interrupted run
leaves only complete entries behind and the next run reuses them.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE_VERSION = 1


def default_directory() -> Path:
    return Path(os.environ.get("CONTRACTOR_CACHE_DIR") or Path.cwd() / ".contractor-cache")


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class DiskCache:
    """Entries of one analysis setting (class source text + options), in their own folder."""

    folder: Path

    @classmethod
    def for_setting(cls, setting: dict[str, Any], directory: Path | None = None) -> "DiskCache":
        return cls((directory or default_directory()) / _digest([CACHE_VERSION, setting])[:24])

    def _path(self, query: Any) -> Path:
        return self.folder / f"{_digest(query)[:32]}.json"

    def get(self, query: Any) -> Any | None:
        try:
            entry = json.loads(self._path(query).read_text())
        except (OSError, ValueError):
            return None
        return entry["value"] if entry.get("query") == json.loads(json.dumps(query, default=str)) else None

    def put(self, query: Any, value: Any) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as out:
                json.dump({"query": query, "value": value}, out, default=str)
            os.replace(tmp, self._path(query))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
