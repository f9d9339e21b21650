"""The plan potential (pi1) of Armony et al. 2025 is searched with bounds and memoised similarities
(docs/metrics.md); these tests hold it to the plain search it replaces, variant by variant.

The oracle below is the search as the paper's reference code describes it — every renaming, every
promising shift, validity and the full score of each variant — written without any shortcut, so that a
bound that is not a bound, or a memo that returns the wrong similarity, shows as a different pi1.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.analyses.plans.comparison import validity_checker
from plansight.analyses.plans.metrics import (
    SHIFT_PENALTY,
    Action,
    Potential,
    Validity,
    _mappings,
    _offsets,
    align,
    lcs_subsequence,
    lcs_subsequence_length,
    lcs_substring,
    lcs_substring_length,
    length_penalty,
    normalised,
    potential,
    raw_score,
    renaming_penalty,
)
from plansight.analyses.plans.simulate import simulate
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan


def plain_potential(plan: Sequence[Action], reference: Sequence[Action], is_valid: Validity | None,
                    own_score: float, budget: int) -> Potential:
    """Every variant scored in full, in the search's order; the first strictly best wins."""
    identity = {arg: arg for action in plan for arg in action[1:]}
    best = Potential(tuple(plan), identity, 0, own_score, False, 0, False)
    seen: set[tuple[Action, ...]] = set()
    any_valid, evaluated, truncated = False, 0, False
    for mapping in _mappings(plan, reference):
        renamed = [(a[0], *(mapping.get(x, x) for x in a[1:])) for a in plan]
        for offset in _offsets(renamed, reference):
            variant = tuple(renamed[offset:] + renamed[:offset])
            if variant in seen:
                continue
            if evaluated >= budget:
                truncated = True
                break
            seen.add(variant)
            evaluated += 1
            valid = is_valid(variant) if is_valid is not None else variant == tuple(reference)
            any_valid = any_valid or valid
            if valid:
                raw = len(variant) - (length_penalty(len(variant), len(reference))
                                      if len(variant) > len(reference) else 0)
            else:
                raw = raw_score(variant, reference, False, align(variant, reference))
            score = normalised(raw - (renaming_penalty(mapping) + SHIFT_PENALTY * offset), len(variant))
            if score > best.score:
                best = Potential(variant, mapping, offset, score, False, 0, False)
        if truncated:
            break
    return Potential(best.plan, best.mapping, best.offset, best.score, any_valid, evaluated, truncated)


NAMES = ["pick-up", "put-down", "stack", "unstack", "load-truck", "drive-truck"]
ACTIONS = st.tuples(st.sampled_from(NAMES), st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=3)).map(
    lambda t: (t[0], *t[1]))


@st.composite
def near_misses(draw: st.DrawFn) -> tuple[list[Action], list[Action]]:
    """A plan that is the reference with its objects swapped, rotated and perhaps one action changed:
    the variants that undo the change score close to the bound, where a wrong bound shows."""
    reference = draw(st.lists(ACTIONS, min_size=1, max_size=7))
    objects = ["a", "b", "c", "d"]
    swapped = dict(zip(objects, draw(st.permutations(objects)), strict=True))
    plan = [(a[0], *(swapped[x] for x in a[1:])) for a in reference]
    shift = draw(st.integers(0, len(plan) - 1))
    plan = plan[shift:] + plan[:shift]
    if draw(st.booleans()):
        plan[draw(st.integers(0, len(plan) - 1))] = draw(ACTIONS)
    return plan, reference


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.tuples(st.lists(ACTIONS, min_size=1, max_size=8),
                           st.lists(ACTIONS, min_size=1, max_size=8)), near_misses()),
       st.integers(0, 2**32 - 1), st.sampled_from([7, 40, 20000]))
