"""``plansight lint PATH...``: lint files and folders, report as text, JSON or SARIF.

Exit codes (docs/cli.md): 0 nothing wrong, 1 errors found (warnings too with ``--fail-on warning``),
2 a usage error or an input that cannot be read. The heavy imports wait until the command runs, so
``plansight --help`` and ``plansight serve`` do not pay for them.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from plansight.extract_option import add_extract_option, extraction_of, file_source, removal_summary

if TYPE_CHECKING:
    from plansight.analyses.workspace.lint import Analyzer, LintResult

SEVERITIES = ("error", "warning", "information", "hint")

log = logging.getLogger("plansight.lint")


def add_lint_parser(sub: Any) -> None:
    """Register ``plansight lint`` on the top-level parser."""
    lint = sub.add_parser(
        "lint", help="check PDDL domains, problems, plans and LTL goals for mistakes",
        description="Check PDDL domains, problems, plans and LTL goals and report every mistake with its "
                    "code, exact location and what to do about it; folders are searched recursively. "
                    "Exit code 0: nothing wrong, 1: errors found, 2: usage error or unreadable input.")
    lint.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to check")
    lint.add_argument("--domain", metavar="FILE", help="use this domain for every problem and plan")
    lint.add_argument("--problem", metavar="FILE", help="use this problem for every plan")
    lint.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                      help="report format (default: text)")
    lint.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    lint.add_argument("--severity", choices=SEVERITIES, default="hint",
                      help="report only diagnostics at least this severe (default: hint, i.e. all)")
    lint.add_argument("--fail-on", choices=("error", "warning"), default="error",
                      help="exit with 1 when a diagnostic at least this severe is reported (default: error)")
    lint.add_argument("--severity-override", action="append", default=[], metavar="CODE=LEVEL",
                      help="report CODE at LEVEL (error, warning, information, hint) or not at all (off); "
                           "repeatable, like the editor's plansight.diagnostics.severity setting")
    lint.add_argument("--concise", action="store_true",
                      help="text format: one line per diagnostic, without the source excerpt")
    lint.add_argument("--stream-above", type=int, default=None, metavar="CHARS",
                      help="check problems longer than CHARS characters a chunk at a time, in bounded memory "
                           "(default: 16 MiB; docs/reliability.md)")
    lint.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    lint.add_argument("--debug", action="store_true", help="log debug information (tracebacks) to stderr")
    add_extract_option(lint)


def run_lint(args: argparse.Namespace) -> int:
    """Check the files under the given paths and report in the requested format; the exit code says whether
    any error was found.
    """
    from plansight.analyses.diagnostics.severity_overrides import apply_severity_overrides
    from plansight.analyses.syntax.reading import MAX_STREAMED_FILE_BYTES, STREAM_ABOVE_CHARS
    from plansight.analyses.workspace.lint import Analyzer, AnalyzerCaches, AnalyzerOptions, find_files

    if args.debug:
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr,
                            format="%(levelname)s %(name)s: %(message)s")
    overrides, problems = _severity_overrides(args.severity_override)
    problems += _usage_problems(args)
    if problems:
        for problem in problems:
            print(f"plansight lint: error: {problem}", file=sys.stderr)
        return 2
    files = find_files(args.paths)
    if not files:
        print("plansight lint: error: no PDDL, plan or LTL files (.pddl, .plan, .soln, .sol, .ltl) found in "
              + ", ".join(args.paths), file=sys.stderr)
        return 2
    source = file_source(args, memoize=True, max_bytes=MAX_STREAMED_FILE_BYTES)
    # files do not change during a run: each file's header is sniffed once, however many problems search
    # its folder for their domain (a few dozen bytes per file)
    stream_above = STREAM_ABOVE_CHARS if args.stream_above is None else max(0, args.stream_above)
    analyzer = Analyzer(source, AnalyzerOptions(stream_above=stream_above), AnalyzerCaches(headers=100_000))
    threshold = SEVERITIES.index(args.severity)
    report = _Report(args)
    for result in _lint_all(analyzer, files, args):
        diagnostics = apply_severity_overrides(result.diagnostics, overrides)
        result = replace(result, diagnostics=tuple(
            d for d in diagnostics if SEVERITIES.index(d.severity.value) <= threshold))
        found = extraction_of(source, result.path)
        # the excerpts under each diagnostic show the file as written (extraction keeps its offsets)
        report.add(replace(result, text=found.original) if found else result,
                   found.to_json() if found else None)
    try:
        report.write()
    except BrokenPipeError:  # `plansight lint ... | head`: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError as error:
        print(f"plansight lint: error: cannot write {args.output or 'the report'}: {error.strerror or error}",
              file=sys.stderr)
        return 2
    return _exit_code(report.results, args.fail_on)


def _severity_overrides(flags: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """``--severity-override CODE=LEVEL`` flags, checked like ``plansight.diagnostics.severity``."""
    from plansight.analyses.diagnostics.severity_overrides import severity_override_problem

    overrides: dict[str, str] = {}
    problems = []
    for flag in flags:
        code, equals, level = (part.strip() for part in flag.partition("="))
        problem = (severity_override_problem(code, level) if equals
                   else "expected CODE=LEVEL, e.g. unused-parameter=off.")
        if problem is None:
            overrides[code] = level.lower()
        else:
            problems.append(f"--severity-override {flag}: {problem}")
    return overrides, problems


def _usage_problems(args: argparse.Namespace) -> list[str]:
    from plansight.file_args import file_flag_problems

    problems = [f"no such file or folder: {path}" for path in args.paths if not os.path.exists(path)]
    return problems + file_flag_problems(args, ("domain", "problem"))


def _lint_all(analyzer: Analyzer, files: Sequence[str], args: argparse.Namespace) -> Iterator[LintResult]:
    """The files' results one at a time: each file's model is freed before the next is parsed."""
    from plansight.progress import should_show, with_progress

    show = should_show(len(files), args.format == "text", args.no_progress)
    for path in with_progress(files, "Linting", show):
        yield _lint_one(analyzer, path, args)


def _lint_one(analyzer: Analyzer, path: str, args: argparse.Namespace) -> LintResult:
    """Lint one file; a crash outside the analyzer's own guards still only costs this file."""
    from plansight.analyses.diagnostics.diagnostic import make
    from plansight.analyses.diagnostics.spans import Span
    from plansight.analyses.workspace.lint import LintResult

    try:
        return analyzer.lint(path, domain=args.domain, problem=args.problem)
    except Exception as error:
        log.debug("internal error while linting %s", path, exc_info=True)
        message = (f"plansight failed on this file ({type(error).__name__}: {error}). This is a bug in "
                   "plansight; run with --debug for the traceback.")
        return LintResult(path, "unknown", "", (make("internal-error", message, Span(0, 0)),))


