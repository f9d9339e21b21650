"""Static checks of plans: unknown actions, wrong arity, unknown objects and argument types, each
at the offending name, with the corrected plan clean."""

from __future__ import annotations

import re

from plansight.analyses.checks.plan import check_plan
from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Domain, Plan, Problem
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

DOMAIN = """(define (domain blocks)
  (:requirements :strips :typing)
  (:types block table - object)
  (:constants t0 - table)
  (:predicates (on ?x - block ?y - block) (clear ?x - block) (holding ?x - block) (handempty)
               (ontable ?x - block))
  (:action pick-up :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (holding ?x) (not (ontable ?x)) (not (handempty))))
  (:action stack :parameters (?x - block ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (on ?x ?y) (handempty) (not (holding ?x)) (not (clear ?y))))
  (:process drift :parameters () :precondition (handempty) :effect (and)))
"""

PROBLEM = """(define (problem p) (:domain blocks)
  (:objects a b c - block)
  (:init (clear a) (clear b) (ontable a) (ontable b) (handempty))
  (:goal (on a b)))
"""


def model(text: str) -> Domain | Problem:
    parsed = parse_pddl(text)
    assert not parsed.diagnostics and parsed.model is not None
    return parsed.model


def plan_of(text: str) -> Plan:
    parsed = parse_plan(text)
    assert not parsed.diagnostics and parsed.plan is not None
    return parsed.plan


def check(plan_text: str, problem: str | None = PROBLEM, domain: str | None = DOMAIN) -> list[Diagnostic]:
    problem_model = model(problem) if problem is not None else None
    domain_model = model(domain) if domain is not None else None
    assert problem_model is None or isinstance(problem_model, Problem)
    assert domain_model is None or isinstance(domain_model, Domain)
    return check_plan(plan_of(plan_text), problem_model, domain_model)


def at(text: str, line: str, word: str) -> Span:
    """The span of the whole name ``word`` within the first occurrence of ``line`` in ``text``."""
    start = text.index(line)
    match = re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", line)
    assert match is not None
    return Span(start + match.start(), start + match.end())


def test_a_correct_plan_is_clean() -> None:
    assert check("(pick-up a)\n(stack a b)\n; cost = 2\n") == []


def test_unknown_action_with_did_you_mean() -> None:
    text = "(pick-up a)\n(stak a b)\n"
    [found] = check(text)
    assert found.code == "unknown-action" and found.severity is Severity.ERROR
    assert found.span == at(text, "(stak a b)", "stak")
    assert "`stak` is not an action of domain `blocks`. Did you mean `stack`?" in found.message
    assert check(text.replace("stak", "stack")) == []


def test_a_process_cannot_be_a_plan_step() -> None:
    text = "(drift)\n"
    [found] = check(text)
    assert found.code == "unknown-action"
    assert found.span == at(text, "(drift)", "drift")
    assert "`drift` is a process" in found.message


def test_wrong_arity() -> None:
    text = "(pick-up a)\n(stack a b c)\n"
    [found] = check(text)
    assert found.code == "wrong-arity"
    assert found.span == at(text, "(stack a b c)", "stack")
    assert "`stack` takes 2 arguments, got 3." in found.message
    assert check("(pick-up a)\n(stack a b)\n") == []


def test_undeclared_object_with_did_you_mean() -> None:
    problem = PROBLEM.replace("a b c - block", "a b c green - block")
    text = "(pick-up a)\n(stack a gren)\n(pick-up zz)\n"
    found = check(text, problem)
    assert [d.code for d in found] == ["undeclared-object", "undeclared-object"]
    assert [d.span for d in found] == [at(text, "(stack a gren)", "gren"), at(text, "(pick-up zz)", "zz")]
    assert found[0].message == (
        "`gren` is neither an object of the problem nor a constant of the domain. Did you mean `green`?"
    )
    assert check("(pick-up a)\n(stack a green)\n(pick-up c)\n", problem) == []


def test_objects_are_checked_even_when_the_action_is_wrong() -> None:
    text = "(stak a q)\n"
    assert [d.code for d in check(text)] == ["unknown-action", "undeclared-object"]


def test_type_mismatch() -> None:
    text = "(pick-up t0)\n"
    [found] = check(text)
    assert found.code == "type-mismatch"
    assert found.span == at(text, "(pick-up t0)", "t0")
    assert found.message == (
        "`t0` has type `table`, but the 1st argument of `pick-up` (`?x`) must have type `block`."
    )
    assert check("(pick-up a)\n") == []


SWAP_DOMAIN = """(define (domain gripper)
  (:requirements :strips :typing)
  (:types room ball gripper)
  (:predicates (at ?b - ball ?r - room) (at-robby ?r - room) (free ?g - gripper)
               (carry ?b - ball ?g - gripper))
  (:action pick :parameters (?b - ball ?r - room ?g - gripper)
    :precondition (and (at ?b ?r) (at-robby ?r) (free ?g))
    :effect (and (carry ?b ?g) (not (at ?b ?r)) (not (free ?g)))))
"""
SWAP_PROBLEM = """(define (problem g) (:domain gripper)
  (:objects rooma - room ball1 - ball left - gripper)
  (:init (at ball1 rooma) (at-robby rooma) (free left))
  (:goal (carry ball1 left)))
"""


def test_swapped_arguments_are_recognised() -> None:
    text = "(pick rooma ball1 left)\n"
    found = check(text, SWAP_PROBLEM, SWAP_DOMAIN)
    assert [d.code for d in found] == ["type-mismatch", "type-mismatch"]
    assert [d.span for d in found] == [at(text, text, "rooma"), at(text, text, "ball1")]
    assert all("The arguments look swapped: `(pick ball1 rooma left)`." in d.message for d in found)
    assert check("(pick ball1 rooma left)\n", SWAP_PROBLEM, SWAP_DOMAIN) == []


def test_without_a_problem_only_actions_are_checked() -> None:
    text = "(pick-up zz)\n(stak a b)\n(stack a)\n"
    assert [d.code for d in check(text, problem=None)] == ["unknown-action", "wrong-arity"]


def test_without_a_domain_nothing_is_checked() -> None:
    assert check("(stak zz)\n", domain=None) == []


def test_timestamped_plans_are_checked_too() -> None:
    text = "0.000: (pick-up a) [1.000]\n1.001: (stack a c b) [1.000]\n"
    [found] = check(text)
    assert found.code == "wrong-arity"
    assert found.span == at(text, "(stack a c b)", "stack")
