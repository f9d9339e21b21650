"""Plan repair on PDDL3 tasks (docs/beyond-classical-pddl3.md#repair): Fast Downward takes neither
constraints nor preferences, so a task with preferences alone is completed without them and one with
hard constraints is refused with the reason."""

from __future__ import annotations

from pathlib import Path

from plansight.analyses.model.pddl import Domain, Preference, Problem, walk
from plansight.analyses.plans.comparison import simulate_actions
from plansight.analyses.plans.metrics import Action, actions_of
from plansight.analyses.plans.recovery import recover
from plansight.analyses.plans.soft_goals import hard_constraints, without_preferences
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

ROOT = Path(__file__).parent / "fixtures" / "beyond_classical" / "pddl3"


def task(name: str) -> tuple[Domain, Problem]:
    domain = parse_pddl((ROOT / name / "domain.pddl").read_text()).model
    problem = parse_pddl((ROOT / name / "problem.pddl").read_text()).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    return domain, problem


def actions(text: str) -> list[Action]:
    plan = parse_plan(text).plan
    assert plan is not None
    return actions_of(plan)


def test_hard_constraints_are_refused_with_the_reason() -> None:
    domain, problem = task("lights")
    assert hard_constraints(domain, problem) == ["the problem"]
    repaired = recover(domain, problem, actions("(switch-on r1)\n(move r1 r2)\n(trip)\n"))
    assert repaired.status == "unsupported"
    assert repaired.message.startswith("Fast Downward cannot complete a plan under PDDL3 trajectory "
                                       "constraints (in the problem)")


def test_preferences_alone_are_left_out_and_the_completion_is_valid() -> None:
    domain, problem = task("lights")
    problem = Problem(problem.name, problem.domain_name, problem.requirements, problem.objects, problem.init,
                      problem.goal, None, problem.metric)
    assert hard_constraints(domain, problem) == []
    stripped_domain, stripped_problem = without_preferences(domain, problem)
    formulas = [stripped_problem.goal, *(a.precondition for a in stripped_domain.actions)]
    assert not any(isinstance(node, Preference) for formula in formulas for node in walk(formula))
    assert stripped_problem.metric is None  # it read is-violated
    repaired = recover(domain, problem, actions("(switch-on r1)\n(move r1 r2)\n"))
    assert repaired.status == "solved", repaired.message
    assert "preferences were left out" in repaired.message
    assert repaired.plan is not None
    assert simulate_actions(domain, problem, list(repaired.plan)).valid is True
