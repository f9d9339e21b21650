"""The lark grammars (PDDL, plans, LTL), shipped as package data and compiled once per process."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def grammar_text(name: str) -> str:
    """The source of ``<name>.lark``."""
    return files(__package__).joinpath(f"{name}.lark").read_text(encoding="utf-8")
