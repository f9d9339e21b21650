"""Generated heavy inputs always end within their budget plus a margin, with a verdict or an honest
"unknown" (a ``null`` verdict, a ``budget-exceeded`` diagnostic): never a hang, a crash or an
``internal-error`` (docs/reliability.md, budgets)."""

from __future__ import annotations

import time
from pathlib import Path

from heavy_inputs import LTL_SHAPES, nested_ltl, wide_domain, wide_goal, wide_problem
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plansight.analyses.ltl.depth import MAX_DEPTH
from plansight.analyses.ltl.report import ltl_report
from plansight.analyses.plans.simulate import simulate
from plansight.analyses.semantics.budget import WorkBudget
from plansight.analyses.syntax.documents import parse_document
from plansight.analyses.workspace.lint import Analyzer, MemorySource

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BUDGET_S = 0.3
MARGIN_S = 1.0
"""Python's pauses and a loaded machine; a budget that is ignored overshoots by minutes, not a second."""


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variables=st.integers(2, 7), objects=st.integers(5, 60),
       where=st.sampled_from(["precondition", "effect", "goal"]))
def test_wide_quantifiers_end_within_budget(variables: int, objects: int, where: str) -> None:
    quantified_in = where if where != "goal" else "none"
    domain = parse_document("domain.pddl", wide_domain(variables, quantified_in)).domain
    goal = wide_goal(variables) if where == "goal" else "(done)"
    problem = parse_document("p.pddl", wide_problem(objects, goal)).problem
    plan = parse_document("p.plan", "(cheap o1)\n(check)\n").plan
    assert domain is not None and problem is not None and plan is not None
    started = time.monotonic()
    sim = simulate(domain, problem, plan, budget=WorkBudget(BUDGET_S, None))
    elapsed = time.monotonic() - started
    assert elapsed < BUDGET_S + MARGIN_S, elapsed
    if sim.stopped_reason is None:  # small enough to finish: the plan is valid (no (q o) ever holds)
        assert sim.valid is True
    else:
        assert sim.valid is None
        assert sim.stopped_reason.startswith(f"stopped after {BUDGET_S:g} s: the ")
        assert f"(forall over {variables} variables) has" in sim.stopped_reason


def _depths() -> st.SearchStrategy[tuple[str, int]]:
    """Depths from 10^3 to 10^5; the shapes that spend many tokens per level stop at 2 * 10^4 (their
    parse, which is linear and not budgeted, would dominate the run time of the suite)."""
    cheap = st.tuples(st.sampled_from(["not", "parens"]), st.integers(1_000, 100_000))
    wordy = st.tuples(st.sampled_from([s for s in LTL_SHAPES if s not in ("not", "parens")]),
                      st.integers(1_000, 20_000))
    return st.one_of(cheap, wordy)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape_depth=_depths())
def test_deeply_nested_goals_are_linted_and_judged_without_crashing(shape_depth: tuple[str, int]) -> None:
    shape, depth = shape_depth
    folder = EXAMPLES / "blocksworld"
    files = {str(folder / n): (folder / n).read_text() for n in ("domain.pddl", "p01.pddl", "p01.plan")}
    goal_path = str(folder / "deep.ltl")
    files[goal_path] = "; @plan p01.plan\n" + nested_ltl(shape, depth) + "\n"
    analyzer = Analyzer(MemorySource(files))
    linted = analyzer.lint(goal_path)
    assert "internal-error" not in [d.code for d in linted.diagnostics]
    document = analyzer.parse(goal_path)
    assert document is not None and document.ltl is not None
    domain, problem, plan = (analyzer.parse(str(folder / n)) for n in ("domain.pddl", "p01.pddl", "p01.plan"))
    assert domain is not None and problem is not None and plan is not None
    started = time.monotonic()
    report = ltl_report(document.ltl.formula, domain.domain, problem.problem, plan.plan,
                        budget=WorkBudget(BUDGET_S, None))
    assert time.monotonic() - started < 2 * BUDGET_S + MARGIN_S  # the simulation and the evaluation
    if shape == "parens":  # parentheses add no level: an atom, judged as usual
        assert report.satisfied is not None and "budget-exceeded" not in [d.code for d in linted.diagnostics]
    else:
        assert depth > MAX_DEPTH
        assert report.satisfied is None
        assert report.stopped_reason is not None and "levels deep" in report.stopped_reason
        assert "budget-exceeded" in [d.code for d in linted.diagnostics]
