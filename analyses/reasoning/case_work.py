"""The outcomes of a chunk of reasoning cases: what a worker process (local or on a Dask cluster) runs for
`plansight truth --cases` and `plansight iou DATASET`.

A case carries its domain and problem as text, so it travels to any worker as it is; each chunk gets its own
:class:`Evaluator`, so the cases of a chunk that share a task parse it, build its world and (for plan tasks)
call the planner once, as the in-process run does, and nothing outlives the chunk (no cache at module
level: a long-lived worker must not hold the worlds of an earlier run).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.recovery import Budget
from plansight.analyses.reasoning.answers import Words
from plansight.analyses.reasoning.cases import Case, Evaluator, Outcome
from plansight.analyses.reasoning.optimal import optimal_plan


def _evaluator(time_limit: float, memory_limit: int) -> Evaluator:
    budget = Budget(time_limit, memory_limit)

    def planner(domain: Domain, problem: Problem) -> tuple[Words, ...]:
        return optimal_plan(domain, problem, budget)

    return Evaluator(planner)


def case_chunk(kind: str, settings: Mapping[str, Any], cases: Sequence[tuple[int, Case]]) -> list[
        tuple[int, Outcome]]:
    """Each case's outcome, in the chunk's order: its exact answer (``kind`` ``truth``) or its answer scored
    against that (``score``, with the planner bounded by ``time_limit`` and ``memory_limit``)."""
    evaluator = _evaluator(float(settings.get("time_limit", 60.0)), int(settings.get("memory_limit", 2048)))
    answer = evaluator.truth if kind == "truth" else evaluator.score
    return [(index, answer(case)) for index, case in cases]
