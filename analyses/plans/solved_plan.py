"""What a front end does with a planner's plan: check it with plansight's own simulator, and write it as
a plan file that knows its problem.

The planner is trusted with nothing: its plan is simulated from the problem's initial state, so a
planner that reads the PDDL differently from plansight (or a user's command that prints something
else) is caught before the plan is used. The written file starts with a ``; @problem`` directive
(docs/files-and-links.md) whose path is relative to the plan file, so the plan keeps its problem when
the folder is moved.
"""

from __future__ import annotations

import os

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.simulate import Simulation, simulate, unparsed_lines
from plansight.analyses.syntax.parse_plan import parse_plan


def check_plan(domain: Domain, problem: Problem, plan_text: str) -> Simulation | None:
    """The simulation of the plan, or None when its text is not a plan at all."""
    parsed = parse_plan(plan_text)
    if parsed.plan is None:
        return None
    return simulate(domain, problem, unparsed_lines(plan_text, parsed.plan, parsed.diagnostics))


def verdict(simulation: Simulation | None) -> str:
    """A sentence saying what the simulator made of the plan."""
    if simulation is None:
        return "the planner's output is not a plan plansight can read"
    if simulation.skipped_reason is not None:
        return f"not checked: {simulation.skipped_reason}"
    if simulation.stopped_reason is not None:
        return f"not checked to the end: {simulation.stopped_reason}"
    goals = simulation.goals
    total = len(goals.satisfied) + len(goals.unsatisfied)
    if simulation.valid:
        return f"valid: {simulation.length} steps, {total} of {total} goals hold"
    if simulation.failure is not None:
        return f"NOT valid: step {simulation.failure.index + 1} fails: {simulation.failure.message}"
    return f"NOT valid: {len(goals.unsatisfied)} of {total} goals do not hold at the end"


def relative_link(target: str, plan_path: str) -> str:
    """``target`` as a directive writes it: relative to the plan's folder, with ``/`` on every system."""
    folder = os.path.dirname(os.path.abspath(plan_path))
    try:
        relative = os.path.relpath(os.path.abspath(target), folder)
    except ValueError:  # another drive on Windows: no relative path exists
        relative = os.path.abspath(target)
    return relative.replace(os.sep, "/")


def plan_file_text(plan_text: str, plan_path: str, problem_path: str, domain_path: str | None = None) -> str:
    """The plan as a file at ``plan_path``: directive lines (``; @domain`` only when asked), then the plan."""
    header = f"; @problem {relative_link(problem_path, plan_path)}\n"
    if domain_path is not None:
        header += f"; @domain {relative_link(domain_path, plan_path)}\n"
    body = plan_text if plan_text.endswith("\n") or not plan_text else plan_text + "\n"
    return header + body
