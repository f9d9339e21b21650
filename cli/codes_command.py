"""``plansight codes``: the catalogue of diagnostic codes, for users, CI filters and the README.

The README's table is this command's Markdown output (a test keeps the two identical), so the
documentation cannot drift from the codes the tool really emits.
"""

from __future__ import annotations

import argparse
import json
import sys

from plansight.analyses.diagnostics.diagnostic import CODES


def add_codes_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``plansight codes`` on the top-level parser."""
    codes = sub.add_parser(
        "codes", help="list every diagnostic code with its default severity",
        description="List every diagnostic code plansight can report, with its default severity and "
        "what it means, e.g. to filter or re-rank codes in CI (lint --severity-override).")
    codes.add_argument("--format", choices=("text", "json", "markdown"), default="text")


def markdown_table() -> str:
    """The diagnostic catalogue as a Markdown table, the form the documentation embeds."""
    lines = ["| code | default severity | what it means |", "|---|---|---|"]
    for info in CODES.values():
        summary = info.summary.replace("|", "\\|")
        lines.append(f"| `{info.code}` | {info.severity.value} | {summary} |")
    return "\n".join(lines) + "\n"


def run_codes(args: argparse.Namespace) -> int:
    """Print every diagnostic code with its default severity in the requested format; always succeeds."""
    if args.format == "json":
        rows = [{"code": i.code, "severity": i.severity.value, "summary": i.summary} for i in CODES.values()]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(markdown_table())
    else:
        width = max(len(code) for code in CODES)
        for info in CODES.values():
            sys.stdout.write(f"{info.code:<{width}}  {info.severity.value:<11}  {info.summary}\n")
    return 0
