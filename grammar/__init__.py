"""The lark grammars (PDDL, plans, LTL), shipped as package data and compiled once per process."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent


@cache
def grammar_text(name: str) -> str:
    """The source of ``<name>.lark``, read from this package's folder as the compiled tables next to the
    parser are (``analyses/syntax/lalr_compile.py``): importing ``importlib.resources`` for it cost every
    ``plansight lint`` a twentieth of its start-up."""
    return (_HERE / f"{name}.lark").read_text(encoding="utf-8")
