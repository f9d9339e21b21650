"""``plansight iou``: score LLM answers to the reasoning tasks by intersection over union.

One answer from the command line (``--task``, ``--domain``, ``--problem``, ``--answer``) or a dataset
(a JSONL file of cases with their answers and optional ``model`` / ``domain_name`` columns): per
answer IoU, precision, recall, the hallucinated, wrong, missing and unreadable items; per task,
domain and model a table and the distribution; ``--report`` writes the paper's histograms as an
offline HTML page and ``--figure`` as an SVG (Murthy, Mink and Sanneman 2025; docs/reasoning.md).
Exit codes: 0 every answer scored, 1 some case has no truth to score against, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from plansight.executors import ExecutorError, add_executor_options, chunk_size, in_input_order, run_chunks
from plansight.truth_command import read_jsonl, relative_reader

if TYPE_CHECKING:
    from plansight.analyses.reasoning.cases import Case, Outcome

SCORE_TASKS = ("applicable", "state", "progression-add", "progression-delete", "tracking", "plan",
               "optimal-plan")


def add_iou_parser(sub: Any) -> None:
    """Register ``plansight iou`` on the top-level parser."""
    iou = sub.add_parser(
        "iou", help="score LLM answers to reasoning tasks by IoU (per answer, per task, histograms)",
        description="Score answers to reasoning-about-action tasks against the exact answers: IoU, "
        "precision, recall, hallucinated and missing items per answer; a table per task, domain and "
        "model for a dataset; the IoU histograms as HTML or SVG. Plans are scored by action distance "
        "against an optimal plan. Exit code 0: every answer scored, 1: some could not be, 2: usage error.")
    iou.add_argument("dataset", nargs="?", metavar="DATASET.jsonl",
                     help="cases with answers, one JSON object per line (docs/reasoning.md), "
                     "or the same columns in a .csv or .parquet table (docs/datasets.md)")
    iou.add_argument("--task", choices=SCORE_TASKS, help="one answer: the task")
    iou.add_argument("--domain", metavar="FILE", help="one answer: the domain")
    iou.add_argument("--problem", metavar="FILE", help="one answer: the problem")
    iou.add_argument("--actions", metavar="ACTIONS", default="",
                     help="one answer: actions executed from the initial state first")
    iou.add_argument("--action", metavar="ACTION", help="one answer, progression: the action")
    iou.add_argument("--answer", metavar="TEXT", help="one answer: the answer as the model wrote it")
    iou.add_argument("--answer-file", metavar="FILE", help="one answer: a file holding it (- for stdin)")
    iou.add_argument("--optimal-plan", metavar="FILE",
                     help="one answer, plan tasks: the optimal plan to compare with (default: Fast Downward)")
    iou.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    iou.add_argument("--report", metavar="HTML", help="write the histograms as an offline HTML page")
    iou.add_argument("--figure", metavar="SVG", help="write the histograms as one SVG figure")
    iou.add_argument("--time-limit", type=float, default=60.0, metavar="SECONDS",
                     help="planner time limit per problem for plan tasks (default 60)")
    iou.add_argument("--memory-limit", type=int, default=2048, metavar="MB",
                     help="planner memory limit for plan tasks (default 2048)")
    iou.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                     help="for a dataset: worker processes (default 1)")
    add_executor_options(iou)


def run_iou(args: argparse.Namespace) -> int:
    """Score the answer(s), print the results and write the requested report files."""
    from plansight.analyses.reasoning.cases import CaseError, case_from_row

    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    if args.scheduler and args.executor != "dask":
        print("plansight iou: error: --scheduler needs --executor dask", file=sys.stderr)
        return 2
    rows = _rows(args)
    if isinstance(rows, str):
        print(f"plansight iou: error: {rows}", file=sys.stderr)
        return 2
    entries, reader = rows
    cases: list[Case] = []
    bad_rows: list[dict[str, Any]] = []
    for line, row in entries:
        try:
            cases.append(case_from_row(row, line, reader, scoring=True))
        except CaseError as error:
            if args.dataset is None:
                print(f"plansight iou: error: {error}", file=sys.stderr)
                return 2
            bad_rows.append({"case": line, "error": str(error)})
    try:
        outcomes = _score_all(args, cases)
    except ExecutorError as error:
        print(f"plansight iou: error: {error}", file=sys.stderr)
        return 2
    single = args.dataset is None
    _write_files(args, outcomes)
    if args.format == "json":
        if single:
            print(json.dumps(outcomes[0].to_json(), indent=2, ensure_ascii=False))
        else:
            from plansight.analyses.reasoning.summary import summarize

            print(json.dumps({"answers": [o.to_json() for o in outcomes] + bad_rows,
                              "summary": [g.to_json() for g in summarize(outcomes)]},
                             indent=2, ensure_ascii=False))
    elif single:
        for text in answer_lines(outcomes[0]):
            print(text)
    else:
        _print_dataset(outcomes, bad_rows)
    failed = bool(bad_rows) or any(o.error is not None for o in outcomes)
    return 1 if failed else 0


def _score_all(args: argparse.Namespace, cases: list[Case]) -> list[Outcome]:
    """Every case scored, in the dataset's order, on the chosen executor (docs/datasets.md); a case carries
    its texts, so the workers need no access to the dataset's files."""
    from plansight.analyses.reasoning.case_work import case_chunk

    work = list(enumerate(cases))
    workers = max(1, args.jobs)
    size = chunk_size(args.chunk_size, len(work), workers)
    chunks = [work[i : i + size] for i in range(0, len(work), size)]
    settings = {"time_limit": args.time_limit, "memory_limit": args.memory_limit}
    finished = run_chunks(case_chunk, "score", settings, chunks, args.executor, workers, args.scheduler)
    return [outcome for _, outcome in in_input_order(finished, [index for index, _ in work])]


