"""Which column of a published benchmark table holds what: the presets and the ``--columns`` mapping.

A *field* is what plansight needs from a row (the model's answer, the reference, the domain...); a preset
names, for each field, the columns that hold it in one benchmark's published layout, first match wins:

- ``planetarium``: Planetarium's dataset (Zuo et al. 2024, "Planetarium: A Rigorous Benchmark for
  Translating Text to Structured Planning Languages"): ``natural_language``, ``problem_pddl``,
  ``domain``, ``init_is_abstract`` / ``goal_is_abstract``, ``is_placeholder``, joined with its
  ``llm_outputs`` table (``output``, ``model_name``).
- ``planbench``: PlanBench's result JSON: ``instances`` with ``instance_id``, ``extracted_llm_plan``,
  ``ground_truth_plan`` and the ``llm_correct`` label; the problem is ``instance-<id>.pddl`` under
  ``--problems``.
- ``lea-stv``: the result CSVs of Armony, Meroño-Peñuela and Canal 2025, "How Far Are LLMs from Symbolic
  Planners? An NLP-Based Perspective": ``model``, ``domain``, ``task``, ``instance_id``, ``gt_plan``,
  ``curr_plan``.

The mapping and presets are documented with examples in docs/datasets.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["grade", "evaluate"]

GRADE_FIELDS = (
    "id",
    "problem",
    "reference",
    "domain",
    "placeholder",
    "model",
    "init_abstract",
    "goal_abstract",
)
"""What `plansight grade` reads from a row: the candidate problem (the model's answer), the reference
problem, the domain (a name or PDDL text), and what the summary groups by."""

EVALUATE_FIELDS = ("id", "plan", "reference_plan", "problem", "domain", "model", "task", "label")
"""What `plansight evaluate` reads from a row: the generated plan, the ground-truth plan, the problem and
the domain (each a name, a path or PDDL text), and what the summary groups by; ``label`` is the
benchmark's own verdict, compared with plansight's."""


@dataclass(frozen=True, slots=True)
class Preset:
    """One benchmark's layout: the columns of each field, where its problems live, and its summary."""

    name: str
    kind: Kind
    columns: Mapping[str, tuple[str, ...]]
    problem_path: str = ""
    """Where a row's problem is, under ``--problems``, when no column holds it (``str.format`` over the
    row's columns)."""
    summary: str = ""
    notes: tuple[str, ...] = field(default=())


PRESETS: dict[str, Preset] = {
    "planetarium": Preset(
        "planetarium",
        "grade",
        {
            "id": ("id", "problem_id"),
            "problem": ("output", "model_output", "llm_output"),
            "reference": ("problem_pddl",),
            "domain": ("domain",),
            "placeholder": ("is_placeholder",),
            "model": ("model_name", "model"),
            "init_abstract": ("init_is_abstract",),
            "goal_abstract": ("goal_is_abstract",),
        },
        summary="planetarium",
    ),
    "planbench": Preset(
        "planbench",
        "evaluate",
        {
            "id": ("instance_id",),
            "plan": ("extracted_llm_plan",),
            "reference_plan": ("ground_truth_plan",),
            "domain": ("domain",),
            "model": ("engine", "model"),
            "task": ("task", "prompt_type"),
            "label": ("llm_correct", "correct"),
        },
        problem_path="instance-{instance_id}.pddl",
        summary="planbench",
    ),
    "lea-stv": Preset(
        "lea-stv",
        "evaluate",
        {
            "id": ("instance_id",),
            "plan": ("curr_plan",),
            "reference_plan": ("gt_plan",),
            "domain": ("domain",),
            "model": ("model",),
            "task": ("task",),
            "label": ("curr_validity",),
        },
        problem_path="{domain}/instance-{instance_id}.pddl",
        summary="lea-stv",
    ),
}

DEFAULTS: dict[Kind, Mapping[str, tuple[str, ...]]] = {
    "grade": {
        "id": ("id",),
        "problem": ("problem", "output", "model_output", "candidate"),
        "reference": ("reference", "problem_pddl"),
        "domain": ("domain",),
        "placeholder": ("placeholder", "is_placeholder"),
        "model": ("model", "model_name"),
        "init_abstract": ("init_is_abstract",),
        "goal_abstract": ("goal_is_abstract",),
    },
    "evaluate": {
        "id": ("id", "instance_id"),
        "plan": ("plan", "generated", "extracted_llm_plan"),
        "reference_plan": ("reference_plan", "ground_truth", "ground_truth_plan"),
        "problem": ("problem",),
        "domain": ("domain",),
        "model": ("model",),
        "task": ("task",),
        "label": ("label",),
    },
}
"""Without a preset: columns named like the fields."""


class MappingError(ValueError):
    """A ``--columns`` or ``--preset`` the command cannot use; the message is meant for the user."""


def parse_columns(text: str, kind: Kind) -> dict[str, str]:
    """``problem=model_output,reference=problem_pddl`` as a field-to-column dict, rejecting unknown fields
    (a misspelt field would otherwise be silently ignored)."""
    fields = GRADE_FIELDS if kind == "grade" else EVALUATE_FIELDS
    mapping: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, equals, column = part.partition("=")
        if not equals or not name.strip() or not column.strip():
            raise MappingError(f"--columns: `{part}` is not FIELD=COLUMN")
        if name.strip() not in fields:
            raise MappingError(f"--columns: unknown field `{name.strip()}` (fields: {', '.join(fields)})")
        mapping[name.strip()] = column.strip()
    return mapping


def column_mapping(kind: Kind, preset: str | None, columns: str = "") -> dict[str, tuple[str, ...]]:
    """For each field, the columns to look in: ``--columns`` first, then the preset's, then the defaults."""
    base = DEFAULTS[kind]
    if preset is not None:
        chosen = PRESETS.get(preset)
        if chosen is None:
            raise MappingError(f"--preset: unknown preset `{preset}` (presets: {', '.join(PRESETS)})")
        if chosen.kind != kind:
            other = "grade" if kind == "evaluate" else "evaluate"
            raise MappingError(f"--preset {preset} is a `plansight {other}` layout")
        base = chosen.columns
    mapping = {name: tuple(base.get(name, ())) for name in DEFAULTS[kind]}
    for name, column in parse_columns(columns, kind).items():
        mapping[name] = (column,)
    return mapping


def cell(row: Mapping[str, Any], columns: tuple[str, ...]) -> Any:
    """The first of ``columns`` the row has a value in, else None."""
    for column in columns:
        value = row.get(column)
        if value is not None and value != "":
            return value
    return None


def missing_columns(
    rows: list[dict[str, Any]], mapping: Mapping[str, tuple[str, ...]], required: tuple[str, ...]
) -> list[str]:
    """The required fields none of whose columns appears in the table: said before any work is done."""
    present: set[str] = set()
    for row in rows[:100]:
        present.update(row)
    return [
        f"{name} ({' or '.join(mapping[name]) or 'no column'})"
        for name in required
        if not any(column in present for column in mapping[name])
    ]
