"""``plansight grade SUBMISSIONS --reference R``: an instructor grades a folder of problems at once.

Which files are submissions, and what a row holds, is ``analyses/equivalence/grading.py`` (the editor's *Grade
folder* command uses it too). Each one is checked for parseable / solvable / equivalent with an
explanation the student can act on. With ``--jobs N`` the submissions are spread over N processes,
each preparing the reference once.

Exit codes: 0 every submission is equivalent, 1 some are not, 2 usage error or unusable reference.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from plansight.batch_grading import grade_all, load
from plansight.dataset_run import add_dataset_options, run_dataset
from plansight.equiv_command import add_reference_options, domain_only_options, exit_code
from plansight.extract_option import removal_summary

if TYPE_CHECKING:
    from plansight.analyses.equivalence.grading import Graded


def add_grade_parser(sub: Any) -> None:
    """Register ``plansight grade`` on the top-level parser."""
    grade = sub.add_parser(
        "grade",
        help="grade a folder of student problems (or domains), or a table of model answers, against a "
        "reference",
        description="Grade every problem under SUBMISSIONS (one .pddl per student, or one folder per "
        "student) against the reference: parseable, solvable, equivalent, and why. When the reference is a "
        "domain, every domain under SUBMISSIONS is compared with it (docs/domain-equivalence.md). "
        "SUBMISSIONS may instead be a table (.jsonl, .csv, .parquet) of answers with their references and "
        "domains (docs/datasets.md). Exit code 0: all equivalent, 1: some are not, 2: usage error.",
    )
    grade.add_argument("submissions", metavar="SUBMISSIONS", help="the folder of submissions, or a table")
    add_reference_options(grade, reference_required=False)
    grade.add_argument(
        "--report", metavar="FILE", help="also write a report: FILE.csv, FILE.json or FILE.html"
    )
    grade.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="worker processes (default 1)")
    grade.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_dataset_options(grade, "grade")


def run_grade(args: argparse.Namespace) -> int:
    """Grade every submission against the reference, print the verdicts and write the report when asked; the
    exit code says whether all are equivalent.
    """
    from plansight.analyses.workspace.dataset_tables import is_table

    if is_table(args.submissions):
        return run_dataset(args, "grade", args.submissions)
    if args.reference is None:
        print("plansight grade: error: a folder of submissions needs --reference", file=sys.stderr)
        return 2
    if not os.path.isdir(args.submissions):
        print(f"plansight grade: error: {args.submissions}: not a folder", file=sys.stderr)
        return 2
    if args.report and not args.report.lower().endswith((".csv", ".json", ".html", ".htm")):
        print("plansight grade: error: --report must end in .csv, .json or .html", file=sys.stderr)
        return 2
    from plansight.domain_equiv_command import reference_is_domain, run_domain_grade

    if reference_is_domain(args.reference):
        return run_domain_grade(args)
    if domain_only_options(args, "grade"):
        return 2
    loaded = load(args, "grade")
    if loaded is None:
        return 2
    from plansight.analyses.equivalence.grading import submissions

    pairs = submissions(args.submissions, args.reference)
    if not pairs:
        print(f"plansight grade: error: no .pddl submissions in {args.submissions}", file=sys.stderr)
        return 2
    from plansight.executors import ExecutorError

    if args.scheduler and args.executor != "dask":
        print("plansight grade: error: --scheduler needs --executor dask", file=sys.stderr)
        return 2
    try:
        graded = grade_all(loaded, pairs, args)
    except ExecutorError as error:
        print(f"plansight grade: error: {error}", file=sys.stderr)
        return 2
    summary = Counter(g.verdict.outcome for g in graded)
    if args.report:
        from plansight.analyses.equivalence.grade_report import write_report

        try:
            write_report(args.report, graded, summary, reference=args.reference, placeholder=args.placeholder)
        except OSError as error:
            print(
                f"plansight grade: error: cannot write {args.report}: {error.strerror or error}",
                file=sys.stderr,
            )
            return 2
    if args.format == "json":
        from plansight.analyses.equivalence.grade_report import report_json

        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(encoding="utf-8")
        json.dump(
            report_json(graded, summary, args.reference, args.placeholder),
            sys.stdout,
            indent=2,
            ensure_ascii=False,
        )
        sys.stdout.write("\n")
    else:
        _print_text(graded, summary)
    return exit_code([g.verdict for g in graded])


def _print_text(graded: Sequence[Graded], summary: Counter[str]) -> None:
    from plansight.analyses.equivalence.grading import summary_text

    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    width = max(len(g.student) for g in graded)
    for g in graded:
        sys.stdout.write(f"{g.student:<{width}}  {g.verdict.outcome:<14}  {g.verdict.explanation}\n")
        for warning in g.verdict.warnings:
            sys.stdout.write(f"{'':<{width}}  warning: {warning}\n")
        if g.extracted is not None and g.extracted.removed:
            sys.stdout.write(f"{'':<{width}}  extracted: {removal_summary(g.extracted.to_json())}\n")
    sys.stdout.write(f"\n{summary_text(summary)}\n")
