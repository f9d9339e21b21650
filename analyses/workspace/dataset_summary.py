"""The papers' summary tables, recomputed from the result rows.

- Planetarium (Zuo et al. 2024): parseable, solvable and correct (equivalent), as counts and rates, per
  model, domain and description style (``abstract_to_explicit`` and the like, from the
  ``init_is_abstract`` / ``goal_is_abstract`` columns).
- LEA/StV (Armony, Meroño-Peñuela and Canal 2025): success rate, mean LEA, mean StV and the mean scores
  per model and domain.
- PlanBench: success rate per model, domain and task, and how often plansight agrees with the
  benchmark's own ``llm_correct`` label.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from plansight.analyses.workspace.dataset_presets import cell

Row = Mapping[str, Any]


def style_of(row: Row, mapping: Mapping[str, tuple[str, ...]]) -> str:
    """Planetarium's description style of a row: ``abstract_to_explicit`` and so on ("" when unknown)."""
    init, goal = cell(row, mapping["init_abstract"]), cell(row, mapping["goal_abstract"])
    if init is None or goal is None:
        return ""

    def word(value: Any) -> str:
        return "abstract" if str(value).strip().lower() in ("1", "true", "yes") else "explicit"

    return f"{word(init)}_to_{word(goal)}"


def _groups(rows: Sequence[Row], key: Callable[[Row], tuple[str, ...]]) -> dict[tuple[str, ...], list[Row]]:
    grouped: dict[tuple[str, ...], list[Row]] = defaultdict(list)
    for row in rows:
        grouped[key(row)].append(row)
        grouped[("all",) * len(key(row))].append(row)
    return dict(sorted(grouped.items(), key=lambda item: (item[0] == ("all",) * len(item[0]), item[0])))


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _mean(rows: Sequence[Row], column: str) -> float | None:
    values = [
        row[column]
        for row in rows
        if isinstance(row.get(column), (int, float)) and not isinstance(row.get(column), bool)
    ]
    return round(sum(values) / len(values), 4) if values else None


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def planetarium_table(rows: Sequence[Row], mapping: Mapping[str, tuple[str, ...]]) -> list[dict[str, Any]]:
    """One line per (model, domain, style) and an ``all`` line: Planetarium's parseable / solvable /
    correct."""

    def key(row: Row) -> tuple[str, ...]:
        return (
            _text(cell(row, mapping["model"])),
            _text(cell(row, mapping["domain"])),
            style_of(row, mapping),
        )

    table = []
    for (model, domain, style), group in _groups(rows, key).items():
        parseable = sum(1 for row in group if row.get("parseable") is True)
        solvable = sum(1 for row in group if row.get("solvable") is True)
        correct = sum(1 for row in group if row.get("equivalent") is True)
        table.append(
            {
                "model": model,
                "domain": domain,
                "style": style,
                "rows": len(group),
                "parseable": parseable,
                "solvable": solvable,
                "correct": correct,
                "parseable_rate": _rate(parseable, len(group)),
                "solvable_rate": _rate(solvable, len(group)),
                "correct_rate": _rate(correct, len(group)),
                "unknown": sum(1 for row in group if row.get("outcome") == "unknown"),
            }
        )
    return table


def lea_stv_table(rows: Sequence[Row], mapping: Mapping[str, tuple[str, ...]]) -> list[dict[str, Any]]:
    """One line per (model, domain) and an ``all`` line: SR, mean LEA, mean StV and the scores."""

    def key(row: Row) -> tuple[str, ...]:
        return (_text(cell(row, mapping["model"])), _text(cell(row, mapping["domain"])))

    table = []
    for (model, domain), group in _groups(rows, key).items():
        known = [row for row in group if row.get("valid") is not None]
        table.append(
            {
                "model": model,
                "domain": domain,
                "plans": len(group),
                "checked": len(known),
                "sr": _rate(sum(1 for row in known if row.get("valid")), len(known)),
                "mean_lea": _mean(group, "lea"),
                "mean_stv": _mean(group, "stv"),
                "mean_score_normalised": _mean(group, "score_normalised"),
                "mean_final_score": _mean(group, "final_score"),
                "mean_aqm_score": _mean(group, "aqm_score"),
                "recovery_sr": _recovery_rate(group),
            }
        )
    return table


def planbench_table(rows: Sequence[Row], mapping: Mapping[str, tuple[str, ...]]) -> list[dict[str, Any]]:
    """One line per (model, domain, task) and an ``all`` line: SR and agreement with the benchmark's
    labels."""

    def key(row: Row) -> tuple[str, ...]:
        return (
            _text(cell(row, mapping["model"])),
            _text(cell(row, mapping["domain"])),
            _text(cell(row, mapping["task"])),
        )

    table = []
    for (model, domain, task), group in _groups(rows, key).items():
        known = [row for row in group if row.get("valid") is not None]
        labelled = [row for row in group if row.get("label_agrees") is not None]
        table.append(
            {
                "model": model,
                "domain": domain,
                "task": task,
                "plans": len(group),
                "checked": len(known),
                "sr": _rate(sum(1 for row in known if row.get("valid")), len(known)),
                "labelled": len(labelled),
                "label_agreement": _rate(sum(1 for row in labelled if row["label_agrees"]), len(labelled)),
                "mean_lea": _mean(group, "lea"),
            }
        )
    return table


def _recovery_rate(rows: Sequence[Row]) -> float | None:
    attempted = [row for row in rows if row.get("recovery_status")]
    good = [row for row in attempted if row.get("recovery_status") in ("solved", "already-valid")]
    return _rate(len(good), len(attempted))


SUMMARIES: dict[str, Callable[[Sequence[Row], Mapping[str, tuple[str, ...]]], list[dict[str, Any]]]] = {
    "planetarium": planetarium_table,
    "lea-stv": lea_stv_table,
    "planbench": planbench_table,
}
"""Each paper's table by preset name; without a preset, grade uses Planetarium's and evaluate LEA/StV's."""
