"""Plan recovery (Armony et al. 2025): keep the correct prefix (pi_corr), Fast Downward plans the rest.

Fast Downward ships in the `up-fast-downward` wheel (its driver script and the compiled search
binary, located by `fast_downward.py`); we run its driver as a subprocess on PDDL text printed by
`printer.py` into a temporary folder, with the time and memory budget on its command line and a
wall-clock guard of our own at the same limit (`budgeted_process.py`, which kills the translator and
the search together on a cancel, a `threading.Event`, or at the limit: Fast Downward's own limits count
CPU time, which a loaded machine stretches), so a call returns within its limit plus about a second.
Nothing here blocks an event loop: callers in the server run these functions in a worker thread.
"""

from __future__ import annotations

import dataclasses
import logging
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from plansight.analyses.model.pddl import (
    Atom,
    Comparison,
    Domain,
    Formula,
    FunctionTerm,
    Number,
    Problem,
    name,
)
from plansight.analyses.model.printer import print_domain, print_problem
from plansight.analyses.plans import fast_downward
from plansight.analyses.plans.budgeted_process import run_budgeted
from plansight.analyses.plans.comparison import reference_prefix_length, simulate_actions
from plansight.analyses.plans.metrics import Action, action_text, parse_action_text
from plansight.analyses.plans.simulate import number_text, simulate
from plansight.analyses.plans.soft_goals import hard_constraints, has_preferences, without_preferences
from plansight.analyses.plans.task_planners import (
    PLANNERS,
    TaskKind,
    run_task_planner,
    task_places,
    unavailable,
)
from plansight.analyses.semantics.state import State
from plansight.analyses.semantics.world import COST_TERMS, World
from plansight.analyses.syntax.parse_plan import parse_plan

log = logging.getLogger(__name__)

OPTIMAL_SEARCH = "astar(lmcut())"
"""The paper's planner configuration (its ground-truth plans come from A* with LM-cut)."""
FALLBACK_SEARCH = "lazy_greedy([ff()], preferred=[ff()])"
"""Used when LM-cut does not support the task (e.g. conditional effects): not optimal, but complete."""

MIN_FALLBACK_S = 0.5
"""The fallback search is not started with less time than this left: it could not even translate."""

PlannerStatus = Literal[
    "solved", "unsolvable", "timeout", "out-of-memory", "unsupported", "error", "cancelled"
]



@dataclass(frozen=True, slots=True)
class Budget:
    """Limits for the planner that completes a broken plan, so repair cannot run away on a hard problem."""

    time_limit_s: float = 30.0
    memory_limit_mb: int = 2048


@dataclass(frozen=True, slots=True)
class PlannerResult:
    """What one planner call returned, with the time it took."""

    status: PlannerStatus
    plan: tuple[Action, ...] | None
    planner: str
    message: str
    seconds: float

    @property
    def solved(self) -> bool:
        """Whether the planner found a plan."""
        return self.status == "solved"


def fast_downward_driver() -> Path | None:
    """The driver script inside the installed up-fast-downward wheel, or None when it is missing."""
    return fast_downward.driver()


def _read_plan(path: Path) -> tuple[Action, ...]:
    actions: list[Action] = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("(") and not line.startswith(";"):
            action = parse_action_text(line)
            if action is not None:
                actions.append(action)
    return tuple(actions)


_STATUS: dict[fast_downward.ExitMeaning, PlannerStatus] = {
    "unsolvable": "unsolvable", "timeout": "timeout", "out-of-memory": "out-of-memory",
    "unsupported": "unsupported",
}


