"""Files in, comparisons out: a candidate domain file against a reference domain file, the reference problems
of a folder with their plans, and a folder of student domains graded at once (``plansight equiv`` and
``plansight grade`` when the reference is a domain; docs/domain-equivalence.md).

A submission is a domain file directly in the folder (the student is the file's name) or a folder holding
one (the student is the folder's name); problem files are skipped, so a student's folder may hold the
domain together with the problems it was tested on.
"""

from __future__ import annotations

import csv
import html
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from plansight.analyses.diagnostics.diagnostic import Severity
from plansight.analyses.domain_equivalence.behaviour import DEFAULT_BUDGET, ProblemBehaviour, behaviour_on
from plansight.analyses.domain_equivalence.comparison import DomainComparison, compare_domains
from plansight.analyses.domain_equivalence.renaming import Kind
from plansight.analyses.equivalence.grade_report import spreadsheet_safe
from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.metrics import Action, actions_of
from plansight.analyses.plans.recovery import Budget
from plansight.analyses.syntax.documents import parse_document
from plansight.analyses.syntax.lexical import sniff_header
from plansight.analyses.syntax.parse_plan import parse_plan
from plansight.analyses.syntax.reading import read_text_file

OUTCOMES = ("equivalent", "not equivalent", "unparseable")
"""Every outcome of a graded domain, in the order reports list them."""


@dataclass(frozen=True, slots=True)
class LoadedDomain:
    """A domain file read and parsed, or why it could not be (``error``)."""

    path: str
    domain: Domain | None
    error: str = ""


def load_domain(path: str, text: str | None = None) -> LoadedDomain:
    """Read and parse a domain file; syntax errors make it unusable (their first one is the reason)."""
    if text is None:
        read = read_text_file(path)
        if read.text is None:
            return LoadedDomain(path, None, f"cannot be read ({read.failure})")
        text = read.text
    document = parse_document(path, text)
    if document.kind != "domain" or document.domain is None:
        return LoadedDomain(path, None, "is not a PDDL domain")
    errors = [d for d in document.diagnostics if d.severity == Severity.ERROR]
    if errors:
        line = text.count("\n", 0, errors[0].span.start) + 1
        return LoadedDomain(path, None, f"has a syntax error on line {line}: {errors[0].message}")
    return LoadedDomain(path, document.domain)


@dataclass(frozen=True, slots=True)
class ReferenceProblem:
    """A problem of the reference domain and, when a ``.plan`` with its stem sits next to it, its plan."""

    label: str
    problem: Problem
    plan: tuple[Action, ...] | None = None


def reference_problems(folder: str) -> tuple[list[ReferenceProblem], list[str]]:
    """The problems in a folder (``*.pddl`` whose header says problem) with their plans, and the files that
    could not be used and why."""
    found, skipped = [], []
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if not entry.lower().endswith(".pddl") or not os.path.isfile(path):
            continue
        read = read_text_file(path)
        if read.text is None:
            skipped.append(f"{entry}: cannot be read ({read.failure})")
            continue
        text = read.text
        header = sniff_header(text)
        if header is None or header.kind != "problem":
            continue
        document = parse_document(path, text)
        if document.problem is None or any(d.severity == Severity.ERROR for d in document.diagnostics):
            skipped.append(f"{entry}: has syntax errors")
            continue
        plan = None
        plan_path = os.path.splitext(path)[0] + ".plan"
        plan_text = read_text_file(plan_path).text if os.path.exists(plan_path) else None
        if plan_text is not None:
            parsed = parse_plan(plan_text).plan
            plan = tuple(actions_of(parsed)) if parsed is not None else None
        found.append(ReferenceProblem(entry, document.problem, plan))
    return found, skipped


@dataclass(frozen=True, slots=True)
class DomainResult:
    """One candidate domain compared with the reference: the comparison, the behaviour on each reference
    problem, or why there is none."""

    student: str
    path: str
    comparison: DomainComparison | None
    behaviours: tuple[ProblemBehaviour, ...] = ()
    error: str = ""

    @property
    def outcome(self) -> str:
        """``equivalent``, ``not equivalent`` or ``unparseable``."""
        if self.comparison is None:
            return "unparseable"
        return "equivalent" if self.comparison.equivalent else "not equivalent"

    @property
    def explanation(self) -> str:
        """The one paragraph a student reads first."""
        if self.comparison is None:
            return f"The domain {self.error.rstrip('.')}."
        text = self.comparison.explanation
        broken = [b for b in self.behaviours if b.outcome not in ("same", "unknown")]
        if broken:
            text += f" On the reference problems: {broken[0].problem}: {broken[0].explanation}"
            if len(broken) > 1:
                text += f" ({len(broken) - 1} more problems behave differently)"
        return text

    def row(self) -> dict[str, object]:
        """The row of the grading report (JSON and CSV)."""
        comparison = self.comparison
        return {
            "student": self.student,
            "path": self.path,
            "outcome": self.outcome,
            "f1": None if comparison is None else round(comparison.overall.f1, 4),
            "precondition_f1": None if comparison is None else round(comparison.precondition.f1, 4),
            "effect_f1": None if comparison is None else round(comparison.effect.f1, 4),
            "problems_same": sum(b.outcome == "same" for b in self.behaviours) if self.behaviours else None,
            "problems": len(self.behaviours) if self.behaviours else None,
            "explanation": self.explanation,
        }

    def as_json(self, reference: str) -> dict[str, Any]:
        """The full result as ``plansight equiv --format json`` prints it for a domain."""
        out: dict[str, Any] = {"candidate": self.path, "reference": reference, "kind": "domain",
                               "outcome": self.outcome}
        if self.comparison is None:
            out["error"] = self.error
            out["explanation"] = self.explanation
            return out
        out.update(self.comparison.as_json())
        out["explanation"] = self.explanation
        if self.behaviours:
            out["problems"] = [b.as_json() for b in self.behaviours]
        return out


