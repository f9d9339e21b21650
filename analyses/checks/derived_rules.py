"""Checks of a domain's ``:derived`` rules that decide whether plans can be simulated at all.

Two mistakes leave a domain's derived predicates without a meaning, and VAL does not say so plainly:
rules that cannot be stratified (a derived predicate depends on its own negation, so no fixpoint
defines it; VAL evaluates them in one stratum anyway and fails the plan) and an action effect that
adds or deletes a derived atom (whose truth only its rules may decide; VAL stops with "A derived
predicate appears as an effect!"). A derived atom listed in a problem's ``:init`` is ignored by the
simulator, as by VAL: its rules decide it. docs/beyond-classical-derived.md explains all three.
"""

from __future__ import annotations

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.model.pddl import Atom, Domain, Problem


def check_derived(domain: Domain) -> list[Diagnostic]:
    """``unstratified-derived`` on the rule that reads its own negation, ``derived-effect`` on each
    effect that changes a derived predicate."""
    if not domain.derived:
        return []
    # imported here: the stratifier is a sixth of the lint path's imports, and most domains derive nothing
    from plansight.analyses.semantics.derived import effect_atoms, stratification_problem, stratify

    out: list[Diagnostic] = []
    problem = stratification_problem(domain.derived)
    if problem is not None:
        head = stratify(domain.derived).cycle[0]
        rule = next(r for r in domain.derived if r.head.name.key == head)
        out.append(make("unstratified-derived", problem[0].upper() + problem[1:] + ".", rule.head.name.span))
    heads = {rule.head.name.key for rule in domain.derived}
    for action in domain.actions:
        for atom in effect_atoms(action.effect):
            if atom.predicate.key in heads:
                out.append(make(
                    "derived-effect",
                    f"`{action.name.display}` changes derived predicate `{atom.predicate.display}`: only its "
                    "`:derived` rules may decide when it holds, so plans of this domain are not simulated "
                    "(VAL rejects the domain too).", atom.span))
    return out


def check_derived_init(problem: Problem, domain: Domain) -> list[Diagnostic]:
    """``derived-in-init`` on each initial fact over a derived predicate: it is ignored."""
    heads = {rule.head.name.key for rule in domain.derived}
    if not heads:
        return []
    return [make("derived-in-init",
                 f"`{fact.predicate.display}` is a derived predicate: its rules decide when it holds, so "
                 "this fact is ignored (VAL ignores it too).", fact.span)
            for fact in problem.init if isinstance(fact, Atom) and fact.predicate.key in heads]
