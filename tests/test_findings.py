"""Finding kinds are a closed vocabulary, and infer's findings become diagnostics with a place,
a severity per kind and the kind as code."""

from __future__ import annotations

import json

import pytest

from contractor.typestate import Finding, FindingKind, Typestate


def test_a_finding_kind_is_an_enum_member_whatever_it_was_given_as():
    f = Finding("never_enabled", "m is never enabled", "m")
    assert f.kind is FindingKind.NEVER_ENABLED
    assert Finding(FindingKind.MAY_RAISE, "x").kind is FindingKind.MAY_RAISE
    with pytest.raises(ValueError):
        Finding("no_such_kind", "x")


def test_finding_kinds_survive_typestate_json(tmp_path):
    from contractor.typestate import Stats

    ts = Typestate("C", "c.py", ("m",), ("__init__",), (), (), (),
                   (Finding(FindingKind.BREAKS_INVARIANT, "m() can break the class invariant", "m", line=3),),
                   (), Stats())
    text = json.dumps(ts.to_dict())
    assert '"kind": "breaks_invariant"' in text
    back = Typestate.from_dict(json.loads(text))
    assert back.findings[0].kind is FindingKind.BREAKS_INVARIANT
