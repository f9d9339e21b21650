"""Planners for the tasks Fast Downward cannot plan: numeric ones (ENHSP) and temporal ones (TAMER).

Fast Downward plans for classical PDDL (with action costs); a domain with numeric conditions or effects,
durative actions or timed initial literals is outside it. Two planners that are on PyPI can take those
tasks: ENHSP (Scala and Chiari, "Interval-based relaxation for general numeric planning", ECAI 2016), a
Java program shipped in ``up-enhsp``, and TAMER (Valentini, Micheli and Cimatti, "Temporal planning with
intermediate conditions and effects", AAAI 2020), shipped in ``up-tamer``. Both are driven through
unified-planning in a child process (``up_planner_process.py``), under the same wall-clock budget and
cancel as Fast Downward. When one is missing (or Java is, for ENHSP) the answer says which and how to get
it, never a Fast Downward failure the user cannot act on.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from plansight.analyses.model.pddl import Domain, Problem, TimedLiteral
from plansight.analyses.plans.budgeted_process import run_budgeted
from plansight.analyses.semantics.world import numeric_beyond_costs

TaskKind = Literal["classical", "numeric", "temporal"]
GRACE_SECONDS = 5.0
"""The planner gets the budget as its own timeout; our guard stops it this much later."""


@dataclass(frozen=True, slots=True)
class TaskPlanner:
    """A planner unified-planning runs: its engine name there, its name for users, its package."""

    engine: str
    label: str
    package: str
    needs_java: bool = False


PLANNERS: dict[TaskKind, TaskPlanner] = {
    "numeric": TaskPlanner("enhsp", "ENHSP", "up-enhsp", needs_java=True),
    "temporal": TaskPlanner("tamer", "TAMER", "up-tamer"),
}


def task_kind(domain: Domain, problem: Problem) -> TaskKind:
    """``temporal`` with durative actions or timed initial literals, ``numeric`` with numeric conditions or
    effects (other than action costs) or PDDL+ processes and events, else ``classical``."""
    return task_places(domain, problem)[0]


def task_places(domain: Domain, problem: Problem) -> tuple[TaskKind, str]:
    """The task's kind and, in words, what makes it so (``durative actions (`light`, `fill`)``), for the
    message that says why Fast Downward cannot plan it; empty for a classical task."""
    durative = [f"`{a.name.display}`" for a in domain.actions if a.kind == "durative-action"]
    if durative:
        return "temporal", f"durative actions ({_first(durative)})"
    if any(isinstance(fact, TimedLiteral) for fact in problem.init):
        return "temporal", "timed initial literals"
    numeric = set(numeric_beyond_costs(domain, problem))  # action costs alone are classical
    places = [f"`{a.name.display}`" for a in domain.actions
              if a.kind in ("process", "event") or f"`{a.name.display}`" in numeric]
    if "the goal" in numeric:
        places.append("the goal")
    if places:
        return "numeric", f"numeric conditions or effects (in {_first(list(dict.fromkeys(places)))})"
    return "classical", ""


def _first(places: list[str]) -> str:
    return ", ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")


def unavailable(planner: TaskPlanner) -> str | None:
    """Why ``planner`` cannot run here, with what to install; None when it can."""
    missing = [p for p in ("unified-planning", planner.package)
               if importlib.util.find_spec(p.replace("-", "_")) is None]
    if missing:
        return f"it is not installed (pip install {' '.join(missing)})"
    if planner.needs_java and shutil.which("java") is None:
        return ("it needs Java, which is not installed (Java 17 or later; on Debian or Ubuntu: "
                "apt-get install default-jre-headless)")
    return None


PlanOutcome = Literal["solved", "unsolvable", "timeout", "error", "cancelled"]


@dataclass(frozen=True, slots=True)
class TaskPlannerRun:
    """What a run gave: the plan as IPC lines, or why there is none (``message`` names the planner)."""

    status: PlanOutcome
    lines: tuple[str, ...]
    message: str
    seconds: float


def run_task_planner(domain_text: str, problem_text: str, planner: TaskPlanner, time_limit_s: float,
                     cancel: threading.Event | None = None) -> TaskPlannerRun:
    """Run ``planner`` on the texts in a child process; blocks until it is done, out of time or cancelled."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="plansight-up-") as folder:
        work = Path(folder)
        (work / "domain.pddl").write_text(domain_text)
        (work / "problem.pddl").write_text(problem_text)
        command = [sys.executable, "-m", "plansight.analyses.plans.up_planner_process", planner.engine,
                   str(work / "domain.pddl"), str(work / "problem.pddl"), str(work / "plan"),
                   f"{time_limit_s:g}"]
        run = run_budgeted(command, folder, time_limit_s + GRACE_SECONDS, cancel)
        elapsed = time.monotonic() - started
        if run.cancelled:
            return TaskPlannerRun("cancelled", (), f"{planner.label} was cancelled", elapsed)
        if run.over_budget:
            return TaskPlannerRun("timeout", (), f"{planner.label} found no plan within {time_limit_s:g} s",
                                  elapsed)
        plan = work / "plan"
        if run.exit_code == 0 and plan.is_file():
            lines = tuple(line.strip() for line in plan.read_text().splitlines() if line.strip())
            return TaskPlannerRun("solved", lines, f"{planner.label} found a plan", elapsed)
        last = [line for line in run.output.splitlines() if line.strip()][-1:]
        if run.exit_code == 10:
            proof = f"{planner.label} proved the goal cannot be reached from this state"
            return TaskPlannerRun("unsolvable", (), proof, elapsed)
        if run.exit_code == 12:
            return TaskPlannerRun("timeout" if elapsed >= time_limit_s else "error", (),
                                  f"{planner.label} stopped without a plan ({' '.join(last)})", elapsed)
        why = " ".join(last) or "no output"
        return TaskPlannerRun("error", (), f"{planner.label} failed: {why}", elapsed)
