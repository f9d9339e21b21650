"""``plansight ltl FORMULA_FILE...``: check LTL goals, evaluate them on a plan, score them against a
reference formula (docs/cli.md, docs/metrics.md).

Each ``.ltl`` file holds one formula; folders are searched recursively (one formula per file) and a
summary table closes the text report. The plan and the reference come from ``--plan`` /
``--reference`` or from the file's ``; @plan`` / ``; @reference`` lines; the problem and domain from
``--problem`` / ``--domain`` or the usual association rules. Exit code 1 when a formula has errors or
is not satisfied by its plan, 2 for a usage error or an unreadable file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TextIO

from plansight.budget_options import add_budget_options, budget_of
from plansight.extract_option import (
    add_extract_option,
    extracted_json,
    extraction_of,
    file_source,
    removal_summary,
)

if TYPE_CHECKING:
    from plansight.analyses.ltl.report import LtlReport
    from plansight.analyses.workspace.lint import Analyzer, LintResult


def add_ltl_parser(sub: Any) -> None:
    """Register ``plansight ltl`` on the top-level parser."""
    ltl = sub.add_parser(
        "ltl", help="check LTL goals and evaluate them on plans",
        description="Check LTL goals (.ltl, the Embodied Agent Interface grammar) against a PDDL domain "
                    "and problem, evaluate them on a plan's trajectory, and score them against a "
                    "reference formula (goal F1). Folders are searched recursively. Exit code 0: "
                    "satisfied (or nothing to evaluate) and no errors, 1: errors or not satisfied, "
                    "2: usage error or unreadable input.")
    ltl.add_argument("paths", nargs="+", metavar="FORMULA_FILE", help=".ltl files or folders")
    ltl.add_argument("--domain", metavar="FILE", help="the domain (default: the problem's domain)")
    ltl.add_argument("--problem", metavar="FILE", help="the problem (default: `; @problem` or X.pddl)")
    ltl.add_argument("--plan", metavar="FILE", help="evaluate on this plan (default: `; @plan`)")
    ltl.add_argument("--reference", metavar="FILE",
                     help="reference formula for goal F1 (default: `; @reference`)")
    ltl.add_argument("--format", choices=("text", "json"), default="text", help="report format")
    add_extract_option(ltl)
    add_budget_options(ltl, "simulating the plan and evaluating the goal (each)")


@dataclass(frozen=True, slots=True)
class LtlOutcome:
    """What ``plansight ltl`` found for one goal file: its diagnostics, its report and the files it was judged
    with.
    """

    lint: LintResult
    report: LtlReport
    plan_path: str | None
    reference_path: str | None


def run_ltl(args: argparse.Namespace) -> int:
    """Check, evaluate and score each LTL goal file and print the results; the exit code says whether any has
    errors or is not satisfied.
    """
    from plansight.analyses.workspace.lint import Analyzer
    from plansight.file_args import file_flag_problems

    problems = [f"no such file or folder: {p}" for p in args.paths if not os.path.exists(p)]
    problems += file_flag_problems(args, ("domain", "problem", "plan", "reference"))
    files = find_ltl_files(args.paths)
    if not problems and not files:
        problems.append("no LTL goal files (.ltl) found in " + ", ".join(args.paths))
    if problems:
        for problem in problems:
            print(f"plansight ltl: error: {problem}", file=sys.stderr)
        return 2
    source = file_source(args, memoize=True)
    analyzer = Analyzer(source)
    outcomes = [judge(analyzer, path, args) for path in files]
    if args.format == "json":
        documents = [outcome_json(o) for o in outcomes]
        if args.extract:
            for document, outcome in zip(documents, outcomes, strict=True):
                document["plan_extracted"] = extracted_json(source, outcome.plan_path)
        shown = documents[0] if len(documents) == 1 else documents
        json.dump(shown, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        write_report(outcomes, sys.stdout)
        for outcome in outcomes:
            found = extraction_of(source, outcome.plan_path)
            if found is not None:
                sys.stdout.write(f"plan {outcome.plan_path}: extracted: {removal_summary(found.to_json())}\n")
    if any(o.lint.kind == "unknown" for o in outcomes):
        return 2
    failed = any(o.report.satisfied is False or _errors(o.lint) for o in outcomes)
    return 1 if failed else 0


def find_ltl_files(paths: Sequence[str]) -> list[str]:
    """The ``.ltl`` files among ``paths``, folders searched recursively (hidden ones skipped) in a stable
    order; named files are kept whatever their extension.
    """
    found: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            if os.path.exists(path):
                found.append(path)
            continue
        for folder, subfolders, names in os.walk(path):
            subfolders[:] = sorted(n for n in subfolders if not n.startswith("."))
            found.extend(os.path.join(folder, n) for n in sorted(names) if n.lower().endswith(".ltl"))
    return found


def judge(analyzer: Analyzer, path: str, args: argparse.Namespace) -> LtlOutcome:
    """Lint the goal, then evaluate it on its plan and score it against its reference."""
    from plansight.analyses.ltl.report import LtlReport, ltl_report
    from plansight.analyses.plans.simulate import unparsed_lines
    from plansight.analyses.workspace.ltl_links import follow_link

    result = analyzer.lint(path, domain=args.domain, problem=args.problem)
    document = analyzer.parse(path)
    if document is None or document.ltl is None:
        return LtlOutcome(result, LtlReport(None, None), None, None)
    diagnostics = list(result.diagnostics)
    plan = follow_link(document, "plan", analyzer.source, analyzer.parse, args.plan)
    reference = follow_link(document, "reference", analyzer.source, analyzer.parse, args.reference)
    for link, flag in ((plan, args.plan), (reference, args.reference)):
        if link.diagnostic is not None and flag is not None:  # directive links are already linted
            diagnostics.append(link.diagnostic)
    domain = analyzer.parse(result.domain_path) if result.domain_path else None
    problem = analyzer.parse(result.problem_path) if result.problem_path else None
    # the plan's steps as `plansight plan` simulates them: a line that is not an action fails there
    steps = (unparsed_lines(plan.document.text, plan.plan, plan.document.diagnostics)
             if plan.plan is not None and plan.document is not None else None)
    report = ltl_report(document.ltl.formula, domain.domain if domain else None,
                        problem.problem if problem else None, steps, reference.formula, budget_of(args))
    return LtlOutcome(replace(result, diagnostics=tuple(diagnostics)), report,
                      plan.path if plan.document else None, reference.path if reference.document else None)


def _errors(result: LintResult) -> int:
    return sum(d.severity.value == "error" for d in result.diagnostics)


def outcome_json(outcome: LtlOutcome) -> dict[str, Any]:
    """docs/cli.md's keys (``path``, ``diagnostics``, ``satisfied``, ``satisfied_at``, ``f1``), then more."""
    from plansight.analyses.diagnostics.spans import LineIndex
    from plansight.lint_json import lint_json, lsp_range

    index = LineIndex(outcome.lint.text)
    report = outcome.report
    f1 = report.f1
    return {
        "path": outcome.lint.path,
        "diagnostics": lint_json([outcome.lint])["files"][0]["diagnostics"],
        "satisfied": report.satisfied,
        "satisfied_at": report.satisfied_at,
        "f1": round(f1.f1, 4) if f1 is not None else None,
        "failures": [{"message": f.message, "range": lsp_range(index, f.node.span)} for f in report.failures],
        "plan": outcome.plan_path,
        "reference": outcome.reference_path,
        "precision": round(f1.precision, 4) if f1 is not None else None,
        "recall": round(f1.recall, 4) if f1 is not None else None,
        "notes": list(report.notes),
        "stopped_reason": report.stopped_reason,
    }


