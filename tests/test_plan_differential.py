"""Differential test of plan simulation against unified-planning's sequential plan validator.

Valid plans are found by a real planner (Fast Downward through up-fast-downward, with a time
budget) for problems of several domains — the bundled examples, the construct fixtures, the
unified-planning wheel's test problems and, when fetched, the `pddl` sdist — then mutated the ways
LLM-written plans go wrong: a step dropped, two steps swapped, a step duplicated, arguments swapped
or replaced by another object, a hallucinated action or object, the last step cut. For every plan the
verdict, the LEA and the failing step must agree with unified-planning's, computed in the same run.
Nothing is cached in the repository.
"""

from __future__ import annotations

import random
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from corpus import EXAMPLES, PDDL_SDIST, CorpusFile, corpus_files, pairs

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.simulate import STATIC_CATEGORIES, simulate
from plansight.analyses.plans.task_planners import task_kind
from plansight.analyses.semantics.world import World
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

up = pytest.importorskip("unified_planning.shortcuts")
pytest.importorskip("up_fast_downward")

PLANNER_BUDGET_S = 5.0
TOTAL_PLANNER_BUDGET_S = 40.0
MUTATIONS_PER_PLAN = 18
SDIST_DOMAINS = ("barman-sequential-optimal", "childsnack", "sokoban-sequential-optimal")


@dataclass
class Case:
    name: str
    domain: Domain
    problem: Problem
    up_problem: Any
    plan: list[str]


def _candidates() -> list[tuple[CorpusFile, CorpusFile]]:
    found = []
    for domain, problem in pairs(corpus_files(include_sdist=False)):
        found.append((domain, problem))
    for folder in SDIST_DOMAINS:
        domain_path, problem_path = PDDL_SDIST / folder / "domain.pddl", PDDL_SDIST / folder / "p01.pddl"
        if domain_path.is_file() and problem_path.is_file():
            found.append((CorpusFile(domain_path.resolve(), "pddl-sdist"),
                          CorpusFile(problem_path.resolve(), "pddl-sdist")))
    return found


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    from unified_planning.io import PDDLReader

    up.get_environment().credits_stream = None
    found: list[Case] = []
    started = time.monotonic()
    for domain_file, problem_file in _candidates():
        if time.monotonic() - started > TOTAL_PLANNER_BUDGET_S:
            break
        domain, problem = parse_pddl(domain_file.text()).model, parse_pddl(problem_file.text()).model
        if not isinstance(domain, Domain) or not isinstance(problem, Problem):
            continue
        if World.build(domain, problem).unsupported or task_kind(domain, problem) != "classical":
            continue  # numeric, temporal, PDDL+: VAL is their oracle (tests/test_*_val.py); FOND: skipped
        try:
            up_problem = PDDLReader().parse_problem(str(domain_file.path), str(problem_file.path))
        except Exception:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with up.OneshotPlanner(name="fast-downward") as planner:
                result = planner.solve(up_problem, timeout=PLANNER_BUDGET_S)
        if result.plan is None or len(result.plan.actions) < 2:
            continue
        steps = [_step_text(a) for a in result.plan.actions]
        found.append(Case(problem_file.id, domain, problem, up_problem, steps))
    return found


def _step_text(action_instance: Any) -> str:
    words = [action_instance.action.name, *(str(p) for p in action_instance.actual_parameters)]
    return "(" + " ".join(words) + ")"


