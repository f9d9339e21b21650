"""What the plan view shows, as plain JSON-able data: each step, the objects it touches and what it
changes about each of them, the failure, the initial state and the goals.

The page (:mod:`plansight.analyses.plans.plan_html`) only draws this; keeping the facts here lets
tests check *what each step changes about which object* without reading HTML, and keeps the page's
script small: it rebuilds the state at a step from ``initial`` and the steps' deltas instead of the
page carrying one copy of the state per step.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any

from plansight.analyses.model.pddl import PlanStep
from plansight.analyses.plans.report import sorted_atoms, summary_line
from plansight.analyses.plans.simulate import CATEGORY_WORDS, Unparsed, step_text, unparsed_lines
from plansight.analyses.semantics.fluents import term_text
from plansight.analyses.semantics.world import GroundAtom, format_atom

if TYPE_CHECKING:
    from plansight.analyses.plans.plan_json import PlanJob

NO_FLUENT_VALUES = ("no executed step changes a numeric fluent, so there are no values to plot "
                    "(the plan's steps and state are shown above)")
MAX_SERIES = 12
"""Plots drawn at most: the fluents changed first in the plan come first."""


def plan_view(job: PlanJob) -> dict[str, Any]:
    """The view model of one plan (see the module docstring). ``status`` of a step is ``executed``,
    ``failed``, ``unreached`` or ``not simulated``; ``touches`` maps each object (by its name in the
    files, lower-cased as PDDL compares names) to the atoms the step added and deleted that mention it,
    and lists the step's own arguments even when nothing about them changed."""
    sim = job.simulation
    steps: list[PlanStep | Unparsed] = list(sim.steps) if sim is not None else list(job.steps)
    plan = job.document.plan if job.document is not None else None
    if not steps and job.document is not None and plan is not None:
        steps = unparsed_lines(job.document.text, plan, job.document.diagnostics)
    not_simulated = job.error or ((sim.skipped_reason or sim.stopped_reason) if sim is not None else None)
    if sim is None and not_simulated is None:
        not_simulated = "the plan was not simulated"
    trace = sim.trace if sim is not None and not_simulated is None else ()
    failure = sim.failure if sim is not None and not_simulated is None else None
    redundant = set(sim.redundant) if sim is not None else set()
    temporal = sim is not None and sim.temporal and not_simulated is None
    unreached = set(sim.unreached) if temporal and sim is not None else set()

    rows: list[dict[str, Any]] = []
    for index, step in enumerate(steps):
        added: tuple[GroundAtom, ...] = ()
        deleted: tuple[GroundAtom, ...] = ()
        derived: tuple[tuple[GroundAtom, ...], tuple[GroundAtom, ...]] = ((), ())
        if temporal and sim is not None:  # a step's changes are its start's and its end's
            effects = sim.effects_of_step(index)
            added = tuple(a for e in effects for a in e.added)
            deleted = tuple(a for e in effects for a in e.deleted)
            status = ("failed" if failure is not None and failure.span == step.span
                      else "unreached" if index in unreached else "executed")
        elif index < len(trace):
            status = "executed"
            added, deleted = trace[index].added, trace[index].deleted
            derived = (trace[index].derived_added, trace[index].derived_deleted)
        elif not_simulated is not None:
            status = "not simulated"
        elif failure is not None and index == failure.index:
            status = "failed"
        else:
            status = "unreached"
        rows.append({
            "index": index,
            "action": step_text(step),
            "time": step.time.value if isinstance(step, PlanStep) and step.time is not None else None,
            "duration": (step.duration.value if isinstance(step, PlanStep) and step.duration is not None
                         else None),
            "status": status,
            "redundant": index in redundant,
            "added": [format_atom(a) for a in added],
            "deleted": [format_atom(a) for a in deleted],
            "derived_added": [format_atom(a) for a in derived[0]],
            "derived_deleted": [format_atom(a) for a in derived[1]],
            "touches": _touches(step, added, deleted),
        })
    return {
        "path": job.path,
        "name": os.path.basename(job.path),
        "domain": job.domain_path,
        "problem": job.problem_path,
        "length": len(steps),
        "valid": sim.valid if sim is not None and not_simulated is None else None,
        "lea": sim.lea if sim is not None and not_simulated is None else None,
        "summary": _summary(job, not_simulated),
        "not_simulated": not_simulated,
        "failure": None if failure is None else {
            "index": failure.index, "action": failure.action, "category": failure.category,
            "category_words": CATEGORY_WORDS[failure.category], "message": failure.message},
        "steps": rows,
        "lanes": _lanes(job, rows),
        "initial": sorted_atoms(sim.initial) if sim is not None and not_simulated is None else [],
        "initial_derived": (sorted(format_atom(a) for a in sim.derived_before(0))
                            if sim is not None and not_simulated is None else []),
        "has_derived": sim is not None and sim.world is not None and sim.world.derived is not None,
        "goals": None if sim is None or not_simulated is not None else {
            "satisfied": list(sim.goals.satisfied), "unsatisfied": list(sim.goals.unsatisfied)},
        "temporal": any(row["time"] is not None for row in rows),
        "fluents": _fluents(job, not_simulated),
        "pddl3": _pddl3(job, not_simulated),
    }


