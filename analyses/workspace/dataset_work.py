"""The verdicts of a chunk of dataset rows: what a worker process (local or on a Dask cluster) runs.

:func:`work_chunk` is a plain top-level function over plain data, so any executor can ship it; each
worker parses a domain or a reference once and keeps it for the rows that share it (a Planetarium
split has three domains and many rows per reference).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from plansight.analyses.equivalence.verdict import Budget, Reference, Verdict, compare_text, unparseable
from plansight.analyses.memo import Memo
from plansight.analyses.model.pddl import Domain, Plan, PlanStep, Problem
from plansight.analyses.plans.metrics import Action, actions_of
from plansight.analyses.plans.recovery import Budget as PlannerBudget
from plansight.analyses.plans.row_metrics import METRIC_COLUMNS, plan_metrics
from plansight.analyses.plans.simulate import Unparsed, unparsed_lines
from plansight.analyses.syntax.documents import parse_document
from plansight.analyses.syntax.extraction import Extraction, ExtractionKind, extract
from plansight.analyses.syntax.parse_plan import parse_plan
from plansight.analyses.workspace.dataset_jobs import Job

GRADE_COLUMNS = (
    "row_index",
    "extraction",
    "outcome",
    "parseable",
    "solvable",
    "equivalent",
    "explanation",
    "method",
    "error",
)
"""The verdict columns `plansight grade` adds to each row."""

GRADE_TYPES = {
    "row_index": "int",
    "extraction": "str",
    "outcome": "str",
    "parseable": "bool",
    "solvable": "bool",
    "equivalent": "bool",
    "explanation": "str",
    "method": "str",
    "error": "str",
}

EVALUATE_COLUMNS = ("row_index", "extraction", *METRIC_COLUMNS, "label_agrees", "error")
"""The metric columns `plansight evaluate` adds to each row."""

EVALUATE_TYPES = {
    **{
        name: "int"
        for name in (
            "row_index",
            "lea",
            "length",
            "reference_length",
            "stv",
            "lcs_subsequence",
            "lcs_substring",
            "recovered_length",
            "prefix_length",
        )
    },
    **{
        name: "float"
        for name in (
            "goal_fraction",
            "aqm_score",
            "np_aqm_score",
            "similarity",
            "score",
            "score_normalised",
            "final_score",
            "action_distance",
        )
    },
    **{name: "bool" for name in ("valid", "executable", "label_agrees")},
    "recovery_status": "str",
    "extraction": "str",
    "error": "str",
}


def work_chunk(kind: str, settings: Mapping[str, Any], jobs: Sequence[Job]) -> list[dict[str, Any]]:
    """The verdict columns of every job, in the jobs' order; a row that fails gets its ``error`` instead
    of stopping the run."""
    one = _grade if kind == "grade" else _evaluate
    models = _Models()
    results = []
    for job in jobs:
        try:
            values = one(settings, job, models)
        except Exception as error:  # one bad row never loses the chunk
            values = {"error": f"{type(error).__name__}: {error}"}
        results.append({"row_index": job.index, **values})
    return results


def _answer(text: str, kind: ExtractionKind, settings: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The answer as read (docs/llm-output.md): dataset rows are language-model output, so the plan or
    problem is taken out of prose, fences and markers unless the run is strict; what was removed is
    said in the ``extraction`` column."""
    if settings.get("strict"):
        return text, {}
    extraction: Extraction = extract(text, kind)
    if not extraction.removed:
        return extraction.text, {"extraction": ""}
    counts = Counter(removal.reason for removal in extraction.removed)
    said = ", ".join(f"{count} {reason}" for reason, count in counts.items())
    return extraction.text, {"extraction": f"removed {len(extraction.removed)} ({said})"}


class _Models:
    """The parsed domains, problems and prepared references of one chunk: rows of a benchmark table
    share a handful of domains and references, so each is parsed (and its goal graph built) once per
    chunk. Owned by the chunk, so nothing outlives it in a long-lived worker."""

    def __init__(self) -> None:
        self._domains: Memo[str, Domain | None] = Memo(32)
        self._problems: Memo[str, Problem | None] = Memo(32)
        self._references: Memo[tuple[str, str, int, float], Reference | None] = Memo(256)

    def domain(self, text: str) -> Domain | None:
        """The domain a text holds, or None."""
        def parse() -> Domain | None:
            model = parse_document("domain.pddl", text).model
            return model if isinstance(model, Domain) else None
        return self._domains.get(text, parse)

    def problem(self, text: str) -> Problem | None:
        """The problem a text holds, or None."""
        def parse() -> Problem | None:
            model = parse_document("problem.pddl", text).model
            return model if isinstance(model, Problem) else None
        return self._problems.get(text, parse)

    def reference(self, domain_text: str, reference_text: str, states: int, seconds: float) -> (
            Reference | None):
        """The reference problem prepared for comparisons, or None when it or its domain is unreadable."""
        def prepare() -> Reference | None:
            domain, problem = self.domain(domain_text), self.problem(reference_text)
            if domain is None or problem is None:
                return None
            return Reference(domain, problem, Budget(states=states, seconds=seconds, planner_seconds=seconds))
        return self._references.get((domain_text, reference_text, states, seconds), prepare)


