"""Plan simulation speed: plansight's simulator against unified-planning's sequential plan validator.

    python benchmarks/simulate_throughput.py [--repeat N] [--json OUT]

Long plans (1,000 and 10,000 steps) are generated as cycles over the bundled blocksworld, gripper
and logistics domains (each cycle returns to its start state, so every plan is valid and every step
is really executed and checked by both tools). Both tools get the same domain, problem and plan;
each one's time is the simulation of an already-parsed plan (plansight: ``simulate`` on the model;
unified-planning: ``PlanValidator.validate`` on its ``SequentialPlan``), and plansight's time with
parsing the plan text is reported too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@dataclass(frozen=True)
class Workload:
    label: str
    domain: str
    problem: str
    plan: str
    steps: int


def blocksworld(steps: int, blocks: int = 20) -> Workload:
    names = [f"b{i}" for i in range(blocks)]
    problem = (
        "(define (problem tower) (:domain blocksworld) (:objects " + " ".join(names) + ")\n"
        "(:init (handempty) " + " ".join(f"(on-table {n}) (clear {n})" for n in names) + ")\n"
        "(:goal (and " + " ".join(f"(on-table {n})" for n in names) + ")))\n")
    cycle: list[str] = []
    for i, name in enumerate(names):
        other = names[(i + 1) % blocks]
        cycle += [f"(pick-up {name})", f"(stack {name} {other})", f"(unstack {name} {other})",
                  f"(put-down {name})"]
    return _workload("blocksworld", "blocksworld", problem, cycle, steps)


def gripper(steps: int, balls: int = 10) -> Workload:
    names = [f"ball{i}" for i in range(balls)]
    problem = (
        "(define (problem many) (:domain gripper) (:objects rooma roomb - room left right - gripper "
        + " ".join(names) + " - ball)\n(:init (at-robby rooma) (free left) (free right) "
        + " ".join(f"(at {n} rooma)" for n in names) + ")\n(:goal (and "
        + " ".join(f"(at {n} rooma)" for n in names) + ")))\n")
    cycle: list[str] = []
    for name in names:
        cycle += [f"(pick {name} rooma left)", "(move rooma roomb)", f"(drop {name} roomb left)",
                  f"(pick {name} roomb right)", "(move roomb rooma)", f"(drop {name} rooma right)"]
    return _workload("gripper", "gripper", problem, cycle, steps)


def logistics(steps: int) -> Workload:
    problem = (EXAMPLES / "logistics" / "p01.pddl").read_text()
    problem = problem.replace("(:goal (at pkg1 pgh-airport))", "(:goal (at pkg1 pgh-po))")
    cycle = [
        "(drive-truck pgh-truck pgh-airport pgh-po pgh)", "(load-truck pkg1 pgh-truck pgh-po)",
        "(drive-truck pgh-truck pgh-po pgh-airport pgh)", "(unload-truck pkg1 pgh-truck pgh-airport)",
        "(load-truck pkg1 pgh-truck pgh-airport)", "(drive-truck pgh-truck pgh-airport pgh-po pgh)",
        "(unload-truck pkg1 pgh-truck pgh-po)", "(drive-truck pgh-truck pgh-po pgh-airport pgh)",
    ]
    return _workload("logistics", "logistics", problem, cycle, steps)


def _workload(label: str, folder: str, problem: str, cycle: list[str], steps: int) -> Workload:
    plan = [cycle[i % len(cycle)] for i in range(steps - steps % len(cycle))]
    domain = (EXAMPLES / folder / "domain.pddl").read_text()
    return Workload(f"{label} {len(plan)} steps", domain, problem, "\n".join(plan) + "\n", len(plan))


def best_of(repeat: int, run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def measure(workload: Workload, repeat: int) -> dict[str, object]:
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import PlanValidator, get_environment

    from plansight.analyses.model.pddl import Domain, Problem
    from plansight.analyses.plans.simulate import simulate
    from plansight.analyses.syntax.parse_pddl import parse_pddl
    from plansight.analyses.syntax.parse_plan import parse_plan

    domain, problem = parse_pddl(workload.domain).model, parse_pddl(workload.problem).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    parsed = parse_plan(workload.plan).plan
    assert parsed is not None
    result = simulate(domain, problem, parsed)
    assert result.valid, (workload.label, result.failure)
    ours = best_of(repeat, lambda: simulate(domain, problem, parsed))
    ours_with_parse = best_of(
        repeat, lambda: simulate(domain, problem, parse_plan(workload.plan).plan or parsed))

    get_environment().credits_stream = None
    reader = PDDLReader()
    up_problem = reader.parse_problem_string(workload.domain, workload.problem)
    up_plan = reader.parse_plan_string(up_problem, workload.plan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with PlanValidator(name="sequential_plan_validator") as validator:
            verdict = validator.validate(up_problem, up_plan)
            assert verdict.status.name == "VALID", workload.label
            theirs = best_of(1 if workload.steps > 2000 else repeat,
                             lambda: validator.validate(up_problem, up_plan))
    return {
        "workload": workload.label,
        "steps": workload.steps,
        "plansight_s": ours,
        "plansight_with_plan_parse_s": ours_with_parse,
        "unified_planning_s": theirs,
        "plansight_steps_per_s": workload.steps / ours,
        "unified_planning_steps_per_s": workload.steps / theirs,
        "ratio": theirs / ours,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    results = []
    print(f"{'workload':<28}{'plansight s':>12}{'+parse s':>10}{'unified-planning s':>20}{'ratio':>9}")
    for size in args.sizes:
        for make in (blocksworld, gripper, logistics):
            row = measure(make(size), args.repeat)
            results.append(row)
            print(f"{row['workload']:<28}{row['plansight_s']:>12.4f}{row['plansight_with_plan_parse_s']:>10.4f}"
                  f"{row['unified_planning_s']:>20.3f}{row['ratio']:>8.1f}x", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
