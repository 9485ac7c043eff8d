"""The executor's host interface (z3backend/host.py) matches the executor at run time.

mypy checks the mixins against ExecutorHost only where it runs; these checks keep the two
from drifting apart in a plain test run: every method the host declares is one Executor
provides, and every attribute it declares is one a fresh Executor has (except `caught`,
which handlers.py sets on first use).
"""

from __future__ import annotations

from pathlib import Path

from contractor.contracts import read_class
from contractor.target import resolve
from contractor.z3backend.executor import Executor
from contractor.z3backend.host import ExecutorHost
from contractor.z3backend.semantics import ClassSemantics, blank_object
from contractor.z3backend.state import ExecState

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
LAZY = {"caught"}  # set on first use


def _declared_methods() -> set[str]:
    return {name for name, member in vars(ExecutorHost).items() if getattr(member, "__isabstractmethod__", False)}


def test_host_declares_methods_the_executor_defines() -> None:
    methods = _declared_methods()
    assert len(methods) > 50  # the declarations were found
    for name in sorted(methods):
        impl = getattr(Executor, name, None)
        assert callable(impl), f"ExecutorHost.{name} is not a method of Executor"
        assert not getattr(impl, "__isabstractmethod__", False), f"Executor.{name} is the host's declaration"


def test_host_declares_attributes_a_fresh_executor_has() -> None:
    model = read_class(resolve(f"{SAMPLES / 'door.py'}:Door", SAMPLES))
    sem = ClassSemantics(model, 4)
    executor = sem.executor(ExecState({1: blank_object(model)}), "host!")
    declared = set(ExecutorHost.__annotations__)
    assert {"guard", "frame", "state", "unroll"} <= declared
    for name in sorted(declared - LAZY):
        assert hasattr(executor, name), f"ExecutorHost.{name} is not set by Executor.__init__"


def test_mixins_derive_from_object_at_run_time() -> None:
    # the host is a base for the type checker only: no class of the executor inherits it
    assert ExecutorHost not in Executor.__mro__
