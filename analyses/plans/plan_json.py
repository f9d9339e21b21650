"""The ``plansight plan --format json`` report of one plan, shared by the command line and the editor.

Both front ends build a :class:`PlanJob` (the plan with its partners, parsed and simulated) and a
:class:`PlanOptions`, and this module turns them into the same JSON object, so ``plansight plan`` and
the editor's *Simulate plan* command can never disagree. The ``reference`` section compares the plan
with its ground-truth plan (AQM, StV, LCS); the ``recovery`` section asks a planner to complete the
plan's correct prefix. docs/cli.md lists the report's keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from plansight.analyses.plans.word_similarity import SimilarityVersion

if TYPE_CHECKING:
    from plansight.analyses.diagnostics.spans import Span
    from plansight.analyses.model.pddl import Domain, PlanStep, Problem
    from plansight.analyses.plans.constraints import TrajectoryReport
    from plansight.analyses.plans.metrics import Action
    from plansight.analyses.plans.simulate import Simulation, Unparsed
    from plansight.analyses.semantics.world import World
    from plansight.analyses.syntax.documents import ParsedDocument
    from plansight.analyses.syntax.reading import FileText


@dataclass
class PlanJob:
    """One plan with its partners, parsed and simulated; what every report section reads."""

    path: str
    document: ParsedDocument | None = None
    domain: Domain | None = None
    problem: Problem | None = None
    domain_path: str | None = None
    problem_path: str | None = None
    reference_plan_path: str | None = None
    reference_read: FileText | None = None
    """The reference plan as read on the machine that has the files, so a worker elsewhere needs no access to
    them; None reads ``reference_plan_path`` when the report is made."""
    steps: list[PlanStep | Unparsed] = field(default_factory=list)
    world: World | None = None
    simulation: Simulation | None = None
    error: str | None = None
    """Why the plan could not be simulated at all (unreadable, no problem or domain found)."""


@dataclass(frozen=True, slots=True)
class PlanOptions:
    """What the report's optional sections depend on: the CLI fills it from its flags, the editor from
    its settings (the editor never runs a planner behind the user's back, so ``recover`` stays off)."""

    similarity: SimilarityVersion = "v1"
    """Action-name similarity for the AQM: ``v1`` as in the paper, ``v2`` as its later code."""
    recover: bool = False
    time_limit_s: float = 30.0
    """The planner's limits for ``recover``."""
    memory_limit_mb: int = 2048
    epsilon: float = 0.01
    """A temporal plan's tolerance, as VAL's ``Validate -t`` (docs/beyond-classical-temporal.md)."""


def plan_json(job: PlanJob, options: PlanOptions) -> dict[str, Any]:
    """One plan's report: the simulation's verdict, failure, goals and trace, ``pddl3`` (constraints and
    preferences), ``metric`` (of a valid plan), plus ``reference``,
    ``recovery``, ``skipped_reason``, ``stopped_reason`` (the work budget ran out: no verdict),
    ``redundant``, ``domain``, ``problem`` and ``error``."""
    from plansight.analyses.plans.simulate import step_text
    from plansight.analyses.semantics.fluents import term_text
    from plansight.analyses.semantics.world import format_atom

    sim = job.simulation
    report: dict[str, Any] = {
        "path": job.path,
        "length": sim.length if sim is not None else (len(job.document.plan.steps) if job.document is not None
                                                      and job.document.plan is not None else None),
        "executable": sim.executable if sim is not None else None,
        "valid": sim.valid if sim is not None else None,
        "lea": sim.lea if sim is not None else None,
        "failure": None,
        "goals": None,
        "trace": [],
        "pddl3": None,
        "metric": None,
        "reference": None,
        "recovery": None,
        "skipped_reason": sim.skipped_reason if sim is not None else None,
        "stopped_reason": sim.stopped_reason if sim is not None else None,
        "redundant": list(sim.redundant) if sim is not None else [],
        "domain": job.domain_path,
        "problem": job.problem_path,
        "error": job.error,
    }
    if sim is None:
        return report
    if sim.failure is not None:
        failure = sim.failure
        report["failure"] = {
            "index": failure.index, "action": failure.action, "category": failure.category,
            "unsatisfied": [m.text for m in failure.unsatisfied], "message": failure.message,
        }
    if not sim.unknown:
        report["goals"] = {"satisfied": list(sim.goals.satisfied), "unsatisfied": list(sim.goals.unsatisfied),
                           "fraction": sim.goals.fraction}
    report["trace"] = [
        {"index": t.index, "action": t.action if sim.temporal else step_text(t.step),
         "added": [format_atom(a) for a in t.added], "deleted": [format_atom(a) for a in t.deleted],
         "changed": [{"term": term_text(term), "before": json_number(before), "after": json_number(after)}
                     for term, before, after in t.changed]} for t in sim.trace]
    if sim.world is not None and sim.world.derived is not None:
        # derived atoms apart from the basic ones (docs/beyond-classical-derived.md); only with rules
        for entry, step in zip(report["trace"], sim.trace, strict=True):
            entry["derived_added"] = [format_atom(a) for a in step.derived_added]
            entry["derived_deleted"] = [format_atom(a) for a in step.derived_deleted]
    if sim.metric is not None:
        metric = sim.metric
        report["metric"] = {"direction": metric.direction, "expression": metric.expression,
                            "value": json_number(metric.value), "reason": metric.reason}
    report["pddl3"] = trajectory_json(sim.trajectory) if sim.trajectory is not None else None
    if sim.temporal:
        report.update(temporal_json(sim, options.epsilon))
    report["reference"] = reference_report(job, options)
    report["recovery"] = recovery_report(job, options)
    return report


def trajectory_json(trajectory: TrajectoryReport) -> dict[str, Any]:
    """The ``pddl3`` section (docs/beyond-classical-pddl3.md): each ground constraint's verdict with the state
    where it broke (0 is the initial state, k the state after step k), each preference's ``is-violated``
    count, and each violation of a goal or precondition preference (``step`` 0-based, None at the end)."""
    return {
        "constraints": [
            {"constraint": c.text, "operator": c.operator, "holds": c.holds, "state": c.state,
             "at_end": c.at_end, "source": c.source, "preference": c.preference, "message": c.message}
            for c in trajectory.constraints],
        "preferences": [
            {"name": p.name, "violations": p.violations, "checks": p.checks, "where": list(p.where)}
            for p in trajectory.preferences],
        "violations": [{"preference": v.name, "condition": v.text, "step": v.step, "message": v.message}
                       for v in trajectory.violated],
    }


def temporal_json(sim: Simulation, epsilon: float) -> dict[str, Any]:
    """A temporal plan's extra fields (docs/beyond-classical-temporal.md): ``temporal``, ``epsilon``,
    ``happenings`` (time, snap actions, executed or not) and the failing happening's time."""
    reached = sim.lea_reached
    out: dict[str, Any] = {
        "temporal": True,
        "epsilon": epsilon,
        "happenings": [
            {"index": h.index, "time": _clock(h.time), "executed": h.index < reached,
             "snaps": [{"kind": s.kind, "action": s.text, "step": s.step, "time": _clock(s.time)}
                       for s in h.snaps]}
            for h in sim.happenings],
    }
    failure = sim.failure
    if failure is not None:
        at = _clock(sim.happenings[failure.index].time) if failure.index < len(sim.happenings) else None
        out["failure"] = {"index": failure.index, "action": failure.action, "category": failure.category,
                          "unsatisfied": [m.text for m in failure.unsatisfied], "message": failure.message,
                          "time": at, "step": _step_of(sim, failure.span)}
    return out


def _clock(time: float) -> float:
    """A time as plans write it: an end at 5.01 + 3 is 8.01, not 8.009999999999998."""
    return round(time, 9)


def _step_of(sim: Simulation, span: Span) -> int | None:
    return next((i for i, step in enumerate(sim.steps) if step.span == span), None)


def json_number(value: float | None) -> float | str | None:
    """A fluent value for JSON: the number, or ``"inf"`` / ``"-inf"`` / ``"nan"`` (which JSON cannot
    write as numbers; VAL prints them so), or None when undefined."""
    if value is None or math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _plan_actions(job: PlanJob) -> list[Action] | None:
    from plansight.analyses.plans.metrics import actions_of

    if job.document is None or job.document.plan is None:
        return None
    return actions_of(job.document.plan)


def reference_actions(job: PlanJob) -> tuple[list[Action] | None, str | None]:
    """The reference plan's actions, or None and why not."""
    path = job.reference_plan_path
    if path is None:
        return None, None
    from plansight.analyses.plans.metrics import actions_of
    from plansight.analyses.syntax.parse_plan import parse_plan
    from plansight.analyses.syntax.reading import read_text_file

    # the one reading policy: a FIFO named here must not hang the report
    read = job.reference_read if job.reference_read is not None else read_text_file(path)
    if read.text is None:
        return None, f"the reference plan `{path}` cannot be read: {read.failure}"
    parsed = parse_plan(read.text)
    if parsed.plan is None:
        return None, f"`{path}` is not a plan"
    return actions_of(parsed.plan), None


def reference_report(job: PlanJob, options: PlanOptions) -> dict[str, Any] | None:
    """The ``reference`` section: metrics against ``job.reference_plan_path`` (None without one)."""
    reference, problem = reference_actions(job)
    if problem is not None:
        return {"path": job.reference_plan_path, "error": problem}
    if reference is None:
        return None
    plan = _plan_actions(job)  # only now: a batch without a reference plan never needs the actions
    if plan is None:
        return None
    from plansight.analyses.plans.comparison import compare

    valid = job.simulation.valid if job.simulation is not None else None
    result = compare(job.domain, job.problem, plan, reference, valid, options.similarity, job.world)
    return {"path": job.reference_plan_path, **result.to_json()}


def recovery_report(job: PlanJob, options: PlanOptions) -> dict[str, Any] | None:
    """The ``recovery`` section: the planner's completion of the executable prefix (with ``recover``)."""
    if not options.recover:
        return None
    from plansight.analyses.plans.recovery import Budget, recover

    plan = _plan_actions(job)
    if plan is None or job.domain is None or job.problem is None:
        return None
    reference, _ = reference_actions(job)
    budget = Budget(options.time_limit_s, options.memory_limit_mb)
    return recover(job.domain, job.problem, plan, reference, budget, world=job.world).to_json()
