"""Which reference a problem or plan is compared with (docs/files-and-links.md: directive, then globs)."""

from __future__ import annotations

import os

from plansight.analyses.syntax.documents import parse_document
from plansight.analyses.workspace.references import ReferenceLink, find_reference, find_reference_plan

PROBLEM = "(define (problem p) (:domain d) (:objects a) (:init) (:goal (clear a)))\n"
ROOT = os.path.join(os.sep, "course")


def _in(*parts: str) -> str:
    return os.path.join(ROOT, *parts)


def _at(path: str, text: str) -> object:
    return parse_document(os.path.join(ROOT, path), text)


def test_the_directive_wins_over_a_matching_glob_and_is_relative_to_the_file() -> None:
    document = _at("students/ann/p.pddl", "; @reference ../../ref/goal.pddl\n" + PROBLEM)
    globs = [(os.path.join(ROOT, "students/**/*.pddl"), os.path.join(ROOT, "other.pddl"))]
    assert find_reference(document, globs) == ReferenceLink(_in("ref", "goal.pddl"), "directive")


def test_a_glob_links_a_problem_and_a_file_matching_none_has_no_reference() -> None:
    globs = [(os.path.join(ROOT, "students/**/*.pddl"), os.path.join(ROOT, "ref", "goal.pddl"))]
    assert find_reference(_at("students/bob/p.pddl", PROBLEM), globs) == ReferenceLink(
        os.path.join(ROOT, "ref", "goal.pddl"), "setting")
    assert find_reference(_at("drafts/p.pddl", PROBLEM), globs) is None


def test_the_reference_is_not_its_own_reference() -> None:
    reference = os.path.join(ROOT, "problems", "ref.pddl")
    globs = [(os.path.join(ROOT, "problems/*.pddl"), reference)]
    assert find_reference(_at("problems/ref.pddl", PROBLEM), globs) is None
    assert find_reference(_at("problems/mine.pddl", PROBLEM), globs) == ReferenceLink(reference, "setting")


def test_a_reference_plan_glob_substitutes_the_plans_stem() -> None:
    globs = [(os.path.join(ROOT, "plans/*.plan"), os.path.join(ROOT, "gold", "{stem}.soln"))]
    plan = _at("plans/p07.plan", "(pick a)\n")
    assert find_reference_plan(plan, globs) == ReferenceLink(_in("gold", "p07.soln"), "setting")
    linked = _at("plans/p07.plan", "; @reference-plan mine.plan\n(pick a)\n")
    assert find_reference_plan(linked, globs) == ReferenceLink(_in("plans", "mine.plan"), "directive")
    # `; @reference` is the problem's directive, not the plan's
    assert find_reference(plan) is None
