"""The CrossHair answer cache: a tagged folder (CACHEDIR.TAG, .gitignore), keys that change
with contractor's and CrossHair's versions and with imported modules' text, and
`contractor cache clear` / `contractor cache dir` through the CLI."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import cli_runs
import pytest

from contractor.crosshair_backend.cache import DiskCache, fingerprint, is_cache_directory


def contractor(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # the command line, in this process (cli_runs.py), with no cache folder from the environment
    return cli_runs.contractor(cwd, *args, env={"CONTRACTOR_CACHE_DIR": None})


def test_the_first_entry_tags_the_cache_folder(tmp_path):
    cache = DiskCache.for_setting({"class": "C"}, tmp_path / "cache")
    cache.put({"q": 1}, {"a": 2})
    assert cache.get({"q": 1}) == {"a": 2}
    tag = (tmp_path / "cache" / "CACHEDIR.TAG").read_text()
    assert tag.startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
    assert (tmp_path / "cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert is_cache_directory(tmp_path / "cache")


def test_the_key_includes_versions_and_the_text_of_imported_modules(tmp_path):
    (tmp_path / "helper.py").write_text("LIMIT = 3\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "near.py").write_text("X = 1\n")
    source = "import helper\nimport json\nfrom . import near\n"
    (tmp_path / "pkg" / "mod.py").write_text(source)
    module = ast.parse(source)
    first = fingerprint(module, tmp_path / "pkg" / "mod.py")
    assert first["contractor"] and first["crosshair"] != "unknown"
    assert {"helper", "json", ".near"} <= set(first["imports"])
    (tmp_path / "helper.py").write_text("LIMIT = 4\n")
    second = fingerprint(module, tmp_path / "pkg" / "mod.py")
    assert second["imports"]["helper"] != first["imports"]["helper"]
    assert second["imports"]["json"] == first["imports"]["json"]
    setting = {"class": "C"}
    assert DiskCache.for_setting({**setting, **first}).folder != DiskCache.for_setting({**setting, **second}).folder


@pytest.mark.timeout(60)
def test_a_relative_path_inside_packages_ends(tmp_path, monkeypatch):
    """`contractor infer pkg/mod.py:C` run from a folder that is itself a package: the walk up
    to the top package looped forever on a relative path (the parent of "." is "."), before
    any budget applied (CrossHair's own examples, run from their folder, hung)."""
    outer = tmp_path / "outer"
    (outer / "pkg").mkdir(parents=True)
    (outer / "__init__.py").write_text("")
    (outer / "pkg" / "__init__.py").write_text("")
    (outer / "pkg" / "near.py").write_text("X = 1\n")
    source = "import helper\nfrom . import near\n"
    (outer / "pkg" / "mod.py").write_text(source)
    (tmp_path / "helper.py").write_text("LIMIT = 3\n")
    monkeypatch.chdir(outer)
    found = fingerprint(ast.parse(source), Path("pkg/mod.py"))["imports"]
    assert ".near" in found and "helper" in found  # absolute imports start above outer/


def test_cache_clear_removes_only_a_folder_contractor_tagged(tmp_path):
    cache = DiskCache.for_setting({"class": "C"}, tmp_path / ".contractor-cache")
    cache.put({"q": 1}, 1)
    assert contractor(tmp_path, "cache", "dir").stdout.strip() == str(tmp_path / ".contractor-cache")
    cleared = contractor(tmp_path, "cache", "clear")
    assert cleared.returncode == 0 and "1 cached answer" in cleared.stdout
    assert not (tmp_path / ".contractor-cache").exists()
    again = contractor(tmp_path, "cache", "clear")
    assert again.returncode == 0 and "Nothing to clear" in again.stdout
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "data.json").write_text("{}")
    refused = contractor(tmp_path, "cache", "clear", "--cache-dir", "precious")
    assert refused.returncode == 2 and "not a contractor cache" in refused.stderr
    assert (precious / "data.json").exists()


def test_cache_dir_comes_from_the_project_configuration(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.contractor]\ncache-dir = "build/answers"\n')
    assert contractor(tmp_path, "cache", "dir").stdout.strip() == str(tmp_path / "build" / "answers")
