"""Semantic checks of problems: one small domain + problem per diagnostic code, the exact range of
each finding, what its message tells the user, and the corrected problem clean of that code."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from plansight.analyses.checks.problem import check_problem
from plansight.analyses.diagnostics.diagnostic import CODES, Diagnostic, Severity, Tag
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.syntax.parse_pddl import parse_pddl

BLOCKS = """(define (domain blocks)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents)
  (:types block table - object heavy - block)
  (:constants t0 - table)
  (:predicates (on ?x - block ?y - block) (ontable ?x - block) (clear ?x - block) (handempty)
               (holding ?x - block) (near ?x - block ?y - block) (placed ?x - (either block table)))
  (:functions (weight ?x - block))
  (:action pick-up :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (holding ?x) (not (ontable ?x)) (not (clear ?x)) (not (handempty))))
  (:action stack :parameters (?x - block ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y)))))
"""
"""`near` and `placed` are static: no action changes them."""

UNTYPED = """(define (domain blocksworld)
  (:requirements :strips)
  (:predicates (on ?x ?y) (clear ?x) (handempty))
  (:action put :parameters (?x ?y) :precondition (clear ?x) :effect (and (not (clear ?x)) (on ?x ?y))))
"""


def parse(text: str) -> Domain | Problem:
    result = parse_pddl(text)
    assert not result.diagnostics, result.diagnostics
    assert result.model is not None
    return result.model


def check(problem_text: str, domain_text: str | None = BLOCKS) -> list[Diagnostic]:
    problem = parse(problem_text)
    assert isinstance(problem, Problem)
    domain = parse(domain_text) if domain_text is not None else None
    assert domain is None or isinstance(domain, Domain)
    return check_problem(problem, domain)


def coded(diagnostics: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


def at(text: str, context: str, word: str | None = None, occurrence: int = 0) -> Span:
    """The span of the whole name ``word`` inside the ``occurrence``-th appearance of ``context`` in
    ``text`` (or of ``context`` itself)."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(context, start + 1)
    if word is None:
        return Span(start, start + len(context))
    match = re.search(rf"(?<![\w?-]){re.escape(word)}(?![\w-])", context)
    assert match is not None
    return Span(start + match.start(), start + match.end())


def problem(init: str = "(clear a) (ontable a) (handempty)", goal: str = "(and (holding a))",
            objects: str = "a b c - block", extra: str = "") -> str:
    return f"""(define (problem p1) (:domain blocks)
  (:objects {objects})
  (:init {init})
  (:goal {goal})
  {extra})
"""


def test_a_correct_problem_is_clean() -> None:
    text = problem(init="(clear a) (ontable a) (handempty) (on b c) (near a b) (placed t0) (= (weight a) 3)",
                   goal="(and (on a b) (not (clear b)) (near a b) (exists (?x - block) (on ?x a)))")
    assert check(text) == []


# --- names ----------------------------------------------------------------------------------------


def test_undeclared_object_in_init_and_goal_with_did_you_mean() -> None:
    text = problem(objects="block1 block2 - block", init="(clear blokc2) (handempty)",
                   goal="(and (on block1 blcok3))")
    found = coded(check(text), "undeclared-object")
    assert [d.span for d in found] == [
        at(text, "(clear blokc2)", "blokc2"),
        at(text, "(on block1 blcok3)", "blcok3"),
    ]
    assert found[0].severity is Severity.ERROR
    assert "`blokc2` is neither an object of this problem nor a constant" in found[0].message
    assert "Did you mean `block2`?" in found[0].message
    fixed = problem(objects="block1 block2 block3 - block", init="(clear block2) (handempty)",
                    goal="(and (on block1 block3))")
    assert coded(check(fixed), "undeclared-object") == []


def test_domain_constants_count_as_objects() -> None:
    assert coded(check(problem(init="(placed t0) (handempty)")), "undeclared-object") == []


def test_undeclared_object_in_metric_and_constraints() -> None:
    text = problem(extra="(:constraints (always (clear d))) (:metric minimize (weight e))")
    found = coded(check(text), "undeclared-object")
    assert [d.span for d in found] == [at(text, "(clear d)", "d"), at(text, "(weight e)", "e")]


