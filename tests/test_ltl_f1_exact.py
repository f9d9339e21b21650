"""Goal F1 is exact on every input (docs/metrics.md, goal F1; Li et al. 2024, Section 2.3).

The F1 searches a tree of choices with a bound instead of listing the simple expansions. The oracle
here is the listing itself, written as plansight computed it before the search (every reference
expansion times every candidate expansion, the first best pair kept): on small random goals both
must give the same F1, precision, recall and the same pair of simple goals. Goals shaped like
BEHAVIOR's (several goals, each one of 24 options) must be answered exactly with little work.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations, islice, permutations, product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ltl_strategies import ltl_formulas

from plansight.analyses.ltl import f1, f1_milp
from plansight.analyses.ltl.evaluate import ground
from plansight.analyses.ltl.f1 import SimpleGoal, goal_f1, set_f1, simple_expansions
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
from plansight.analyses.model.pddl import name
from plansight.analyses.semantics.budget import Meter, WorkBudget
from plansight.analyses.syntax.parse_ltl import parse_ltl

OBJECTS = ("o1", "o2", "o3")
SCOPE = LtlScope.abstract(OBJECTS, ["act", "go"])


# --- the oracle: list every expansion, keep the first best pair -------------------------------------

def listed(node: LtlFormula, positive: bool = True) -> Iterator[SimpleGoal]:
    if isinstance(node, LtlAtom):
        key = (node.name.key, *(a.key for a in node.args))
        if positive and SCOPE.is_action(node.name.key):
            yield SimpleGoal(actions=(key,))
        else:
            yield SimpleGoal(propositions=frozenset({("+" if positive else "-", *key)}))
    elif isinstance(node, LtlNot):
        yield from listed(node.operand, not positive)
    elif isinstance(node, LtlImplies):
        if positive:
            yield from listed(node.left, False)
            yield from listed(node.right, True)
        else:
            yield from merged([node.left, node.right], [True, False])
    elif isinstance(node, (LtlAnd, LtlOr)):
        if isinstance(node, LtlAnd) == positive:
            yield from merged(list(node.operands), [positive] * len(node.operands))
        else:
            for operand in node.operands:
                yield from listed(operand, positive)
    elif isinstance(node, LtlThen):
        if positive:
            yield from merged(list(node.stages), [True] * len(node.stages))
        else:
            yield opaque(node)
    else:
        assert isinstance(node, LtlQuantified)
        instances = [ground(node.body, {node.variable.key: o}) for o in SCOPE.range_of(node)]
        if node.quantifier == "forn":
            if not positive:
                yield opaque(node)
            elif (node.count or 0) <= len(instances):
                for chosen in combinations(instances, node.count or 0):
                    yield from merged(list(chosen), [True] * len(chosen))
        elif (node.quantifier == "forall") == positive:
            yield from merged(instances, [positive] * len(instances))
        else:
            for instance in instances:
                yield from listed(instance, positive)


def merged(parts: list[LtlFormula], signs: list[bool]) -> Iterator[SimpleGoal]:
    for combination in product(*(list(listed(p, s)) for p, s in zip(parts, signs, strict=True))):
        goal = SimpleGoal()
        for option in combination:
            goal = goal.merge(option)
        yield goal


def opaque(node: LtlFormula) -> SimpleGoal:
    return SimpleGoal(propositions=frozenset({("?", "not " + format_ltl(node))}))


Best = tuple[float, float, float, SimpleGoal, SimpleGoal]


def listed_f1(candidate: LtlFormula, reference: LtlFormula) -> Best:
    best: Best | None = None
    for ref in list(listed(reference)) or [SimpleGoal()]:
        for cand in list(listed(candidate)) or [SimpleGoal()]:
            f1, precision, recall = set_f1(cand.elements(), ref.elements())
            if best is None or f1 > best[0]:
                best = (f1, precision, recall, ref, cand)
    assert best is not None
    return best


# --- random goals -----------------------------------------------------------------------------------

def atoms() -> st.SearchStrategy[LtlFormula]:
    def make(kind: str, a: str, b: str) -> LtlAtom:
        args = {"p": (a,), "q": (a, b), "r": (), "act": (a,), "go": ()}[kind]
        return LtlAtom(name(kind), tuple(name(t) for t in args))
    terms = st.sampled_from([*OBJECTS, "x", "y"])
    return st.builds(make, st.sampled_from(["p", "q", "r", "act", "go"]), terms, terms)


GOALS = ltl_formulas(atoms(), st.sampled_from(["x", "y"]), max_count=3, max_leaves=6)


def small(formula: LtlFormula) -> bool:
    """Goals whose listing stays cheap enough for the oracle."""
    return sum(1 for _ in islice(listed(formula), 301)) <= 300


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                   HealthCheck.too_slow])
@given(GOALS.filter(small), GOALS.filter(small))
def test_the_search_agrees_with_listing_every_pair(candidate: LtlFormula, reference: LtlFormula) -> None:
    result = goal_f1(candidate, reference, SCOPE, SCOPE)
    f1, precision, recall, ref, cand = listed_f1(candidate, reference)
    assert (result.f1, result.precision, result.recall) == (f1, precision, recall)
    assert (result.reference, result.candidate) == (ref, cand)


@settings(max_examples=300, deadline=None)
@given(GOALS.filter(small))
def test_the_expansions_are_listed_in_formula_order(formula: LtlFormula) -> None:
    assert simple_expansions(formula, SCOPE) == (list(listed(formula)) or [SimpleGoal()])


# --- BEHAVIOR-shaped goals: many options per goal, answered exactly --------------------------------

def options_goal(groups: list[list[list[str]]]) -> LtlFormula:
    """``(o11 or o12 or ...) and (o21 or ...)``, each option a conjunction of atoms written as text."""
    text = " and ".join("(" + " or ".join("(" + " and ".join(o) + ")" for o in g) + ")" for g in groups)
    formula = parse_ltl(text).formula
    assert formula is not None
    return formula


def gift_baskets(keys: int, items: int) -> list[list[list[str]]]:
    """Each key puts ``items`` things of its kind into the baskets, one per basket, in any order (24
    options for 4 of them), like BEHAVIOR's "assembling gift baskets"."""
    return [[[f"inside(thing{k}_{i}, basket{b})" for i, b in enumerate(order)]
             for order in permutations(range(items))] for k in range(keys)]


