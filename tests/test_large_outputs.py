"""The fast paths of the outputs for large typestates write what the general ones write.

`typestate.json` of a large typestate (one transition a line, one encoder call), the DOT
edges of a large graph, `quote` and `wrap` are compared with the plain formulations on
generated inputs and on a typestate with may-transitions made large.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contractor.api import infer
from contractor.outputs import dot
from contractor.outputs.json_out import ONE_LINE_BEYOND, to_json
from contractor.typestate import Transition

ROOT = Path(__file__).resolve().parent.parent

words = st.lists(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,30}\??", fullmatch=True), min_size=1, max_size=12)


@pytest.mark.slow  # the quick loop's slowest (pytest --durations, issue 12)
@given(words, st.integers(min_value=5, max_value=40))
def test_wrap_is_textwraps(names: list[str], width: int) -> None:
    text = ", ".join(names)
    assert dot.wrap(text, width) == textwrap.wrap(text, width, break_long_words=False)
    loops = "loops: " + text
    assert dot.wrap(loops, width) == textwrap.wrap(loops, width, break_long_words=False)


@given(st.text(max_size=30))
def test_quote_escapes_as_before(text: str) -> None:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    assert dot.quote(text) == '"' + escaped.replace("\n", "\\n") + '"'


def _large_door():
    """The door's typestate with its transitions repeated (fresh target ids) past the
    JSON and DOT thresholds, every other one a may-transition with a tricky witness."""
    ts = infer(f"{ROOT / 'samples/door.py'}:Door")
    many = []
    for n in range(ONE_LINE_BEYOND // len(ts.transitions) + 2):
        for k, t in enumerate(ts.transitions):
            witness = {"fields": {"note": 'a "}, {"source": x'}, "args": {}, "after": {}} if k % 3 == 0 else t.witness
            many.append(replace(t, target=f"{t.target}_{n}", certainty="may" if k % 2 else "must",
                                witness=witness, reason="why" if k % 2 else None))
    return replace(ts, transitions=tuple(many))


def test_large_json_is_the_same_value_one_transition_a_line() -> None:
    ts = _large_door()
    text = to_json(ts)
    assert json.loads(text) == json.loads(json.dumps(ts.to_dict(), default=str))
    lines = text.splitlines()
    start = lines.index('  "transitions": [')
    assert all(line.startswith('    {"source": ') for line in lines[start + 1:start + 1 + len(ts.transitions)])


def test_large_dot_edges_are_the_general_ones() -> None:
    ts = _large_door()
    index = {(t.source, t.method, t.target): n for n, t in enumerate(ts.transitions)}
    edges = [t for t in ts.transitions if not ts.hides(t)]
    assert len(edges) > dot.TOOLTIPS_UP_TO

    def general(t: Transition) -> str:
        edge_id = dot.transition_id(index[(t.source, t.method, t.target)])
        return dot._edge(t.source, t.target, t.method, t.certainty, edge_id, "transition",
                         f"{t.source} --{t.method}--> {t.target} ({t.certainty})")

    assert dot._large_edges(edges, index) == [general(t) for t in edges]
    assert "\n".join(general(t) for t in edges) in dot.to_dot(ts)