def solve_text(
    domain_text: str,
    problem_text: str,
    budget: Budget = Budget(),
    cancel: threading.Event | None = None,
    search: str = OPTIMAL_SEARCH,
) -> PlannerResult:
    """Run Fast Downward on PDDL text; falls back to a greedy search when LM-cut cannot handle it."""
    driver = fast_downward.driver()
    planner = f"fast-downward {search}"
    started = time.monotonic()
    if driver is None:
        return PlannerResult(
            "error", None, planner, f"Fast Downward is not installed ({fast_downward.INSTALL_HINT})", 0.0
        )
    with tempfile.TemporaryDirectory(prefix="plansight-fd-") as work:
        Path(work, "domain.pddl").write_text(domain_text)
        Path(work, "problem.pddl").write_text(problem_text)
        limits = (budget.time_limit_s, budget.memory_limit_mb)
        command = fast_downward.command(driver, ("--search", search), *limits)
        run = run_budgeted(command, work, budget.time_limit_s, cancel)
        code = run.exit_code
        elapsed = time.monotonic() - started
        if run.cancelled:
            return PlannerResult("cancelled", None, planner, "cancelled", elapsed)
        plan_file = Path(work, "plan")
        meaning = fast_downward.meaning(code) if code is not None else "timeout"
        if meaning == "plan" and plan_file.is_file():
            return PlannerResult("solved", _read_plan(plan_file), planner, "plan found", elapsed)
        remaining_s = budget.time_limit_s - elapsed
        if meaning == "unsupported" and search == OPTIMAL_SEARCH and remaining_s >= MIN_FALLBACK_S:
            remaining = Budget(remaining_s, budget.memory_limit_mb)  # the same deadline, not a new one
            return solve_text(domain_text, problem_text, remaining, cancel, FALLBACK_SEARCH)
        status = _STATUS.get(meaning, "error")
        if status == "unsolvable":
            return PlannerResult(
                "unsolvable", None, planner, "the goal cannot be reached from this state", elapsed
            )
        if status == "timeout":
            return PlannerResult(
                "timeout", None, planner, f"no plan within {budget.time_limit_s:g} s", elapsed
            )
        if status == "out-of-memory":
            return PlannerResult(
                "out-of-memory",
                None,
                planner,
                f"the planner needed more than {budget.memory_limit_mb} MB",
                elapsed,
            )
        if status == "unsupported":
            return PlannerResult(
                "unsupported", None, planner, "Fast Downward does not support this task", elapsed
            )
        last = [line for line in run.output.splitlines() if line.strip()][-3:]
        return PlannerResult(
            "error", None, planner, f"Fast Downward failed (exit {code}): " + " | ".join(last), elapsed
        )


def solve(
    domain: Domain, problem: Problem, budget: Budget = Budget(), cancel: threading.Event | None = None
) -> PlannerResult:
    """Solve a parsed domain + problem with Fast Downward (also the equivalence checker's
    solvability test: status "unsolvable" is a proof, "timeout"/"out-of-memory" are not)."""
    return solve_text(print_domain(domain), print_problem(problem), budget, cancel)


def with_initial_state(problem: Problem, state: State) -> Problem:
    """The same problem starting from `state` (the atoms that hold; everything else is false), with its
    fluent values (an action-cost domain's static costs such as ``(road-length a b)``); ``total-cost``
    starts again from 0, so the planner's cost is the completion's."""
    atoms: list[Formula] = [Atom(name(atom[0]), tuple(name(arg) for arg in atom[1:]))
                            for atom in sorted(state.atoms)]
    for term, value in sorted(state.values.items()):
        if term in COST_TERMS:
            value = 0.0
        target = FunctionTerm(name(term[0]), tuple(name(arg) for arg in term[1:]))
        atoms.append(Comparison("=", target, Number(value, number_text(value))))
    return dataclasses.replace(problem, init=tuple(atoms))


def _without_costs(state: State) -> State:
    """The state as pi_corr compares it: a plan that reaches the reference's state by a dearer route
    still reaches it (the cost is bookkeeping, not part of the world)."""
    if not any(term in COST_TERMS for term in state.values):
        return state
    return State(state.atoms, {t: v for t, v in state.values.items() if t not in COST_TERMS})



