"""Structural equivalence of domains (docs/domain-equivalence.md) against an independent brute-force search
over every bijection of type, predicate and action names, on small random domains; and the renaming
reported is one that works."""

from __future__ import annotations

import random

import pytest
from domain_generators import (
    brute_force_renaming,
    mutate,
    permuted,
    plain_names,
    random_shape,
    renamed_names,
    swap_parameters,
    write,
)

from plansight.analyses.domain_equivalence.comparison import compare_domains
from plansight.analyses.domain_equivalence.structure import structural_match
from plansight.analyses.model.pddl import Domain
from plansight.analyses.syntax.parse_pddl import parse_pddl


def domain(text: str) -> Domain:
    model = parse_pddl(text).model
    assert isinstance(model, Domain)
    return model


@pytest.mark.parametrize("seed", range(40))
def test_a_renamed_reordered_copy_is_equivalent_and_the_renaming_is_the_one_applied(seed: int) -> None:
    rng = random.Random(seed)
    shape = random_shape(rng)
    reference = domain(write(shape, plain_names(shape)))
    names = renamed_names(rng, shape)
    candidate = domain(write(shape, names))
    found = structural_match(candidate, reference)
    assert found.renaming is not None
    assert brute_force_renaming(candidate, reference) is not None
    # the renaming found maps each written name back to a name with the same role (when the shape has
    # interchangeable parts several are right; the oracle checks the one found makes the domains equal)
    from domain_generators import _canonical

    r = found.renaming
    types = {**r.types, "object": "object"}
    identity_types = {t.name.key: t.name.key for t in reference.types} | {"object": "object"}
    assert _canonical(candidate, types, dict(r.predicates), dict(r.actions)) == _canonical(
        reference, identity_types, {p.name.key: p.name.key for p in reference.predicates},
        {a.name.key: a.name.key for a in reference.actions})


VARIANTS = {
    "permuted": lambda rng, shape: permuted(rng, shape),
    "mutated": lambda rng, shape: mutate(rng, shape),
    "parameters swapped": lambda rng, shape: swap_parameters(rng, shape),
    "unrelated": lambda rng, shape: random_shape(rng, types=1, predicates=2, actions=2),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_verdict_agrees_with_brute_force(variant: str) -> None:
    verdicts = []
    for seed in range(60):
        rng = random.Random(1000 + seed)
        small = variant == "unrelated"
        shape = random_shape(rng, types=1, predicates=2) if small else random_shape(rng)
        reference = domain(write(shape, plain_names(shape)))
        other = VARIANTS[variant](rng, shape)
        candidate = domain(write(other, renamed_names(rng, other)))
        expected = brute_force_renaming(candidate, reference) is not None
        assert structural_match(candidate, reference).equivalent is expected, seed
        verdicts.append(expected)
    # each variant exercises its side of the question; swapped parameters land on both sides
    expected_sides = {"permuted": {True}, "mutated": {False}, "parameters swapped": {True, False}}
    if variant in expected_sides:
        assert set(verdicts) == expected_sides[variant]


def test_the_verdict_names_the_renaming_and_ignores_order_and_the_domain_name() -> None:
    reference = domain("""(define (domain ref) (:requirements :strips)
      (:predicates (at ?x ?l) (free ?l))
      (:action move :parameters (?x ?from ?to)
        :precondition (and (at ?x ?from) (free ?to))
        :effect (and (at ?x ?to) (not (at ?x ?from)) (free ?from) (not (free ?to)))))""")
    candidate = domain("""(define (domain mine)
      (:predicates (empty ?c) (in ?o ?c))
      (:action go :parameters (?o ?a ?b)
        :precondition (and (empty ?b) (in ?o ?a))
        :effect (and (not (empty ?b)) (empty ?a) (not (in ?o ?a)) (in ?o ?b))))""")
    comparison = compare_domains(candidate, reference)
    assert comparison.equivalent
    assert comparison.renaming.renamed() == [("predicates", "empty", "free"), ("predicates", "in", "at"),
                                             ("actions", "go", "move")]
    assert comparison.explanation == ("Structurally equivalent up to renaming: empty → free, in → at, "
                                      "go → move.")


def test_swapped_parameters_are_a_different_action() -> None:
    """A plan names arguments by position, so `(move ?to ?from)` is not `(move ?from ?to)` renamed."""
    reference = domain("""(define (domain d) (:predicates (at ?x) (link ?a ?b))
      (:action move :parameters (?a ?b) :precondition (and (at ?a) (link ?a ?b))
        :effect (and (at ?b) (not (at ?a)))))""")
    candidate = domain("""(define (domain d) (:predicates (at ?x) (link ?a ?b))
      (:action move :parameters (?b ?a) :precondition (and (at ?a) (link ?a ?b))
        :effect (and (at ?b) (not (at ?a)))))""")
    assert not structural_match(candidate, reference).equivalent
