"""A dataset row turned into the texts one verdict needs, resolved on the machine that reads the table.

Everything a worker needs travels with the job as text (the domain, the problem, the answer), so the
workers of a cluster need no access to the files behind ``--domains`` / ``--problems``. A domain cell
holds PDDL text, a path, or a name looked up as ``NAME.pddl`` or ``NAME/domain.pddl`` under
``--domains``; Planetarium's three domains are built in (docs/datasets.md).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from plansight.analyses.equivalence.domain_recognition import TEMPLATES
from plansight.analyses.syntax.reading import read_text_file
from plansight.analyses.workspace.dataset_presets import cell

BUILT_IN = {**TEMPLATES, "floortile": TEMPLATES["floor-tile"]}
"""Planetarium's domains by the names its rows use."""


@dataclass(frozen=True, slots=True)
class Job:
    """One row's work: its position in the input, and the texts (None when the row lacks them, with the
    reason in ``missing``)."""

    index: int
    texts: Mapping[str, str | None]
    flags: Mapping[str, Any] = field(default_factory=dict)
    missing: tuple[str, ...] = ()


def answer_text(value: Any) -> str | None:
    """The text of a row's answer cell, the one place a model's answer is read from a table.

    A list (JSON or Parquet) or a Python list literal (the LEA/StV CSVs write plans as
    ``"['(pick-up a)', '(stack a c)']"``) becomes one action per line. Extraction from prose (fences,
    ``[PLAN]`` markers, numbering) is the job of the reading policy of docs/reliability.md: this seam is
    where it applies to dataset rows.
    """
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return "\n".join(str(item) for item in value)
    text = str(value)
    stripped = text.strip()
    if stripped.startswith("[") and stripped.endswith("]") and "(" in stripped:
        try:
            parsed = ast.literal_eval(stripped)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return text
        if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
            return "\n".join(parsed)
    return text


class Resolver:
    """Finds the PDDL text a cell names, reading each file once for the whole table."""

    def __init__(
        self,
        domains: str | None = None,
        problems: str | None = None,
        domain_file: str | None = None,
        problem_path: str = "",
    ) -> None:
        self.domains = domains
        self.problems = problems
        self.domain_file = domain_file
        self.problem_path = problem_path
        self._files: dict[str, str | None] = {}

    def _read(self, path: str) -> str | None:
        if path not in self._files:
            self._files[path] = read_text_file(path).text if os.path.isfile(path) else None
        return self._files[path]

    def domain(self, value: Any) -> tuple[str | None, str]:
        """The domain's text, or None and why not."""
        if self.domain_file:
            text = self._read(self.domain_file)
            return (text, "") if text is not None else (None, f"cannot read --domain {self.domain_file}")
        if value is None:
            return None, "the row names no domain"
        name = str(value).strip()
        if name.startswith("(") or "\n" in name:
            return name, ""
        candidates = [name] if name.lower().endswith(".pddl") else []
        if self.domains:
            candidates += [
                os.path.join(self.domains, name + ".pddl"),
                os.path.join(self.domains, name, "domain.pddl"),
            ]
        for path in candidates:
            text = self._read(path)
            if text is not None:
                return text, ""
        if name.lower() in BUILT_IN:
            return BUILT_IN[name.lower()], ""
        where = f" under {self.domains}" if self.domains else " (give the folder with --domains)"
        return None, f"no domain `{name}`{where}"

    def problem(self, value: Any, row: Mapping[str, Any]) -> tuple[str | None, str]:
        """The problem's text (a cell holding PDDL or a path, else the preset's file under ``--problems``),
        or None and why not."""
        if value is not None:
            text = str(value)
            if text.lstrip().startswith("(") or "\n" in text:
                return text, ""
            found = self._read(text) or (
                self._read(os.path.join(self.problems, text)) if self.problems else None
            )
            return (found, "") if found is not None else (None, f"cannot read the problem {text}")
        if not self.problems or not self.problem_path:
            return None, "the row has no problem (give --problems)"
        try:
            relative = self.problem_path.format(**{k: v for k, v in row.items() if isinstance(k, str)})
        except (KeyError, IndexError, ValueError) as error:
            return None, f"the problem path {self.problem_path!r} needs column {error}"
        path = os.path.join(self.problems, relative)
        found = self._read(path)
        return (found, "") if found is not None else (None, f"no problem {path}")


def grade_job(
    index: int,
    row: Mapping[str, Any],
    mapping: Mapping[str, tuple[str, ...]],
    resolver: Resolver,
    placeholder: bool,
) -> Job:
    """The texts to grade row ``index``: the model's problem, the reference, the domain."""
    domain, why_domain = resolver.domain(cell(row, mapping["domain"]))
    reference = cell(row, mapping["reference"])
    flag = cell(row, mapping["placeholder"])
    missing = tuple(
        m for m in (why_domain, "" if reference is not None else "the row has no reference problem") if m
    )
    return Job(
        index,
        {
            "problem": answer_text(cell(row, mapping["problem"])),
            "reference": None if reference is None else str(reference),
            "domain": domain,
        },
        {"placeholder": placeholder or _truthy(flag)},
        missing,
    )


def evaluate_job(
    index: int, row: Mapping[str, Any], mapping: Mapping[str, tuple[str, ...]], resolver: Resolver
) -> Job:
    """The texts to evaluate row ``index``: the generated and ground-truth plans, the problem, the domain."""
    domain, why_domain = resolver.domain(cell(row, mapping["domain"]))
    problem, why_problem = resolver.problem(cell(row, mapping["problem"]), row)
    return Job(
        index,
        {
            "plan": answer_text(cell(row, mapping["plan"])),
            "reference_plan": answer_text(cell(row, mapping["reference_plan"])),
            "problem": problem,
            "domain": domain,
        },
        {},
        tuple(m for m in (why_domain, why_problem) if m),
    )


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes")
    return bool(value)
