"""Quick fixes: each one applied to a file with the mistake makes the diagnostic go away without
adding another, and edits exactly what a user would expect."""

from __future__ import annotations

import pytest

from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.editing.quick_fixes import FileEdit, Fix, fixes_for, problem_from_domain, skeletons
from plansight.analyses.workspace.lint import Analyzer
from plansight.analyses.workspace.sources import MemorySource

DOMAIN = "/w/domain.pddl"
PROBLEM = "/w/p01.pddl"

TYPED_DOMAIN = """\
(define (domain world)
  (:requirements :strips :typing)
  (:types block room)
  (:constants home - room)
  (:predicates
    (on ?x ?y - block)
    (in ?b - block ?r - room))
  (:action move
    :parameters (?x ?y - block ?r - room)
    :precondition (and (on ?x ?y) (in ?x ?r))
    :effect (and (on ?y ?x) (in ?y home))))
"""

PROBLEM_TEXT = """\
(define (problem p01)
  (:domain world)
  (:objects a b - block r1 - room)
  (:init (on a b) (in a r1))
  (:goal (on b a)))
"""


def lint(files: dict[str, str], path: str) -> tuple[Analyzer, list[Diagnostic]]:
    analyzer = Analyzer(MemorySource(files))
    return analyzer, list(analyzer.lint(path, files[path]).diagnostics)


def fixes(files: dict[str, str], path: str, code: str) -> tuple[Diagnostic, list[Fix]]:
    analyzer, diagnostics = lint(files, path)
    diagnostic = next(d for d in diagnostics if d.code == code)
    document = analyzer.parse(path, files[path])
    assert document is not None
    domain = analyzer.parse(DOMAIN, files[DOMAIN]) if DOMAIN in files else None
    return diagnostic, fixes_for(diagnostic, document, domain)


def apply(files: dict[str, str], edits: tuple[FileEdit, ...]) -> dict[str, str]:
    result = dict(files)
    for path in {e.path for e in edits}:
        text = result.get(path, "")
        for edit in sorted((e for e in edits if e.path == path), key=lambda e: e.span.start, reverse=True):
            text = text[:edit.span.start] + edit.new_text + text[edit.span.end:]
        result[path] = text
    return result


def fixed(files: dict[str, str], path: str, code: str, title_part: str = "") -> dict[str, str]:
    """Apply the fix for the first ``code`` diagnostic and check that diagnostic is gone and no
    error was introduced."""
    before = [d for d in lint(files, path)[1] if d.severity.value == "error"]
    diagnostic, offered = fixes(files, path, code)
    chosen = next(f for f in offered if title_part in f.title)
    after_files = apply(files, chosen.edits)
    after = lint(after_files, path)[1]
    assert not any(d.code == code and d.span == diagnostic.span for d in after), chosen.title
    new_errors = [d for d in after if d.severity.value == "error" and d.code != code]
    assert len(new_errors) <= len([d for d in before if d.code != code]), new_errors
    return after_files


def test_missing_requirement_is_added_to_the_requirements_section() -> None:
    domain = TYPED_DOMAIN.replace("(on ?x ?y) (in ?x ?r)", "(on ?x ?y) (not (in ?x ?r))")
    result = fixed({DOMAIN: domain}, DOMAIN, "missing-requirement")
    assert "(:requirements :strips :typing :negative-preconditions)" in result[DOMAIN]


def test_missing_requirements_section_is_created_after_the_header() -> None:
    domain = TYPED_DOMAIN.replace("  (:requirements :strips :typing)\n", "")
    result = fixed({DOMAIN: domain}, DOMAIN, "missing-requirement")
    assert result[DOMAIN].startswith("(define (domain world)\n  (:requirements :strips :typing)\n  (:types")


def test_undeclared_predicate_is_declared_with_the_types_of_its_arguments() -> None:
    domain = TYPED_DOMAIN.replace("(in ?y home)", "(in ?y home) (near ?x home)")
    _, offered = fixes({DOMAIN: domain}, DOMAIN, "undeclared-predicate")
    assert offered[0].title == "Declare predicate `(near ?x - block ?room - room)`"
    result = fixed({DOMAIN: domain}, DOMAIN, "undeclared-predicate")
    assert "    (in ?b - block ?r - room)\n    (near ?x - block ?room - room))" in result[DOMAIN]


def test_undeclared_predicate_in_a_problem_is_declared_in_its_domain() -> None:
    problem = PROBLEM_TEXT.replace("(in a r1))", "(in a r1) (painted a))")
    result = fixed({DOMAIN: TYPED_DOMAIN, PROBLEM: problem}, PROBLEM, "undeclared-predicate")
    assert "(painted ?block - block))" in result[DOMAIN]
    assert result[PROBLEM] == problem


def test_near_miss_name_is_replaced_by_the_suggestion() -> None:
    problem = PROBLEM_TEXT.replace("(on a b)", "(onn a b)")
    _, offered = fixes({DOMAIN: TYPED_DOMAIN, PROBLEM: problem}, PROBLEM, "undeclared-predicate")
    assert offered[0].title == "Replace `onn` with `on`" and offered[0].preferred
    result = fixed({DOMAIN: TYPED_DOMAIN, PROBLEM: problem}, PROBLEM, "undeclared-predicate", "Replace")
    assert result[PROBLEM] == PROBLEM_TEXT


