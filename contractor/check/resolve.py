"""Which names in a client module mean a typestated class, a client function or a constant.

A class is recognised by its name as the client imports or qualifies it (`from door
import Door`, `from door import Door as D`, `import door; door.Door()`), or defined in the
module that is the class's own source. Client functions are the top-level `def`s of the
analysed files, found through `from m import f` and `import m; m.f()` by module name
(the file's stem, or its dotted path under a folder given on the command line).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contractor.check.loader import module_constants
from contractor.check.protocol import Protocol

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Module:
    """One analysed client file and what its names mean."""

    path: str
    names: tuple[str, ...]  # dotted module names it can be imported as
    tree: ast.Module
    classes: dict[str, Protocol] = field(default_factory=dict)  # local name -> class
    qualified: dict[str, dict[str, Protocol]] = field(default_factory=dict)  # module alias -> class name -> class
    functions: dict[str, Function] = field(default_factory=dict)  # own top-level defs
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)  # local name -> (module, function)
    modules: dict[str, str] = field(default_factory=dict)  # local alias -> imported module name
    constants: dict[str, Any] = field(default_factory=dict)


def _stem(source: str) -> str:
    return Path(source).stem


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


class Index:
    """Every analysed module, the protocols, and the lookups across modules."""

    def __init__(self, protocols: list[Protocol]):
        self.protocols = protocols
        self.by_name: dict[str, list[Protocol]] = {}
        for p in protocols:
            self.by_name.setdefault(p.name, []).append(p)
        self.modules: list[Module] = []
        self.by_module: dict[str, Module] = {}
        self.owner: dict[int, Module] = {}  # id(function node) -> its module

    def pick(self, class_name: str, module_name: str | None) -> Protocol | None:
        """The protocol of `class_name` imported from `module_name` (None: any module)."""
        found = self.by_name.get(class_name, [])
        if len(found) > 1 and module_name is not None:
            last = module_name.rsplit(".", 1)[-1]
            found = [p for p in found if _stem(p.typestate.source) == last] or found
        return found[0] if found else None

    def add(self, path: str, names: tuple[str, ...], tree: ast.Module) -> Module:
        module = Module(path, names, tree, constants=module_constants(tree))
        for stmt in tree.body:
            self._read_stmt(module, stmt)
        self.modules.append(module)
        for n in names:
            self.by_module.setdefault(n, module)
        for f in module.functions.values():
            self.owner[id(f)] = module
        return module

    def _read_stmt(self, module: Module, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            module.functions[stmt.name] = stmt
        elif isinstance(stmt, ast.ClassDef):
            for p in self.by_name.get(stmt.name, []):
                if _same_file(p.typestate.source, module.path):
                    module.classes[stmt.name] = p
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
            for alias in stmt.names:
                local = alias.asname or alias.name
                protocol = self.pick(alias.name, stmt.module)
                if protocol is not None:
                    module.classes[local] = protocol
                else:
                    module.imported[local] = (stmt.module, alias.name)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                local = alias.asname or alias.name.split(".")[0]
                target = alias.name if alias.asname else alias.name.split(".")[0]
                module.modules[local] = target
                classes = {n: p for n, ps in self.by_name.items() for p in ps
                           if _stem(p.typestate.source) == alias.name.rsplit(".", 1)[-1]}
                if classes:
                    module.qualified[local] = classes
        elif isinstance(stmt, (ast.If, ast.Try)):
            # `try: from x import C except ImportError: ...` and `if TYPE_CHECKING:` imports
            for inner in ast.iter_child_nodes(stmt):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    self._read_stmt(module, inner)

    # -- lookups used by the analysis --------------------------------------------------

    def class_of(self, module: Module, node: ast.expr, annotation: bool = False) -> Protocol | None:
        """The typestated class `node` names in `module` (a name, `mod.Class`; in an
        `annotation` also a string, `Optional[C]` or `C | None`), else None."""
        if isinstance(node, ast.Name):
            return module.classes.get(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return module.qualified.get(node.value.id, {}).get(node.attr)
        if not annotation:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                return self.class_of(module, ast.parse(node.value.strip(), mode="eval").body, True)
            except (SyntaxError, ValueError, UnicodeError, RecursionError):
                return None
        if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Name, ast.Attribute)):
            head = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
            if head == "Optional":
                return self.class_of(module, node.slice, True)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(other, ast.Constant) and other.value is None:
                    return self.class_of(module, side, True)
        return None

    def function(self, module: Module, node: ast.expr) -> Function | None:
        """The client function a call's `func` names: own, imported or `mod.f`."""
        if isinstance(node, ast.Name):
            if node.id in module.functions:
                return module.functions[node.id]
            if node.id in module.imported:
                mod_name, fname = module.imported[node.id]
                target = self.by_module.get(mod_name)
                return target.functions.get(fname) if target else None
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            aliased = module.modules.get(node.value.id)
            target = self.by_module.get(aliased) if aliased else None
            return target.functions.get(node.attr) if target else None
        return None

    def constant(self, module: Module, node: ast.expr) -> tuple[bool, Any]:
        """(True, value) when `node` is a literal, a module constant, an imported constant
        of a client module or of a class's module (`C.X` class attributes are not read)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float, str)):
            return True, node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            ok, v = self.constant(module, node.operand)
            if ok and isinstance(v, (int, float)) and not isinstance(v, bool):
                return True, -v
            return False, None
        if isinstance(node, ast.Name):
            if node.id in module.constants:
                return True, module.constants[node.id]
            if node.id in module.imported:
                mod_name, name = module.imported[node.id]
                return self._module_constant(mod_name, name)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            aliased = module.modules.get(node.value.id)
            if aliased:
                return self._module_constant(aliased, node.attr)
        return False, None

    def _module_constant(self, mod_name: str, name: str) -> tuple[bool, Any]:
        target = self.by_module.get(mod_name)
        if target is not None and name in target.constants:
            return True, target.constants[name]
        last = mod_name.rsplit(".", 1)[-1]
        for p in self.protocols:
            if _stem(p.typestate.source) == last and name in p.facts.constants:
                return True, p.facts.constants[name]
        return False, None
