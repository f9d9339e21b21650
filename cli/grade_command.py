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
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

from plansight.dataset_run import add_dataset_options, run_dataset
from plansight.equiv_command import add_reference_options, domain_only_options, exit_code, load
from plansight.extract_option import removal_summary
from plansight.progress import should_show, with_progress

if TYPE_CHECKING:
    from plansight.analyses.equivalence.grading import Graded
    from plansight.analyses.workspace.reference_problem import ReferenceLoad


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


def grade_all(
    loaded: ReferenceLoad, pairs: Sequence[tuple[str, str]], args: argparse.Namespace
) -> list[Graded]:
    """Grade the ``(student, path)`` pairs, in worker processes when ``--jobs`` allows, keeping the pairs'
    order.
    """
    show = should_show(len(pairs), args.format == "text", args.no_progress, threshold=0)
    jobs = max(1, args.jobs)
    if args.executor == "dask":
        return _grade_on_dask(loaded, pairs, args, show)
    if jobs == 1 or len(pairs) < 2:
        one_by_one: Iterator[Graded] = (_grade_one(loaded, pair, args.placeholder, args.extract)
                                        for pair in pairs)
        return list(with_progress(one_by_one, "Grading", show, total=len(pairs), describe=_student))
    chunk = max(1, len(pairs) // (jobs * 8))
    with ProcessPoolExecutor(
        jobs, initializer=_start_worker, initargs=(args.reference, args.domain, _budget_tuple(args))
    ) as pool:
        results = pool.map(_grade_in_worker, [(s, p, args.placeholder, args.extract) for s, p in pairs],
                           chunksize=chunk)
        return list(with_progress(results, "Grading", show, total=len(pairs), describe=_student))


def _grade_on_dask(
    loaded: ReferenceLoad, pairs: Sequence[tuple[str, str]], args: argparse.Namespace, show: bool
) -> list[Graded]:
    """The same grading on a Dask cluster (docs/datasets.md): the files are read here and their texts
    shipped, so the workers need no access to this machine's folders."""
    from plansight.analyses.equivalence.grading import Graded, grade_file
    from plansight.analyses.syntax.extraction import Extraction, extract
    from plansight.analyses.syntax.reading import read_text_file
    from plansight.analyses.workspace.dataset_jobs import Job
    from plansight.analyses.workspace.dataset_work import verdict_chunk
    from plansight.executors import chunk_size, run_chunks

    assert loaded.reference is not None and loaded.domain_path is not None
    reference, domain = read_text_file(args.reference).text, read_text_file(loaded.domain_path).text
    graded: dict[int, Graded] = {}
    extractions: dict[int, Extraction] = {}
    work: list[Job] = []
    for index, (student, path) in enumerate(pairs):
        text = None if os.path.isdir(path) else read_text_file(path).text
        if text is None or reference is None or domain is None:  # said by grade_file, as without Dask
            graded[index] = grade_file(loaded.reference, student, path, args.placeholder, args.extract)
        else:
            if args.extract:  # cheap, and done here so the workers see exactly what the local pool sees
                extractions[index] = extract(text, "problem")
                text = extractions[index].text
            work.append(Job(index, {"problem": text, "reference": reference, "domain": domain},
                            {"placeholder": args.placeholder, "path": path}))
    size = chunk_size(args.chunk_size, len(work), max(1, args.jobs))
    chunks = [work[i:i + size] for i in range(0, len(work), size)]
    settings = {"state_budget": max(1, args.state_budget), "time_limit": max(0.01, args.time_limit)}
    finished = run_chunks(verdict_chunk, "grade", settings, chunks, "dask", max(1, args.jobs), args.scheduler)
    for chunk in with_progress(finished, "Grading", show, total=len(chunks), describe=lambda _: ""):
        for index, verdict in chunk:
            graded[index] = Graded(pairs[index][0], pairs[index][1], verdict, extractions.get(index))
    return [graded[index] for index in range(len(pairs))]


def _grade_one(loaded: ReferenceLoad, pair: tuple[str, str], placeholder: bool, extract: bool) -> Graded:
    from plansight.analyses.equivalence.grading import grade_file

    assert loaded.reference is not None
    return grade_file(loaded.reference, pair[0], pair[1], placeholder, extract)


def _budget_tuple(args: argparse.Namespace) -> tuple[int, float]:
    return args.state_budget, args.time_limit


_WORKER_REFERENCE: ReferenceLoad | None = None


def _start_worker(reference: str, domain: str | None, budget: tuple[int, float]) -> None:
    global _WORKER_REFERENCE
    args = argparse.Namespace(
        reference=reference, domain=domain, state_budget=budget[0], time_limit=budget[1]
    )
    _WORKER_REFERENCE = load(args, "grade")


def _grade_in_worker(job: tuple[str, str, bool, bool]) -> Graded:
    assert _WORKER_REFERENCE is not None
    student, path, placeholder, extract = job
    return _grade_one(_WORKER_REFERENCE, (student, path), placeholder, extract)


def _student(graded: Graded) -> str:
    return graded.student


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
