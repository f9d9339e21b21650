"""`plansight grade` and `plansight evaluate` over a benchmark table (JSONL, CSV, Parquet, PlanBench JSON).

Rows are read, mapped to fields (``--preset``, ``--columns``), resolved into texts, chunked and run on the
chosen executor; each finished chunk is written to ``--output`` at once (one row per input, its columns
kept, the verdict columns added), so ``--resume`` can skip the rows an interrupted run already wrote. The
paper's summary table is printed and, with ``--summary FILE``, written too (docs/datasets.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from plansight.executors import ExecutorError, add_executor_options, chunk_size, run_chunks


def add_dataset_options(parser: argparse.ArgumentParser, kind: str) -> None:
    """The options that read and write a table; ``kind`` is the command (grade or evaluate)."""
    from plansight.analyses.workspace.dataset_presets import PRESETS

    presets = sorted(name for name, preset in PRESETS.items() if preset.kind == kind)
    parser.add_argument("--preset", choices=presets, help="a benchmark's published layout (docs/datasets.md)")
    parser.add_argument(
        "--columns",
        default="",
        metavar="FIELD=COLUMN,...",
        help="which column holds each field, e.g. problem=model_output,reference=problem_pddl",
    )
    parser.add_argument(
        "--domains", metavar="DIR", help="folder of domains named in the rows (NAME.pddl or NAME/domain.pddl)"
    )
    parser.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write one row per input with the verdict columns added (.jsonl, .csv, .parquet, .json)",
    )
    parser.add_argument("--summary", metavar="FILE", help="also write the paper's summary table to FILE")
    parser.add_argument("--resume", action="store_true", help="skip the rows already in --output")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="read a table's answers as they are (default: take the plan or problem out of prose and fences)",
    )
    if kind == "evaluate":
        parser.add_argument(
            "--problem-path",
            metavar="TEMPLATE",
            help="a row's problem under --problems, e.g. '{domain}/instance-{instance_id}.pddl'",
        )
    add_executor_options(parser)


def run_dataset(args: argparse.Namespace, kind: str, table: str) -> int:
    """Grade or evaluate every row of ``table``; the exit code is the command's (0 all good, 1 some not,
    2 usage error)."""
    from plansight.analyses.workspace.dataset_presets import MappingError
    from plansight.analyses.workspace.dataset_tables import DatasetError

    try:
        return _run(args, kind, table)
    except (DatasetError, MappingError, ExecutorError) as error:
        print(f"plansight {kind}: error: {error}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, kind: str, table: str) -> int:
    from plansight.analyses.workspace.dataset_presets import PRESETS, column_mapping, missing_columns
    from plansight.analyses.workspace.dataset_summary import SUMMARIES
    from plansight.analyses.workspace.dataset_tables import DatasetError, open_writer, read_rows
    from plansight.analyses.workspace.dataset_work import (
        EVALUATE_COLUMNS,
        EVALUATE_TYPES,
        GRADE_COLUMNS,
        GRADE_TYPES,
        work_chunk,
    )

    if args.resume and not args.output:
        raise DatasetError("--resume needs --output, the file holding the rows already done")
    if args.scheduler and args.executor != "dask":
        raise DatasetError("--scheduler needs --executor dask")
    rows = read_rows(table)
    if not rows:
        raise DatasetError(f"{table}: no rows")
    mapping = column_mapping(kind, args.preset, args.columns)  # type: ignore[arg-type]
    required: tuple[str, ...] = ("problem", "reference") if kind == "grade" else ("plan",)
    if not args.domain:
        required += ("domain",)
    absent = missing_columns(rows, mapping, required)
    if absent:
        raise DatasetError(f"{table}: no column for {', '.join(absent)} (use --columns or --preset)")
    columns, types = (GRADE_COLUMNS, GRADE_TYPES) if kind == "grade" else (EVALUATE_COLUMNS, EVALUATE_TYPES)
    input_columns = list(dict.fromkeys(name for row in rows for name in row))
    names = _verdict_names(columns, input_columns)
    written = _done_rows(args.output, {names[c]: t for c, t in types.items()}) if args.resume else []
    done = {row[names["row_index"]] for row in written if 0 <= row[names["row_index"]] < len(rows)}
    jobs = _jobs(args, kind, rows, mapping, done)
    workers = max(1, args.jobs)
    size = chunk_size(args.chunk_size, len(jobs), workers)
    chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
    settings = _settings(args, kind)
    results = [
        {**rows[row[names["row_index"]]], **{c: row.get(names[c]) for c in columns}}
        for row in written
        if row[names["row_index"]] in done
    ]
    writer = (
        open_writer(
            args.output,
            input_columns + [names[c] for c in columns],
            written,
            {names[c]: t for c, t in types.items()},
        )
        if args.output
        else None
    )
    show = args.format == "text" and not args.no_progress and sys.stderr.isatty()
    try:
        for finished in _progress(
            run_chunks(work_chunk, kind, settings, chunks, args.executor, workers, args.scheduler),
            len(jobs),
            show,
            kind,
        ):
            merged = [_merge(rows[values["row_index"]], values, mapping, kind) for values in finished]
            if writer is not None:
                writer.write([_written(rows, row, names) for row in merged])
            results.extend(merged)
    finally:
        if writer is not None:
            writer.close()
    results.sort(key=lambda row: row["row_index"])
    preset = (
        PRESETS[args.preset].summary if args.preset else ("planetarium" if kind == "grade" else "lea-stv")
    )
    summary = SUMMARIES[preset](results, mapping)
    if args.summary:
        from plansight.analyses.workspace.dataset_tables import write_table

        write_table(args.summary, summary)
    _print(args, kind, [_written(rows, row, names) for row in results], summary)
    good = (
        all(row.get("equivalent") is True for row in results)
        if kind == "grade"
        else all(row.get("valid") is True for row in results)
    )
    return 0 if good else 1


def _written(
    rows: Sequence[Mapping[str, Any]], row: Mapping[str, Any], names: Mapping[str, str]
) -> dict[str, Any]:
    """A result row as written and shown: the input row as it was, the verdict columns under their names."""
    return {**rows[row["row_index"]], **{name: row.get(column) for column, name in names.items()}}


def _verdict_names(columns: Sequence[str], input_columns: Sequence[str]) -> dict[str, str]:
    """The name each verdict column is written under: its own, or ``plansight_NAME`` when the table already
    has a column of that name (the LEA/StV CSVs carry their own ``final_score``), so no input is lost."""
    taken = set(input_columns)
    return {c: f"plansight_{c}" if c in taken else c for c in columns}


def _done_rows(output: str, types: Mapping[str, str]) -> list[dict[str, Any]]:
    """The rows an earlier run wrote, with their verdict columns typed again (CSV keeps only text)."""
    from plansight.analyses.workspace.dataset_tables import DatasetError, read_rows

    if not os.path.exists(output):
        return []
    try:
        rows = read_rows(output, partial=True)
    except DatasetError:
        return []  # a file cut short mid-write: every row is done again
    index = next((name for name in types if name.endswith("row_index")), "row_index")
    typed = [typed_row(row, types) for row in rows]
    return [row for row in typed if isinstance(row.get(index), int) and not isinstance(row.get(index), bool)]


def typed_row(row: dict[str, Any], types: Mapping[str, str]) -> dict[str, Any]:
    """A row read back from an output file with its columns typed again: CSV keeps only text."""
    typed = dict(row)
    for name, kind in types.items():
        value = typed.get(name)
        if not isinstance(value, str):
            continue
        if value == "":
            typed[name] = None
        elif kind == "bool":
            typed[name] = value.strip().lower() == "true"
        elif kind in ("int", "float"):
            try:
                typed[name] = int(value) if kind == "int" else float(value)
            except ValueError:
                typed[name] = None
    return typed


def _jobs(
    args: argparse.Namespace,
    kind: str,
    rows: Sequence[dict[str, Any]],
    mapping: Mapping[str, tuple[str, ...]],
    done: set[int],
) -> list[Any]:
    from plansight.analyses.workspace.dataset_jobs import Resolver, evaluate_job, grade_job
    from plansight.analyses.workspace.dataset_presets import PRESETS

    template = getattr(args, "problem_path", None) or (
        PRESETS[args.preset].problem_path if args.preset else ""
    )
    resolver = Resolver(args.domains, getattr(args, "problems", None), args.domain, template)
    if kind == "grade":
        return [
            grade_job(i, row, mapping, resolver, args.placeholder)
            for i, row in enumerate(rows)
            if i not in done
        ]
    return [evaluate_job(i, row, mapping, resolver) for i, row in enumerate(rows) if i not in done]


def _settings(args: argparse.Namespace, kind: str) -> dict[str, Any]:
    if kind == "grade":
        return {"state_budget": max(1, args.state_budget), "time_limit": max(0.01, args.time_limit),
                "strict": args.strict}
    return {
        "similarity": args.similarity,
        "recover": args.recover,
        "time_limit": args.time_limit,
        "memory_limit": args.memory_limit,
        "strict": args.strict,
    }


def _merge(
    row: Mapping[str, Any], values: Mapping[str, Any], mapping: Mapping[str, tuple[str, ...]], kind: str
) -> dict[str, Any]:
    """The input row with the verdict columns added; for evaluate, whether the benchmark's label agrees."""
    merged = {**row, **values}
    if kind == "evaluate":
        from plansight.analyses.workspace.dataset_presets import cell

        label = cell(row, mapping["label"])
        valid = values.get("valid")
        if label is not None and valid is not None:
            said = label if isinstance(label, bool) else str(label).strip().lower() in ("1", "true", "yes")
            merged["label_agrees"] = bool(said) == valid
    return merged


