"""plansight checks PDDL domains, problems and plans and LTL goals: it reports mistakes with exact
locations and what to do, simulates plans and scores them against reference plans, decides whether
generated problems match a reference problem, and serves all of this to editors as a language
server."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from plansight import __version__
from plansight.batch_gc import collector_off
from plansight.codes_command import add_codes_parser
from plansight.equiv_command import add_equiv_parser
from plansight.evaluate_command import add_evaluate_parser
from plansight.format_command import add_format_parser
from plansight.grade_command import add_grade_parser
from plansight.iou_command import add_iou_parser
from plansight.lint_command import add_lint_parser
from plansight.ltl_command import add_ltl_parser
from plansight.model_command import add_model_parser
from plansight.plan_command import add_plan_parser
from plansight.solve_command import add_solve_parser
from plansight.truth_command import add_truth_parser


def build_parser() -> argparse.ArgumentParser:
    """The ``plansight`` argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="plansight", description=__doc__,
        epilog="Run `plansight COMMAND --help` for what a command does and its options. Exit codes: "
        "0 nothing wrong, 1 problems found, 2 usage error or unreadable input.",
    )
    parser.add_argument("--version", action="version", version=f"plansight {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    add_lint_parser(sub)

    serve = sub.add_parser(
        "serve", help="run the language server for editors (stdio by default)",
        description="Run the plansight language server, which gives any LSP editor diagnostics as you "
        "type, hover, completion, formatting, plan simulation and more for PDDL and LTL files.")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default; accepted for editors)")

    add_codes_parser(sub)
    add_ltl_parser(sub)
    add_format_parser(sub)
    add_equiv_parser(sub)
    add_grade_parser(sub)
    add_evaluate_parser(sub)
    add_plan_parser(sub)
    add_truth_parser(sub)
    add_iou_parser(sub)
    add_model_parser(sub)
    add_solve_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code; a closed output pipe or Ctrl-C ends it quietly."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "serve":  # a long-lived process: the server decides per worker thread
            return _dispatch(parser, args)
        with collector_off():
            return _dispatch(parser, args)
    except BrokenPipeError:
        # the reader went away (`plansight lint . | head`): not an error worth a traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "lint":
        from plansight.lint_command import run_lint

        return run_lint(args)
    if args.command == "codes":
        from plansight.codes_command import run_codes

        return run_codes(args)
    if args.command == "format":
        from plansight.format_command import run_format

        return run_format(args)
    if args.command == "ltl":
        from plansight.ltl_command import run_ltl

        return run_ltl(args)
    if args.command == "grade":
        from plansight.grade_command import run_grade

        return run_grade(args)
    if args.command == "equiv":
        from plansight.equiv_command import run_equiv

        return run_equiv(args)
    if args.command == "evaluate":
        from plansight.evaluate_command import run_evaluate

        return run_evaluate(args)
    if args.command == "plan":
        from plansight.plan_command import run_plan

        return run_plan(args)
    if args.command == "truth":
        from plansight.truth_command import run_truth

        return run_truth(args)
    if args.command == "iou":
        from plansight.iou_command import run_iou

        return run_iou(args)
    if args.command == "model":
        from plansight.model_command import run_model

        return run_model(args)
    if args.command == "solve":
        from plansight.solve_command import run_solve

        return run_solve(args)
    if args.command == "serve":
        from plansight.server_command import run_serve

        return run_serve(args)
    parser.print_usage(sys.stderr)
    return 2