def test_undeclared_predicate_with_did_you_mean() -> None:
    text = problem(init="(clear a) (on-table a) (handempty)", goal="(and (holdng a))")
    found = coded(check(text), "undeclared-predicate")
    assert [d.span for d in found] == [at(text, "on-table"), at(text, "holdng")]
    assert "`on-table` is not a predicate of domain `blocks`. Did you mean `ontable`?" in found[0].message
    assert "Did you mean `holding`?" in found[1].message
    fixed = problem(init="(clear a) (ontable a) (handempty)", goal="(and (holding a))")
    assert coded(check(fixed), "undeclared-predicate") == []


def test_function_used_as_a_predicate_is_explained() -> None:
    text = problem(goal="(and (weight a))")
    [found] = coded(check(text), "undeclared-predicate")
    assert found.span == at(text, "(weight a)", "weight")
    assert "`weight` is a function" in found.message


def test_undeclared_function_in_init_with_did_you_mean() -> None:
    text = problem(init="(handempty) (= (wieght a) 3)")
    [found] = coded(check(text), "undeclared-function")
    assert found.span == at(text, "wieght")
    assert "`wieght` is not a function of domain `blocks`. Did you mean `weight`?" in found.message
    assert coded(check(problem(init="(handempty) (= (weight a) 3)")), "undeclared-function") == []


def test_wrong_arity_of_predicates_and_functions() -> None:
    text = problem(init="(clear a b) (handempty) (= (weight) 2)", goal="(and (on a))")
    found = coded(check(text), "wrong-arity")
    assert [d.span for d in found] == [
        at(text, "(clear a b)", "clear"),
        at(text, "(weight)", "weight"),
        at(text, "(on a)", "on"),
    ]
    assert "`clear` takes 1 argument, got 2." in found[0].message
    assert "`weight` takes 1 argument, got 0." in found[1].message
    assert "`on` takes 2 arguments, got 1." in found[2].message
    fixed = problem(init="(clear a) (handempty) (= (weight a) 2)", goal="(and (on a b))")
    assert coded(check(fixed), "wrong-arity") == []


def test_type_mismatch_respects_hierarchy_and_either() -> None:
    text = problem(objects="a b - block h - heavy",
                   init="(clear t0) (on h a) (placed t0) (placed h)", goal="(and (on a t0))")
    found = coded(check(text), "type-mismatch")
    assert [d.span for d in found] == [at(text, "(clear t0)", "t0"), at(text, "(on a t0)", "t0")]
    assert found[0].message == (
        "`t0` has type `table`, but the 1st argument of `clear` (`?x`) must have type `block`."
    )
    assert "the 2nd argument of `on` (`?y`) must have type `block`" in found[1].message
    fixed = problem(objects="a b - block h - heavy", init="(clear b) (on h a) (placed t0) (placed h)",
                    goal="(and (on a h))")
    assert coded(check(fixed), "type-mismatch") == []


def test_type_mismatch_of_quantified_variables_in_the_goal() -> None:
    text = problem(goal="(forall (?t - table) (clear ?t))")
    [found] = coded(check(text), "type-mismatch")
    assert found.span == at(text, "(clear ?t)", "?t")
    assert "`?t` has type `table`" in found.message


def test_either_parameters_name_every_accepted_type() -> None:
    domain = BLOCKS.replace("(:types block table - object heavy - block)",
                            "(:types block table - object heavy - block peg)")
    text = problem(objects="a - block p - peg", init="(handempty) (placed p)")
    [found] = coded(check(text, domain), "type-mismatch")
    assert found.span == at(text, "(placed p)", "p")
    assert "must have type `block` or `table`" in found.message


def test_swapped_arguments_in_a_fact_are_recognised() -> None:
    domain = BLOCKS.replace("(placed ?x - (either block table))", "(placed ?x - (either block table)) "
                            "(rests ?x - block ?t - table)")
    text = problem(init="(handempty) (rests t0 a)")
    found = coded(check(text, domain), "type-mismatch")
    assert [d.span for d in found] == [at(text, "(rests t0 a)", "t0"), at(text, "(rests t0 a)", "a")]
    assert all("The arguments look swapped: `(rests a t0)`." in d.message for d in found)
    assert coded(check(problem(init="(handempty) (rests a t0)"), domain), "type-mismatch") == []


