"""Random ``:derived`` rules for property tests: stratified by construction, every shape of body.

tests/test_derived.py compares their closure with a naive fixpoint; tests/test_derived_val.py runs them
against VAL with random plans.
"""

from __future__ import annotations

from hypothesis import strategies as st

CONSTANTS = ["o1", "o2", "o3"]
BASIC = [("b1", 1), ("b2", 2)]


@st.composite
def body(draw: st.DrawFn, scope: tuple[str, ...], predicates: tuple[tuple[str, int], ...],
         positive_only: frozenset[str], depth: int, negated: bool = False) -> str:
    """A random condition over ``predicates``; a predicate in ``positive_only`` (the rule's own head, for
    recursion) never appears under an odd number of negations, so the rules stay stratified."""
    kinds = ["atom", "atom", "eq"] + (["not", "and", "or", "exists", "forall", "imply"] if depth else [])
    kind = draw(st.sampled_from(kinds))
    terms = st.sampled_from(list(scope) + CONSTANTS)
    if kind == "atom":
        allowed = [p for p in predicates if not (negated and p[0] in positive_only)]
        name, arity = draw(st.sampled_from(allowed))
        return "(" + " ".join([name, *(draw(terms) for _ in range(arity))]) + ")"
    if kind == "eq":
        return f"(= {draw(terms)} {draw(terms)})"
    if kind == "not":
        return f"(not {draw(body(scope, predicates, positive_only, depth - 1, not negated))})"
    if kind in ("and", "or"):
        parts = [draw(body(scope, predicates, positive_only, depth - 1, negated))
                 for _ in range(draw(st.integers(1, 3)))]
        return f"({kind} {' '.join(parts)})"
    if kind == "imply":
        condition = draw(body(scope, predicates, positive_only, depth - 1, not negated))
        return f"(imply {condition} {draw(body(scope, predicates, positive_only, depth - 1, negated))})"
    variable = f"?v{len(scope)}"  # siblings reuse the name: they must stay distinct variables
    inner = draw(body((*scope, variable), predicates, positive_only, depth - 1, negated))
    return f"({kind} ({variable}) {inner})"


@st.composite
def random_domain(draw: st.DrawFn) -> str:
    """Three derived predicates, each reading the basic ones and those before it (negation allowed) and
    itself (positively: recursion)."""
    rules = []
    derived: list[tuple[str, int]] = []
    for name, arity in (("d1", 1), ("d2", 2), ("d3", 0)):
        scope = tuple(f"?h{i}" for i in range(arity))
        predicates = (*BASIC, *derived, (name, arity))
        text = draw(body(scope, predicates, frozenset({name}), 3))
        head = " ".join([name, *scope])
        rules.append(f"(:derived ({head}) {text})")
        derived.append((name, arity))
    return ("(define (domain r) (:requirements :adl :derived-predicates) (:constants o1 o2 o3)"
            " (:predicates (b1 ?a) (b2 ?a ?b) (d1 ?a) (d2 ?a ?b) (d3)) " + " ".join(rules) + ")")