def verdict(report: LtlReport) -> str:
    """``satisfied at step 3`` / ``not satisfied`` / ``not evaluated``: the code lens says the same."""
    if report.satisfied is None:
        return "not evaluated"
    return f"satisfied at step {report.satisfied_at}" if report.satisfied else "not satisfied"


def write_report(outcomes: Sequence[LtlOutcome], stream: TextIO) -> None:
    """Print the diagnostics, then one verdict line per goal file, to ``stream``."""
    from plansight.analyses.diagnostics.spans import LineIndex
    from plansight.lint_text import write_text

    write_text([o.lint for o in outcomes], stream, color=False)
    for outcome in outcomes:
        report, path = outcome.report, outcome.lint.path
        where = f" on plan {outcome.plan_path}" if outcome.plan_path else ""
        line = f"{path}: {verdict(report)}{where}"
        if report.f1 is not None:
            line += (f"; goal F1 {report.f1.f1:.2f} vs reference {outcome.reference_path} "
                     f"(precision {report.f1.precision:.2f}, recall {report.f1.recall:.2f})")
        stream.write(line + "\n")
        index = LineIndex(outcome.lint.text)
        for failure in report.failures:
            start, _ = index.range(failure.node.span)
            stream.write(f"  {path}:{start.line + 1}:{start.character + 1}: {failure.message}\n")
        for note in report.notes:
            stream.write(f"  note: {note}\n")
    if len(outcomes) > 1:
        _summary_table(outcomes, stream)


def _summary_table(outcomes: Sequence[LtlOutcome], stream: TextIO) -> None:
    rows = [("formula", "errors", "satisfied", "at step", "F1")]
    for o in outcomes:
        r = o.report
        rows.append((
            o.lint.path, str(_errors(o.lint)),
            "-" if r.satisfied is None else ("yes" if r.satisfied else "no"),
            "-" if r.satisfied_at is None else str(r.satisfied_at),
            "-" if r.f1 is None else f"{r.f1.f1:.2f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    stream.write("\n")
    for number, row in enumerate(rows):
        cells = [row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True))]
        stream.write("  ".join(cells).rstrip() + "\n")
        if number == 0:
            stream.write("  ".join("-" * w for w in widths) + "\n")
    satisfied = sum(o.report.satisfied is True for o in outcomes)
    judged = sum(o.report.satisfied is not None for o in outcomes)
    stream.write(f"{len(outcomes)} formulas: {satisfied} of {judged} evaluated satisfied.\n")
