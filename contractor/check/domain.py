"""The abstract domain of the client checker: for each program point, which variables hold
which tracked objects, and which states each object may be in.

Objects are named by keys (sets of allocation atoms: a creation site, a parameter, a
merge of both at a join), so aliases (`e = d`) share one key and one set of states.
An object whose state is not known (an incoming parameter, an annotated return) is not
`known`: calls on it are followed but never reported, unless `--strict` made it known
in every state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload

from contractor.check.protocol import Protocol

Key = frozenset[str]


@dataclass(frozen=True, order=True)
class Event:
    """The call that put an object in a state, for messages ("after d.stop() at line 9")."""

    line: int
    path: str
    text: str


@dataclass(frozen=True)
class Site:
    """Where something is in the client's source (1-based line, 0-based column)."""

    path: str
    line: int
    col: int


@dataclass(frozen=True)
class Obj:
    """One tracked object: its class's protocol and its possible states, each with the
    event that brought it there (None: it came in so)."""

    protocol: Protocol
    states: dict[str, Event | None]
    known: bool = True  # states known, so calls on it are reported
    owned: bool = False  # holds a --must-call obligation in this scope
    site: Site | None = None  # where it was created (for leaks)
    name: str = ""  # the variable first bound to it (for leaks)

    def with_states(self, states: dict[str, Event | None]) -> Obj:
        return Obj(self.protocol, states, self.known, self.owned, self.site, self.name)


def join_states(a: dict[str, Event | None], b: dict[str, Event | None]) -> dict[str, Event | None]:
    if a is b or a == b:
        return a
    out = dict(a)
    for s, e in b.items():
        if s not in out:
            out[s] = e
        else:
            old = out[s]
            out[s] = e if old is None or (e is not None and e < old) else old
    return out


def join_obj(a: Obj | None, b: Obj | None) -> Obj | None:
    if a is None or b is None:
        return a if b is None else b
    if a == b:
        return a
    if a.protocol is not b.protocol:
        return None
    sites = [s for s in (a.site, b.site) if s is not None]
    return Obj(a.protocol, join_states(a.states, b.states), a.known and b.known, a.owned or b.owned,
               min(sites, key=lambda s: (s.line, s.col)) if sites else None, a.name or b.name)


class Env:
    """Variables (locals and `self.<field>` paths) to keys, keys to objects."""

    __slots__ = ("objs", "vars")

    def __init__(self, vars: dict[str, Key] | None = None, objs: dict[Key, Obj] | None = None):
        self.vars: dict[str, Key] = vars if vars is not None else {}
        self.objs: dict[Key, Obj] = objs if objs is not None else {}

    def copy(self) -> Env:
        return Env(dict(self.vars), dict(self.objs))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Env) and self.vars == other.vars and self.objs == other.objs

    def lookup(self, var: str) -> tuple[Key, Obj] | None:
        key = self.vars.get(var)
        if key is None:
            return None
        return key, self.objs[key]

    def holders(self, key: Key) -> list[str]:
        return [v for v, k in self.vars.items() if k == key]

    def forget(self, key: Key) -> None:
        """Lose an object: every variable holding it stops being tracked."""
        for v in self.holders(key):
            del self.vars[v]
        self.objs.pop(key, None)

    def collect(self) -> None:
        """Drop objects no variable holds any more."""
        held = set(self.vars.values())
        for k in [k for k in self.objs if k not in held]:
            del self.objs[k]


@overload
def join(a: Env, b: Env | None) -> Env: ...
@overload
def join(a: Env | None, b: Env) -> Env: ...
@overload
def join(a: Env | None, b: Env | None) -> Env | None: ...
def join(a: Env | None, b: Env | None) -> Env | None:
    """The environment holding what both may hold. A variable missing on one side is not
    followed (it is undefined there, or its object was lost). A variable holding different
    objects on the two sides holds their merge; where one object of a side would be split
    into two merges (an alias on one side only), the variables involved are lost."""
    if a is None:
        return b.copy() if b is not None else None
    if b is None:
        return a.copy()
    if a.vars is b.vars and a.objs is b.objs:
        return a.copy()
    out = Env()
    from_a: dict[Key, set[Key]] = {}
    from_b: dict[Key, set[Key]] = {}
    pairs: dict[str, tuple[Key, Key]] = {}
    for var, ka in a.vars.items():
        kb = b.vars.get(var)
        if kb is None:
            continue
        merged = ka if ka == kb else ka | kb
        pairs[var] = (ka, kb)
        out.vars[var] = merged
        from_a.setdefault(ka, set()).add(merged)
        from_b.setdefault(kb, set()).add(merged)
    for var, (ka, kb) in pairs.items():
        if len(from_a[ka]) > 1 or len(from_b[kb]) > 1:
            del out.vars[var]
            continue
        key = out.vars[var]
        if key not in out.objs:
            obj = join_obj(a.objs[ka], b.objs[kb])
            if obj is None:
                del out.vars[var]
            else:
                out.objs[key] = obj
    out.collect()
    return out
