"""``plansight equiv CANDIDATE... --reference R``: is each candidate problem the reference problem?

Exit codes (docs/cli.md): 0 every candidate is equivalent, 1 some candidate is not (or could not be
proved either way within the budget: CI should not pass on "unknown"), 2 usage error or an unusable
reference.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from plansight.executors import ExecutorError, add_executor_options
from plansight.extract_option import add_extract_option, removal_summary

if TYPE_CHECKING:
    from plansight.analyses.equivalence.verdict import Verdict


def add_reference_options(parser: argparse.ArgumentParser, reference_required: bool = True) -> None:
    """The options `equiv` and `grade` share (a graded table holds its references in a column)."""
    parser.add_argument("--reference", required=reference_required, metavar="R",
                        help="the reference problem, or a reference domain to compare candidate domains with")
    parser.add_argument(
        "--domain", metavar="D", help="the domain (default: the reference's, found like any problem's domain)"
    )
    parser.add_argument(
        "--placeholder",
        action="store_true",
        help="placeholder mode: any renaming of the goal's objects is accepted",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument(
        "--state-budget",
        type=int,
        default=200_000,
        metavar="N",
        help="most states the exact search may visit for domains without rules (default 200000)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="time limit of that search, and of the planner that decides solvability (default 10)",
    )
    parser.add_argument(
        "--mapping", metavar="FILE",
        help="domains only: a JSON file of candidate name -> reference name, used when no renaming is found",
    )
    parser.add_argument(
        "--problems", metavar="DIR",
        help="domains only: reference problems (and DIR/NAME.plan reference plans) to run under both domains",
    )
    add_extract_option(parser)


def add_equiv_parser(sub: Any) -> None:
    """Register ``plansight equiv`` on the top-level parser."""
    equiv = sub.add_parser(
        "equiv",
        help="is each problem (or domain) the same as the reference?",
        description="Check whether each candidate problem is equivalent to the reference (Planetarium's "
        "definition), or, when the reference is a domain, whether each candidate domain is the same domain "
        "up to renaming, with its logic-form F1 (docs/domain-equivalence.md). "
        "Exit code 0: all equivalent, 1: some are not (or unknown), 2: usage error.",
    )
    equiv.add_argument("candidates", nargs="+", metavar="CANDIDATE", help="candidate problem or domain files")
    add_reference_options(equiv)
    equiv.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                       help="worker processes for many candidate problems (default 1)")
    equiv.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_executor_options(equiv)


def domain_only_options(args: argparse.Namespace, command: str) -> bool:
    """Whether options that only make sense for a reference domain were given (after saying so)."""
    given = [flag for flag in ("mapping", "problems") if getattr(args, flag, None) is not None]
    if given:
        print(f"plansight {command}: error: --{given[0]} needs a reference domain; "
              f"{args.reference} is not one", file=sys.stderr)
    return bool(given)


def run_equiv(args: argparse.Namespace) -> int:
    """Compare each candidate with the reference and print the verdicts; the exit code says whether all are
    equivalent.
    """
    from plansight.analyses.syntax.reading import path_problem

    refused = [(path, path_problem(path)) for path in args.candidates]
    missing = [path for path, problem in refused if problem == "no such file"]
    if missing:
        print(f"plansight equiv: error: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    for path, problem in refused:
        if problem is not None:
            print(f"plansight equiv: error: {path}: {problem}", file=sys.stderr)
            return 2
    from plansight.batch_grading import load
    from plansight.domain_equiv_command import reference_is_domain, run_domain_equiv

    if reference_is_domain(args.reference):
        return run_domain_equiv(args)
    if domain_only_options(args, "equiv"):
        return 2
    loaded = load(args, "equiv")
    if loaded is None:
        return 2
    if args.scheduler and args.executor != "dask":
        print("plansight equiv: error: --scheduler needs --executor dask", file=sys.stderr)
        return 2
    from plansight.batch_grading import grade_all

    try:  # the candidates are graded as `grade` grades a folder, on the same executors (docs/datasets.md)
        graded = grade_all(loaded, [(path, path) for path in args.candidates], args)
    except ExecutorError as error:
        print(f"plansight equiv: error: {error}", file=sys.stderr)
        return 2
    verdicts = [(g.path, g.verdict) for g in graded]
    if args.format == "json":
        documents = [
            {**g.verdict.as_json(g.path), **({"extracted": g.extracted.to_json()} if args.extract and
                                                g.extracted is not None else {})}
            for g in graded
        ]
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(encoding="utf-8")
        json.dump(
            documents[0] if len(documents) == 1 else documents, sys.stdout, indent=2, ensure_ascii=False
        )
        sys.stdout.write("\n")
    else:
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(errors="replace")
        for g in graded:
            sys.stdout.write(text_of(g.path, g.verdict))
            if g.extracted is not None:
                sys.stdout.write(f"  extracted: {removal_summary(g.extracted.to_json())}\n")
    return exit_code([v for _, v in verdicts])


def text_of(path: str, verdict: Verdict) -> str:
    """One verdict as the two lines the text format prints."""
    mark = {"equivalent": "≡", "unknown": "?"}.get(verdict.outcome, "≢")
    lines = [
        f"{path}: {mark} {verdict.outcome} ({verdict.mode} mode; {verdict.method})",
        f"  {verdict.explanation}",
        *(f"  warning: {warning}" for warning in verdict.warnings),
    ]
    return "\n".join(lines) + "\n"


def exit_code(verdicts: Sequence[Verdict]) -> int:
    """0 when every candidate is equivalent, 1 when any is not or could not be decided."""
    return 0 if all(v.equivalent is True for v in verdicts) else 1
