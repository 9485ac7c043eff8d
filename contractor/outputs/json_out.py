"""`typestate.json`: the typestate as stable, indented JSON (the schema is `Typestate.to_dict`)."""

from __future__ import annotations

import json

from contractor.typestate import Typestate


def to_json(ts: Typestate) -> str:
    """The JSON text of `ts`: keys in `to_dict` order, indent 2, final newline.

    Values a solver put in a witness that JSON cannot hold (an Enum member, say) are
    written as their `str()`.
    """
    return json.dumps(ts.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n"


__all__ = ["to_json"]