def mutations(case: Case, rng: random.Random) -> list[tuple[str, list[str]]]:
    plan = case.plan
    objects = [o.name.key for o in case.problem.objects] or ["x"]
    out: list[tuple[str, list[str]]] = [("original", plan), ("cut last", plan[:-1])]
    for _ in range(MUTATIONS_PER_PLAN):
        kind = rng.choice(["drop", "swap", "duplicate", "swap-args", "replace-arg", "hallucinate-action",
                           "hallucinate-object", "move"])
        i = rng.randrange(len(plan))
        mutated = list(plan)
        if kind == "drop":
            del mutated[i]
        elif kind == "swap":
            j = min(i + 1, len(plan) - 1) if i + 1 < len(plan) else i - 1
            mutated[i], mutated[j] = mutated[j], mutated[i]
        elif kind == "duplicate":
            mutated.insert(i, mutated[i])
        elif kind == "move":
            step = mutated.pop(i)
            mutated.insert(rng.randrange(len(mutated) + 1), step)
        else:
            words = mutated[i].strip("()").split()
            if kind == "swap-args" and len(words) >= 3:
                a, b = rng.sample(range(1, len(words)), 2)
                words[a], words[b] = words[b], words[a]
            elif kind == "replace-arg" and len(words) >= 2:
                words[rng.randrange(1, len(words))] = rng.choice(objects)
            elif kind == "hallucinate-action":
                words[0] = "teleport"
            elif kind == "hallucinate-object" and len(words) >= 2:
                words[rng.randrange(1, len(words))] = "ghost-object"
            mutated[i] = "(" + " ".join(words) + ")"
        out.append((kind, mutated))
    return out


def up_verdict(case: Case, steps: list[str], validator: Any, cache: dict[str, Any]) -> tuple[int, bool, bool]:
    """(LEA, executable, valid) according to unified-planning. A step it cannot even build (unknown
    action or object, wrong arity or type) ends the executable prefix there."""
    from unified_planning.io import PDDLReader
    from unified_planning.plans import SequentialPlan

    reader = PDDLReader()
    actions = []
    for step in steps:
        if step not in cache:
            try:
                cache[step] = reader.parse_plan_string(case.up_problem, step).actions[0]
            except Exception:
                cache[step] = None
        if cache[step] is None:
            break
        actions.append(cache[step])
    result = validator.validate(case.up_problem, SequentialPlan(actions))
    reason = str(result.reason)
    if "INAPPLICABLE" in reason:
        return len(result.trace) - 1, False, False
    executable = len(actions) == len(steps)
    return len(actions), executable, executable and result.status.name == "VALID"


def test_verdict_lea_and_failing_step_agree_with_unified_planning(cases: list[Case]) -> None:
    domains = {c.domain.name.key for c in cases}
    assert len(cases) >= 8 and len(domains) >= 5, [c.name for c in cases]
    rng = random.Random(20261121)
    compared = invalid = 0
    categories: dict[str, int] = {}
    with up.PlanValidator(name="sequential_plan_validator") as validator:
        for case in cases:
            world = World.build(case.domain, case.problem)
            cache: dict[str, Any] = {}
            for kind, steps in mutations(case, rng):
                parsed = parse_plan("\n".join(steps) + "\n")
                assert parsed.plan is not None and not parsed.diagnostics
                ours = simulate(case.domain, case.problem, parsed.plan, world=world)
                lea, executable, valid = up_verdict(case, steps, validator, cache)
                label = f"{case.name} {kind}: {steps}"
                assert (ours.lea, ours.executable, ours.valid) == (lea, executable, valid), label
                if ours.failure is not None:
                    assert ours.failure.index == lea and ours.failure.action == steps[lea], label
                    categories[ours.failure.category] = categories.get(ours.failure.category, 0) + 1
                    invalid += 1
                compared += 1
    print(f"\n{len(cases)} problems of {len(domains)} domains, {compared} plans, {invalid} invalid: "
          f"{categories}")
    assert compared >= 200
    # the mutations exercise both kinds of failure, so agreement is not only on easy cases
    assert invalid >= compared // 3
    assert any(c in categories for c in STATIC_CATEGORIES)
    assert {"missing_step", "wrong_order"} <= set(categories)


def test_examples_plans_are_valid() -> None:
    """The bundled plans are valid (they also pass unified-planning and VAL in test_examples.py)."""
    for plan_path in sorted(EXAMPLES.glob("*/p0*.plan")):
        problem_path = plan_path.with_suffix(".pddl")
        domain_path: Path = plan_path.parent / "domain.pddl"
        domain = parse_pddl(domain_path.read_text()).model
        problem = parse_pddl(problem_path.read_text()).model
        assert isinstance(domain, Domain) and isinstance(problem, Problem)
        parsed = parse_plan(plan_path.read_text())
        assert parsed.plan is not None
        result = simulate(domain, problem, parsed.plan)
        assert result.valid, (plan_path, result.failure, result.goals)