def _table_rows(path: str) -> list[tuple[int, Any]] | str:
    """A CSV or Parquet dataset's rows numbered from 1 like JSONL lines (docs/datasets.md has the formats)."""
    from plansight.analyses.workspace.dataset_tables import DatasetError, read_rows

    try:
        rows = read_rows(path)
    except DatasetError as error:
        return str(error)
    return [(number, {k: v for k, v in row.items() if v not in ("", None)})
            for number, row in enumerate(rows, 1)]


def _rows(args: argparse.Namespace) -> tuple[list[tuple[int, Any]], Callable[[str], str]] | str:
    one = [args.task, args.domain, args.problem, args.answer, args.answer_file]
    if args.dataset is not None:
        if any(value is not None for value in one):
            return "give either DATASET.jsonl or --task/--domain/--problem/--answer, not both"
        rows = _table_rows(args.dataset) if args.dataset.lower().endswith((".csv", ".parquet")) else (
            read_jsonl(args.dataset))
        if isinstance(rows, str):
            return rows
        return rows, relative_reader(os.path.dirname(os.path.abspath(args.dataset)))
    if args.task is None or args.domain is None or args.problem is None:
        return "give DATASET.jsonl, or --task, --domain, --problem and --answer (or --answer-file)"
    if (args.answer is None) == (args.answer_file is None):
        return "give the answer with exactly one of --answer and --answer-file"
    from plansight.analyses.syntax.reading import path_problem

    for path in (args.domain, args.problem, args.optimal_plan):
        problem = path_problem(path) if path is not None else None
        if problem is not None:
            return f"no such file: {path}" if problem == "no such file" else f"{path}: {problem}"
    answer = args.answer
    if args.answer_file is not None:
        try:
            answer = sys.stdin.read() if args.answer_file == "-" else _read(args.answer_file)
        except OSError as error:
            return f"{args.answer_file}: {error.strerror or error}"
    row: dict[str, Any] = {"task": args.task, "domain": args.domain, "problem": args.problem,
                           "actions": args.actions, "answer": answer}
    if args.action is not None:
        row["action"] = args.action
    if args.optimal_plan is not None:
        try:
            row["optimal_plan"] = _read(args.optimal_plan)
        except OSError as error:
            return f"{args.optimal_plan}: {error.strerror or error}"
    return [(1, row)], relative_reader(os.getcwd())


def _read(path: str) -> str:
    from plansight.analyses.syntax.reading import read_text_or_raise

    return read_text_or_raise(path)


def _write_files(args: argparse.Namespace, outcomes: list[Outcome]) -> None:
    if args.report is None and args.figure is None:
        return
    from plansight.analyses.reasoning.histograms import figure_svg, report_html
    from plansight.analyses.reasoning.summary import summarize

    groups = summarize(outcomes)
    if args.report is not None:
        with open(args.report, "w", encoding="utf-8") as handle:
            handle.write(report_html(groups))
    if args.figure is not None:
        with open(args.figure, "w", encoding="utf-8") as handle:
            handle.write(figure_svg(groups))


def answer_lines(outcome: Outcome) -> list[str]:
    """One scored answer as text: the metric line, then each kind of item."""
    case = outcome.case
    if outcome.error is not None or outcome.score is None:
        return [f"case {case.number} ({case.task}): not scored: {outcome.error}"]
    report = outcome.score.to_json()

    def number(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    head = f"{case.task}: IoU {number(report['iou'])}"
    if "action_distance" in report:
        head += f", action distance {number(report['action_distance'])}"
    head += (f", precision {number(report['precision'])}, recall {number(report['recall'])} "
             f"({len(report['correct'])} of {report['answer_size']} answered items right; "
             f"the truth has {report['truth_size']})")
    lines = [head]
    for key, label in (("correct", "correct"), ("wrong", "wrong"), ("missing", "missing")):
        if report[key]:
            lines.append(f"  {label} ({len(report[key])}): " + " ".join(report[key]))
    if report["hallucinated"]:
        lines.append(f"  hallucinated ({len(report['hallucinated'])}): " + ", ".join(
            f"{h['item']} ({h['reason']})" for h in report["hallucinated"]))
    if report["unreadable"]:
        lines.append(f"  unreadable, counted as wrong ({len(report['unreadable'])}): " + ", ".join(
            f"`{u['text']}` ({u['reason']})" for u in report["unreadable"]))
    if report["duplicates"]:
        lines.append(f"  repeats ignored: {report['duplicates']}")
    if not report["list_found"]:
        lines.append("  no [...] list in the answer: its whole text was read as the list")
    return lines


def _print_dataset(outcomes: list[Outcome], bad_rows: list[dict[str, Any]]) -> None:
    from plansight.analyses.reasoning.summary import summarize, table_lines

    scored = sum(1 for o in outcomes if o.score is not None)
    print(f"{scored} answers scored" + (f", {len(bad_rows) + len(outcomes) - scored} not" if
                                       bad_rows or scored < len(outcomes) else ""))
    print()
    for line in table_lines(summarize(outcomes)):
        print(line)
    unreadable = [(o.case.number, o.score.unreadable) for o in outcomes
                  if o.score is not None and o.score.unreadable]
    if unreadable:
        print("unreadable items (each counted as a wrong answered item):")
        for number, found in unreadable:
            items = ", ".join(f"`{text}` ({reason})" for text, reason in found)
            print(f"  case {number}: {items}")
    problems = [(o.case.number, o.error) for o in outcomes if o.error is not None]
    problems += [(row["case"], row["error"]) for row in bad_rows]
    if problems:
        print("not scored:")
        for number, error in sorted(problems, key=lambda p: p[0]):
            print(f"  case {number}: {error}")