def _progress(
    chunks: Iterator[list[dict[str, Any]]], total: int, show: bool, kind: str
) -> Iterator[list[dict[str, Any]]]:
    """Yield the finished chunks; on a terminal, a bar with the rows done and the rows per second."""
    if not show:
        yield from chunks
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    start = time.monotonic()
    columns = (
        TextColumn("Grading" if kind == "grade" else "Evaluating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(kind, total=total, rate="")
        done = 0
        for chunk in chunks:
            done += len(chunk)
            elapsed = max(1e-6, time.monotonic() - start)
            progress.update(task, advance=len(chunk), rate=f"{done / elapsed:.1f} rows/s")
            yield chunk


def _print(
    args: argparse.Namespace, kind: str, results: Sequence[dict[str, Any]], summary: Sequence[dict[str, Any]]
) -> None:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    if args.format == "json":
        json.dump(
            {"rows": list(results), "summary": list(summary)},
            sys.stdout,
            indent=2,
            ensure_ascii=False,
            default=str,
        )
        sys.stdout.write("\n")
        return
    if args.format == "csv":
        import csv

        from plansight.analyses.equivalence.grade_report import spreadsheet_safe

        names = list(dict.fromkeys(name for row in results for name in row))
        writer = csv.DictWriter(sys.stdout, fieldnames=names, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in results:
            writer.writerow({k: spreadsheet_safe("" if v is None else v) for k, v in row.items()})
        return
    failed = sum(1 for row in results if row.get("error"))
    where = f", written to {args.output}" if args.output else ""
    sys.stdout.write(f"{len(results)} rows{where}; {failed} with an error\n\n")
    if summary:
        headers = list(summary[0])
        table = [headers] + [
            ["-" if row.get(h) is None else str(row.get(h)) for h in headers] for row in summary
        ]
        widths = [max(len(line[i]) for line in table) for i in range(len(headers))]
        for line in table:
            sys.stdout.write("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() + "\n")
