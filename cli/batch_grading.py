"""Grading many candidates against one reference problem, shared by ``plansight grade`` and ``plansight
equiv`` (given many candidates): loading the reference once, then an in-process loop, a process pool, or a
Dask cluster (docs/datasets.md), keeping the candidates' order.

Both commands import this module, and neither imports the other, so the CLI has no import cycle.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

from plansight.progress import should_show, with_progress

if TYPE_CHECKING:
    from plansight.analyses.equivalence.grading import Graded
    from plansight.analyses.equivalence.verdict import Budget
    from plansight.analyses.workspace.reference_problem import ReferenceLoad


def budget_of(args: argparse.Namespace) -> Budget:
    """The search budget from the command-line limits, clamped to values the search can work with."""
    from plansight.analyses.equivalence.verdict import Budget

    return Budget(
        states=max(1, args.state_budget),
        seconds=max(0.01, args.time_limit),
        planner_seconds=max(0.0, args.time_limit),
    )


def load(args: argparse.Namespace, command: str) -> ReferenceLoad | None:
    """The prepared reference, or None after printing why (the caller exits 2)."""
    from plansight.analyses.workspace.lint import Analyzer, DiskSource
    from plansight.analyses.workspace.reference_problem import load_reference
    from plansight.file_args import file_flag_problems

    for problem in file_flag_problems(args, ("reference", "domain")):
        print(f"plansight {command}: error: {problem}", file=sys.stderr)
        return None
    loaded = load_reference(Analyzer(DiskSource()), args.reference, args.domain, budget_of(args))
    if loaded.reference is None:
        print(f"plansight {command}: error: {loaded.error}", file=sys.stderr)
        return None
    return loaded


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
