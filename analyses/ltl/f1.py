"""Goal F1 between two LTL goals (Embodied Agent Interface, Li et al. 2024, Section 2.3).

A *simple* goal is ``a1 then ... then ak then (p1 and ... and pl)``; its set is
``set(g) = {(a1, ..., ak)} ∪ {p1, ..., pl}``: the whole action sequence is ONE element, each final-state
proposition another. F1 between two simple goals is the set-matching F1 of their sets. A goal that
is not simple is first expanded into simple goals that entail it (``or`` / ``exists`` pick one
alternative, ``forall`` / ``forn`` over the objects in the variable's range, negations pushed inward),
and the best match counts: ``F1(g, ĝ) = max over g_i of F1(set(g_i), set(ĝ))``. The paper restricts
the predicted goal to simple ones; a non-simple prediction is expanded the same way (best pair).

Choices the paper leaves open, documented in the README: propositions of intermediate ``then``
stages are kept with the final ones (a subgoal sequence has no other place in ``set(g)``); a goal with
no action has no sequence element (not an empty one); ``forn n`` picks the n instances that hold
and leaves the others unconstrained (as BEHAVIOR's goal options do); a negated ``then`` or ``forn``
stays one opaque element. The maximum is exact on every input, and the expansions are never listed:
they are kept as a tree of choices (``goal_options.py``), whose top-level parts are solved group by
group (``f1_parts.py``, with ``f1_hubs.py`` for conditions shared across parts); a part with thousands
of expansions of its own goes to the tree search with a sound bound (``f1_search.py``). Those are fast
on the goals met in practice but exponential on goals whose choices share many conditions, so they
get a small allowance (``FAST_UNITS``, ``FAST_SECONDS``); past it the same pair is found by a
mixed-integer programme (``f1_milp.py``), which has no limit on the work, only the caller's time
budget. All three give the same pair, so which one answered never shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from plansight.analyses.ltl.f1_parts import best_pair_by_parts
from plansight.analyses.ltl.f1_search import best_pair
from plansight.analyses.ltl.goal_options import Element, Options, SimpleGoal, expansions, goal_options
from plansight.analyses.ltl.scope import LtlScope
from plansight.analyses.model.ltl import LtlFormula
from plansight.analyses.semantics.budget import BudgetExceeded, Meter, WorkBudget

__all__ = ["Element", "F1Result", "SimpleGoal", "goal_f1", "set_f1", "simple_expansions"]

FAST_UNITS = 1_000_000
"""Work units the part-by-part solver and the tree search may spend before the programme takes over."""
FAST_SECONDS = 0.25
"""Seconds they may take before the programme takes over (whichever of the two comes first)."""


@dataclass(frozen=True, slots=True)
class F1Result:
    """The best match between a candidate's and a reference's simple goals (the first in listing order when
    several tie)."""

    f1: float
    precision: float
    recall: float
    reference: SimpleGoal
    candidate: SimpleGoal


def set_f1(candidate: frozenset[Element], reference: frozenset[Element]) -> tuple[float, float, float]:
    """(F1, precision, recall); two empty sets match perfectly."""
    if not candidate and not reference:
        return 1.0, 1.0, 1.0
    common = len(candidate & reference)
    precision = common / len(candidate) if candidate else 0.0
    recall = common / len(reference) if reference else 0.0
    f1 = 2 * common / (len(candidate) + len(reference))
    return f1, precision, recall


def goal_f1(candidate: LtlFormula, reference: LtlFormula, candidate_scope: LtlScope,
            reference_scope: LtlScope, meter: Meter | None = None) -> F1Result:
    """The best F1 over the simple expansions of both goals, exactly. ``meter`` is charged one unit per
    sub-formula expanded (``BudgetExceeded`` past its budget, analyses/semantics/budget.py, on goals
    that quantify over millions of instances); the maximisation is not counted in units, but it stops
    at the meter's time limit (``BudgetExceeded``: an F1 not proven best is never given), and its
    ``cancelled`` hook is honoured there too."""
    meter = meter or Meter()
    references = goal_options(reference, reference_scope, meter)
    candidates = goal_options(candidate, candidate_scope, meter)
    cancelled = meter.budget.cancelled
    fast = Meter(WorkBudget(time_limit_s=FAST_SECONDS, max_units=FAST_UNITS, cancelled=cancelled))
    try:
        found = best_pair_by_parts(references, candidates, fast)
        ref, cand = found if found is not None else best_pair(references, candidates, fast)
    except BudgetExceeded:
        ref, cand = _programme()(references, candidates, meter)
    f1, precision, recall = set_f1(cand.elements(), ref.elements())
    return F1Result(f1, precision, recall, ref, cand)


SCIPY_MISSING = (f"after {FAST_SECONDS:g} s of searching: the exact solver this pair needs comes with "
                 "scipy, which is not installed (`python -m pip install scipy` into the Python that runs "
                 "plansight)")
"""Why the F1 is not computed without scipy: the VS Code extension's bundle carries only pure-Python
packages, and scipy is compiled."""


def _programme() -> Callable[[Options, Options, Meter], tuple[SimpleGoal, SimpleGoal]]:
    """The mixed-integer programme, imported when first needed: scipy takes a third of a second to import,
    which no other request should pay, and may be missing."""
    try:
        from plansight.analyses.ltl.f1_milp import best_pair_milp
    except ImportError as error:
        raise BudgetExceeded(SCIPY_MISSING) from error
    return best_pair_milp


def simple_expansions(formula: LtlFormula, scope: LtlScope, meter: Meter | None = None) -> list[SimpleGoal]:
    """Every simple goal ``formula`` expands to, in formula order (exponentially many on wide goals: the F1
    never lists them; this is for reports and tests of small goals)."""
    return list(expansions(goal_options(formula, scope, meter)))
