"""The child process that runs a unified-planning engine (ENHSP, TAMER) on a domain and a problem file.

    python -m plansight.analyses.plans.up_planner_process ENGINE DOMAIN PROBLEM PLAN TIMEOUT

It is a process of its own so that the caller's budget can stop it (``budgeted_process.py`` kills it at
the wall-clock limit or on a cancel, Java included) and so that unified-planning, a large library a bare
install of plansight lacks, is imported only here, when such a planner is asked for. The plan is written
to PLAN in IPC format (``(a x)`` lines, or ``0.000: (a x) [1.000]`` for a temporal plan); the exit code
says what happened: 0 a plan, 10 the planner proved there is none, 12 it stopped without one, 1 an error
(its message on the last line of the output).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

EXIT_PLAN, EXIT_ERROR, EXIT_UNSOLVABLE, EXIT_NO_PLAN = 0, 1, 10, 12


def plan_text(plan: Any) -> str:
    """A unified-planning plan in IPC format."""
    if hasattr(plan, "timed_actions"):
        lines = []
        for start, instance, duration in plan.timed_actions:
            line = f"{float(start):.3f}: {_action(instance)}"
            lines.append(line + (f" [{float(duration):.3f}]" if duration is not None else ""))
    else:
        lines = [_action(instance) for instance in plan.actions]
    return "".join(line + "\n" for line in lines)


def _action(instance: Any) -> str:
    return "(" + " ".join([instance.action.name, *(str(p) for p in instance.actual_parameters)]) + ")"


def main(argv: list[str]) -> int:
    """Solve and write the plan; the exit code is the outcome (see the module docstring)."""
    engine, domain, problem, plan, timeout = argv
    try:
        from unified_planning.engines import PlanGenerationResultStatus as Status
        from unified_planning.io import PDDLReader
        from unified_planning.shortcuts import OneshotPlanner, get_environment

        get_environment().credits_stream = None
        task = PDDLReader().parse_problem(domain, problem)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with OneshotPlanner(name=engine) as planner:
                result = planner.solve(task, timeout=float(timeout))
    except Exception as error:  # the planner's own words are the best explanation the user can get
        print(f"{type(error).__name__}: {error}".replace("\n", " "))
        return EXIT_ERROR
    if result.plan is not None:
        Path(plan).write_text(plan_text(result.plan))
        return EXIT_PLAN
    print(f"status: {result.status.name}")
    return EXIT_UNSOLVABLE if result.status == Status.UNSOLVABLE_PROVEN else EXIT_NO_PLAN


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
