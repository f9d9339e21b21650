"""Every simulation and LTL evaluation has a work budget (docs/reliability.md): past it the answer is
unknown with the reason, in the core, ``plansight plan`` / ``ltl`` / ``lint``; a cancellation hook
stops it within milliseconds."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from heavy_inputs import nested_ltl, wide_domain, wide_goal, wide_problem

from plansight.analyses.ltl.evaluate import evaluate
from plansight.analyses.ltl.report import ltl_report, trajectory
from plansight.analyses.ltl.scope import ltl_scope
from plansight.analyses.model.pddl import Domain, Plan, Problem
from plansight.analyses.plans.simulate import simulate
from plansight.analyses.semantics.budget import Cancelled, WorkBudget
from plansight.analyses.syntax.documents import parse_document
from plansight.analyses.syntax.parse_ltl import parse_ltl
from plansight.analyses.workspace.lint import Analyzer, DiskSource

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _domain(text: str) -> Domain:
    domain = parse_document("domain.pddl", text).domain
    assert domain is not None
    return domain


def _problem(text: str) -> Problem:
    problem = parse_document("problem.pddl", text).problem
    assert problem is not None
    return problem


def _plan(text: str) -> Plan:
    plan = parse_document("p.plan", text).plan
    assert plan is not None
    return plan


def test_a_wide_forall_stops_at_the_unit_budget_with_the_reason() -> None:
    sim = simulate(_domain(wide_domain(6)), _problem(wide_problem(40)), _plan("(check)\n"),
                   budget=WorkBudget(None, 100_000))
    assert (sim.valid, sim.executable, sim.lea) == (None, None, None)
    assert sim.stopped_reason == ("stopped after 100,000 units of work: the precondition of step 1 "
                                  "(forall over 6 variables) has 4.1e9 instances")


def test_the_time_budget_stops_a_simulation_on_time() -> None:
    started = time.monotonic()
    sim = simulate(_domain(wide_domain(6)), _problem(wide_problem(40)), _plan("(cheap o1)\n(check)\n"),
                   budget=WorkBudget(0.5, None))
    elapsed = time.monotonic() - started
    assert elapsed < 1.5, elapsed
    assert sim.valid is None
    assert sim.stopped_reason is not None
    assert sim.stopped_reason.startswith("stopped after 0.5 s: the precondition of step 2 (forall")
    assert [t.action for t in sim.trace] == ["(cheap o1)"], "the steps done before the stop are kept"


def test_nested_quantifiers_are_reported_as_one_expansion() -> None:
    domain = wide_domain(1).replace("(forall (?v0) (not (and (q ?v0))))",
                                    "(forall (?a ?b) (forall (?c ?d ?e) (not (and (q ?a) (q ?e)))))")
    sim = simulate(_domain(domain), _problem(wide_problem(40)), _plan("(check)\n"),
                   budget=WorkBudget(None, 100_000))
    assert sim.stopped_reason is not None
    assert sim.stopped_reason.endswith("(forall over 5 variables) has 1.0e8 instances")


def test_effects_and_goal_are_budgeted_too() -> None:
    effect = simulate(_domain(wide_domain(6, "effect")), _problem(wide_problem(40)), _plan("(check)\n"),
                      budget=WorkBudget(None, 100_000))
    assert effect.stopped_reason is not None and "the effects of step 1 (forall" in effect.stopped_reason
    goal = simulate(_domain(wide_domain(6, "none")), _problem(wide_problem(40, wide_goal(6))),
                    _plan("(check)\n"), budget=WorkBudget(None, 100_000))
    assert goal.stopped_reason is not None and "the goal (forall over 6 variables)" in goal.stopped_reason


def test_a_plan_within_budget_gets_its_verdict() -> None:
    sim = simulate(_domain(wide_domain(2)), _problem(wide_problem(10)), _plan("(check)\n"),
                   budget=WorkBudget(None, 1_000))
    assert (sim.valid, sim.stopped_reason) == (True, None)


def test_cancellation_stops_a_simulation_within_100_ms() -> None:
    stop = threading.Event()
    stopped_at: list[float] = []

    def cancel_soon() -> None:
        time.sleep(0.3)
        stopped_at.append(time.monotonic())
        stop.set()

    threading.Thread(target=cancel_soon).start()
    with pytest.raises(Cancelled):
        simulate(_domain(wide_domain(6)), _problem(wide_problem(40)), _plan("(check)\n"),
                 budget=WorkBudget(None, None, cancelled=stop.is_set))
    assert time.monotonic() - stopped_at[0] < 0.1


def test_lint_reports_a_budget_exceeded_warning_on_the_step(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(wide_domain(6))
    (tmp_path / "p.pddl").write_text(wide_problem(40))
    (tmp_path / "p.plan").write_text("(cheap o1)\n(check)\n")
    analyzer = Analyzer(DiskSource())
    analyzer.simulation_budget = (None, 100_000)
    result = analyzer.lint(str(tmp_path / "p.plan"))
    found = [(d.code, d.severity.value, result.text[d.span.start:d.span.end]) for d in result.diagnostics]
    assert found == [("budget-exceeded", "warning", "(check)")]
    assert "the precondition of step 2 (forall over 6 variables) has 4.1e9 instances" in (
        result.diagnostics[0].message)


def test_lint_is_interrupted_by_its_cancel_hook_without_an_internal_error(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(wide_domain(6))
    (tmp_path / "p.pddl").write_text(wide_problem(40))
    (tmp_path / "p.plan").write_text("(check)\n")
    deadline = time.monotonic() + 0.3
    started = time.monotonic()
    result = Analyzer(DiskSource()).lint(str(tmp_path / "p.plan"),
                                         cancelled=lambda: time.monotonic() > deadline)
    assert time.monotonic() - started < 2
    assert [d.code for d in result.diagnostics] == []


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "plansight", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_plansight_plan_answers_valid_null_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(wide_domain(6))
    (tmp_path / "p.pddl").write_text(wide_problem(40))
    (tmp_path / "p.plan").write_text("(check)\n")
    started = time.monotonic()
    done = _run("plan", str(tmp_path / "p.plan"), "--format", "json", "--budget-seconds", "1")
    assert time.monotonic() - started < 30
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["valid"], report["executable"], report["lea"], report["goals"]) == (None, None, None, None)
    assert report["stopped_reason"].startswith("stopped after 1 s: the precondition of step 1 (forall over "
                                               "6 variables) has 4.1e9 instances")
    text = _run("plan", str(tmp_path / "p.plan"), "--budget-units", "5000")
    assert "UNKNOWN · stopped after 5,000 units of work" in text.stdout


def test_plansight_plan_refuses_a_budget_that_is_not_positive(tmp_path: Path) -> None:
    (tmp_path / "p.plan").write_text("(check)\n")
    done = _run("plan", str(tmp_path / "p.plan"), "--budget-seconds", "0")
    assert done.returncode == 2 and "must be positive" in done.stderr


def _blocks() -> tuple[Domain, Problem, Plan]:
    return (_domain((EXAMPLES / "blocksworld" / "domain.pddl").read_text()),
            _problem((EXAMPLES / "blocksworld" / "p01.pddl").read_text()),
            _plan((EXAMPLES / "blocksworld" / "p01.plan").read_text()))


def test_an_ltl_evaluation_past_its_budget_is_unknown_with_the_reason() -> None:
    domain, problem, plan = _blocks()
    # four nested quantifiers: 81 temporal instances, well past the budget's first check (2,048 units)
    formula = parse_ltl("forall w. (forall x. (forall y. (forall z. (not on(x, y) then on(z, w)))))").formula
    assert formula is not None
    pairs = trajectory(simulate(domain, problem, plan))
    scope = ltl_scope(formula, domain, problem)
    assert evaluate(formula, pairs, scope).satisfied is False
    stopped = evaluate(formula, pairs, scope, WorkBudget(None, 1000))
    assert (stopped.satisfied, stopped.satisfied_at, stopped.failures) == (None, None, ())
    assert stopped.stopped_reason == "stopped after 1,000 units of work while evaluating the LTL goal"
    report = ltl_report(formula, domain, problem, plan, budget=WorkBudget(None, 1000))
    assert report.satisfied is None and report.stopped_reason == stopped.stopped_reason


@pytest.mark.parametrize("depth", [101, 100_000])
def test_a_goal_nested_too_deep_is_unknown_and_linted(tmp_path: Path, depth: int) -> None:
    for name in ("domain.pddl", "p01.pddl", "p01.plan"):
        (tmp_path / name).write_text((EXAMPLES / "blocksworld" / name).read_text())
    (tmp_path / "deep.ltl").write_text("; @plan p01.plan\n" + nested_ltl("not", depth) + "\n")
    done = _run("ltl", str(tmp_path / "deep.ltl"), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    reason = (f"not evaluated: the formula nests {depth:,} levels deep, more than the 100 plansight checks "
              "and evaluates")
    assert (report["satisfied"], report["stopped_reason"]) == (None, reason)
    assert [d["code"] for d in report["diagnostics"]] == ["budget-exceeded"]


def test_a_goal_at_the_depth_limit_is_still_evaluated() -> None:
    domain, problem, plan = _blocks()
    formula = parse_ltl(nested_ltl("not", 100)).formula  # 99 negations of on(a, b): not on(a, b)
    report = ltl_report(formula, domain, problem, plan)
    assert (report.satisfied, report.stopped_reason) == (True, None)
