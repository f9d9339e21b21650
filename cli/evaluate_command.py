"""``plansight evaluate --generated DIR --ground-truth DIR``: the plan-metric tables over a dataset.

Generated and ground-truth plans are paired by file name (``p10.plan`` with ``p10.plan``; any plan
suffix). Each generated plan is simulated against its problem (``--problems DIR/<name>.pddl``, else
docs/files-and-links.md: directives, then the plan's folder) and compared with its ground truth.

Exit codes: 0 every generated plan is valid, 1 some plan is not (or could not be checked), 2 usage error.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from plansight.dataset_run import add_dataset_options
from plansight.extract_option import add_extract_option, extracted_json, file_source, removal_summary

if TYPE_CHECKING:
    from plansight.analyses.workspace.dataset_tables import RowWriter
    from plansight.analyses.workspace.dataset_work import MetricsJob

PLAN_SUFFIXES = (".plan", ".soln", ".sol", ".txt")


def add_evaluate_parser(sub: Any) -> None:
    """Register ``plansight evaluate`` on the top-level parser."""
    evaluate = sub.add_parser(
        "evaluate",
        help="score generated plans against ground-truth plans (LEA, StV, AQM)",
        description="Pair generated plans with ground-truth plans by file name and print success rate, "
        "LEA, steps to validity, AQM, LCS, score, action distance and (with --recover) "
        "recovery success. Exit code 0: every plan valid, 1: some are not, 2: usage error.",
    )
    evaluate.add_argument(
        "dataset", nargs="?", metavar="TABLE",
        help="a table of plans (.jsonl, .csv, .parquet, PlanBench .json) instead of folders",
    )
    evaluate.add_argument("--generated", metavar="DIR", help="folder of generated plans")
    evaluate.add_argument("--ground-truth", metavar="DIR", help="folder of ground-truth plans")
    evaluate.add_argument("--problems", metavar="DIR", help="folder of problems named like the plans")
    evaluate.add_argument("--domain", metavar="D", help="the domain (default: found from each problem)")
    evaluate.add_argument("--format", choices=("text", "json", "csv"), default="text", help="output format")
    evaluate.add_argument(
        "--recover",
        action="store_true",
        help="repair every invalid plan with Fast Downward (pi_corr + pi_comp)",
    )
    evaluate.add_argument(
        "--similarity",
        choices=("v1", "v2"),
        default="v1",
        help="action-name similarity: v1 = the paper (default), v2 = its later code",
    )
    evaluate.add_argument(
        "--time-limit",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="planner time limit per plan for --recover (default 30)",
    )
    evaluate.add_argument(
        "--memory-limit",
        type=int,
        default=2048,
        metavar="MB",
        help="planner memory limit for --recover (default 2048)",
    )
    evaluate.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    evaluate.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                          help="worker processes (default 1)")
    add_dataset_options(evaluate, "evaluate")
    add_extract_option(evaluate)


@dataclass
class Row:
    """One row of a metric table: a plan (or a total) and its values by column."""

    name: str
    values: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        """The value in column ``key``, or None when the row has none (a plan that was not scored)."""
        return self.values.get(key)


def _plans(folder: str) -> dict[str, str]:
    """Plan files by stem; a FIFO or device named like a plan is kept, so its row says why it was not
    read instead of the plan silently missing from the table."""
    found: dict[str, str] = {}
    for entry in sorted(os.listdir(folder)):
        stem, suffix = os.path.splitext(entry)
        if suffix.lower() in PLAN_SUFFIXES and not os.path.isdir(os.path.join(folder, entry)):
            found.setdefault(stem, os.path.join(folder, entry))
    return found


def _prepare(
    index: int, name: str, generated: str | None, truth: str | None, args: argparse.Namespace, analyzer: Any
) -> Row | MetricsJob:
    """Everything that reads files: the finished row when the plan cannot be scored (every failure becomes
    the row's `error`, never an exception), else the plain data its metrics need, which any executor can
    ship to a worker without access to this machine's folders."""
    from plansight.analyses.model.pddl import Domain, Plan, Problem
    from plansight.analyses.plans.metrics import actions_of
    from plansight.analyses.plans.simulate import unparsed_lines
    from plansight.analyses.workspace.dataset_work import MetricsJob
    from plansight.analyses.workspace.sources import ExplainsFailures
    from plansight.plan_command import read_as_plan

    row = Row(name)
    if generated is None:
        row.values.update(valid=False, executable=False, lea=0, error="no generated plan")
        return row
    errors: list[str] = [] if truth is not None else ["no ground-truth plan"]
    document = analyzer.parse(generated)
    reference_document = analyzer.parse(truth) if truth is not None else None
    if truth is not None and reference_document is None:
        reason = analyzer.source.failure(truth) if isinstance(analyzer.source, ExplainsFailures) else (
            "missing or unreadable")
        errors.append(f"the ground-truth plan could not be read: {reason}")
    if document is None:
        reason = analyzer.source.failure(generated) if isinstance(analyzer.source, ExplainsFailures) else (
            "missing or unreadable")
        row.values.update(valid=False, executable=False, lea=0, error=f"could not be read: {reason}")
        return row
    if document.plan is None:
        document = read_as_plan(document)  # an answer holding a problem is an invalid plan, as in `plan`
    assert document.plan is not None
    values: dict[str, Any] = {}
    extracted = extracted_json(analyzer.source, generated)
    if extracted is not None:
        values["extracted"] = extracted
    problem_path = os.path.join(args.problems, name + ".pddl") if args.problems else None
    if problem_path is not None and not os.path.isfile(problem_path):
        problem_path = None
    link = analyzer.associate(document, args.domain, problem_path)
    domain = link.domain.model if link.domain is not None else None
    problem = link.problem.model if link.problem is not None else None
    reference = (
        actions_of(reference_document.model)
        if reference_document is not None and isinstance(reference_document.model, Plan)
        else None
    )
    return MetricsJob(
        index,
        domain if isinstance(domain, Domain) else None,
        problem if isinstance(problem, Problem) else None,
        actions_of(document.plan),
        reference,
        # the steps `plansight plan` simulates: a line that is not an action fails there as a `parse` step
        unparsed_lines(document.text, document.plan, document.diagnostics),
        values,
        errors,
    )


def _evaluate_all(
    jobs: Sequence[tuple[str, str | None, str | None]],
    args: argparse.Namespace,
    analyzer: Any,
    kept: Mapping[str, Row],
    writer: RowWriter | None,
) -> list[Row]:
    """Every table row, in the plans' order: the files are read here, the metrics (simulation, and the
    planner with --recover) run on the chosen executor, and each row is the same on every executor."""
    from plansight.analyses.workspace.dataset_work import metrics_chunk
    from plansight.executors import chunk_size, run_chunks
    from plansight.progress import should_show, with_progress

    # every plan may run a potential search and a planner: worth a bar from the first one
    show = should_show(len(jobs), args.format == "text", args.no_progress, threshold=0)
    rows: dict[int, Row] = {index: kept[job[0]] for index, job in enumerate(jobs) if job[0] in kept}
    work = []
    for index, job in enumerate(jobs):
        if index in rows:
            continue
        ready = _prepare(index, *job, args, analyzer)
        if isinstance(ready, Row):
            rows[index] = ready
            _write(writer, [ready])
        else:
            work.append(ready)
    workers = max(1, args.jobs)
    size = chunk_size(args.chunk_size, len(work), workers)
    chunks = [work[i : i + size] for i in range(0, len(work), size)]
    settings = {
        "similarity": args.similarity,
        "recover": args.recover,
        "time_limit": args.time_limit,
        "memory_limit": args.memory_limit,
    }
    finished = run_chunks(metrics_chunk, "evaluate", settings, chunks, args.executor, workers, args.scheduler)
    if show:  # the bar counts plans, not chunks, so its rate is plans a second
        finished = (
            [pair]
            for pair in with_progress((pair for chunk in finished for pair in chunk), "Evaluating", True,
                                      total=len(work), describe=lambda pair: jobs[pair[0]][0])
        )
    for chunk in finished:
        finished_rows = [(index, Row(jobs[index][0], values)) for index, values in chunk]
        rows.update(finished_rows)
        _write(writer, [row for _, row in finished_rows])
    return [rows[index] for index in range(len(jobs))]


def _write(writer: RowWriter | None, rows: Sequence[Row]) -> None:
    if writer is not None and rows:
        writer.write([{"name": row.name, **row.values} for row in rows])


def _kept(output: str) -> dict[str, Row]:
    """The plans an earlier run wrote to ``--output``, by name, with their values typed again (CSV keeps
    only text); a file cut short mid-write keeps the rows before the cut."""
    from plansight.analyses.workspace.dataset_tables import DatasetError, read_rows
    from plansight.analyses.workspace.dataset_work import EVALUATE_TYPES
    from plansight.dataset_run import typed_row

    if not os.path.exists(output):
        return {}
    try:
        written = read_rows(output, partial=True)
    except DatasetError:
        return {}
    text = output.lower().endswith(".csv")
    kept: dict[str, Row] = {}
    for row in written:
        name = row.pop("name", None)
        if not isinstance(name, str) or not name:
            continue
        if text:
            if any(value is None for value in row.values()):
                continue  # a row cut short by the interruption: its last cells are missing
            # an empty cell is a value the plan did not have; `extracted` is written as JSON text
            typed = typed_row(row, EVALUATE_TYPES)
            row = {key: value for key, value in typed.items() if value not in (None, "")}
            if isinstance(row.get("extracted"), str):
                row["extracted"] = json.loads(row["extracted"])
        kept[name] = Row(name, row)
    return kept


def _mean(rows: Sequence[Row], key: str) -> float | None:
    values = [
        row.get(key)
        for row in rows
        if isinstance(row.get(key), (int, float)) and not isinstance(row.get(key), bool)
    ]
    return round(sum(values) / len(values), 4) if values else None


def summary(rows: Sequence[Row], recovered: bool) -> dict[str, Any]:
    """The paper's table row for the dataset: SR, and the means of the per-plan metrics."""
    known = [row for row in rows if row.get("valid") is not None]
    result: dict[str, Any] = {
        "plans": len(rows),
        "checked": len(known),
        "sr": round(sum(1 for row in known if row.get("valid")) / len(known), 4) if known else None,
        "executable": round(sum(1 for row in known if row.get("executable")) / len(known), 4)
        if known
        else None,
    }
    for key in (
        "lea",
        "goal_fraction",
        "score_normalised",
        "final_score",
        "aqm_score",
        "np_aqm_score",
        "stv",
        "lcs_subsequence",
        "lcs_substring",
        "action_distance",
    ):
        result[f"mean_{key}"] = _mean(rows, key)
    if recovered:
        attempted = [row for row in rows if row.get("recovery_status") is not None]
        good = [row for row in attempted if row.get("recovery_status") in ("solved", "already-valid")]
        result["recovery_sr"] = round(len(good) / len(attempted), 4) if attempted else None
        result["mean_prefix_length"] = _mean(attempted, "prefix_length")
    sources = {row.get("similarity_source") for row in rows if row.get("similarity_source")}
    result["similarity_source"] = sources.pop() if len(sources) == 1 else None
    return result


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _print_text(rows: Sequence[Row], total: dict[str, Any], recovered: bool) -> None:
    columns = [
        "name",
        "valid",
        "lea",
        "length",
        "stv",
        "aqm_score",
        "lcs_subsequence",
        "lcs_substring",
        "score_normalised",
        "final_score",
        "action_distance",
    ]
    headers = ["plan", "valid", "LEA", "len", "StV", "AQM", "LCS-seq", "LCS-run", "score", "final", "dist"]
    if recovered:
        columns += ["recovery_status", "recovered_length"]
        headers += ["recovery", "rec.len"]
    table = [headers] + [[_cell(row.name if c == "name" else row.get(c)) for c in columns] for row in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(headers))]
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip())
    for row in rows:
        if row.get("error"):
            print(f"{row.name}: {row.get('error')}")
        if row.get("extracted") is not None:
            print(f"{row.name}: extracted: {removal_summary(row.get('extracted'))}")
    print()
    labels = [
        ("plans", "plans"),
        ("sr", "SR"),
        ("mean_lea", "mean LEA"),
        ("mean_stv", "mean StV"),
        ("mean_aqm_score", "AQM"),
        ("mean_score_normalised", "score"),
        ("mean_final_score", "final score"),
        ("mean_lcs_subsequence", "LCS subsequence"),
        ("mean_lcs_substring", "LCS run"),
        ("mean_action_distance", "action distance"),
    ]
    if recovered:
        labels.append(("recovery_sr", "recovery SR"))
    print("  ".join(f"{label} {_cell(total.get(key))}" for key, label in labels))
    print(f"similarity: {total.get('similarity_source') or 'mixed'}")