@dataclass(frozen=True, slots=True)
class Options:
    """What a comparison may use beyond the two domains."""

    mapping: Mapping[Kind, Mapping[str, str]] | None = None
    problems: Sequence[ReferenceProblem] = field(default_factory=tuple)
    budget: Budget = DEFAULT_BUDGET


def compare_file(reference: Domain, student: str, path: str, options: Options = Options()) -> DomainResult:
    """Compare one candidate domain file with the reference (never raises for a bad file)."""
    if os.path.isdir(path):
        return DomainResult(student, path, None, error="is missing: the folder holds no `.pddl` domain")
    loaded = load_domain(path)
    if loaded.domain is None:
        return DomainResult(student, path, None, error=loaded.error)
    return compare_loaded(reference, loaded.domain, student, path, options)


def compare_loaded(reference: Domain, candidate: Domain, student: str, path: str,
                   options: Options = Options()) -> DomainResult:
    """Compare a parsed candidate domain with the reference, and run the reference problems when given."""
    comparison = compare_domains(candidate, reference, options.mapping)
    behaviours = tuple(
        behaviour_on(comparison, candidate, reference, p.label, p.problem, p.plan, options.budget)
        for p in options.problems
    )
    return DomainResult(student, path, comparison, behaviours)


def domain_submissions(folder: str, reference: str) -> list[tuple[str, str]]:
    """(student, domain path) pairs sorted by student; the reference itself and problem files are skipped."""
    skip = os.path.normcase(os.path.abspath(reference))

    def is_domain(path: str) -> bool:
        if os.path.normcase(os.path.abspath(path)) == skip:
            return False
        head = read_text_file(path, limit=1 << 16).text
        if head is None:
            return True  # graded as unreadable, with the reason
        header = sniff_header(head)
        return header is None or header.kind == "domain"

    found: list[tuple[str, str]] = []
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry.startswith("."):
            continue
        if os.path.isdir(path):
            inner = sorted(os.path.join(root, f) for root, _, files in os.walk(path) for f in files
                           if f.lower().endswith(".pddl"))
            domains = [p for p in inner if is_domain(p)]
            if not domains:
                found.append((entry, path))
            for domain in domains:
                label = entry if len(domains) == 1 else f"{entry}/{os.path.relpath(domain, path)}"
                found.append((label, domain))
        elif entry.lower().endswith(".pddl") and is_domain(path):
            found.append((os.path.splitext(entry)[0], path))
    return found


def summary_text(results: Sequence[DomainResult]) -> str:
    """``5 submissions: 2 equivalent, 3 not equivalent; mean F1 0.87``."""
    counts = Counter(r.outcome for r in results)
    listed = ", ".join(f"{counts[o]} {o}" for o in OUTCOMES if counts.get(o))
    scores = [r.comparison.overall.f1 for r in results if r.comparison is not None]
    mean = f"; mean F1 {sum(scores) / len(scores):.2f}" if scores else ""
    return f"{len(results)} submissions: {listed or 'none found'}{mean}"


COLUMNS = ("student", "path", "outcome", "f1", "precondition_f1", "effect_f1", "problems_same", "problems",
           "explanation")


def report_json(results: Sequence[DomainResult], reference: str) -> dict[str, Any]:
    """The grading run as one JSON document."""
    counts = Counter(r.outcome for r in results)
    return {"reference": reference, "kind": "domain", "submissions": [r.row() for r in results],
            "summary": {"submissions": len(results), **{o: counts[o] for o in OUTCOMES}}}


def write_report(path: str, results: Sequence[DomainResult], reference: str) -> None:
    """Write the grading report in the format the extension names (CSV, JSON or HTML)."""
    lowered = path.lower()
    with open(path, "w", encoding="utf-8", newline="" if lowered.endswith(".csv") else "\n") as handle:
        if lowered.endswith(".csv"):
            writer = csv.DictWriter(handle, fieldnames=COLUMNS)
            writer.writeheader()
            for result in results:
                # student names are file names: never a live spreadsheet formula (docs/reliability.md)
                row = result.row()
                writer.writerow({k: "" if v is None else spreadsheet_safe(v) for k, v in row.items()})
        elif lowered.endswith(".json"):
            json.dump(report_json(results, reference), handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        else:
            handle.write(_html(results, reference))


def _html(results: Sequence[DomainResult], reference: str) -> str:
    """A self-contained page (no script, no external file), every student-supplied string escaped."""
    e = html.escape
    rows = "\n".join(
        f"<tr><td>{e(r.student)}</td><td>{e(r.outcome)}</td>"
        f"<td>{'' if r.comparison is None else f'{r.comparison.overall.f1:.2f}'}</td>"
        f"<td>{e(r.explanation)}<div class=\"path\">{e(r.path)}</div></td></tr>"
        for r in results
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Domains graded against {e(reference)}</title>
<style>
body {{ font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ border-bottom: 1px solid #ddd; padding: .4em .6em; text-align: left; vertical-align: top; }}
.path {{ color: #777; font-size: .85em; }}
</style></head><body>
<h1>Domain grading report</h1>
<p>Reference domain: <code>{e(reference)}</code> · {e(summary_text(results))}</p>
<table><thead><tr><th>student</th><th>outcome</th><th>F1</th><th>explanation</th></tr></thead>
<tbody>
{rows}
</tbody></table>
</body></html>
"""
