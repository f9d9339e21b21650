"""The metric values of one generated plan, shared by `plansight evaluate` over folders and over dataset rows.

One function computes them so both readings of a benchmark (files on disk, rows of a table) give the
same numbers for the same plan (the metrics are those of Armony, Meroño-Peñuela and Canal 2025, "How Far
Are LLMs from Symbolic Planners?"; docs/metrics.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from plansight.analyses.model.pddl import Domain, PlanStep, Problem
from plansight.analyses.plans.comparison import compare, steps_of
from plansight.analyses.plans.metrics import Action, SimilarityVersion, aqm_score
from plansight.analyses.plans.recovery import Budget, recover
from plansight.analyses.plans.simulate import Unparsed, simulate
from plansight.analyses.semantics.world import World

METRIC_COLUMNS = (
    "length",
    "reference_length",
    "valid",
    "executable",
    "lea",
    "goal_fraction",
    "stv",
    "aqm_score",
    "np_aqm_score",
    "lcs_subsequence",
    "lcs_substring",
    "similarity",
    "score",
    "score_normalised",
    "final_score",
    "action_distance",
    "recovery_status",
    "recovered_length",
    "prefix_length",
)
"""The values :func:`plan_metrics` gives, in the order both readings of a benchmark write them as columns
(`plansight evaluate` over folders between the plan's name and its error, over a table between the row's
index and extraction and the label's agreement and the error), so their CSV headers list them alike."""


def plan_metrics(
    domain: Domain | None,
    problem: Problem | None,
    plan: Sequence[Action],
    reference: Sequence[Action] | None,
    similarity: SimilarityVersion = "v1",
    recovery: Budget | None = None,
    steps: Sequence[PlanStep | Unparsed] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The row's values (validity, LEA, StV, AQM, scores, and recovery when ``recovery`` is given) and the
    reasons some could not be computed; never raises on a plan that does not fit its problem.

    ``steps`` are the steps `plansight plan` simulates (a line that is not an action is a failing
    ``parse`` step there); without them the actions of ``plan`` are simulated."""
    simulated = list(steps) if steps is not None else list(steps_of(plan))
    values: dict[str, Any] = {"length": len(simulated)}
    errors: list[str] = []
    valid: bool | None = None
    world: World | None = None
    if domain is None or problem is None:
        domain = problem = None  # metrics that need both never see half a task
    if domain is not None and problem is not None:
        world = World.build(domain, problem)
        simulation = simulate(domain, problem, simulated, world=world)
        valid = simulation.valid
        values.update(
            valid=valid,
            executable=simulation.executable,
            lea=simulation.lea,
            goal_fraction=None if valid is None else round(simulation.goals.fraction, 4),
        )
        if simulation.skipped_reason:
            errors.append(f"not simulated: {simulation.skipped_reason}")
        if simulation.stopped_reason:
            errors.append(f"not simulated to the end: {simulation.stopped_reason}")
    else:
        errors.append("no problem or domain found for this plan")
        values.update(valid=None, executable=None, lea=None)
    if reference is not None:
        result = compare(domain, problem, plan, reference, valid, similarity, world)
        report = result.to_json()
        values.update(
            reference_length=len(reference),
            stv=result.stv,
            aqm_score=report["aqm_score"],
            np_aqm_score=round(aqm_score(result.np_labels), 4),
            lcs_subsequence=len(result.subsequence),
            lcs_substring=len(result.substring),
            similarity=report["similarity"],
            score=report["score"],
            score_normalised=report["score_normalised"],
            final_score=report["final_score"],
            action_distance=report["action_distance"],
            similarity_source=result.similarity_source,
        )
    if recovery is not None and domain is not None and problem is not None and valid is not None:
        recovered = recover(domain, problem, plan, reference, recovery, world=world)
        values.update(
            recovery_status=recovered.status,
            prefix_length=len(recovered.prefix),
            recovered_length=None if recovered.plan is None else len(recovered.plan),
        )
    return values, errors
