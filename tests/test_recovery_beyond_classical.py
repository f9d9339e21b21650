"""Repairing numeric and temporal plans: Fast Downward cannot, so the repair says so and uses ENHSP
(numeric) or TAMER (temporal) through unified-planning, whose plans VAL must accept; when the planner or
Java is missing, the message says what to install."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import CONSTRUCTS, EXAMPLES, FIXTURES
from val_oracle import VALID, run_val

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.model.printer import print_problem
from plansight.analyses.plans import task_planners
from plansight.analyses.plans.metrics import actions_of
from plansight.analyses.plans.recovery import Budget, recover, with_initial_state
from plansight.analyses.plans.task_planners import task_kind
from plansight.analyses.semantics.state import State
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

PLANNED = FIXTURES / "beyond_classical" / "planned"
BUDGET = Budget(time_limit_s=60.0)


def _models(domain: Path, problem: Path) -> tuple[Domain, Problem]:
    d, p = parse_pddl(domain.read_text()).model, parse_pddl(problem.read_text()).model
    assert isinstance(d, Domain) and isinstance(p, Problem)
    return d, p


@pytest.mark.parametrize(("folder", "problem", "kind"), [
    (EXAMPLES / "blocksworld", "p01.pddl", "classical"),
    (EXAMPLES / "elevator-costs", "p01.pddl", "classical"),  # action costs are classical
    (PLANNED / "numeric", "p01.pddl", "numeric"),
    (CONSTRUCTS / "numeric", "p01.pddl", "numeric"),
    (CONSTRUCTS / "pddl-plus", "p01.pddl", "numeric"),
    (PLANNED / "temporal", "p01.pddl", "temporal"),
    (CONSTRUCTS / "temporal", "p01.pddl", "temporal"),
])
def test_which_planner_a_task_needs(folder: Path, problem: str, kind: str) -> None:
    assert task_kind(*_models(folder / "domain.pddl", folder / problem)) == kind


def _broken(kind: str) -> list[tuple[str, ...]]:
    plan = parse_plan((PLANNED / kind / "p01.plan").read_text()).plan
    assert plan is not None
    return actions_of(plan)[:-1]


def test_a_missing_java_is_named_with_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    domain, problem = _models(PLANNED / "numeric" / "domain.pddl", PLANNED / "numeric" / "p01.pddl")
    recovery = recover(domain, problem, _broken("numeric"), budget=BUDGET)
    assert recovery.status == "unsupported" and recovery.plan is None
    assert "Fast Downward cannot complete a numeric plan" in recovery.message
    assert "numeric conditions or effects (in `drive`, `refuel`)" in recovery.message
    assert "ENHSP could, but it needs Java" in recovery.message
    assert "apt-get install default-jre-headless" in recovery.message


def test_a_missing_planner_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "up_tamer" else real(name, *a))
    domain, problem = _models(PLANNED / "temporal" / "domain.pddl", PLANNED / "temporal" / "p01.pddl")
    recovery = recover(domain, problem, [], budget=BUDGET)
    assert recovery.status == "unsupported"
    assert "Fast Downward cannot complete a temporal plan" in recovery.message
    assert "durative actions (`light`, `fill`, `heat` and 1 more)" in recovery.message
    assert "pip install up-tamer" in recovery.message
    assert recovery.to_json()["plan"] is None


def _write(lines: tuple[str, ...] | None, path: Path) -> Path:
    assert lines
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.mark.parametrize("kind", ["numeric", "temporal"])
def test_the_repaired_plan_is_valid_for_val(kind: str, tmp_path: Path) -> None:
    why = task_planners.unavailable(task_planners.PLANNERS[kind])  # type: ignore[index]
    if why is not None:
        pytest.fail(f"the {kind} planner cannot run: {why}")
    folder = PLANNED / kind
    domain, problem = _models(folder / "domain.pddl", folder / "p01.pddl")
    recovery = recover(domain, problem, _broken(kind), budget=BUDGET)
    assert recovery.status == "solved", recovery.message
    assert f"Fast Downward cannot complete a {kind} plan" in recovery.message
    lines = recovery.plan_lines
    verdict = run_val(folder / "domain.pddl", folder / "p01.pddl", _write(lines, tmp_path / "repaired.plan"))
    assert verdict.status == VALID, verdict.output
    report = recovery.to_json()
    assert report["plan"] == list(lines or ())
    if kind == "temporal":
        assert all("[" in line for line in report["plan"])
        assert recovery.planner == "tamer (unified-planning)"
    else:
        assert recovery.planner == "enhsp (unified-planning)"


def test_a_numeric_repair_starts_from_the_values_after_the_prefix() -> None:
    _, problem = _models(PLANNED / "numeric" / "domain.pddl", PLANNED / "numeric" / "p01.pddl")
    state = State(frozenset({("at", "t1", "b"), ("road", "a", "b")}), {("fuel", "t1"): 4.0,
                                                                   ("capacity", "t1"): 12.0,
                                                                   ("total-cost",): 6.5})
    text = print_problem(with_initial_state(problem, state))
    assert "(= (fuel t1) 4)" in text and "(= (capacity t1) 12)" in text
    assert "(= (total-cost) 0)" in text  # the planner's cost is the completion's
    assert "(at t1 b)" in text and "(at t1 a)" not in text
    assert "(= (fuel t1) 10)" not in text


def test_plan_recover_on_the_command_line(tmp_path: Path) -> None:
    folder = PLANNED / "numeric"
    plan = tmp_path / "broken.plan"
    plan.write_text("(drive t1 a b)\n(drive t1 b c)\n(drive t1 c d)\n")
    run = subprocess.run([sys.executable, "-m", "plansight", "plan", str(plan), "--domain",
                          str(folder / "domain.pddl"), "--problem", str(folder / "p01.pddl"), "--recover",
                          "--no-progress"], capture_output=True, text=True, timeout=300)
    assert "recovered plan (enhsp (unified-planning), solved)" in run.stdout, run.stdout + run.stderr
    repaired = [line.split(None, 1)[1] for line in run.stdout.splitlines()
                if line.startswith("    ") and line.split(None, 1)[0].isdigit()]
    written = _write(tuple(repaired), tmp_path / "r.plan")
    verdict = run_val(folder / "domain.pddl", folder / "p01.pddl", written)
    assert verdict.status == VALID, run.stdout


def test_a_planners_plan_is_checked_before_it_is_offered() -> None:
    from plansight.analyses.plans.recovery import _check_repaired
    from plansight.analyses.semantics.world import World

    domain, problem = _models(EXAMPLES / "blocksworld" / "domain.pddl", EXAMPLES / "blocksworld" / "p01.pddl")
    world = World.build(domain, problem)
    steps = [line for line in (EXAMPLES / "blocksworld" / "p01.plan").read_text().splitlines()
             if line.startswith("(")]
    assert _check_repaired(domain, problem, steps, world) is None
    broken = _check_repaired(domain, problem, steps[1:], world)
    assert broken is not None and broken.startswith("invalid: Step 1 (put-down c)")
    short = _check_repaired(domain, problem, steps[:-1], world)
    assert short is not None and short.startswith("invalid: it does not reach the goal")


def test_tamer_outside_its_fragment_is_caught(tmp_path: Path) -> None:
    """TAMER plans durative actions with numeric conditions although it does not support them: its plan
    breaks an `over all`, VAL rejects it, and the repair must not offer it where plansight can check."""
    folder = PLANNED / "temporal-numeric"
    why = task_planners.unavailable(task_planners.PLANNERS["temporal"])
    if why is not None:
        pytest.fail(f"TAMER cannot run: {why}")
    domain, problem = _models(folder / "domain.pddl", folder / "p01.pddl")
    recovery = recover(domain, problem, [], budget=BUDGET)
    assert recovery.planner == "tamer (unified-planning)"
    if recovery.status == "solved":  # plansight does not simulate the domain yet: it says it did not check
        assert "plansight could not check the plan" in recovery.message
        verdict = run_val(folder / "domain.pddl", folder / "p01.pddl",
                          _write(recovery.plan_lines, tmp_path / "tamer.plan"))
        assert verdict.status == "invalid" and verdict.kind == "invariant", verdict.output
    else:
        assert recovery.status == "error" and "TAMER returned a plan that is invalid" in recovery.message
        assert recovery.plan_lines is None


@pytest.mark.parametrize(("folder", "title", "progress"), [
    (EXAMPLES / "blocksworld", "complete it with Fast Downward", "Fast Downward is planning"),
    (PLANNED / "numeric", "keep the correct prefix, complete it with ENHSP", "ENHSP is planning"),
    (PLANNED / "temporal", "plan it again with TAMER", "TAMER is planning the temporal problem"),
])
def test_the_editor_names_the_planner_that_repairs(folder: Path, title: str, progress: str) -> None:
    from plansight.server.plan_repair_feature import repair_words

    words = repair_words(*_models(folder / "domain.pddl", folder / "p01.pddl"))
    assert title in words[0] and words[1].startswith(progress)


def test_a_planner_that_refuses_the_task_says_why() -> None:
    """unified-planning refuses an assignment and an increase of one fluent in one action: the repair's
    message carries the planner's own reason, not a bare failure."""
    domain = parse_pddl("""(define (domain tank) (:requirements :numeric-fluents)
      (:predicates (full)) (:functions (level))
      (:action top-up :parameters () :precondition (< (level) 10)
        :effect (and (assign (level) 1) (increase (level) 2)))
      (:action seal :parameters () :precondition (>= (level) 3) :effect (full)))""").model
    problem = parse_pddl("""(define (problem p) (:domain tank) (:init (= (level) 0)) (:goal (full)))""").model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    if task_planners.unavailable(task_planners.PLANNERS["numeric"]) is not None:
        pytest.fail("ENHSP cannot run: run tests/install-java.sh and pip install -e '.[test]'")
    recovery = recover(domain, problem, [("seal",)], budget=BUDGET)
    assert recovery.status == "error" and recovery.plan_lines is None
    assert recovery.message.startswith("Fast Downward cannot complete a numeric plan")
    assert "ENHSP failed: UPConflictingEffectsException" in recovery.message
