"""How deeply an LTL goal may nest before plansight declines to check and evaluate it.

Evaluation, explanation, printing and goal F1 walk a formula recursively, a few Python frames per
level; a formula nested 10,000 levels deep (generated, or a paste gone wrong) would hit Python's
recursion limit and crash them. Real goals nest a handful of levels, so past ``MAX_DEPTH`` the
formula is not evaluated and the report says why (code ``budget-exceeded``), which keeps every walk
far below the recursion limit and the work linear in the formula's size.
"""

from __future__ import annotations

from plansight.analyses.model.ltl import LtlFormula, ltl_depth

MAX_DEPTH = 100
"""Levels of nesting an LTL goal may have; checked without recursion (``ltl_depth``)."""


def too_deep(formula: LtlFormula | None) -> str | None:
    """Why ``formula`` is not checked or evaluated (it nests more than ``MAX_DEPTH`` levels), or None."""
    depth = ltl_depth(formula)
    if depth <= MAX_DEPTH:
        return None
    return (f"the formula nests {depth:,} levels deep, more than the {MAX_DEPTH} plansight checks and "
            "evaluates")