def test_bounded_search_finds_the_plain_searchs_potential(plans: tuple[list[Action], list[Action]],
                                                          seed: int, budget: int) -> None:
    plan, reference = plans
    valid_variants: set[tuple[Action, ...]] = set()
    chooser = random.Random(seed)

    def is_valid(actions: Sequence[Action]) -> bool:  # an arbitrary but fixed validity per variant
        key = tuple(actions)
        if key not in valid_variants and chooser.random() < 0.02:
            valid_variants.add(key)
        return key in valid_variants

    own = normalised(raw_score(plan, reference, False, align(plan, reference)), len(plan))
    # the same validity answers for both searches: record them while the plain one runs
    expected = plain_potential(plan, reference, is_valid, own, budget)
    found = potential(plan, reference, lambda actions: tuple(actions) in valid_variants, "v1", own, budget)
    assert found == expected


def test_on_a_real_domain_the_bounded_search_agrees_and_aligns_fewer_variants() -> None:
    domain = parse_pddl("""(define (domain logistics) (:requirements :strips)
      (:predicates (at ?o ?l) (in ?o ?t) (truck ?t) (loc ?l) (pkg ?o))
      (:action load :parameters (?o ?t ?l) :precondition (and (pkg ?o) (truck ?t) (at ?t ?l) (at ?o ?l))
        :effect (and (in ?o ?t) (not (at ?o ?l))))
      (:action unload :parameters (?o ?t ?l) :precondition (and (in ?o ?t) (at ?t ?l))
        :effect (and (at ?o ?l) (not (in ?o ?t))))
      (:action drive :parameters (?t ?from ?to) :precondition (and (truck ?t) (at ?t ?from) (loc ?to))
        :effect (and (at ?t ?to) (not (at ?t ?from)))))""").model
    problem = parse_pddl("""(define (problem p) (:domain logistics) (:objects p1 p2 t1 l1 l2 l3)
      (:init (pkg p1) (pkg p2) (truck t1) (loc l1) (loc l2) (loc l3) (at t1 l1) (at p1 l1) (at p2 l2))
      (:goal (and (at p1 l3) (at p2 l3))))""").model
    reference = [(s.action.key, *(a.key for a in s.args)) for s in parse_plan(
        "(load p1 t1 l1)\n(drive t1 l1 l2)\n(load p2 t1 l2)\n(drive t1 l2 l3)\n(unload p1 t1 l3)\n"
        "(unload p2 t1 l3)").plan.steps]
    plan = [("load", "p2", "t1", "l1"), ("drive", "t1", "l1", "l3"), ("load", "p1", "t1", "l2"),
            ("drive", "t1", "l2", "l3"), ("unload", "p2", "t1", "l3"), ("unload", "p1", "t1", "l2")]
    is_valid = validity_checker(domain, problem)
    assert is_valid is not None
    own = normalised(raw_score(plan, reference, False, align(plan, reference)), len(plan))
    assert potential(plan, reference, is_valid, "v1", own, 20000) == plain_potential(
        plan, reference, is_valid, own, 20000)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=14), st.lists(st.sampled_from("abcd"), max_size=14))
def test_lcs_lengths_are_the_lengths_of_the_runs(plan: list[str], reference: list[str]) -> None:
    mine, theirs = [(x,) for x in plan], [(x,) for x in reference]
    assert lcs_subsequence_length(mine, theirs) == len(lcs_subsequence(mine, theirs))
    assert lcs_substring_length(mine, theirs) == len(lcs_substring(mine, theirs))


def test_a_verdict_without_explanation_is_the_same_verdict() -> None:
    domain = parse_pddl("""(define (domain d) (:requirements :strips) (:predicates (p) (q))
      (:action a :parameters () :precondition (p) :effect (and (q) (not (p)))))""").model
    problem = parse_pddl("(define (problem x) (:domain d) (:init (p)) (:goal (q)))").model
    for text in ("(a)", "(a)\n(a)", "", "(b)"):
        steps = parse_plan(text).plan
        full, bare = simulate(domain, problem, steps), simulate(domain, problem, steps, explain=False)
        assert (full.valid, full.lea) == (bare.valid, bare.lea)
        if full.failure is not None and full.failure.category not in ("parse", "unknown_action"):
            assert bare.failure is not None and bare.failure.category == "unexplained"
