"""The solver questions a typestate alone cannot answer, asked of the z3 backend on demand.

- the targets of a call whose arguments are constants: the same all-SAT query the
  explorer asks, with each argument fixed to its value (fewer targets, never more);
- what a state test returns in a state: can it return True, can it return False.

Every answer the solver cannot give is "cannot tell" (None, or `Truth.EITHER`): the
checker then uses the typestate's own targets, so an oracle only ever narrows.
The z3 path reads the class's source only; it never imports the class's module.
"""

from __future__ import annotations

from typing import Any

from contractor.errors import ContractorError, UnsupportedConstruct
from contractor.model import ClassModel
from contractor.state_tests import Truth, truth

Enabled = frozenset[str]


class Z3Oracle:
    """Answers about one class model, with one z3 backend made on first use; `merged`:
    the typestate asked about bounds undecided enabledness bits (`Typestate.merged`)."""

    def __init__(self, model: ClassModel, merged: bool = True):
        self.model = model
        self.merged = merged
        self._backend = None

    def backend(self):
        if self._backend is None:
            from contractor.z3backend import Z3Backend

            self._backend = Z3Backend(self.model, timeout=5.0, merged=self.merged)
        return self._backend

    def _fixed(self, o, args: dict[str, Any]) -> list | None:
        from contractor.z3backend import valops as P
        from contractor.z3backend import values as V

        extra = []
        for name, value in args.items():
            val = o.args.get(name)
            if val is None:
                return None
            extra.append(P.equal(val, V.const(value)))
        return extra

    def _targets(self, method: str, source: Enabled | None, args: dict[str, Any]) -> list[Enabled] | None:
        import z3

        backend = self.backend()
        try:
            built = backend.base(method)
            if built is None:
                return None
            parts, o = built
            extra = self._fixed(o, args)
            if extra is None:
                return None
            solver, enc, bits = backend.setup(parts + extra, source, o.after)
            found = backend.all_sat(method, source, solver, enc, bits, parts + extra, o)
        except (z3.Z3Exception, UnsupportedConstruct, ContractorError, ValueError, TypeError, KeyError):
            return None
        return [t.enabled for t in found]

    def targets_with_args(self, source: Enabled, method: str, args: dict[str, Any]) -> list[Enabled] | None:
        return self._targets(method, source, args)

    def initial_with_args(self, constructor: str, args: dict[str, Any]) -> list[Enabled] | None:
        return self._targets(constructor, None, args)

    def truth(self, source: Enabled, method: str) -> Truth:
        return truth(self.backend(), source, method)


class LazyOracle:
    """A Z3Oracle over `target` (FILE.py:Class), whose model is read only when a question
    is asked; a class that cannot be read answers "cannot tell"."""

    def __init__(self, target: str, methods: tuple[str, ...], merged: bool = True):
        self.target = target
        self.methods = methods
        self.merged = merged
        self._oracle: Z3Oracle | None = None
        self._failed = False

    def _get(self) -> Z3Oracle | None:
        if self._oracle is None and not self._failed:
            from contractor import api

            try:
                model = api.load_model(self.target, api.InferOptions(backend="z3", methods=self.methods))
                self._oracle = Z3Oracle(model, self.merged)
            except ContractorError:
                self._failed = True
        return self._oracle

    def targets_with_args(self, source: Enabled, method: str, args: dict[str, Any]) -> list[Enabled] | None:
        oracle = self._get()
        return oracle.targets_with_args(source, method, args) if oracle else None

    def initial_with_args(self, constructor: str, args: dict[str, Any]) -> list[Enabled] | None:
        oracle = self._get()
        return oracle.initial_with_args(constructor, args) if oracle else None

    def truth(self, source: Enabled, method: str) -> Truth:
        oracle = self._get()
        return oracle.truth(source, method) if oracle else Truth.EITHER
