"""Target resolution: file.py:Class, package.module:Class and bare Class, without importing."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from contractor.errors import InputError, TargetNotFound
from contractor.target import resolve


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write {relative path: source} under tmp_path, which becomes the working directory."""
    monkeypatch.chdir(tmp_path)

    def write(files: dict[str, str]) -> Path:
        for rel, text in files.items():
            path = tmp_path / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        return tmp_path

    return write


def test_file_form_relative(tree):
    root = tree({"pkg/door.py": "class Door:\n    pass\n\nclass Other:\n    pass\n"})
    found = resolve("pkg/door.py:Door", root)
    assert found.node.name == "Door"
    assert found.display_path == "pkg/door.py"
    assert found.path == root / "pkg/door.py"
    assert "class Other" in found.source
    assert found.module.body[0] is found.node


def test_file_form_absolute(tree):
    root = tree({"door.py": "class Door:\n    pass\n"})
    found = resolve(f"{root / 'door.py'}:Door", Path("/"))
    assert found.display_path == "door.py"  # relative to the working directory


def test_file_without_slash(tree):
    root = tree({"door.py": "class Door:\n    pass\n"})
    assert resolve("door.py:Door", root).node.lineno == 1


def test_module_form_never_imports(tree):
    root = tree({
        "shop/__init__.py": "",
        "shop/cart.py": "raise SystemExit('imported!')\n\nclass Cart:\n    pass\n",
    })
    found = resolve("shop.cart:Cart", root)
    assert found.display_path == "shop/cart.py"
    assert found.node.lineno == 3


def test_module_form_package_init(tree):
    root = tree({"shop/__init__.py": "class Shop:\n    pass\n"})
    assert resolve("shop:Shop", root).display_path == "shop/__init__.py"


def test_module_not_found(tree):
    root = tree({"a.py": "class A:\n    pass\n"})
    with pytest.raises(TargetNotFound, match=r"module 'nowhere\.mod' not found"):
        resolve("nowhere.mod:A", root)


def test_bare_name(tree):
    root = tree({"a.py": "class A:\n    pass\n", "sub/b.py": "x = 1\n\nclass Bee:\n    pass\n"})
    found = resolve("Bee", root)
    assert found.display_path == "sub/b.py"
    assert found.node.lineno == 3


def test_bare_name_ambiguous_lists_candidates(tree):
    root = tree({"a.py": "class Door:\n    pass\n", "trains/b.py": "class Door:\n    pass\n"})
    with pytest.raises(TargetNotFound) as info:
        resolve("Door", root)
    assert "ambiguous" in str(info.value)
    assert "a.py:Door" in str(info.value) and "trains/b.py:Door" in str(info.value)


@pytest.mark.parametrize("skipped", [".venv/lib", "venv", "build", "dist", "output", "node_modules",
                                     ".git", "__pycache__", ".tox", "lib/site-packages", ".hypothesis", "env"])
def test_bare_name_skips_environment_dirs(tree, skipped):
    root = tree({"a.py": "class Door:\n    pass\n", f"{skipped}/copy.py": "class Door:\n    pass\n"})
    assert resolve("Door", root).display_path == "a.py"


def test_bare_name_only_top_level(tree):
    root = tree({"a.py": "class Outer:\n    class Inner:\n        pass\n"})
    with pytest.raises(TargetNotFound, match="no class 'Inner'"):
        resolve("Inner", root)


def test_bare_name_close_matches(tree):
    root = tree({"a.py": "class TrainDoor:\n    pass\n", "b.py": "class Account:\n    pass\n"})
    with pytest.raises(TargetNotFound, match="did you mean TrainDoor"):
        resolve("TrainDor", root)


def test_missing_class_in_file_close_matches(tree):
    root = tree({"a.py": "class Door:\n    pass\n\nclass Floor:\n    pass\n"})
    with pytest.raises(TargetNotFound) as info:
        resolve("a.py:Dor", root)
    assert "did you mean Door" in str(info.value)
    assert "a.py" in str(info.value)


def test_missing_file(tree):
    root = tree({})
    with pytest.raises(InputError, match="no such file: nothere.py"):
        resolve("nothere.py:Door", root)


def test_syntax_error_names_file_and_line(tree):
    root = tree({"bad.py": "class Door:\n    def open(self)\n        pass\n"})
    with pytest.raises(InputError) as info:
        resolve("bad.py:Door", root)
    assert info.value.location.path == "bad.py"
    assert info.value.location.line == 2
    assert str(info.value).startswith("bad.py:2:")


def test_syntax_error_in_bare_candidate(tree):
    root = tree({"bad.py": "class Door:\n    x = (\n"})
    with pytest.raises(InputError, match=r"bad\.py:2"):
        resolve("Door", root)


def test_unrelated_broken_file_is_ignored(tree):
    root = tree({"good.py": "class Door:\n    pass\n", "broken.py": "def (:\n"})
    assert resolve("Door", root).display_path == "good.py"


@pytest.mark.parametrize("bad", ["two words", "a.py:", "a.py:1x", "not-a-module:X"])
def test_malformed_targets(tree, bad):
    root = tree({"a.py": "class A:\n    pass\n"})
    with pytest.raises(TargetNotFound):
        resolve(bad, root)


def test_file_without_class_lists_its_classes(tree):
    root = tree({"a.py": "class Door:\n    pass\n\nclass Gate:\n    pass\n"})
    with pytest.raises(TargetNotFound, match="name one of: a.py:Door, a.py:Gate"):
        resolve("a.py", root)