def test_free_variables_in_goal_and_init() -> None:
    text = problem(init="(clear ?y) (handempty)", goal="(and (exists (?x - block) (on ?x ?z)))")
    found = coded(check(text), "free-variable")
    assert [d.span for d in found] == [at(text, "?y"), at(text, "?z")]
    assert "facts in `:init` must name objects" in found[0].message
    assert "`?z` is not bound in the goal" in found[1].message
    fixed = problem(goal="(and (exists (?x ?z - block) (on ?x ?z)))")
    assert coded(check(fixed), "free-variable") == []


def test_undeclared_type_of_objects_with_did_you_mean() -> None:
    text = problem(objects="a b - blok c - block", init="(clear a) (handempty)")
    diagnostics = check(text)
    assert coded(diagnostics, "type-mismatch") == []  # the undeclared type is the one mistake
    [found] = coded(diagnostics, "undeclared-type")
    assert found.span == at(text, "blok")
    assert "Type `blok` is not declared in the domain's `:types`. Did you mean `block`?" in found.message
    assert coded(check(problem(objects="a b c - block")), "undeclared-type") == []


def test_object_is_a_valid_type_for_objects() -> None:
    assert coded(check(problem(objects="a b c - block x - object")), "undeclared-type") == []


def test_a_parameter_of_an_undeclared_type_does_not_flag_its_arguments() -> None:
    domain = BLOCKS.replace("(clear ?x - block)", "(clear ?x - blok)")
    assert coded(check(problem(init="(clear a) (clear t0) (handempty)"), domain), "type-mismatch") == []


# --- declarations ---------------------------------------------------------------------------------


def test_duplicate_object_points_at_the_first_declaration() -> None:
    text = problem(objects="a b - block a - block")
    [found] = coded(check(text), "duplicate-declaration")
    assert found.span == at(text, "a - block", "a")
    assert found.related[0].span == at(text, "a b - block", "a")
    assert "Object `a` is already declared" in found.message
    assert coded(check(problem(objects="a b - block")), "duplicate-declaration") == []


def test_typed_objects_in_an_untyped_domain() -> None:
    text = """(define (problem p) (:domain blocksworld)
  (:objects a b c - block d - (either x y) e)
  (:init (clear a) (handempty))
  (:goal (on a b)))
"""
    found = coded(check(text, UNTYPED), "typed-objects-untyped-domain")
    assert [d.span for d in found] == [at(text, "c - block", "block"), at(text, "(either x y)")]
    assert found[0].message == (
        "The domain `blocksworld` is untyped (no `:typing`), so objects cannot have types: "
        "write `a b c` instead of `a b c - block`."
    )
    assert found[0].data == (("fix", "remove-types"),)
    assert "write `d` instead of `d - (either x y)`" in found[1].message
    diagnostics = check(text, UNTYPED)
    assert coded(diagnostics, "undeclared-type") == [] and coded(diagnostics, "type-mismatch") == []
    fixed = text.replace(" - block", "").replace(" - (either x y)", "")
    assert check(fixed, UNTYPED) == []


def test_object_shadowing_a_constant_is_a_warning() -> None:
    text = problem(objects="a b - block t0 - table")
    [found] = coded(check(text), "object-shadows-constant")
    assert found.span == at(text, "t0 - table", "t0")
    assert found.severity is Severity.WARNING
    assert "`t0` is already a constant of domain `blocks`" in found.message
    assert coded(check(problem(objects="a b - block")), "object-shadows-constant") == []


# --- goals ----------------------------------------------------------------------------------------


def test_goal_over_a_static_predicate_false_in_init_is_unreachable() -> None:
    text = problem(init="(handempty) (near a c)", goal="(and (near a b) (on a b))")
    [found] = coded(check(text), "static-goal-unreachable")
    assert found.span == at(text, "(near a b)")
    assert found.severity is Severity.ERROR
    assert "`(near a b)` can never become true: no action changes `near`" in found.message
    fixed = problem(init="(handempty) (near a b)", goal="(and (near a b) (on a b))")
    assert coded(check(fixed), "static-goal-unreachable") == []


