"""Simulating and reporting a chunk of linked plans: what a worker process (local or on a Dask cluster) runs
for `plansight plan` over many files.

A :class:`PlanJob` arrives read and linked to its domain and problem (the files stay on the machine that
runs the command); the worker builds the world, simulates and makes the report, reference comparison and
recovery included, exactly as the command does in its own process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.plan_json import PlanJob, PlanOptions, plan_json
from plansight.analyses.plans.simulate import DEFAULT_EPSILON, simulate
from plansight.analyses.semantics.budget import WorkBudget
from plansight.analyses.semantics.world import World


def simulate_job(job: PlanJob, budget: WorkBudget | None = None, world: World | None = None,
                 epsilon: float = DEFAULT_EPSILON) -> PlanJob:
    """Build the job's world (or take ``world``, built for the same domain and problem objects) and simulate
    its steps, unless the job already says why it cannot be; ``epsilon`` is a temporal plan's tolerance
    (VAL's ``-t``)."""
    if job.error is None and job.domain is not None and job.problem is not None:
        job.world = world or World.build(job.domain, job.problem)
        job.simulation = simulate(job.domain, job.problem, job.steps, world=job.world, budget=budget,
                                  epsilon=epsilon)
    return job


def plan_chunk(
    kind: str, settings: Mapping[str, Any], jobs: Sequence[tuple[int, PlanJob]]
) -> list[tuple[int, tuple[PlanJob, dict[str, Any]]]]:
    """Each job simulated with its report, in the chunk's order. The grounded world (the job's and its
    simulation's) is dropped once the report is made: it is the largest part of a job, its compiled checks
    cannot travel between processes, and nothing after the report (the text form, the plan view) reads
    it. ``kind`` is always ``plan``; it is there so every worker function has the same signature."""
    budget: WorkBudget | None = settings.get("budget")
    options: PlanOptions = settings["options"]
    results: list[tuple[int, tuple[PlanJob, dict[str, Any]]]] = []
    # Plans of one batch mostly share their domain and problem (one parsed object each): the last world is
    # kept for the next job, with its ground steps, instead of being built again for every plan. Only the
    # last, so a batch over many problems never holds more than one world.
    last: tuple[Domain | None, Problem | None, World | None] = (None, None, None)
    for index, job in jobs:
        shared = last[2] if last[0] is job.domain and last[1] is job.problem else None
        report = plan_json(simulate_job(job, budget, shared, options.epsilon), options)
        if job.world is not None:
            last = (job.domain, job.problem, job.world)
        job.world = None
        if job.simulation is not None:
            job.simulation = replace(job.simulation, world=None)
        results.append((index, (job, report)))
    return results
