"""A dataset's scores summed up per task, domain and model: the table and the IoU distribution.

The paper's figures are histograms of IoU per task, domain and model (Murthy, Mink and Sanneman 2025);
the summary holds what they need (ten bins of width 0.1, the last closed so that 1.0 counts) plus the
means a table shows. For plan tasks the value is action distance, as in the paper's plan figures.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from plansight.analyses.reasoning.cases import Outcome
from plansight.analyses.reasoning.iou import PLAN_TASKS, SCORE_TASKS

BINS = 10


@dataclass(frozen=True, slots=True)
class Group:
    """The scored answers of one task for one domain and one model."""

    task: str
    domain: str
    model: str
    values: tuple[float, ...]
    precisions: tuple[float, ...]
    recalls: tuple[float, ...]
    hallucinated: int
    unreadable: int
    errors: int

    @property
    def metric(self) -> str:
        """What ``values`` are: ``iou``, or ``action distance`` for the plan tasks."""
        return "action distance" if self.task in PLAN_TASKS else "iou"

    @property
    def perfect(self) -> int:
        """Answers equal to the truth (IoU 1, action distance 0)."""
        best = 0.0 if self.task in PLAN_TASKS else 1.0
        return sum(1 for v in self.values if v == best)

    def bins(self) -> list[int]:
        """How many values fall in each tenth of [0, 1] (the last bin holds 1.0 as well)."""
        counts = [0] * BINS
        for value in self.values:
            counts[min(int(value * BINS), BINS - 1)] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """The group's row of the ``summary`` in ``plansight iou --format json``."""
        return {
            "task": self.task, "domain": self.domain, "model": self.model, "metric": self.metric,
            "n": len(self.values), "errors": self.errors, "mean": _mean(self.values),
            "median": round(statistics.median(self.values), 4) if self.values else None,
            "perfect": self.perfect, "mean_precision": _mean(self.precisions),
            "mean_recall": _mean(self.recalls), "hallucinated": self.hallucinated,
            "unreadable": self.unreadable, "bins": self.bins(),
        }


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarize(outcomes: Iterable[Outcome]) -> list[Group]:
    """One group per (task, domain, model) present, tasks in the paper's order, then by name."""
    buckets: dict[tuple[str, str, str], list[Outcome]] = {}
    for outcome in outcomes:
        key = (outcome.case.task, outcome.domain_group, outcome.model_group)
        buckets.setdefault(key, []).append(outcome)
    groups = []
    for (task, domain, model), members in buckets.items():
        scores = [m.score for m in members if m.score is not None]
        groups.append(Group(
            task, domain, model,
            values=tuple(s.value for s in scores),
            precisions=tuple(s.precision for s in scores if s.precision is not None),
            recalls=tuple(s.recall for s in scores if s.recall is not None),
            hallucinated=sum(len(s.hallucinated) for s in scores),
            unreadable=sum(len(s.unreadable) for s in scores),
            errors=sum(1 for m in members if m.error is not None),
        ))
    order: dict[str, int] = {task: index for index, task in enumerate(SCORE_TASKS)}
    return sorted(groups, key=lambda g: (order.get(g.task, len(order)), g.domain, g.model))


def table_lines(groups: Sequence[Group]) -> list[str]:
    """The text table, one block per task: a row per domain and model with a bar of the distribution."""
    lines: list[str] = []
    for task in dict.fromkeys(g.task for g in groups):
        members = [g for g in groups if g.task == task]
        metric = members[0].metric
        lines.append(f"{task} ({metric})")
        header = (f"  {'domain':<16} {'model':<16} {'n':>5} {'mean':>6} {'median':>6} {'perfect':>7} "
                  f"{'prec':>6} {'recall':>6} {'halluc':>6} {'unread':>6} {'errors':>6}  distribution 0→1")
        lines.append(header)
        for group in members:
            row = group.to_json()
            lines.append(
                f"  {group.domain[:16]:<16} {group.model[:16]:<16} {row['n']:>5} {_cell(row['mean']):>6} "
                f"{_cell(row['median']):>6} {row['perfect']:>7} {_cell(row['mean_precision']):>6} "
                f"{_cell(row['mean_recall']):>6} {group.hallucinated:>6} {group.unreadable:>6} "
                f"{group.errors:>6}  {_sparkline(group.bins())}")
        lines.append("")
    return lines


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _sparkline(counts: Sequence[int]) -> str:
    """The ten bins as block characters scaled to the tallest, with the counts after."""
    blocks = " ▁▂▃▄▅▆▇█"
    top = max(counts) or 1
    bar = "".join(blocks[round(c / top * (len(blocks) - 1))] if c else "·" for c in counts)
    return f"{bar}  [{' '.join(str(c) for c in counts)}]"