def test_negated_static_goal_true_in_init_is_unreachable() -> None:
    text = problem(init="(handempty) (near a b)", goal="(and (not (near a b)))")
    [found] = coded(check(text), "static-goal-unreachable")
    assert found.span == at(text, "(not (near a b))")
    assert "`(not (near a b))` can never hold" in found.message
    assert found.related[0].span == at(text, "(near a b)")
    fixed = problem(init="(handempty)", goal="(and (not (near a b)))")
    assert coded(check(fixed), "static-goal-unreachable") == []


def test_static_goal_check_does_not_reason_through_disjunctions() -> None:
    text = problem(init="(handempty)", goal="(or (near a b) (on a b))")
    assert coded(check(text), "static-goal-unreachable") == []


def test_a_timed_initial_literal_can_make_a_static_goal_true() -> None:
    text = problem(init="(handempty) (at 10 (near a b))", goal="(and (near a b))")
    domain = BLOCKS.replace(":numeric-fluents", ":numeric-fluents :timed-initial-literals")
    assert coded(check(text, domain), "static-goal-unreachable") == []


def test_derived_predicates_are_not_static() -> None:
    domain = BLOCKS.replace(":numeric-fluents)", ":numeric-fluents :derived-predicates)").replace(
        "(:action pick-up", "(:derived (near ?x - block ?y - block) (on ?x ?y))\n  (:action pick-up"
    )
    text = problem(init="(handempty)", goal="(and (near a b))")
    assert coded(check(text, domain), "static-goal-unreachable") == []


def test_contradictory_goal() -> None:
    text = problem(goal="(and (on a b) (clear c) (not (on a b)))")
    [found] = coded(check(text), "contradictory-goal")
    assert found.span == at(text, "(not (on a b))")
    assert found.related[0].span == at(text, "(on a b)")
    assert "requires both `(on a b)` and `(not (on a b))`" in found.message
    assert coded(check(problem(goal="(and (on a b) (clear c))")), "contradictory-goal") == []


# --- init -----------------------------------------------------------------------------------------


def test_duplicate_init_fact_is_an_unnecessary_hint() -> None:
    text = problem(init="(clear a) (handempty) (clear a)")
    [found] = coded(check(text), "duplicate-init-fact")
    assert found.span == at(text, "(clear a)", occurrence=1)
    assert found.related[0].span == at(text, "(clear a)")
    assert found.severity is Severity.HINT and found.tags == (Tag.UNNECESSARY,)
    assert "`(clear a)` is already in `:init`" in found.message
    assert coded(check(problem(init="(clear a) (handempty)")), "duplicate-init-fact") == []


def test_formulas_in_init_are_misplaced() -> None:
    text = problem(init="(and (clear a) (handempty)) (or (ontable a) (ontable b)) (> (weight a) 2)")
    found = coded(check(text), "misplaced-construct")
    assert [d.span for d in found] == [at(text, "(and"), at(text, "(or"), at(text, "(>")]
    assert "remove `(and` and its `)`" in found[0].message
    assert "`(or ...)` cannot appear there" in found[1].message
    assert "with `=`" in found[2].message
    fixed = problem(init="(clear a) (handempty) (ontable a) (= (weight a) 2)")
    assert coded(check(fixed), "misplaced-construct") == []


def test_names_inside_misplaced_init_formulas_are_still_checked() -> None:
    text = problem(init="(and (clear z) (handempty))")
    [found] = coded(check(text), "undeclared-object")
    assert found.span == at(text, "(clear z)", "z")


def test_effects_in_the_goal_are_misplaced() -> None:
    text = problem(goal="(and (on a b) (increase (weight a) 1))")
    [found] = coded(check(text), "misplaced-construct")
    assert found.span == at(text, "(increase")
    assert "`increase` is an effect" in found.message


def test_contingent_init_with_oneof_and_and_is_accepted() -> None:
    text = problem(init="(and (handempty) (oneof (clear a) (clear b)) (unknown (ontable c)))")
    assert check(text) == []