def verdict_chunk(kind: str, settings: Mapping[str, Any], jobs: Sequence[Job]) -> list[tuple[int, Verdict]]:
    """Whole verdicts (what a grade sheet and its HTML report need) for jobs whose texts are all present:
    `plansight grade FOLDER --executor dask` ships its files' texts this way. ``kind`` is always
    ``grade``; it is there so every worker function has the same signature."""
    results: list[tuple[int, Verdict]] = []
    models = _Models()
    for job in jobs:
        placeholder = bool(job.flags.get("placeholder"))
        reference = models.reference(str(job.texts["domain"]), str(job.texts["reference"]),
                               int(settings["state_budget"]), float(settings["time_limit"]))
        if reference is None:
            raise ValueError("the reference or its domain cannot be read")
        path = str(job.flags.get("path", "answer.pddl"))
        results.append((job.index, compare_text(reference, path, str(job.texts["problem"]), placeholder)))
    return results


@dataclass
class MetricsJob:
    """One generated plan of `plansight evaluate --generated DIR`, read and linked to its task on the machine
    that has the files: the parsed models travel to the worker (a chunk's jobs sharing a domain pickle it
    once), so workers need no access to the folders."""

    index: int
    domain: Domain | None
    problem: Problem | None
    plan: list[Action]
    reference: list[Action] | None
    steps: list[PlanStep | Unparsed]
    values: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def metrics_chunk(
    kind: str, settings: Mapping[str, Any], jobs: Sequence[MetricsJob]
) -> list[tuple[int, dict[str, Any]]]:
    """The metric values of every plan, in the jobs' order, exactly as the folder's own process computes
    them. ``kind`` is always ``evaluate``; it is there so every worker function has the same signature."""
    recovery = (
        PlannerBudget(float(settings["time_limit"]), int(settings["memory_limit"]))
        if settings.get("recover")
        else None
    )
    results: list[tuple[int, dict[str, Any]]] = []
    for job in jobs:
        similarity = settings.get("similarity", "v1")
        values, problems = plan_metrics(
            job.domain, job.problem, job.plan, job.reference, similarity, recovery, job.steps
        )
        row = {**job.values, **values}
        errors = [*job.errors, *problems]
        if errors:
            row["error"] = "; ".join(errors)
        results.append((job.index, row))
    return results


def _grade(settings: Mapping[str, Any], job: Job, models: _Models) -> dict[str, Any]:
    texts = job.texts
    placeholder = bool(job.flags.get("placeholder"))
    if job.missing or texts["domain"] is None or texts["reference"] is None:
        return {"outcome": "unknown", "error": "; ".join(job.missing) or "no domain or reference"}
    reference = models.reference(
        texts["domain"], texts["reference"], int(settings["state_budget"]), float(settings["time_limit"])
    )
    if reference is None:
        return {"outcome": "unknown", "error": "the reference or its domain cannot be read"}
    answer = texts["problem"]
    read: dict[str, Any] = {}
    if answer is not None:
        answer, read = _answer(answer, "problem", settings)
    verdict = (
        unparseable("the row has no answer.", placeholder)
        if answer is None
        else compare_text(reference, "answer.pddl", answer, placeholder)
    )
    return {
        **read,
        "outcome": verdict.outcome,
        "parseable": verdict.parseable,
        "solvable": verdict.solvable,
        "equivalent": verdict.equivalent,
        "explanation": verdict.explanation,
        "method": verdict.method,
    }


def _evaluate(settings: Mapping[str, Any], job: Job, models: _Models) -> dict[str, Any]:
    texts = job.texts
    if texts["plan"] is None:
        return {"valid": False, "executable": False, "lea": 0, "error": "no generated plan"}
    # a cell given as a plan is read as one, whatever it holds: an answer holding a problem is an invalid
    # plan whose lines fail as `parse` steps, as in `plansight plan` and `plansight evaluate` on files
    text, read = _answer(texts["plan"], "plan", settings)
    parsed = parse_plan(text)
    if parsed.plan is None:
        return {**read, "valid": False, "executable": False, "lea": 0, "error": "not a plan"}
    steps = unparsed_lines(text, parsed.plan, parsed.diagnostics)
    reference = None
    errors = list(job.missing)
    if texts["reference_plan"] is None:
        errors.append("no ground-truth plan")
    else:
        truth = parse_document("truth.plan", texts["reference_plan"]).model
        if isinstance(truth, Plan):
            reference = actions_of(truth)
        else:
            errors.append("the ground-truth plan could not be read")
    domain = models.domain(texts["domain"]) if texts["domain"] is not None else None
    problem = models.problem(texts["problem"]) if texts["problem"] is not None else None
    recovery = (
        PlannerBudget(float(settings["time_limit"]), int(settings["memory_limit"]))
        if settings.get("recover")
        else None
    )
    values, problems = plan_metrics(
        domain, problem, actions_of(parsed.plan), reference, settings.get("similarity", "v1"), recovery, steps
    )
    values.update(read)
    values.pop("similarity_source", None)
    errors.extend(p for p in problems if p not in errors and not (job.missing and p.startswith("no problem")))
    if errors:
        values["error"] = "; ".join(errors)
    return values
