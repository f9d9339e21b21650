"""Random LTL formulas for the property tests of the grammar and of the semantics."""

from __future__ import annotations

from hypothesis import strategies as st

from plansight.analyses.model.ltl import (
    LtlAnd,
    LtlFormula,
    LtlImplies,
    LtlNot,
    LtlOr,
    LtlQuantified,
    LtlThen,
)
from plansight.analyses.model.pddl import name


def ltl_formulas(atoms: st.SearchStrategy[LtlFormula], variables: st.SearchStrategy[str],
                 max_count: int, max_leaves: int) -> st.SearchStrategy[LtlFormula]:
    """Formulas over ``atoms`` with every connective and quantifier (``forn`` up to ``max_count``)."""
    return st.recursive(atoms, lambda inner: st.one_of(
        st.builds(LtlNot, inner),
        st.builds(lambda xs: LtlAnd(tuple(xs)), st.lists(inner, min_size=2, max_size=3)),
        st.builds(lambda xs: LtlOr(tuple(xs)), st.lists(inner, min_size=2, max_size=3)),
        st.builds(lambda xs: LtlThen(tuple(xs)), st.lists(inner, min_size=2, max_size=3)),
        st.builds(LtlImplies, inner, inner),
        st.builds(lambda q, v, b, n: LtlQuantified(q, name(v), b, n if q == "forn" else None),
                  st.sampled_from(["forall", "exists", "forn"]), variables, inner, st.integers(0, max_count)),
    ), max_leaves=max_leaves)
