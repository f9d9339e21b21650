"""Vocabulary checks of LTL goals against a domain and problem, in EAI's error categories, and the
same diagnostics through `plansight lint`'s Analyzer (linking by `; @problem`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.ltl.check import check_ltl
from plansight.analyses.ltl.f1 import goal_f1, set_f1, simple_expansions
from plansight.analyses.ltl.scope import LtlScope, ltl_scope
from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.syntax.parse_ltl import parse_ltl
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.workspace.lint import Analyzer, DiskSource, MemorySource, find_files

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _model(path: Path) -> Domain | Problem:
    model = parse_pddl(path.read_text()).model
    assert model is not None
    return model


BLOCKS_DOMAIN = _model(EXAMPLES / "blocksworld" / "domain.pddl")
SUSSMAN = _model(EXAMPLES / "blocksworld" / "p01.pddl")
GRIPPER_DOMAIN = _model(EXAMPLES / "gripper" / "domain.pddl")
GRIPPER_P01 = _model(EXAMPLES / "gripper" / "p01.pddl")


def check(text: str, domain: Domain | Problem = BLOCKS_DOMAIN,
          problem: Domain | Problem | None = SUSSMAN) -> list[tuple[str, str, str]]:
    """(code, flagged text, message) of every diagnostic."""
    formula = parse_ltl(text).formula
    found: list[Diagnostic] = check_ltl(formula, domain, problem)  # type: ignore[arg-type]
    return [(d.code, text[d.span.start:d.span.end], d.message) for d in found]


def test_a_correct_goal_has_no_diagnostics() -> None:
    assert check("unstack(c, a) then on(a, b) and on(b, c) and handempty()") == []


@pytest.mark.parametrize(("text", "code", "flagged", "message"), [
    ("ontable(c)", "hallucinated-predicate", "ontable",
     "Hallucinated predicate: `ontable` is neither a predicate nor an action of domain `blocksworld`. "
     "Did you mean the predicate `on-table`?"),
    ("pickup(a)", "hallucinated-predicate", "pickup",
     "Hallucinated action: `pickup` is neither a predicate nor an action of domain `blocksworld`. "
     "Did you mean the action `pick-up`?"),
    ("on(a, d)", "hallucinated-object", "d",
     "Hallucinated object: `d` is not an object of problem `sussman` nor a constant of domain "
     "`blocksworld`, and no quantifier binds it. The objects and constants are `a`, `b`, `c`."),
    ("on(a)", "argument-count", "on(a)",
     "Argument-count error: predicate `on` takes 2 arguments (?x ?y), got 1."),
    ("stack(a, b, c)", "argument-count", "stack(a, b, c)",
     "Argument-count error: action `stack` takes 2 arguments (?x ?y), got 3."),
    ("handempty(a)", "argument-count", "handempty(a)",
     "Argument-count error: predicate `handempty` takes 0 arguments, got 1."),
])
def test_eai_error_categories(text: str, code: str, flagged: str, message: str) -> None:
    assert check(text) == [(code, flagged, message)]


def test_quantified_variables_are_not_objects_and_shadowing_is_scoped() -> None:
    assert check("forall x. (clear(x) or exists y. (on(y, x)))") == []
    assert [c[:2] for c in check("exists x. (clear(x)) and clear(x)")] == [("hallucinated-object", "x")]


def test_without_a_problem_objects_are_not_checked_but_names_are() -> None:
    assert [c[:2] for c in check("on(a, zz) and ontable(a)", problem=None)] == [
        ("hallucinated-predicate", "ontable")]


def test_typed_variable_range_is_inferred_and_said() -> None:
    text = "forall b. (at(b, roomb))"
    [(code, flagged, message)] = check(text, GRIPPER_DOMAIN, GRIPPER_P01)
    assert (code, flagged) == ("quantifier-range", "b")
    assert message == ("`b` ranges over the objects of type `ball` (`ball1`, `ball2`), because "
                       "argument 1 of `at` is `- ball`.")
    formula = parse_ltl(text).formula
    scope = ltl_scope(formula, GRIPPER_DOMAIN, GRIPPER_P01)  # type: ignore[arg-type]
    [quantifier_range] = scope.ranges.values()
    assert quantifier_range.objects == ("ball1", "ball2")


def test_incompatible_uses_and_mistyped_objects() -> None:
    found = check("exists x. (at(x, x)) and free(ball1)", GRIPPER_DOMAIN, GRIPPER_P01)
    assert [(c, f) for c, f, _ in found] == [("ltl-type-mismatch", "x"), ("ltl-type-mismatch", "ball1")]
    assert "No object fits every use of `x`" in found[0][2]
    assert found[1][2] == ("`ball1` is of type `ball`, but argument 1 of `free` is `?g - gripper`: "
                           "this atom can never hold.")


def test_lint_links_the_problem_by_directive_and_checks_plan_links() -> None:
    domain = (EXAMPLES / "blocksworld" / "domain.pddl").read_text()
    problem = (EXAMPLES / "blocksworld" / "p01.pddl").read_text()
    goal = "; @problem p01.pddl\n; @plan missing.plan\nontable(a)\n"
    source = MemorySource({"/w/domain.pddl": domain, "/w/p01.pddl": problem, "/w/goal.ltl": goal})
    result = Analyzer(source).lint("/w/goal.ltl")
    assert result.kind == "ltl"
    assert result.problem_path == "/w/p01.pddl" and result.domain_path == "/w/domain.pddl"
    assert [(d.code, goal[d.span.start:d.span.end]) for d in result.diagnostics] == [
        ("broken-link", "missing.plan"), ("hallucinated-predicate", "ontable")]


def test_lint_says_how_to_link_a_problem() -> None:
    result = Analyzer(MemorySource({"/w/goal.ltl": "on(a, b)\n"})).lint("/w/goal.ltl")
    [diagnostic] = result.diagnostics
    assert diagnostic.code == "missing-problem"
    assert "`; @problem path/to/problem.pddl`" in diagnostic.message and "LTL goal" in diagnostic.message


def test_lint_finds_ltl_files_and_the_examples_lint_clean() -> None:
    files = [f for f in find_files([str(EXAMPLES / "ltl")]) if "mistakes" not in f]
    assert files and all(f.endswith(".ltl") for f in files)
    analyzer = Analyzer(DiskSource())
    for path in files:
        bad = [d.message for d in analyzer.lint(path).diagnostics if d.severity.value in ("error", "warning")]
        assert bad == [], path


def test_the_mistake_examples_get_each_category() -> None:
    analyzer = Analyzer(DiskSource())
    hallucinations = analyzer.lint(str(EXAMPLES / "ltl" / "mistakes" / "hallucinations.ltl"))
    codes = {d.code for d in hallucinations.diagnostics}
    assert codes == {"hallucinated-predicate", "hallucinated-object", "argument-count"}
    syntax = analyzer.lint(str(EXAMPLES / "ltl" / "mistakes" / "syntax.ltl")).diagnostics
    assert [d.code for d in syntax] == ["syntax-error", "syntax-error"]


# --- goal F1 (Li et al. 2024, Section 2.3) ---------------------------------------------------------

def test_set_f1_treats_the_action_sequence_as_one_element() -> None:
    scope = LtlScope.abstract(["a", "b", "c"], ["pick-up", "stack"])
    [goal] = simple_expansions(parse_ltl("pick-up(a) then stack(a, b) then on(a, b) and clear(a)").formula,
                               scope)  # type: ignore[arg-type]
    assert goal.elements() == {("action-sequence", "pick-up a", "stack a b"), ("+", "on", "a", "b"),
                               ("+", "clear", "a")}
    assert set_f1(frozenset(), frozenset()) == (1.0, 1.0, 1.0)


def test_f1_takes_the_best_simple_expansion_of_the_reference() -> None:
    scope = LtlScope.abstract(["a", "b", "c"], ["pick-up", "stack", "unstack"])
    reference = parse_ltl("exists x. (unstack(c, x)) then on(a, b) and on(b, c)").formula
    wrong_sequence = parse_ltl("unstack(c, b) then on(a, b) and on(b, c)").formula
    best = goal_f1(wrong_sequence, reference, scope, scope)  # type: ignore[arg-type]
    assert best.f1 == 1.0 and best.reference.actions == (("unstack", "c", "b"),)
    partial = goal_f1(parse_ltl("on(a, b)").formula, reference, scope, scope)  # type: ignore[arg-type]
    # 1 common element of 1 predicted and 3 reference elements (sequence, on(a, b), on(b, c))
    assert (partial.precision, partial.recall) == (1.0, 1 / 3)
    assert partial.f1 == pytest.approx(0.5)


def test_f1_expands_forall_forn_or_and_pushes_negation_inward() -> None:
    scope = LtlScope.abstract(["a", "b"])
    expand = lambda text: sorted(g.text() for g in simple_expansions(parse_ltl(text).formula, scope))  # type: ignore[arg-type]  # noqa: E731
    assert expand("forall x. (clear(x))") == ["clear(a) and clear(b)"]
    assert expand("forn 1. x. (clear(x))") == ["clear(a)", "clear(b)"]
    assert expand("not (p() or q())") == ["not p() and not q()"]
    assert expand("p() implies q()") == ["not p()", "q()"]