def element(atom: str) -> tuple[str, ...]:
    return ("+", *atom.replace("(", " ").replace(",", " ").replace(")", " ").split())


def fast_only(monkeypatch: pytest.MonkeyPatch, units: int) -> None:
    """The part-by-part solver and the tree search must answer within ``units`` (no programme)."""
    def programme(*_: object) -> None:
        raise AssertionError("the fast solvers gave up")
    monkeypatch.setattr(f1, "FAST_SECONDS", None)
    monkeypatch.setattr(f1, "FAST_UNITS", units)
    monkeypatch.setattr(f1_milp, "best_pair_milp", programme)


def test_a_behavior_sized_goal_is_answered_exactly_with_little_work(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_only(monkeypatch, units=300_000)
    groups = gift_baskets(keys=4, items=4)  # 24 ** 4 = 331,776 simple goals
    reference = options_goal(groups)
    rng = random.Random(7)
    for _ in range(20):
        chosen = [atom for g in groups for option in [rng.choice(g)] for atom in option if rng.random() < 0.7]
        chosen += [f"ontop(thing{rng.randrange(4)}_0, table)" for _ in range(rng.randrange(3))]
        candidate = parse_ltl(" and ".join(chosen) or "ontop(a, table)").formula
        assert candidate is not None
        result = goal_f1(candidate, reference, SCOPE, SCOPE)
        # the keys share no atom, so the best reference takes, per key, the option sharing most atoms
        cand_atoms = {element(a) for a in chosen} if chosen else {("+", "ontop", "a", "table")}
        common = sum(max(len(cand_atoms & {element(a) for a in option}) for option in g) for g in groups)
        assert result.f1 == 2 * common / (len(cand_atoms) + 16)
        assert len(result.reference.propositions) == 16


def test_a_goal_equal_to_one_option_scores_one() -> None:
    groups = gift_baskets(keys=3, items=4)
    rng = random.Random(3)
    picked = [rng.choice(g) for g in groups]
    candidate = parse_ltl(" and ".join(a for option in picked for a in option)).formula
    assert candidate is not None
    result = goal_f1(candidate, options_goal(groups), SCOPE, SCOPE, Meter(WorkBudget(None, 50_000)))
    assert (result.f1, result.precision, result.recall) == (1.0, 1.0, 1.0)