def _pddl3(job: PlanJob, not_simulated: str | None) -> dict[str, Any] | None:
    """PDDL3's verdicts for the page (docs/beyond-classical-pddl3.md): each ground constraint with its
    verdict and message, each preference's ``is-violated`` count, the metric of a valid plan."""
    sim = job.simulation
    if sim is None or not_simulated is not None or sim.trajectory is None:
        return None
    return {
        "constraints": [{"text": c.text, "holds": c.holds, "preference": c.preference, "message": c.message}
                        for c in sim.trajectory.constraints],
        "preferences": [{"name": p.name, "violations": p.violations} for p in sim.trajectory.preferences],
        "metric": sim.metric.text if sim.metric is not None else None,
    }


def _fluents(job: PlanJob, not_simulated: str | None) -> dict[str, Any]:
    """One series per fluent some executed step changes: its value in s0, s1, ... (None where it is
    undefined or not a finite number)."""
    sim = job.simulation
    terms: dict[tuple[str, ...], None] = {}
    if sim is not None and not_simulated is None:
        for step in sim.trace:
            for term, _, _ in step.changed:
                terms.setdefault(term, None)
    if not terms or sim is None:
        return {"series": [], "absent": _no_fluents_reason(job, not_simulated)}
    chosen = list(terms)[:MAX_SERIES]
    values: dict[tuple[str, ...], list[float | None]] = {term: [] for term in chosen}
    for state in sim.states():
        for term in chosen:
            value = state.value(term)
            values[term].append(value if value is not None and math.isfinite(value) else None)
    return {"series": [{"name": term_text(term), "values": values[term]} for term in chosen], "absent": ""}


def _touches(step: PlanStep | Unparsed, added: tuple[GroundAtom, ...],
             deleted: tuple[GroundAtom, ...]) -> dict[str, dict[str, list[str]]]:
    touches: dict[str, dict[str, list[str]]] = {}
    if isinstance(step, PlanStep):
        for arg in step.args:
            touches.setdefault(arg.key, {"added": [], "deleted": []})
    for kind, atoms in (("added", added), ("deleted", deleted)):
        for atom in atoms:
            for obj in dict.fromkeys(atom[1:]):
                touches.setdefault(obj, {"added": [], "deleted": []})[kind].append(format_atom(atom))
    return touches


def _lanes(job: PlanJob, rows: list[dict[str, Any]]) -> list[str]:
    """One swim lane per object some step touches, in the order the domain and problem declare them
    (constants first), so that the lanes of two plans for the same problem line up."""
    touched = {obj for row in rows for obj in row["touches"]}
    declared: list[str] = []
    if job.domain is not None:
        declared += [c.name.key for c in job.domain.constants]
    if job.problem is not None:
        declared += [o.name.key for o in job.problem.objects]
    ordered = [obj for obj in dict.fromkeys(declared) if obj in touched]
    seen = set(ordered)
    for row in rows:  # objects the files do not declare (a step naming an unknown object)
        for obj in row["touches"]:
            if obj not in seen:
                seen.add(obj)
                ordered.append(obj)
    return ordered


def _summary(job: PlanJob, not_simulated: str | None) -> str:
    sim = job.simulation
    if sim is None or not_simulated is not None:
        return f"not simulated: {not_simulated}"
    total = len(sim.goals.satisfied) + len(sim.goals.unsatisfied)
    return summary_line(valid=sim.valid, lea=sim.lea, length=sim.length,
                        goals_satisfied=len(sim.goals.satisfied), goals_total=total,
                        metric=sim.metric.summary if sim.metric is not None else None,
                        broken_constraints=len(sim.broken_constraints))


def _no_fluents_reason(job: PlanJob, not_simulated: str | None) -> str:
    if not_simulated is not None:
        return f"no values to plot: the plan was not simulated ({not_simulated})"
    has_functions = job.domain is not None and bool(job.domain.functions)
    has_metric = job.problem is not None and job.problem.metric is not None
    if not has_functions and not has_metric:
        return "the domain declares no numeric fluents and the problem no metric, so there is nothing to plot"
    return NO_FLUENT_VALUES
