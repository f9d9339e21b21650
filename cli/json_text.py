"""Indented JSON for large batch reports, the text ``json.dumps(value, indent=2, ensure_ascii=False)``
writes, made about twice as fast.

The standard library writes indented JSON with its pure-Python encoder (its C encoder only writes the
compact form), a chain of generators that costs about a quarter of a microsecond for each of the million
values in the report of 1,000 plans: a third of the time ``plansight plan`` spent on such a batch. This
writer walks the same value with one recursive function, writing strings, numbers and the constants in
place. It handles the types the reports are made of (dicts with string keys, lists, tuples, strings, ints,
floats, booleans, None) and hands anything else, whole, to ``json.dumps``.
"""

from __future__ import annotations

import json
from typing import Any

try:
    from _json import encode_basestring as _string
except ImportError:  # pragma: no cover - CPython always has the accelerator
    from json.encoder import py_encode_basestring as _string  # type: ignore[assignment]


class _Unusual(Exception):
    """A value this writer leaves to ``json.dumps``."""


_CONSTANTS: dict[object, str] = {True: "true", False: "false", None: "null"}
_INFINITY = float("inf")


def dumps_indented(value: Any) -> str:
    """``value`` as ``json.dumps(value, indent=2, ensure_ascii=False)`` writes it."""
    parts: list[str] = []
    try:
        _write(value, "\n", parts.append)
    except _Unusual:
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(parts)


def _scalar(value: Any) -> str | None:
    kind = type(value)
    if kind is str:
        return _string(value)  # type: ignore[no-any-return]
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        if value != value or value == _INFINITY or value == -_INFINITY:  # json spells these its own way
            raise _Unusual
        return float.__repr__(value)
    if value is None or kind is bool:
        return _CONSTANTS[value]
    return None


def _write(value: Any, newline: str, out: Any) -> None:
    """Write ``value`` whose line starts with ``newline`` (a line break and the current indentation)."""
    kind = type(value)
    if kind is dict:
        if not value:
            out("{}")
            return
        inner = newline + "  "
        opening = "{" + inner
        for key, item in value.items():
            if type(key) is not str:
                raise _Unusual
            text = _string(item) if type(item) is str else _scalar(item)
            if text is not None:
                out(opening + _string(key) + ": " + text)
            else:
                out(opening + _string(key) + ": ")
                _write(item, inner, out)
            opening = "," + inner
        out(newline + "}")
    elif kind is list or kind is tuple:
        if not value:
            out("[]")
            return
        inner = newline + "  "
        opening = "[" + inner
        for item in value:
            text = _string(item) if type(item) is str else _scalar(item)
            if text is not None:
                out(opening + text)
            else:
                out(opening)
                _write(item, inner, out)
            opening = "," + inner
        out(newline + "]")
    else:
        text = _scalar(value)
        if text is None:
            raise _Unusual
        out(text)