def run_evaluate(args: argparse.Namespace) -> int:
    """Pair generated plans with ground-truth plans by file name, score every pair and print the metric
    tables; the exit code says whether every plan is valid.
    """
    from plansight.analyses.workspace.lint import Analyzer
    from plansight.file_args import file_flag_problems

    if args.dataset is not None:
        from plansight.dataset_run import run_dataset

        return run_dataset(args, "evaluate", args.dataset)
    if args.generated is None or args.ground_truth is None:
        print("plansight evaluate: error: give a TABLE, or --generated and --ground-truth folders",
              file=sys.stderr)
        return 2
    if args.scheduler and args.executor != "dask":
        print("plansight evaluate: error: --scheduler needs --executor dask", file=sys.stderr)
        return 2
    if args.resume and not args.output:
        print("plansight evaluate: error: --resume needs --output, the file holding the plans already done",
              file=sys.stderr)
        return 2
    if args.output and not args.output.lower().endswith((".jsonl", ".ndjson", ".csv")):
        print("plansight evaluate: error: --output for folders is a .jsonl or .csv file", file=sys.stderr)
        return 2
    for flag, value in (
        ("generated", args.generated),
        ("ground-truth", args.ground_truth),
        ("problems", args.problems),
    ):
        if value is not None and not os.path.isdir(value):
            print(f"plansight evaluate: error: --{flag} {value}: no such folder", file=sys.stderr)
            return 2
    for problem in file_flag_problems(args, ("domain",)):
        print(f"plansight evaluate: error: {problem}", file=sys.stderr)
        return 2
    generated, truths = _plans(args.generated), _plans(args.ground_truth)
    names = sorted(set(generated) | set(truths))
    if not names:
        print(f"plansight evaluate: error: no plans in {args.generated}", file=sys.stderr)
        return 2
    from plansight.analyses.workspace.dataset_tables import DatasetError, open_writer

    analyzer = Analyzer(file_source(args))
    jobs = [(name, generated.get(name), truths.get(name)) for name in names]
    from plansight.analyses.plans.row_metrics import METRIC_COLUMNS
    from plansight.executors import ExecutorError

    kept = _kept(args.output) if args.resume else {}
    csv_columns = ["name", *METRIC_COLUMNS, "error"]
    columns = [*csv_columns, "similarity_source", "extracted"]
    done = [{"name": row.name, **row.values} for row in kept.values()]
    writer: RowWriter | None = None
    try:
        writer = open_writer(args.output, columns, done) if args.output else None
    except DatasetError as error:
        print(f"plansight evaluate: error: {error}", file=sys.stderr)
        return 2
    try:
        rows = _evaluate_all(jobs, args, analyzer, kept, writer)
    except ExecutorError as error:
        print(f"plansight evaluate: error: {error}", file=sys.stderr)
        return 2
    finally:
        if writer is not None:
            writer.close()
    total = summary(rows, args.recover)
    if args.format == "json":
        print(
            json.dumps(
                {"plans": [{"name": row.name, **row.values} for row in rows], "summary": total}, indent=2
            )
        )
    elif args.format == "csv":
        from plansight.analyses.equivalence.grade_report import spreadsheet_safe

        table = csv.DictWriter(
            sys.stdout, fieldnames=csv_columns, extrasaction="ignore", lineterminator="\n"
        )
        table.writeheader()
        for row in rows:
            table.writerow(
                {"name": spreadsheet_safe(row.name),
                 **{k: spreadsheet_safe("" if v is None else v) for k, v in row.values.items()}}
            )
    else:
        _print_text(rows, total, args.recover)
    return 0 if all(row.get("valid") is True for row in rows) else 1
