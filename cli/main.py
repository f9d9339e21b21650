"""plansight checks PDDL domains, problems and plans and LTL goals: it reports mistakes with exact
locations and what to do, simulates plans and scores them against reference plans, decides whether
generated problems match a reference problem, and serves all of this to editors as a language
server."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from plansight import __version__
from plansight.batch_gc import collector_off
from plansight.bundle_paths import activate as activate_bundle

# Each command's options live in its own module, which this module imports only for the command being run
# (or every one for the top-level help): a command module may need heavy imports at its top, and
# `plansight lint small.pddl` should not pay for `format` or `grade` (docs/cli.md lists the commands).
_COMMANDS = {
    "lint": "plansight.lint_command:add_lint_parser",
    "serve": "plansight.main:_add_serve_parser",
    "codes": "plansight.codes_command:add_codes_parser",
    "ltl": "plansight.ltl_command:add_ltl_parser",
    "format": "plansight.format_command:add_format_parser",
    "equiv": "plansight.equiv_command:add_equiv_parser",
    "grade": "plansight.grade_command:add_grade_parser",
    "evaluate": "plansight.evaluate_command:add_evaluate_parser",
    "plan": "plansight.plan_command:add_plan_parser",
    "truth": "plansight.truth_command:add_truth_parser",
    "iou": "plansight.iou_command:add_iou_parser",
    "model": "plansight.model_command:add_model_parser",
    "solve": "plansight.solve_command:add_solve_parser",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``plansight`` argument parser with every subcommand registered, or just ``only`` (a command the
    command line names first, which is all that parsing it needs).
    """
    parser = argparse.ArgumentParser(
        prog="plansight", description=__doc__,
        epilog="Run `plansight COMMAND --help` for what a command does and its options. Exit codes: "
        "0 nothing wrong, 1 problems found, 2 usage error or unreadable input.",
    )
    parser.add_argument("--version", action="version", version=f"plansight {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, target in _COMMANDS.items():
        if only is None or name == only:
            module, function = target.split(":")
            getattr(importlib.import_module(module), function)(sub)
    return parser


def _add_serve_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    serve = sub.add_parser(
        "serve", help="run the language server for editors (stdio by default)",
        description="Run the plansight language server, which gives any LSP editor diagnostics as you "
        "type, hover, completion, formatting, plan simulation and more for PDDL and LTL files.")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default; accepted for editors)")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code; a closed output pipe or Ctrl-C ends it quietly."""
    activate_bundle()  # the .vsix's compiled modules for this Python and its WordNet, before any import
    arguments = list(sys.argv[1:] if argv is None else argv)
    first = arguments[0] if arguments else None
    parser = build_parser(first if first in _COMMANDS else None)
    args = parser.parse_args(arguments)
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
