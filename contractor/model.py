"""The class model: what the contract readers extract from a class and the backends analyse.

Everything here is read from source (ast); nothing is imported. Conditions from all
dialects are normalised to one expression form, so the backends need not know dialects:

- the object is `self`, parameters keep their names;
- the result of a method is the name `__return__`;
- the values before the call are `__old__.self.<field>` and `__old__.<param>`
  (PEP 316's spelling; icontract's `OLD.x` and deal's forms are rewritten to it).
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from contractor.errors import Location

if TYPE_CHECKING:
    from contractor.typestate import Finding

Dialect = Literal["pep316", "icontract", "deal", "asserts"]
DIALECTS: tuple[Dialect, ...] = ("pep316", "icontract", "deal", "asserts")


class TypeKind(enum.StrEnum):
    """What kind of value a TypeRef describes (see TypeRef)."""

    BOOL = "bool"
    INT = "int"
    FLOAT = "float"
    STR = "str"
    NONE = "none"
    OPTIONAL = "optional"
    ENUM = "enum"
    LIST = "list"
    SET = "set"
    TUPLE = "tuple"
    DICT = "dict"
    CLASS = "class"
    OPAQUE = "opaque"
    ANY = "any"
    UNDEFINED = "undefined"  # a local or field read before any assignment (z3 backend)


class RunsAs(enum.Enum):
    """What a value read as a list is at run time (TypeRef.runs_as)."""

    LIST = "list"
    TUPLE = "tuple"  # `tuple[T, ...]`
    EITHER = "either"  # `Sequence[T]`: a list or a tuple


@dataclass(frozen=True)
class TypeRef:
    """A field's or parameter's type, as far as contractor understands it.

    kind is one of: "bool", "int", "float", "str", "none", "optional" (args[0] is the
    inner type), "enum" (name, members), "list" / "set" / "tuple" (args are element
    types; a tuple's args are its positions), "dict" (args: key, value), "class" (a
    user class named `name`), "opaque" (a value contractor cannot type: the z3 backend
    tracks its identity, None-ness and truthiness), "any" (not understood: the backends
    treat it as unknown).
    """

    kind: TypeKind
    args: tuple[TypeRef, ...] = ()
    name: str | None = None
    members: tuple[str, ...] = ()
    # an enum whose members act as their values (IntEnum, StrEnum, IntFlag, Flag, an Enum
    # mixing in int or str): `Mode.ON == 1` may hold, `Mode.OFF` (0) is false
    by_value: bool = False
    # what a value of a list type is at run time: `tuple[T, ...]` and `Sequence[T]` are read
    # as lists of T, but `() == []` is False. Not part of the type's identity (coercions
    # between them stay free); valops.equal reads it
    runs_as: RunsAs = field(default=RunsAs.LIST, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.kind, TypeKind):  # a kind read from text (JSON): one of the vocabulary
            object.__setattr__(self, "kind", TypeKind(self.kind))

    def __str__(self) -> str:
        if self.kind in ("enum", "class"):
            return self.name or self.kind
        if self.kind == "optional":
            return f"Optional[{self.args[0]}]"
        if self.args:
            return f"{self.kind}[{', '.join(map(str, self.args))}]"
        return "None" if self.kind == "none" else self.kind


BOOL = TypeRef(TypeKind.BOOL)
INT = TypeRef(TypeKind.INT)
FLOAT = TypeRef(TypeKind.FLOAT)
STR = TypeRef(TypeKind.STR)
NONE = TypeRef(TypeKind.NONE)
OPAQUE = TypeRef(TypeKind.OPAQUE)


ClauseKind = Literal["pre", "post", "inv"]


@dataclass(frozen=True)
class Condition:
    """One contract clause, normalised (see the module docstring)."""

    expr: ast.expr
    text: str  # as the user wrote it (for messages and readable output)
    kind: ClauseKind
    dialect: Dialect
    location: Location
    description: str | None = None  # icontract/deal `description=` or message


@dataclass(frozen=True)
class Param:
    """A parameter of a method: its name, type (None: unannotated), default and place."""

    name: str
    type: TypeRef | None
    default: ast.expr | None
    location: Location


@dataclass(frozen=True)
class Field:
    """A field of the class: its name, its type and where that type was read."""

    name: str
    type: TypeRef
    location: Location  # where its type was found (annotation or first assignment)


class PreconditionMode(enum.Enum):
    """Which preconditions decide enabledness (`--preconditions`).

    DECLARED: the contracts as written. IMPLICIT: raise guards, a method is enabled iff
    for some arguments its body can finish without reaching an explicit `raise` or a
    failing `assert` of the analysed code. BOTH: the declared precondition and the guards.
    """

    DECLARED = "declared"
    IMPLICIT = "implicit"
    BOTH = "both"

    @property
    def guards(self) -> bool:
        return self is not PreconditionMode.DECLARED

    @property
    def declared(self) -> bool:
        return self is not PreconditionMode.IMPLICIT


class Opaque(ast.stmt):
    """A statement standing for code contractor does not follow (a method an unreadable base
    class may define, an async method after its first await): the paths reaching it are
    unknown, except for an unreadable base's method, which the paths run on with every
    field arbitrary (z3backend/basecalls.py). `rest` holds the statements it replaces where they are known, so the write
    set (z3backend/effects.py) still sees them; without them every field may change."""

    _fields = ("reason", "rest", "base")
    reason: str
    rest: list[ast.stmt]  # the statements it stands for, when they are known (their writes count); [] if not
    base: str  # the unreadable base class whose method it stands for ("" otherwise)


@dataclass(frozen=True)
class BaseClass:
    """A class of the analysed class's method resolution order (after the class itself)."""

    name: str
    path: str  # its file (display path); for an unreadable base, where it is named
    node: ast.ClassDef | None  # None: unreadable (a C extension, not found, ...)
    unreadable: str | None  # why it cannot be read
    line: int

    @property
    def readable(self) -> bool:
        return self.node is not None


FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef  # a method as written: def or async def
MethodKind = Literal["action", "constructor", "factory", "helper", "property"]


@dataclass(frozen=True)
class Method:
    """A method of the class with its contracts.

    `body` excludes the docstring but keeps every statement, leading asserts included
    (for the asserts dialect they are also listed as preconditions).
    """

    name: str
    kind: MethodKind
    params: tuple[Param, ...]  # without self/cls
    preconditions: tuple[Condition, ...]
    postconditions: tuple[Condition, ...]
    body: tuple[ast.stmt, ...]
    node: FunctionNode
    location: Location
    returns: TypeRef | None = None
    raises: tuple[str, ...] = ()  # exception names the contract declares as expected
    decorators: tuple[str, ...] = ()  # decorator names as written (e.g. "icontract.require")
    owner: str | None = None  # the class that defines it (a base class for an inherited method)
    # the module constants its body sees, where its file is not the class's (an inherited
    # method of a base in another module); None: the class's module_constants
    constants: dict[str, Any] | None = None


@dataclass(frozen=True)
class ClassModel:
    """A class and its contracts, as read from its source file."""

    name: str
    path: str  # as the user named it (relative paths stay relative)
    source: str  # the whole file's text
    node: ast.ClassDef
    module: ast.Module
    fields: dict[str, Field]
    invariants: tuple[Condition, ...]
    methods: dict[str, Method]  # every method, helpers included
    actions: tuple[str, ...]  # the selected actions, sorted
    constructors: tuple[str, ...]  # "__init__" and factory names
    dialects: tuple[Dialect, ...]  # dialects found in this class, in DIALECTS order
    enums: dict[str, TypeRef] = field(default_factory=dict)  # Enum classes of the module
    class_constants: dict[str, Any] = field(default_factory=dict)  # class-level constants (not fields)
    module_constants: dict[str, Any] = field(default_factory=dict)  # module-level constants
    location: Location | None = None
    preconditions: PreconditionMode = PreconditionMode.DECLARED  # which preconditions apply
    bases: tuple[BaseClass, ...] = ()  # the MRO after the class itself, `object` left out
    notes: tuple[Finding, ...] = ()  # findings about the contracts themselves (undefined names)

    def method(self, name: str) -> Method:
        return self.methods[name]