class _Report:
    """The report in the requested format, built file by file: what it needs from a file's text
    (lines and columns, source excerpts) is taken when the file is added, so no text or model is kept
    until the end of a run over a large folder."""

    def __init__(self, args: argparse.Namespace) -> None:
        self._args = args
        self._parts: list[Any] = []
        self._results: list[LintResult] = []

    @property
    def results(self) -> list[LintResult]:
        """The files' results without their texts (for the summary and the exit code)."""
        return self._results

    def add(self, result: LintResult, extracted: dict[str, Any] | None) -> None:
        """Render ``result`` now; ``extracted`` is what ``--extract`` removed from it (None: nothing, or
        the file was read strictly). The report mentions it only when ``--extract`` was given."""
        args = self._args
        if args.format == "text":
            from plansight.lint_text import file_section

            removed = args.extract and extracted is not None and extracted["removed"]
            note = "extracted: " + removal_summary(extracted) if removed and extracted else None
            self._parts.append(file_section(result, args.concise, note))
        elif args.format == "json":
            from plansight.lint_json import json_file

            self._parts.append(json_file(result, {result.path: extracted} if args.extract else None))
        else:
            from plansight.lint_sarif import sarif_results

            self._parts.extend(sarif_results(result))
        self._results.append(replace(result, text=""))

    def write(self) -> None:
        args = self._args
        render: Callable[[Any], None]
        if args.format == "text":
            from plansight.lint_text import summary, write_sections

            def render(stream: Any) -> None:
                write_sections(self._parts, summary(self._results), stream, concise=args.concise,
                               color=False if args.output else None)
        else:
            if args.format == "json":
                from plansight.lint_json import json_document

                document = json_document(self._parts)
            else:
                from plansight.lint_sarif import sarif_document

                document = sarif_document(self._parts)

            def render(stream: Any) -> None:
                json.dump(document, stream, indent=2, ensure_ascii=False)
                stream.write("\n")

        _write(render, args)


def _write(render: Callable[[Any], None], args: argparse.Namespace) -> None:
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="\n") as handle:
            render(handle)
        return
    if args.format == "text":
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(errors="replace")
        render(sys.stdout)
    else:
        # JSON is UTF-8 whatever the locale says, as consumers expect
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(encoding="utf-8")
        render(sys.stdout)
    sys.stdout.flush()


def _exit_code(results: Sequence[LintResult], fail_on: str) -> int:
    from plansight.analyses.diagnostics.diagnostic import Severity

    failing = {Severity.ERROR} if fail_on == "error" else {Severity.ERROR, Severity.WARNING}
    codes = [d for result in results for d in result.diagnostics]
    if any(d.code == "unreadable-file" for d in codes):
        return 2
    return 1 if any(d.severity in failing for d in codes) else 0
