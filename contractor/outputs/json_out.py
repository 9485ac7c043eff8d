"""`typestate.json`: the typestate as stable, indented JSON (the schema is `Typestate.to_dict`)."""

from __future__ import annotations

import json

from contractor.typestate import Typestate

# Beyond this many transitions each transition and initialization is written on one line:
# json's indenting encoder is pure Python and took seconds on ten thousand transitions.
ONE_LINE_BEYOND = 1000
_HOLE = "\u0000contractor-items\u0000"


def to_json(ts: Typestate) -> str:
    """The JSON text of `ts`: keys in `to_dict` order, indent 2, final newline.

    Values a solver put in a witness that JSON cannot hold (an Enum member, say) are
    written as their `str()`. A large typestate's transitions and initializations are
    one line each (the same JSON value).
    """
    data = ts.to_dict()
    if len(ts.transitions) <= ONE_LINE_BEYOND:
        return json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
    lists = {}
    for key in ("transitions", "initializations"):
        lists[key], data[key] = data[key], f"{_HOLE}{key}"
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    encode = json.JSONEncoder(ensure_ascii=False, default=str).encode  # the C encoder: no indent
    for key, items in lists.items():
        body = "[\n    " + ",\n    ".join(map(encode, items)) + "\n  ]" if items else "[]"
        text = text.replace(json.dumps(f"{_HOLE}{key}"), body, 1)
    return text + "\n"


__all__ = ["ONE_LINE_BEYOND", "to_json"]
