"""The ``plansight`` console script: parses arguments and dispatches to one module per subcommand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__
from .lint_command import add_lint_parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="plansight", description=__doc__)
    parser.add_argument("--version", action="version", version=f"plansight {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    add_lint_parser(sub)

    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default; accepted for editors)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "lint":
        from .lint_command import run_lint

        return run_lint(args)
    if args.command == "serve":
        from .server_command import run_serve

        return run_serve(args)
    parser.print_usage(sys.stderr)
    return 2