@dataclass(frozen=True, slots=True)
class Recovery:
    """A repaired plan: the kept prefix of the original and the planner's completion, and which rule chose the
    prefix.
    """

    prefix: tuple[Action, ...]
    completion: tuple[Action, ...]
    status: PlannerStatus | Literal["already-valid", "skipped"]
    planner: str
    message: str
    prefix_rule: Literal["reference-state", "executable-prefix"]
    seconds: float = 0.0
    timed: tuple[str, ...] = ()
    """A temporal planner's plan as plan-file lines (``0.000: (a x) [1.000]``), which bare actions cannot
    hold; it is then the whole repaired plan (a temporal plan is planned again from its start)."""

    @property
    def plan(self) -> tuple[Action, ...] | None:
        """The whole repaired plan, or None when no repair was found."""
        return self.prefix + self.completion if self.status in ("solved", "already-valid") else None

    @property
    def plan_lines(self) -> tuple[str, ...] | None:
        """The whole repaired plan as plan-file lines, timed for a temporal plan; None when there is none."""
        plan = self.plan
        if plan is None:
            return None
        return self.timed if self.timed else tuple(action_text(a) for a in plan)

    def to_json(self) -> dict[str, Any]:
        """The `recovery` object of `plansight plan --format json` (docs/cli.md, plus more keys)."""
        lines = self.plan_lines
        return {
            "prefix": [action_text(a) for a in self.prefix],
            "completion": list(self.timed) or [action_text(a) for a in self.completion],
            "plan": None if lines is None else list(lines),
            "planner": self.planner,
            "status": self.status,
            "message": self.message,
            "prefix_rule": self.prefix_rule,
            "seconds": round(self.seconds, 3),
        }


def recover(
    domain: Domain,
    problem: Problem,
    plan: Sequence[Action],
    reference: Sequence[Action] | None = None,
    budget: Budget = Budget(),
    cancel: threading.Event | None = None,
    world: World | None = None,
) -> Recovery:
    """pi_corr + pi_comp. With a reference plan pi_corr follows the paper: the plan up to the first
    time it reaches the latest reference state it reaches at all; without one it is the executable
    prefix (the first LEA actions). The planner then solves the problem from the state after pi_corr.
    ``world`` may be passed to reuse one built for the same domain and problem."""
    world = world or World.build(domain, problem)
    rule: Literal["reference-state", "executable-prefix"] = (
        "reference-state" if reference else "executable-prefix"
    )
    kind, places = task_places(domain, problem)
    if kind != "classical":
        return _recover_beyond_classical(kind, places, domain, problem, plan, reference, budget, cancel,
                                         world, rule)
    simulation = simulate_actions(domain, problem, plan, world)
    planner = f"fast-downward {OPTIMAL_SEARCH}"
    if simulation.skipped_reason is not None:
        return Recovery((), (), "skipped", planner, f"cannot simulate: {simulation.skipped_reason}", rule)
    if simulation.stopped_reason is not None:  # no executable prefix is known: nothing to complete
        return Recovery((), (), "skipped", planner, f"cannot simulate: {simulation.stopped_reason}", rule)
    if simulation.valid:
        return Recovery(tuple(plan), (), "already-valid", planner, "the plan is already valid", rule)
    hard = hard_constraints(domain, problem)
    if hard:
        return Recovery((), (), "unsupported", planner, (
            "Fast Downward cannot complete a plan under PDDL3 trajectory constraints (in "
            f"{' and '.join(hard)}): it plans for the goal only, and from the state after the prefix the "
            "history the constraints judge is gone"), rule)
    soft = has_preferences(domain, problem)
    if soft:  # soft: a completion that ignores them is valid, it only counts more `is-violated`
        domain, problem = without_preferences(domain, problem)
    states = list(simulation.states())
    if reference:
        reference_states = list(simulate_actions(domain, problem, reference, world).states())
        keep = reference_prefix_length([_without_costs(s) for s in states],
                                       [_without_costs(s) for s in reference_states])
    else:
        keep = len(states) - 1
    prefix = tuple(plan[:keep])
    result = solve(domain, with_initial_state(problem, states[keep]), budget, cancel)
    completion = result.plan if result.plan is not None else ()
    message = result.message + ("; PDDL3 preferences were left out of the planner's task (they are soft: the "
                                "completion may violate them)" if soft else "")
    return Recovery(prefix, completion, result.status, result.planner, message, rule, result.seconds)


