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
stays one opaque element. Expansions stop at :data:`MAX_EXPANSIONS` (``truncated`` says so).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations, islice, product

from plansight.analyses.ltl.evaluate import ground
from plansight.analyses.ltl.scope import LtlScope
from plansight.analyses.model.ltl import (
    LtlAnd,
    LtlAtom,
    LtlFormula,
    LtlImplies,
    LtlNot,
    LtlOr,
    LtlQuantified,
    LtlThen,
    format_ltl,
)
from plansight.analyses.semantics.budget import Meter
from plansight.analyses.semantics.world import GroundAtom

MAX_EXPANSIONS = 2000

Element = tuple[str, ...]
"""``("action-sequence", "stack a b", ...)``, ``("+", "on", "a", "b")``, ``("-", ...)`` or ``("?", text)``."""


@dataclass(frozen=True, slots=True)
class SimpleGoal:
    """One way of satisfying a goal: the actions to take in order and the propositions that must hold."""

    actions: tuple[GroundAtom, ...] = ()
    propositions: frozenset[Element] = frozenset()

    def elements(self) -> frozenset[Element]:
        """The goal as a set of elements for precision and recall; the action sequence counts as one element
        because its order matters.
        """
        sequence = ("action-sequence", *(" ".join(a) for a in self.actions))
        return self.propositions | {sequence} if self.actions else self.propositions

    def merge(self, other: SimpleGoal) -> SimpleGoal:
        """Both goals at once, as a conjunction expands."""
        return SimpleGoal(self.actions + other.actions, self.propositions | other.propositions)

    def text(self) -> str:
        """A readable rendering for reports (``move(a, b) then (on a b)``)."""
        parts = [f"{a[0]}({', '.join(a[1:])})" for a in self.actions]
        props = sorted(_element_text(e) for e in self.propositions)
        if props:
            parts.append(" and ".join(props))
        return " then ".join(parts) if parts else "(empty)"


@dataclass(frozen=True, slots=True)
class F1Result:
    """The best match between a candidate's and a reference's simple goals; ``truncated`` says the expansion
    hit its limit, so the F1 is a lower bound.
    """

    f1: float
    precision: float
    recall: float
    reference: SimpleGoal
    candidate: SimpleGoal
    truncated: bool = False


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
    """The best F1 over the simple expansions of both goals. ``meter`` is charged one unit per
    sub-formula expanded (nested quantifiers multiply them): it raises ``BudgetExceeded`` past its
    budget (analyses/semantics/budget.py)."""
    meter = meter or Meter()
    references, cut_r = simple_expansions(reference, reference_scope, meter)
    candidates, cut_c = simple_expansions(candidate, candidate_scope, meter)
    best: F1Result | None = None
    for ref in references:
        ref_set = ref.elements()
        for cand in candidates:
            meter.spend(1)
            f1, precision, recall = set_f1(cand.elements(), ref_set)
            if best is None or f1 > best.f1:
                best = F1Result(f1, precision, recall, ref, cand, cut_r or cut_c)
    assert best is not None  # every formula has at least one expansion
    return best


def simple_expansions(formula: LtlFormula, scope: LtlScope,
                      meter: Meter | None = None) -> tuple[list[SimpleGoal], bool]:
    """The simple goals ``formula`` expands to (at most MAX_EXPANSIONS), and whether some were cut."""
    options = list(islice(_expand(formula, scope, True, meter or Meter()), MAX_EXPANSIONS + 1))
    return options[:MAX_EXPANSIONS] or [SimpleGoal()], len(options) > MAX_EXPANSIONS


def _expand(node: LtlFormula, scope: LtlScope, positive: bool, meter: Meter) -> Iterator[SimpleGoal]:
    meter.spend(1)
    if isinstance(node, LtlAtom):
        key = (node.name.key, *(a.key for a in node.args))
        if positive and scope.is_action(node.name.key):
            yield SimpleGoal(actions=(key,))
        else:
            yield SimpleGoal(propositions=frozenset({("+" if positive else "-", *key)}))
    elif isinstance(node, LtlNot):
        yield from _expand(node.operand, scope, not positive, meter)
    elif isinstance(node, LtlImplies):
        # a => b  is  (not a) or b;  not (a => b)  is  a and not b
        if positive:
            yield from _expand(node.left, scope, False, meter)
            yield from _expand(node.right, scope, True, meter)
        else:
            yield from _merged([node.left, node.right], scope, [True, False], meter)
    elif isinstance(node, (LtlAnd, LtlOr)):
        conjunctive = isinstance(node, LtlAnd) == positive  # De Morgan under a negation
        if conjunctive:
            yield from _merged(list(node.operands), scope, [positive] * len(node.operands), meter)
        else:
            for operand in node.operands:
                yield from _expand(operand, scope, positive, meter)
    elif isinstance(node, LtlThen):
        if positive:
            yield from _merged(list(node.stages), scope, [True] * len(node.stages), meter)
        else:
            yield _opaque(node)
    else:
        yield from _quantified(node, scope, positive, meter)


def _quantified(node: LtlQuantified, scope: LtlScope, positive: bool, meter: Meter) -> Iterator[SimpleGoal]:
    objects = scope.range_of(node)
    instances = [ground(node.body, {node.variable.key: o}) for o in objects]
    if node.quantifier == "forn":
        if not positive:
            yield _opaque(node)
            return
        for chosen in combinations(instances, node.count or 0) if (node.count or 0) <= len(instances) else ():
            yield from _merged(list(chosen), scope, [True] * len(chosen), meter)
        return
    if (node.quantifier == "forall") == positive:
        yield from _merged(instances, scope, [positive] * len(instances), meter)
    else:
        for instance in instances:
            yield from _expand(instance, scope, positive, meter)


def _merged(parts: list[LtlFormula], scope: LtlScope, signs: list[bool],
            meter: Meter) -> Iterator[SimpleGoal]:
    """Every combination of one expansion per part, merged in order (actions concatenate)."""
    if not parts:
        yield SimpleGoal()
        return
    alternatives = [list(islice(_expand(p, scope, s, meter), MAX_EXPANSIONS + 1))
                    for p, s in zip(parts, signs, strict=True)]
    for combination in product(*alternatives):
        merged = SimpleGoal()
        meter.spend(1)
        for option in combination:
            merged = merged.merge(option)
        yield merged


def _opaque(node: LtlFormula) -> SimpleGoal:
    return SimpleGoal(propositions=frozenset({("?", "not " + format_ltl(node))}))


def _element_text(element: Element) -> str:
    if element[0] == "?":
        return element[1]
    atom = f"{element[1]}({', '.join(element[2:])})"
    return atom if element[0] == "+" else f"not {atom}"
