"""``plansight format``: the editor's formatter on the command line.

Like every subcommand it only reads files by default (docs/cli.md): it prints the formatted text, a
diff (``--diff``) or just whether files would change (``--check``, for CI). ``--write`` is the one
explicit opt-in that rewrites files in place. A file with syntax errors is never formatted: it is
reported and counts as a problem (exit 1), since guessing its structure could lose what it says.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from dataclasses import dataclass
from typing import Any

from plansight.analyses.editing.formatter import DEFAULT_INDENT, DEFAULT_WIDTH, format_document


def add_format_parser(sub: Any) -> None:
    """Register ``plansight format`` on the top-level parser."""
    parser = sub.add_parser(
        "format", help="print PDDL domains, problems and plans in the canonical layout",
        description="Formats domains, problems and plans (folders recursively). Prints the result; "
                    "never writes unless --write is given.")
    parser.add_argument("paths", nargs="+", metavar="PATH")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="print nothing but the files that would change; exit 1 if any would")
    mode.add_argument("--diff", action="store_true", help="print a unified diff per file that would change")
    mode.add_argument("--write", action="store_true", help="rewrite the files in place (the one exception "
                                                           "to 'subcommands never write')")
    parser.add_argument("--indent", type=int, default=DEFAULT_INDENT, help="spaces per level (default 2)")
    parser.add_argument("--line-width", type=int, default=DEFAULT_WIDTH,
                        help="forms longer than this are broken over lines (default 100)")
    parser.add_argument("--format", choices=("text", "json"), default="text")


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What formatting one file gave: its text before and after, or why it was left alone."""

    path: str
    original: str | None
    formatted: str | None
    reason: str
    bom: bool = False
    """The file starts with a UTF-8 byte-order mark, which ``--write`` keeps."""

    @property
    def status(self) -> str:
        """``changed``, ``unchanged``, ``skipped`` (the formatter refused) or ``unreadable``."""
        if self.original is None:
            return "unreadable"
        if self.formatted is None:
            return "skipped"
        return "unchanged" if self.formatted == self.original else "changed"

    def diff(self) -> str:
        """A unified diff from the original to the formatted text; empty when either is missing."""
        if self.original is None or self.formatted is None:
            return ""
        return "".join(difflib.unified_diff(
            self.original.splitlines(keepends=True), self.formatted.splitlines(keepends=True),
            f"{self.path}", f"{self.path} (formatted)"))


def run_format(args: argparse.Namespace) -> int:
    """Format the files under the given paths and print, check, diff or write them as asked."""
    from plansight.analyses.workspace.lint import find_files

    if not 0 <= args.indent <= 16 or args.line_width < 20:
        print("plansight format: error: --indent must be 0-16 and --line-width at least 20", file=sys.stderr)
        return 2
    files = find_files(args.paths)
    if not files:
        print("plansight format: error: no PDDL files (.pddl, .plan, .soln, .sol) found in "
              + ", ".join(args.paths), file=sys.stderr)
        return 2
    outcomes = [_format_one(path, args) for path in files]
    if args.write:
        for outcome in outcomes:
            if outcome.status == "changed":
                assert outcome.formatted is not None
                try:
                    with open(outcome.path, "w", encoding="utf-8", newline="") as stream:
                        stream.write(("\ufeff" if outcome.bom else "") + outcome.formatted)
                except OSError as error:
                    print(f"plansight format: error: cannot write {outcome.path}: {error.strerror}",
                          file=sys.stderr)
                    return 2
    if args.format == "json":
        _write_json(outcomes, args)
    else:
        _write_text(outcomes, args)
    if any(o.status == "unreadable" for o in outcomes):
        return 2
    if any(o.status == "skipped" for o in outcomes):
        return 1
    if args.check and any(o.status == "changed" for o in outcomes):
        return 1
    return 0


def _format_one(path: str, args: argparse.Namespace) -> FileOutcome:
    """Read as ``plansight lint`` reads (the shared policy in ``analyses/syntax/reading.py``), so both
    commands accept and refuse the same files with the same words."""
    from plansight.analyses.syntax.reading import read_text_file

    read = read_text_file(path)
    if read.text is None:
        return FileOutcome(path, None, None, f"`{path}` could not be read: {read.failure}")
    if read.lossy and args.write:
        return FileOutcome(path, read.text, None, "it is not valid UTF-8; rewriting it would replace those "
                                                  "bytes with U+FFFD (save it as UTF-8 first)")
    result = format_document(path, read.text, args.indent, args.line_width)
    return FileOutcome(path, read.text, result.text, result.reason, read.bom)


def _write_text(outcomes: list[FileOutcome], args: argparse.Namespace) -> None:
    for outcome in outcomes:
        if outcome.status in ("unreadable", "skipped"):
            print(f"{outcome.path}: not formatted: {outcome.reason}", file=sys.stderr)
            continue
        if args.check:
            if outcome.status == "changed":
                print(f"would reformat {outcome.path}")
        elif args.diff:
            sys.stdout.write(outcome.diff())
        elif args.write:
            if outcome.status == "changed":
                print(f"reformatted {outcome.path}")
        else:
            assert outcome.formatted is not None
            if len(outcomes) > 1:
                print(f"==> {outcome.path} <==")
            sys.stdout.write(outcome.formatted)
    if args.check or args.write:
        changed = sum(o.status == "changed" for o in outcomes)
        verb = "reformatted" if args.write else "would be reformatted"
        print(f"{changed} of {len(outcomes)} file(s) {verb}", file=sys.stderr)


def _write_json(outcomes: list[FileOutcome], args: argparse.Namespace) -> None:
    rows = []
    for outcome in outcomes:
        row: dict[str, Any] = {"path": outcome.path, "status": outcome.status,
                               "reason": outcome.reason or None}
        if args.diff:
            row["diff"] = outcome.diff()
        elif not args.check and not args.write:
            row["formatted"] = outcome.formatted
        rows.append(row)
    summary = {status: sum(o.status == status for o in outcomes)
               for status in ("changed", "unchanged", "skipped", "unreadable")}
    report = {"files": rows, "summary": {"files": len(outcomes), **summary}}
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