def test_undeclared_object_is_declared_with_the_type_its_use_needs() -> None:
    problem = PROBLEM_TEXT.replace("(:goal (on b a))", "(:goal (in c r1))")
    result = fixed({DOMAIN: TYPED_DOMAIN, PROBLEM: problem}, PROBLEM, "undeclared-object")
    assert "(:objects c - block a b - block r1 - room)" in result[PROBLEM]


def test_undeclared_object_goes_before_an_untyped_run_so_it_types_nothing_else() -> None:
    domain = TYPED_DOMAIN.replace("(:types block room)", "(:types block room - object)")
    problem = PROBLEM_TEXT.replace("(:objects a b - block r1 - room)", "(:objects a b - block r1 - room x)")
    problem = problem.replace("(:goal (on b a))", "(:goal (on z a))")
    result = fixed({DOMAIN: domain, PROBLEM: problem}, PROBLEM, "undeclared-object")
    assert "(:objects z - block a b - block r1 - room x)" in result[PROBLEM]


UNTYPED_DOMAIN = """\
(define (domain world)
  (:requirements :strips)
  (:predicates (on ?x ?y))
  (:action swap :parameters (?x ?y) :precondition (on ?x ?y) :effect (on ?y ?x)))
"""


def test_object_types_in_a_problem_of_an_untyped_domain_are_removed() -> None:
    problem = PROBLEM_TEXT.replace("a b - block r1 - room", "a b - block c - (either x y)")
    problem = problem.replace("(:init (on a b) (in a r1))", "(:init (on a b))")
    files = {DOMAIN: UNTYPED_DOMAIN, PROBLEM: problem}
    result = fixed(files, PROBLEM, "typed-objects-untyped-domain")
    assert "(:objects a b c)" in result[PROBLEM]


def test_domain_name_of_a_problem_is_fixed() -> None:
    problem = PROBLEM_TEXT.replace("(:domain world)", "(:domain wrld)")
    _, diagnostics = lint({DOMAIN: TYPED_DOMAIN, PROBLEM: problem}, PROBLEM)
    code = next(d.code for d in diagnostics if d.code in ("unknown-domain", "domain-name-mismatch"))
    _, offered = fixes({DOMAIN: TYPED_DOMAIN, PROBLEM: problem}, PROBLEM, code)
    assert offered[0].title == "Change the domain name to `world`"
    result = fixed({DOMAIN: TYPED_DOMAIN, PROBLEM: problem}, PROBLEM, code)
    assert result[PROBLEM] == PROBLEM_TEXT


@pytest.mark.parametrize(("code", "edit", "expected"), [
    ("unused-predicate", ("(in ?b - block ?r - room))", "(in ?b - block ?r - room)\n    (spare ?x))"),
     "    (in ?b - block ?r - room))\n"),
    ("unused-constant", ("(:constants home - room)", "(:constants home - room extra - block)"),
     "(:constants home - room)"),
    ("unused-constant", ("(:constants home - room)", "(:constants home extra - room)"),
     "(:constants home - room)"),
    ("unused-type", ("(:types block room)", "(:types block room spare)"), "(:types block room)"),
])
def test_an_unused_declaration_is_removed(code: str, edit: tuple[str, str], expected: str) -> None:
    domain = TYPED_DOMAIN.replace(*edit)
    result = fixed({DOMAIN: domain}, DOMAIN, code)
    assert expected in result[DOMAIN]


def test_an_unused_requirement_is_removed() -> None:
    domain = TYPED_DOMAIN.replace(":strips :typing", ":strips :typing :conditional-effects")
    _, diagnostics = lint({DOMAIN: domain}, DOMAIN)
    if not any(d.code == "unused-requirement" for d in diagnostics):
        pytest.fail("the domain should report its unused requirement")
    result = fixed({DOMAIN: domain}, DOMAIN, "unused-requirement")
    assert "(:requirements :strips :typing)" in result[DOMAIN]


def test_an_empty_file_offers_a_domain_and_a_problem_skeleton_that_parse() -> None:
    empty = "/w/new.pddl"
    for title in ("domain skeleton", "problem skeleton"):
        files = fixed({empty: "", DOMAIN: TYPED_DOMAIN}, empty, "empty-file", title)
        _, after = lint(files, empty)
        assert not [d for d in after if d.severity.value == "error"], (title, after)
    analyzer = Analyzer(MemorySource({empty: "; notes\n"}))
    document = analyzer.parse(empty, "; notes\n")
    assert document is not None
    offered = skeletons(document, None)
    assert offered[1].edits[0].new_text.startswith("(define (problem new)\n  (:domain DOMAIN)")


def test_a_problem_is_created_from_a_domain_next_to_it() -> None:
    analyzer = Analyzer(MemorySource({DOMAIN: TYPED_DOMAIN}))
    document = analyzer.parse(DOMAIN, TYPED_DOMAIN)
    assert document is not None
    fix = problem_from_domain(document, lambda path: path == "/w/world-problem.pddl")
    assert fix is not None and fix.kind == "source" and fix.create == "/w/world-problem-2.pddl"
    content = fix.edits[0].new_text
    assert "    ; room (constants: home)\n" in content and "    ; (in ?b - block ?r - room)\n" in content
    files = {DOMAIN: TYPED_DOMAIN, fix.create: content}
    _, diagnostics = lint(files, fix.create)
    assert not [d for d in diagnostics if d.severity.value == "error"], diagnostics