def _recover_beyond_classical(
    kind: TaskKind,
    places: str,
    domain: Domain,
    problem: Problem,
    plan: Sequence[Action],
    reference: Sequence[Action] | None,
    budget: Budget,
    cancel: threading.Event | None,
    world: World,
    rule: Literal["reference-state", "executable-prefix"],
) -> Recovery:
    """A numeric or temporal plan (``places`` says what makes it so): Fast Downward cannot complete it, ENHSP
    or TAMER can when installed.

    A numeric plan keeps its correct prefix when plansight simulates the domain (the planner starts from the
    state after it, fluent values included); a temporal plan, or one plansight cannot simulate, is planned
    again from the initial state: cutting a temporal plan at a happening can leave actions running, which no
    planner can start from."""
    task_planner = PLANNERS[kind]
    planner = f"{task_planner.engine} (unified-planning)"
    cannot = (f"Fast Downward cannot complete a {kind} plan (it plans for classical PDDL only; this task has "
              f"{places})")
    why = unavailable(task_planner)
    if why is not None:
        message = f"{cannot}; {task_planner.label} could, but {why}"
        return Recovery((), (), "unsupported", planner, message, rule)
    simulation = simulate_actions(domain, problem, plan, world)
    if simulation.valid:
        return Recovery(tuple(plan), (), "already-valid", planner, "the plan is already valid", rule)
    keep, start, note = 0, problem, ""
    if kind == "numeric" and not simulation.unknown:
        states = list(simulation.states())
        if reference:
            reference_states = list(simulate_actions(domain, problem, reference, world).states())
            keep = reference_prefix_length(states, reference_states)
        else:
            keep = len(states) - 1
        start = with_initial_state(problem, states[keep])
    elif kind == "temporal":
        note = " (a temporal plan is planned again from its start)"
    else:
        why_not = simulation.skipped_reason or simulation.stopped_reason
        note = f" (planned again from the initial state: the plan cannot be simulated: {why_not})"
    run = run_task_planner(print_domain(domain), print_problem(start), task_planner, budget.time_limit_s,
                           cancel)
    message = f"{cannot}; {run.message}{note}"
    prefix = tuple(plan[:keep])
    completion = () if kind == "temporal" else tuple(
        a for a in (parse_action_text(line) for line in run.lines) if a is not None)
    timed = run.lines if kind == "temporal" else ()
    status: PlannerStatus = run.status
    if run.status == "solved":
        lines = timed or tuple(action_text(a) for a in prefix + completion)
        problem_found = _check_repaired(domain, problem, lines, world)
        if problem_found is not None and problem_found.startswith("invalid"):
            status = "error"
            message = f"{cannot}; {task_planner.label} returned a plan that is {problem_found}"
            prefix, completion, timed = (), (), ()
        elif problem_found is not None:
            message += f"; {problem_found}"
    return Recovery(prefix, completion, status, planner, message, rule, run.seconds, timed)


def _check_repaired(domain: Domain, problem: Problem, lines: Sequence[str], world: World) -> str | None:
    """None when plansight's simulator finds the planner's plan valid; else why it is not (``invalid: ...``),
    or that it could not check it. A planner outside the fragment it supports can return a plan that does
    not work (TAMER with numeric conditions on durative actions does): it must not be written into the
    user's plan."""
    parsed = parse_plan("".join(line + "\n" for line in lines)).plan
    if parsed is None:
        return "invalid: it cannot be read as a plan"
    simulation = simulate(domain, problem, parsed.steps, world=world)
    if simulation.valid is None:
        why = simulation.skipped_reason or simulation.stopped_reason
        return f"plansight could not check the plan ({why})"
    if simulation.valid:
        return None
    if simulation.failure is not None:
        return f"invalid: {simulation.failure.message}"
    return "invalid: it does not reach the goal (" + " ".join(simulation.goals.unsatisfied) + ")"

