"""Strict JSON for every output: no NaN or Infinity (which `json.dumps` writes by default and
strict parsers such as `JSON.parse`, jq and Go's encoding/json reject).

A non-finite float (a solver's witness can hold one) is written as
`{"__float__": "nan" | "inf" | "-inf"}`, not as null: null already means Python's None in
a witness, and the two must stay apart.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

NON_FINITE_KEY = "__float__"


def finite(value: Any) -> Any:
    """`value` (JSON-like data) with every non-finite float replaced by its tagged form."""
    if isinstance(value, float) and not math.isfinite(value):
        return {NON_FINITE_KEY: repr(value)}
    if isinstance(value, dict):
        return {k: finite(x) for k, x in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(x) for x in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """`json.dumps` with NaN and Infinity refused, non-finite floats in their tagged form
    (the value is walked only when it holds one: large typestates stay fast)."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:
        return json.dumps(finite(value), allow_nan=False, **options)


def encoder(**options: Any) -> json.JSONEncoder:
    """A strict encoder (C-accelerated when there is no indent); use it through `strict_encode`."""
    return json.JSONEncoder(allow_nan=False, **options)


def strict_encode(encode: Callable[[Any], str], value: Any) -> str:
    """`encode(value)` (an `encoder(...).encode`), with non-finite floats in their tagged form."""
    try:
        return encode(value)
    except ValueError:
        return encode(finite(value))


__all__ = ["NON_FINITE_KEY", "dumps", "encoder", "finite", "strict_encode"]