def test_timed_initial_literal_needs_its_requirement() -> None:
    text = problem(init="(handempty) (at 10 (clear a)) (at 20 (clear b))")
    [found] = coded(check(text), "missing-requirement")
    assert found.span == at(text, "(at 10")
    assert "`:timed-initial-literals`" in found.message
    in_domain = BLOCKS.replace(":numeric-fluents", ":numeric-fluents :timed-initial-literals")
    assert coded(check(text, in_domain), "missing-requirement") == []
    in_problem = text.replace("(:domain blocks)", "(:domain blocks) (:requirements :timed-initial-literals)")
    assert coded(check(in_problem), "missing-requirement") == []


def test_numeric_init_checks_its_arguments() -> None:
    text = problem(init="(handempty) (= (weight t0) 1) (= (weight q) 2)")
    diagnostics = check(text)
    assert [d.span for d in coded(diagnostics, "type-mismatch")] == [at(text, "(weight t0)", "t0")]
    assert [d.span for d in coded(diagnostics, "undeclared-object")] == [at(text, "(weight q)", "q")]


# --- sections -------------------------------------------------------------------------------------


def test_missing_goal_and_missing_domain_are_warnings() -> None:
    text = "(define (problem p1)\n  (:objects a - block)\n  (:init (handempty)))\n"
    found = coded(check(text), "missing-section")
    assert [d.span for d in found] == [at(text, "p1"), at(text, "p1")]
    assert all(d.severity is Severity.WARNING for d in found)
    assert any("`(:domain NAME)`" in d.message for d in found)
    assert any("no `:goal`" in d.message for d in found)
    assert coded(check(problem()), "missing-section") == []


def test_duplicate_section() -> None:
    text = problem(extra="(:objects d - block)")
    [found] = coded(check(text), "duplicate-section")
    assert found.span == at(text, ":objects", occurrence=1)
    assert found.related[0].span == at(text, ":objects")
    assert "`:objects` appears twice" in found.message


# --- without a domain -----------------------------------------------------------------------------


def test_without_a_domain_only_the_intrinsic_checks_run() -> None:
    text = problem(objects="a a - block", init="(clear a) (clear a) (handempty) (frobnicate q)",
                   goal="(and (on a b) (not (on a b)))")
    codes = sorted(d.code for d in check(text, None))
    assert codes == ["contradictory-goal", "duplicate-declaration", "duplicate-init-fact"]


def test_every_code_emitted_is_catalogued() -> None:
    text = problem(objects="a a - blok t0 - table", init="(and (clear q)) (clear q) (clear q) (on a)",
                   goal="(and (near a b) (not (near a b)) (holdng ?x))")
    for diagnostic in check(text):
        assert diagnostic.code in CODES
        assert diagnostic.severity is CODES[diagnostic.code].severity


# --- the unified-planning corpus ------------------------------------------------------------------


def _corpus_problems() -> list[tuple[Path, Path]]:
    import unified_planning

    root = Path(os.path.dirname(unified_planning.__file__)) / "test"
    pairs = []
    for path in sorted(root.rglob("*.pddl")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "(problem" not in text.lower():
            continue
        domains = [p for p in sorted(path.parent.glob("*.pddl"))
                   if "(domain" in p.read_text(encoding="utf-8", errors="replace").lower()[:2000]]
        if domains:
            pairs.append((path, domains[0]))
    return pairs


CORPUS = _corpus_problems()


def test_the_corpus_has_problems() -> None:
    assert len(CORPUS) >= 10


@pytest.mark.parametrize(
    ("problem_path", "domain_path"), CORPUS, ids=[f"{p.parent.name}/{p.name}" for p, _ in CORPUS]
)
def test_corpus_problems_have_no_errors_or_warnings(problem_path: Path, domain_path: Path) -> None:
    problem_model = parse_pddl(problem_path.read_text(encoding="utf-8")).model
    domain_model = parse_pddl(domain_path.read_text(encoding="utf-8")).model
    assert isinstance(problem_model, Problem) and isinstance(domain_model, Domain)
    serious = [d for d in check_problem(problem_model, domain_model)
               if d.severity in (Severity.ERROR, Severity.WARNING)]
    assert serious == []
