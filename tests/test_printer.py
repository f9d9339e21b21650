"""The printer's canonical layout, which the formatter will build on, and its handling of models
built in code (no recorded sections, no original spelling)."""

from __future__ import annotations

from plansight.analyses.model.pddl import (
    Action,
    And,
    Atom,
    Domain,
    FunctionDecl,
    Name,
    Number,
    Plan,
    PlanStep,
    PredicateDecl,
    Problem,
    TypedName,
    TypeRef,
    name,
)
from plansight.analyses.model.printer import WIDTH, print_domain, print_formula, print_plan, print_problem
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

MESSY_DOMAIN = """(define (domain Travel) (:requirements :typing :numeric-fluents :durative-actions)
(:types car truck - vehicle place) (:constants Home - place)
(:predicates (at ?v - vehicle ?p - place) (road ?from ?to - place) (visited ?p - place))
(:functions (fuel ?v - (either car truck)) - number (distance ?a ?b - place))
(:durative-action drive :parameters (?v - vehicle ?from ?to - place)
:duration (= ?duration (distance ?from ?to))
:condition (and (at start (at ?v ?from)) (over all (road ?from ?to))
  (at start (>= (fuel ?v) (distance ?from ?to))))
:effect (and (at start (not (at ?v ?from))) (at end (at ?v ?to)) (at end (visited ?to))
  (at start (decrease (fuel ?v) (distance ?from ?to))))))"""

CANONICAL_DOMAIN = """\
(define (domain Travel)
  (:requirements :typing :numeric-fluents :durative-actions)
  (:types car truck - vehicle place)
  (:constants Home - place)
  (:predicates
    (at ?v - vehicle ?p - place)
    (road ?from ?to - place)
    (visited ?p - place))
  (:functions
    (fuel ?v - (either car truck)) - number
    (distance ?a ?b - place))
  (:durative-action drive
    :parameters (?v - vehicle ?from ?to - place)
    :duration (= ?duration (distance ?from ?to))
    :condition (and
      (at start (at ?v ?from))
      (over all (road ?from ?to))
      (at start (>= (fuel ?v) (distance ?from ?to))))
    :effect (and
      (at start (not (at ?v ?from)))
      (at end (at ?v ?to))
      (at end (visited ?to))
      (at start (decrease (fuel ?v) (distance ?from ?to)))))
)
"""

MESSY_PROBLEM = """(define (problem trip) (:domain travel) (:objects c1 - car t1 - truck a b - place)
(:init (at c1 Home) (road Home a) (road a b) (= (fuel c1) 10.50) (= (distance Home a) .5)
  (at 3 (road b Home)))
(:goal (and (visited a) (visited b) (at c1 Home) (at t1 b)
  (forall (?p - place) (imply (road ?p Home) (visited ?p)))))
(:metric minimize (total-time)))"""

CANONICAL_PROBLEM = """\
(define (problem trip)
  (:domain travel)
  (:objects c1 - car t1 - truck a b - place)
  (:init
    (at c1 Home)
    (road Home a)
    (road a b)
    (= (fuel c1) 10.50)
    (= (distance Home a) .5)
    (at 3 (road b Home)))
  (:goal (and
    (visited a)
    (visited b)
    (at c1 Home)
    (at t1 b)
    (forall (?p - place) (imply (road ?p Home) (visited ?p)))))
  (:metric minimize (total-time))
)
"""


def test_canonical_domain_layout() -> None:
    """Two-space indentation, one section per block, one action part per line, a form broken (its
    arguments one per line, two columns deeper) only when it does not fit; names keep their
    spelling."""
    model = parse_pddl(MESSY_DOMAIN).model
    assert isinstance(model, Domain)
    assert print_domain(model) == CANONICAL_DOMAIN


def test_canonical_problem_layout_keeps_numbers_as_written() -> None:
    model = parse_pddl(MESSY_PROBLEM).model
    assert isinstance(model, Problem)
    assert print_problem(model) == CANONICAL_PROBLEM


def test_long_lists_wrap_within_the_width() -> None:
    objects = " ".join(f"object-number-{i}" for i in range(40))
    text = f"(define (problem p) (:domain d) (:objects {objects} - thing) (:init) (:goal (and)))"
    model = parse_pddl(text).model
    assert isinstance(model, Problem)
    printed = print_problem(model)
    assert all(len(line) <= WIDTH for line in printed.splitlines())
    assert parse_pddl(printed).model == model


def test_a_model_built_in_code() -> None:
    """No recorded sections: the canonical order, `:parameters` always, and an untyped name before
    typed ones (which PDDL cannot say without a type) written as `- object`."""
    block = TypeRef((name("block"),))
    domain = Domain(
        name=name("blocks"),
        requirements=(name(":strips"), name(":typing")),
        predicates=(PredicateDecl(name("on"), (TypedName(name("?x")), TypedName(name("?y"), block))),),
        functions=(FunctionDecl(name("cost")), FunctionDecl(name("fuel"), (), TypeRef((name("number"),)))),
        actions=(Action(name("noop"), effect=And(())),),
    )
    assert print_domain(domain) == (
        "(define (domain blocks)\n"
        "  (:requirements :strips :typing)\n"
        "  (:predicates\n"
        "    (on ?x - object ?y - block))\n"
        "  (:functions\n"
        "    (cost) - number\n"
        "    (fuel) - number)\n"
        "  (:action noop\n"
        "    :parameters ()\n"
        "    :effect (and))\n"
        ")\n"
    )
    goal = Atom(Name("on"), (Name("a"), Name("b")))
    problem = Problem(name=name("p"), domain_name=name("blocks"), goal=goal)
    assert print_problem(problem) == (
        "(define (problem p)\n  (:domain blocks)\n  (:init)\n  (:goal (on a b))\n)\n"
    )


def test_numbers_without_spelling_print_exactly() -> None:
    assert print_formula(Number(3.0)) == "3"
    assert print_formula(Number(0.1)) == "0.1"
    plan = Plan((PlanStep(name("move"), (name("a"),), Number(0.0), Number(1.5)),), Number(12.0))
    assert print_plan(plan) == "0: (move a) [1.5]\n; cost = 12\n"
    assert parse_plan(print_plan(plan)).plan == plan


def test_repeated_sections_keep_the_model() -> None:
    """The parser concatenates repeated sections; printing the content once and the repeat empty
    keeps the model (and its section list) equal."""
    text = "(define (domain d) (:predicates (p)) (:action a :effect (p)) (:predicates (q)))"
    model = parse_pddl(text).model
    assert isinstance(model, Domain)
    printed = print_domain(model)
    assert "(:predicates)" in printed
    assert parse_pddl(printed).model == model
