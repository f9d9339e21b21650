"""Plan recovery with Fast Downward: the repaired plans are valid for an independent validator
(unified-planning's PlanValidator), keep the broken plan's correct prefix, and the planner obeys its
time budget and can be cancelled."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.comparison import simulate_actions
from plansight.analyses.plans.metrics import Action, action_text, actions_of
from plansight.analyses.plans.recovery import Budget, recover, solve, solve_text
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CASES = [
    ("blocksworld", "p01"),
    ("blocksworld", "p02"),
    ("gripper", "p01"),
    ("gripper", "p02"),
    ("logistics", "p01"),
    ("logistics", "p02"),
]


def load(folder: str, problem: str) -> tuple[Domain, Problem, list[Action], Path, Path]:
    base = EXAMPLES / folder
    domain = parse_pddl((base / "domain.pddl").read_text()).model
    prob = parse_pddl((base / f"{problem}.pddl").read_text()).model
    assert isinstance(domain, Domain) and isinstance(prob, Problem)
    plan = actions_of(parse_plan((base / f"{problem}.plan").read_text()).plan)
    return domain, prob, plan, base / "domain.pddl", base / f"{problem}.pddl"


def up_accepts(domain_path: Path, problem_path: Path, actions: list[Action], tmp_path: Path) -> bool:
    from unified_planning.engines import ValidationResultStatus
    from unified_planning.exceptions import UPValueError
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import PlanValidator, get_environment

    get_environment().credits_stream = None
    problem = PDDLReader().parse_problem(str(domain_path), str(problem_path))
    plan_path = tmp_path / "recovered.plan"
    plan_path.write_text("".join(action_text(a) + "\n" for a in actions))
    try:
        plan = PDDLReader().parse_plan(problem, str(plan_path))
    except UPValueError:  # e.g. an action the domain does not have: not a valid plan
        return False
    with PlanValidator(problem_kind=problem.kind) as validator:
        return bool(validator.validate(problem, plan).status == ValidationResultStatus.VALID)


def broken(plan: list[Action]) -> list[Action]:
    """The plan with two middle steps swapped and its last step dropped."""
    middle = max(0, (len(plan) - 1) // 2 - 1)
    mutated = list(plan[:-1])
    mutated[middle], mutated[middle + 1] = mutated[middle + 1], mutated[middle]
    return mutated


@pytest.mark.parametrize(("folder", "problem"), CASES, ids=[f"{f}/{p}" for f, p in CASES])
def test_recovered_plan_is_valid_and_keeps_the_executable_prefix(
    folder: str, problem: str, tmp_path: Path
) -> None:
    domain, prob, plan, domain_path, problem_path = load(folder, problem)
    mutated = broken(plan)
    assert not up_accepts(domain_path, problem_path, mutated, tmp_path)
    lea = simulate_actions(domain, prob, mutated).lea
    assert lea is not None
    recovery = recover(domain, prob, mutated, budget=Budget(60, 2048))
    assert recovery.status == "solved", recovery.message
    assert recovery.prefix == tuple(mutated[:lea])
    assert recovery.plan is not None and up_accepts(
        domain_path, problem_path, list(recovery.plan), tmp_path
    )


@pytest.mark.parametrize(("folder", "problem"), CASES[:3], ids=[f"{f}/{p}" for f, p in CASES[:3]])
def test_recovery_with_a_reference_plan_is_valid(folder: str, problem: str, tmp_path: Path) -> None:
    domain, prob, plan, domain_path, problem_path = load(folder, problem)
    recovery = recover(domain, prob, broken(plan), reference=plan, budget=Budget(60, 2048))
    assert recovery.status == "solved" and recovery.prefix_rule == "reference-state"
    assert recovery.plan is not None and up_accepts(
        domain_path, problem_path, list(recovery.plan), tmp_path
    )


def test_running_example_recovery_replans_from_the_initial_state() -> None:
    base = EXAMPLES / "plan-evaluation"
    domain = parse_pddl((base / "domain.pddl").read_text()).model
    prob = parse_pddl((base / "problems" / "p10.pddl").read_text()).model
    gt = actions_of(parse_plan((base / "ground-truth" / "p10.plan").read_text()).plan)
    pi0 = actions_of(parse_plan((base / "generated" / "p10.plan").read_text()).plan)
    pi1 = actions_of(parse_plan((base / "remapped" / "p10.plan").read_text()).plan)
    assert isinstance(domain, Domain) and isinstance(prob, Problem)
    first = recover(domain, prob, pi0, reference=gt)
    assert first.prefix == () and first.completion == tuple(gt)  # "pi_comp ... is equal to pi_GT"
    second = recover(domain, prob, pi1, reference=gt)
    assert second.prefix == tuple(pi1[:4]) and second.plan == tuple(gt)


def test_a_valid_plan_needs_no_planner() -> None:
    domain, prob, plan, *_ = load("blocksworld", "p01")
    recovery = recover(domain, prob, plan)
    assert recovery.status == "already-valid" and recovery.plan == tuple(plan) and recovery.completion == ()


def test_unsolvable_is_reported_as_proved() -> None:
    original = (EXAMPLES / "blocksworld" / "p01.pddl").read_text()
    text = original.replace("(on a b) (on b c)", "(on a b) (on b a)")
    assert "(on b a)" in text
    result = solve_text((EXAMPLES / "blocksworld" / "domain.pddl").read_text(), text)
    assert result.status == "unsolvable" and result.plan is None


def hard_problem(blocks: int) -> str:
    names = [f"b{i}" for i in range(blocks)]
    init = " ".join(f"(on {names[i]} {names[i + 1]})" for i in range(blocks - 1))
    goal = " ".join(f"(on {names[i + 1]} {names[i]})" for i in range(0, blocks - 1, 2))
    return (
        f"(define (problem hard) (:domain blocksworld) (:objects {' '.join(names)})\n"
        f"  (:init (handempty) (clear {names[0]}) (on-table {names[-1]}) {init})\n"
        f"  (:goal (and {goal} (on {names[0]} {names[-1]}))))\n"
    )


@pytest.mark.parametrize("limit", [1.0, 3.0])
def test_time_budget_is_respected(limit: float) -> None:
    """The planner stops within its limit plus a second of grace (it used to be given five more),
    although the search on 40 blocks is far from done; the first call also pays no import of the
    planner's Python package."""
    domain_text = (EXAMPLES / "blocksworld" / "domain.pddl").read_text()
    started = time.monotonic()
    result = solve_text(domain_text, hard_problem(40), Budget(time_limit_s=limit, memory_limit_mb=1024))
    elapsed = time.monotonic() - started
    assert result.status == "timeout", result
    assert elapsed < limit + 1.0, elapsed


def test_cancel_kills_the_planner_quickly() -> None:
    domain_text = (EXAMPLES / "blocksworld" / "domain.pddl").read_text()
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    started = time.monotonic()
    result = solve_text(
        domain_text, hard_problem(40), Budget(time_limit_s=60, memory_limit_mb=1024), cancel
    )
    assert result.status == "cancelled"
    assert time.monotonic() - started < 3


def test_solve_on_models_returns_an_optimal_plan() -> None:
    domain, prob, plan, *_ = load("blocksworld", "p01")
    result = solve(domain, prob)
    assert result.solved and result.plan is not None and len(result.plan) == len(plan)


def test_conditional_effects_fall_back_to_a_greedy_search() -> None:
    """LM-cut does not support conditional effects (adl/ has `when`): the fallback still finds a plan,
    which our simulator accepts (unified-planning cannot read adl/'s `either` types)."""
    domain, prob, *_ = load("adl", "p01")
    result = solve(domain, prob)
    assert result.solved and result.planner == "fast-downward lazy_greedy([ff()], preferred=[ff()])"
    assert result.plan is not None and simulate_actions(domain, prob, list(result.plan)).valid
