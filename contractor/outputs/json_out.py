"""`typestate.json`: the typestate as stable, indented, strict JSON (the schema is
`Typestate.to_dict`); and the document `contractor infer --format json` prints."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from contractor.strict_json import dumps, encoder, strict_encode
from contractor.typestate import Typestate

RUN_SCHEMA = 1  # the version of the --format json document

# Beyond this many transitions each transition and initialization is written on one line:
# json's indenting encoder is pure Python and took seconds on ten thousand transitions.
ONE_LINE_BEYOND = 1000
_HOLE = "\u0000contractor-items\u0000"


def to_json(ts: Typestate) -> str:
    """The JSON text of `ts`: keys in `to_dict` order, indent 2, final newline.

    Values a solver put in a witness that JSON cannot hold (an Enum member, say) are
    written as their `str()`; a NaN or infinite float as `{"__float__": "nan"}` (strict
    JSON: `contractor.strict_json`). A large typestate's transitions and initializations
    are one line each (the same JSON value).
    """
    data = ts.to_dict()
    if len(ts.transitions) <= ONE_LINE_BEYOND:
        return dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
    lists = {}
    for key in ("transitions", "initializations"):
        lists[key], data[key] = data[key], f"{_HOLE}{key}"
    text = dumps(data, indent=2, ensure_ascii=False, default=str)
    encode = encoder(ensure_ascii=False, default=str).encode  # the C encoder: no indent
    for key, items in lists.items():
        text = text.replace(json.dumps(f"{_HOLE}{key}"), _one_per_line(encode, items), 1)
    return text + "\n"


def _one_per_line(encode: Callable[[Any], str], items: list[dict[str, Any]]) -> str:
    """`items` as a JSON list, one item a line: one call of the C encoder for the whole
    list (a call per item cost more than the encoding), then a line break before each
    item. Items are dicts of the same first key; `}, {"key": ` can occur nowhere else but
    inside a witness value of the same shape, where the break is only whitespace."""
    if not items:
        return "[]"
    first = json.dumps(next(iter(items[0])))
    flat = strict_encode(encode, items)
    return "[\n    " + flat[1:-1].replace("}, {" + first + ": ", "},\n    {" + first + ": ") + "\n  ]"


def _indented(text: str, by: str) -> str:
    return "".join(by + line if line.strip() else line for line in text.splitlines(keepends=True))


def run_json(typestates: Sequence[Typestate], errors: Sequence[tuple[str, str]]) -> str:
    """What `contractor infer --format json` prints, whatever the number of classes:
    `{"schema": 1, "typestates": [<typestate.json>, ...], "errors": [{"target", "message"}]}`,
    the typestates in the order of the analysis, one per class analysed, the errors one per
    class that could not be."""
    items = ",\n".join(_indented(to_json(ts).rstrip("\n"), "    ") for ts in typestates)
    listed = f"[\n{items}\n  ]" if typestates else "[]"
    errs = dumps([{"target": t, "message": m} for t, m in errors], ensure_ascii=False)
    return f'{{\n  "schema": {RUN_SCHEMA},\n  "typestates": {listed},\n  "errors": {errs}\n}}\n'


__all__ = ["ONE_LINE_BEYOND", "RUN_SCHEMA", "run_json", "to_json"]
