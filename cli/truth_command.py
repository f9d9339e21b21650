"""``plansight truth TASK DOMAIN PROBLEM``: the exact answers of the reasoning-about-action tasks.

Action applicability, state comprehension, progression and state tracking (Murthy, Mink and Sanneman
2025), in the state reached by ``--actions``; one case from the command line or every row of a JSONL
file (``--cases``). docs/reasoning.md has the JSON shapes. Exit codes: 0 every case answered, 1 some
case has no exact answer (a step that cannot run, a construct the simulator does not handle),
2 usage error or unreadable input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from plansight.executors import ExecutorError, add_executor_options, chunk_size, in_input_order, run_chunks

if TYPE_CHECKING:
    from plansight.analyses.reasoning.cases import Case, Outcome
    from plansight.analyses.reasoning.truth import Truth

TRUTH_TASKS = ("applicable", "state", "progression", "tracking")


def add_truth_parser(sub: Any) -> None:
    """Register ``plansight truth`` on the top-level parser."""
    truth = sub.add_parser(
        "truth", help="the exact answers of reasoning tasks: applicable actions, state, effects, tracking",
        description="Print the exact answer of a reasoning-about-action task: the ground actions applicable "
        "in a state, every atom of the state, the add and delete effects of one action, or the state "
        "after a sequence of actions. The state is the problem's initial state after --actions. "
        "Exit code 0: every case answered, 1: some case has no exact answer, 2: usage error.")
    truth.add_argument("task", nargs="?", choices=TRUTH_TASKS, help="the task (omit with --cases)")
    truth.add_argument("domain", nargs="?", metavar="DOMAIN", help="the domain file")
    truth.add_argument("problem", nargs="?", metavar="PROBLEM", help="the problem file")
    truth.add_argument("--actions", metavar="ACTIONS", default="",
                       help="actions executed from the initial state first, e.g. "
                            "'(unstack c a) (put-down c)' or '[unstack(c, a), put-down(c)]'")
    truth.add_argument("--action", metavar="ACTION",
                       help="progression: the action whose effects are asked for")
    truth.add_argument("--cases", metavar="FILE|FOLDER",
                       help="a JSONL file of cases, one JSON object per line (docs/reasoning.md), or a "
                       "folder of such files and of .json files holding one case each; paths in a case are "
                       "relative to the folder that holds its file")
    truth.add_argument("--format", choices=("text", "json"), default="text",
                       help="text, or JSON (one object per line with --cases)")
    truth.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                       help="with --cases: worker processes (default 1)")
    add_executor_options(truth)


def run_truth(args: argparse.Namespace) -> int:
    """Answer the case(s) and print them; the exit code says whether every case had an exact answer."""
    from plansight.analyses.reasoning.cases import CaseError, case_from_row

    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    if args.cases is not None:
        if args.task is not None or args.domain is not None:
            return _usage("give either TASK DOMAIN PROBLEM or --cases FILE, not both")
        cases = read_cases(args.cases)
        if isinstance(cases, str):
            return _usage(cases)
        from_folder = os.path.isdir(args.cases)
        # one file: a case is known by its line; a folder: by its place in one sequence, plus its source
        rows = [(number if from_folder else line, row) for number, (_, line, row) in enumerate(cases, 1)]
        sources: dict[int, str] = {
            number: source for number, (source, _, _) in enumerate(cases, 1) if source is not None}
        reader = relative_reader(os.path.abspath(args.cases) if from_folder
                                 else os.path.dirname(os.path.abspath(args.cases)))
    else:
        if args.task is None or args.domain is None or args.problem is None:
            return _usage("give TASK DOMAIN PROBLEM (or --cases FILE)")
        from plansight.analyses.syntax.reading import path_problem

        for path in (args.domain, args.problem):
            problem = path_problem(path)
            if problem is not None:
                return _usage(f"no such file: {path}" if problem == "no such file" else f"{path}: {problem}")
        row: dict[str, Any] = {"task": args.task, "domain": args.domain, "problem": args.problem,
                               "actions": args.actions}
        if args.action is not None:
            row["action"] = args.action
        rows = [(1, row)]
        sources = {}
        reader = relative_reader(os.getcwd())
    if args.scheduler and args.executor != "dask":
        return _usage("--scheduler needs --executor dask")
    items: list[Case | dict[str, Any]] = []
    for line, row in rows:
        try:
            items.append(case_from_row(row, line, reader, scoring=False))
        except CaseError as error:
            if args.cases is None:
                return _usage(str(error))
            items.append({"case": line, **_source(sources, line), "error": str(error)})
    try:
        return _answer_all(args, items, sources)
    except ExecutorError as error:
        return _usage(str(error))


def _answer_all(args: argparse.Namespace, items: list[Case | dict[str, Any]], sources: dict[int, str]) -> int:
    """Print every case's answer in the cases' order while the executor answers them (docs/datasets.md):
    a row that cannot be read is printed with its error where it stands."""
    from plansight.analyses.reasoning.case_work import case_chunk

    work = [(index, item) for index, item in enumerate(items) if not isinstance(item, dict)]
    workers = max(1, args.jobs)
    size = chunk_size(args.chunk_size, len(work), workers)
    chunks = [work[i : i + size] for i in range(0, len(work), size)]
    finished = in_input_order(
        run_chunks(case_chunk, "truth", {}, chunks, args.executor, workers, args.scheduler),
        [index for index, _ in work],
    )
    failed = False
    for number, item in enumerate(items):
        if isinstance(item, dict):
            failed = True
            _print(item, None, args.format, number, True)
            continue
        index, outcome = next(finished)
        assert index == number
        failed = failed or outcome.error is not None
        _print({**outcome.to_json(), **_source(sources, item.number)}, outcome, args.format, number,
               args.cases is not None)
    return 1 if failed else 0


def _source(sources: dict[int, str], number: int) -> dict[str, str]:
    """The ``source`` key (file and line) of a case read from a folder; nothing for one file."""
    source = sources.get(number)
    return {"source": source} if source is not None else {}


def read_cases(path: str) -> list[tuple[str | None, int, Any]] | str:
    """Every case of a JSONL file, or of a folder's ``.jsonl`` files (a case a line) and ``.json`` files (a
    case each), in name order: (where it came from when read from a folder, line, row), or why not.

    A folder of cases is how instructors and dataset scripts often lay out one case per file; numbering
    the cases in one sequence keeps the output's ``case`` keys unique across files.
    """
    from plansight.analyses.syntax.reading import read_text_file

    if not os.path.isdir(path):
        rows = read_jsonl(path)
        return rows if isinstance(rows, str) else [(None, line, row) for line, row in rows]
    cases: list[tuple[str | None, int, Any]] = []
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if name.lower().endswith(".jsonl"):
            rows = read_jsonl(full)
            if isinstance(rows, str):
                return rows
            cases.extend((f"{name}:{line}", line, row) for line, row in rows)
        elif name.lower().endswith(".json"):
            read = read_text_file(full)
            if read.text is None:
                return f"{full}: {read.failure}"
            try:
                cases.append((name, 1, json.loads(read.text)))
            except json.JSONDecodeError as error:
                return f"{full}: not JSON ({error.msg})"
    if not cases:
        return f"{path}: no .jsonl or .json case files in this folder"
    return cases


def _print(report: dict[str, Any], outcome: Outcome | None, output: str, number: int, batch: bool) -> None:
    if output == "json":
        print(json.dumps(report, ensure_ascii=False))
        return
    if number:
        print()
    if outcome is None or outcome.truth is None:
        error = str(report.get("error"))
        if not error.startswith("no exact answer"):
            error = f"no exact answer: {error}"
        print(f"case {report.get('case')}: {error}" if batch else error)
        return
    for line in truth_lines(outcome.truth):
        print(line)


def truth_lines(truth: Truth) -> list[str]:
    """A truth as text: a heading naming the task and the state, then one item per line."""
    from plansight.analyses.semantics.world import format_atom

    where = ("in the initial state" if not truth.after
             else "after " + " ".join(format_atom(a) for a in truth.after))
    if truth.task == "progression" and truth.action is not None:
        lines = [f"progression of {format_atom(truth.action)} {where}"]
        for label, items in (("add", truth.items), ("delete", truth.delete)):
            lines.append(f"{label} ({len(items)}):")
            lines.extend(f"  {format_atom(a)}" for a in items)
        held = sorted(set(truth.declared_add) - set(truth.items))
        if held:
            lines.append("declared add effects that already held (not counted): "
                         + " ".join(format_atom(a) for a in held))
        return lines
    noun = {"applicable": "applicable actions", "state": "atoms of the state",
            "tracking": "atoms of the state"}[truth.task]
    lines = [f"{truth.task}: {len(truth.items)} {noun} {where}"]
    lines.extend(f"  {format_atom(a)}" for a in truth.items)
    return lines


def read_jsonl(path: str) -> list[tuple[int, Any]] | str:
    """(line number, value) of every non-blank line, or the reason the file cannot be read."""
    from plansight.analyses.syntax.reading import read_text_file

    read = read_text_file(path)
    if read.text is None:
        return f"{path}: {read.failure}"
    lines = read.text.splitlines()
    rows: list[tuple[int, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append((number, json.loads(line)))
        except json.JSONDecodeError as error:
            return f"{path}:{number}: not JSON ({error.msg})"
    return rows


def relative_reader(folder: str) -> Callable[[str], str]:
    """Reads a path relative to ``folder`` (absolute paths as they are), under the reading policy every
    command shares; a refused file raises an ``OSError`` whose ``strerror`` says why."""
    from plansight.analyses.syntax.reading import read_text_or_raise

    def read(path: str) -> str:
        return read_text_or_raise(os.path.join(folder, path))

    return read


def _usage(message: str) -> int:
    print(f"plansight truth: error: {message}", file=sys.stderr)
    return 2
