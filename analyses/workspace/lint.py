"""Lint one file end to end: parse, semantic checks, and the cross-file checks its partners allow.

The CLI and the language server both lint through :class:`Analyzer`, so a file gets the same
diagnostics in the terminal and in the editor; they differ only in the :class:`FileSource` they give
it (the disk, or open buffers over the disk) and in its :class:`AnalyzerOptions`. An :class:`Analyzer`
may be called from worker threads: its only mutable state is its :class:`AnalyzerCaches`, which are
thread-safe. Whether the garbage collector runs meanwhile is the caller's decision (the CLI's for a
batch, the server's for its worker threads), never the analyzer's.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

from plansight.analyses.checks.domain import check_domain
from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.memo import Memo
from plansight.analyses.semantics.budget import DEFAULT_MAX_UNITS, DEFAULT_TIME_LIMIT_S, Cancelled, WorkBudget
from plansight.analyses.syntax.documents import FileKind, ParsedDocument, parse_document
from plansight.analyses.syntax.lexical import Header, first_line_span, sniff_header, sniff_kind
from plansight.analyses.syntax.reading import MAX_FILE_BYTES, read_text_file
from plansight.analyses.workspace.association import Association, Associator
from plansight.analyses.workspace.pairing import FolderFiles
from plansight.analyses.workspace.sources import DiskSource, ExplainsFailures, FileSource, MemorySource

if TYPE_CHECKING:
    from plansight.analyses.checks.problem_incremental import ProblemChecker

__all__ = [
    "Analyzer",
    "AnalyzerCaches",
    "AnalyzerOptions",
    "DiskSource",
    "FileSource",
    "LintResult",
    "MemorySource",
    "find_files",
]

log = logging.getLogger(__name__)
_T = TypeVar("_T")

LINTED_SUFFIXES = (".pddl", ".plan", ".soln", ".sol", ".ltl")
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFORMATION: 2, Severity.HINT: 3}


@dataclass(frozen=True, slots=True)
class LintResult:
    """What ``plansight lint`` reports for one file, with the domain and problem it was checked against."""

    path: str
    kind: FileKind
    text: str
    diagnostics: tuple[Diagnostic, ...]
    domain_path: str | None = None
    problem_path: str | None = None


@dataclass(frozen=True, slots=True)
class AnalyzerOptions:
    """How an :class:`Analyzer` links and compares files: fixed for its lifetime, so that an analysis
    running in a worker thread never sees settings change under it (the server builds a new analyzer
    with new options when the editor's settings change)."""

    domain_globs: tuple[tuple[str, str], ...] = ()
    """(glob, domain path) pairs from the editor's settings, tried after directives and before the
    folder conventions."""
    reference_globs: tuple[tuple[str, str], ...] = ()
    """(glob, reference problem) pairs from the editor's ``referenceGlobs`` (absolute paths); a
    problem linked to a reference, by these or a ``; @reference`` line, is checked for equivalence."""
    equivalence_budget: tuple[int, float] = (200_000, 10.0)
    """(states, seconds) the exact search may spend on a domain without rules."""
    simulation_budget: tuple[float | None, int | None] = (DEFAULT_TIME_LIMIT_S, DEFAULT_MAX_UNITS)
    """(seconds, units of work) simulating a plan may spend (analyses/semantics/budget.py); past it the
    plan gets a ``budget-exceeded`` diagnostic instead of a verdict."""
    simulation_epsilon: float = 0.01
    """A temporal plan's tolerance, as VAL's ``Validate -t`` (docs/beyond-classical-temporal.md)."""
    stream_above: int | None = None
    """Problems longer than this many characters are checked a chunk at a time, in bounded memory
    (``large_problem.py``), and other files over the full analysis's limit are refused; None (the
    editor's choice: it never opens such files) analyses every file in full."""


def _parse_group(key: tuple[str, str]) -> bool:
    """Domains apart from the rest: every problem of a folder needs its domain again, while a problem
    is needed again only by the plans linted right after it."""
    return sniff_kind(key[1]) == "domain"


class AnalyzerCaches:
    """What an analyzer remembers between files: parses by (path, text), and the equivalence check's
    prepared references and verdicts by the texts involved, so that the editor's code lens, asked
    right after the diagnostics, gets the verdict the lint computed. The server keeps one per server
    instance and hands it to each short-lived analyzer it builds.

    The model of a 1 MB problem is about 50 MB, so a batch keeps only what later files need: the
    ``per_kind`` most recent domains and the ``per_kind`` most recent other files (a problem for the
    plans beside it). Memory then grows with the largest files, not with the folder. ``folders``
    remembers the ``folders`` most recent folder listings indexed for finding a problem's domain (a few
    bytes per file name): every problem of a folder needs the same one. ``headers`` remembers what the
    ``headers`` most recently sniffed files declare (``(define (domain NAME)``...) by path alone, so
    it is for a run over files that do not change meanwhile (the CLI's); 0, the default, keeps none.
    """

    def __init__(self, parses: int = 4, references: int = 16, verdicts: int = 256,
                 per_kind: int = 2, folders: int = 16, headers: int = 0, problem_checks: int = 0) -> None:
        self.parses: Memo[tuple[str, str], ParsedDocument] = Memo(
            parses, group=_parse_group, per_group=per_kind)
        self.references: Memo[Hashable, object] = Memo(references)
        self.verdicts: Memo[Hashable, object] = Memo(verdicts)
        self.folders: Memo[tuple[str, tuple[str, ...]], FolderFiles] = Memo(folders)
        self.headers: Memo[str, Header | None] = Memo(headers)
        self.incremental = problem_checks > 0
        self.problem_checks: Memo[str, ProblemChecker] = Memo(problem_checks)
        """per problem path, the checks of its latest version, which the next version's reuse
        (``checks/problem_incremental.py``): for an editor, where a file changes a little at a time;
        0, the default, checks every problem from scratch (a batch sees each file once)"""


class Analyzer:
    """Parses (with a cache keyed by path and text) and lints files read from a :class:`FileSource`."""

    def __init__(self, source: FileSource, options: AnalyzerOptions | None = None,
                 caches: AnalyzerCaches | None = None) -> None:
        self.source = source
        self.options = options if options is not None else AnalyzerOptions()
        self.caches = caches if caches is not None else AnalyzerCaches()
        # Not an Associator kept here: it would hold ``self.parse``, a reference cycle that keeps each
        # analyzer (and its source: every open buffer's text, in the server) alive until a full collection.

    def parse(self, path: str, text: str | None = None) -> ParsedDocument | None:
        """The parsed document, or None when ``text`` is not given and the file cannot be read."""
        if text is None:
            text = self.source.read(path)
            if text is None:
                return None
        known = text
        return self.caches.parses.get((path, text), lambda: parse_document(path, known))

    def _parse_partner(self, path: str, text: str | None = None) -> ParsedDocument | None:
        """:meth:`parse` for a partner file; when large files are checked a chunk at a time, one too
        large to model in full is none (a plan beside a 200 MB problem must not build its model)."""
        if text is None:
            text = self.source.read(path)
        if text is None or (self.options.stream_above is not None and len(text) > MAX_FILE_BYTES):
            return None
        return self.parse(path, text)

    def associate(self, document: ParsedDocument, domain: str | None = None,
                  problem: str | None = None) -> Association:
        """The partners of a problem or plan (an empty association for anything else)."""
        associator = Associator(self.source, self._parse_partner, self.options.domain_globs,
                                self.caches.folders, self.caches.headers)
        if document.kind == "problem":
            return associator.for_problem(document, domain)
        if document.kind == "plan":
            return associator.for_plan(document, domain, problem)
        if document.kind == "ltl":
            from plansight.analyses.workspace.ltl_links import associate_ltl  # the LTL model, for LTL only

            return associate_ltl(associator, document, domain, problem)
        return Association()

    def lint(self, path: str, text: str | None = None, domain: str | None = None,
             problem: str | None = None, cancelled: Callable[[], bool] | None = None) -> LintResult:
        """Every diagnostic for one file, sorted by position; never raises for bad input.

        ``domain`` / ``problem`` override the association rules (the CLI's flags). A crash inside one
        stage becomes an ``internal-error`` diagnostic and the other stages still run. ``cancelled``
        is asked during the long equivalence search and plan simulation: once it is true they stop and
        their diagnostics are left out (the editor drops such a result anyway: a newer text is coming).
        """
        if text is None:
            text = self.source.read(path)
            if text is None:
                return LintResult(path, "unknown", "", (self._unreadable(path),))
        diagnostics: list[Diagnostic] = []
        if self.options.stream_above is not None and len(text) > self.options.stream_above:
            return self._lint_large(path, text, domain, problem, cancelled)
        document = _guarded("parsing", path, text, diagnostics, lambda: self.parse(path, text))
        if document is None:
            return LintResult(path, "unknown", text, tuple(diagnostics))
        diagnostics.extend(document.diagnostics)
        association = Association()
        if document.kind == "unknown":
            diagnostics.append(make(
                "unknown-file-kind",
                f"`{os.path.basename(path)}` is neither a PDDL domain or problem (`(define (domain ...` / "
                "`(define (problem ...`) nor a plan (`.plan`, `.soln`, `.sol`, `.txt`), "
                "so it is not checked.",
                first_line_span(text)))
        elif document.kind in ("problem", "plan", "ltl"):
            found = _guarded("linking partner files", path, text, diagnostics,
                             lambda: self.associate(document, domain, problem))
            if found is not None:
                association = found
                diagnostics.extend(found.diagnostics)
        diagnostics.extend(self._semantic(document, association, diagnostics, cancelled))
        diagnostics.sort(key=_position_order)
        return LintResult(path, document.kind, text, tuple(diagnostics),
                          association.domain_path, association.problem_path)

    def _lint_large(self, path: str, text: str, domain: str | None, problem: str | None,
                    cancelled: Callable[[], bool] | None) -> LintResult:
        """A problem checked a chunk at a time; any other file refused when over the full analysis's limit."""
        from plansight.analyses.syntax.documents import detect_kind
        from plansight.analyses.workspace.large_problem import (
            FULL_ANALYSIS_CHARS,
            lint_large_problem,
            not_a_problem,
        )

        kind = detect_kind(path, text)
        if kind != "problem":
            if len(text) <= FULL_ANALYSIS_CHARS:
                full = Analyzer(self.source, replace(self.options, stream_above=None), self.caches)
                return full.lint(path, text, domain, problem, cancelled)
            return LintResult(path, kind, text, (not_a_problem(path, text, kind),))
        diagnostics: list[Diagnostic] = []
        found = _guarded("checking a chunk at a time", path, text, diagnostics,
                         lambda: lint_large_problem(path, text, domain, self.associate,
                                                    self.options.reference_globs))
        domain_path = None
        if found is not None:
            diagnostics.extend(found[0])
            domain_path = found[1]
        diagnostics.sort(key=_position_order)
        return LintResult(path, "problem", text, tuple(diagnostics), domain_path)

    def _semantic(self, document: ParsedDocument, association: Association,
                  diagnostics: list[Diagnostic],
                  cancelled: Callable[[], bool] | None = None) -> list[Diagnostic]:
        path, text = document.path, document.text
        linked_domain = association.domain.domain if association.domain is not None else None
        linked_problem = association.problem.problem if association.problem is not None else None
        if document.domain is not None:
            model_domain = document.domain
            found = _guarded("check_domain", path, text, diagnostics,
                             lambda: check_domain(model_domain)) or []
            if document.directive("reference") is not None and not any(
                    d.severity == Severity.ERROR for d in (*diagnostics, *found)):
                from plansight.analyses.workspace.domain_reference_lint import domain_reference_diagnostics

                found += _guarded("comparing with the reference domain", path, text, diagnostics,
                                  lambda: domain_reference_diagnostics(self, document)) or []
            return found
        if document.problem is not None:
            model_problem = document.problem
            from plansight.analyses.checks.problem import check_problem  # only for a problem

            caches = self.caches
            if caches.incremental:
                from plansight.analyses.checks.problem_incremental import ProblemChecker

                check = caches.problem_checks.get(path, ProblemChecker).check
            else:
                check = check_problem
            found = _guarded("check_problem", path, text, diagnostics,
                             lambda: check(model_problem, linked_domain)) or []
            if not any(d.severity == Severity.ERROR for d in (*diagnostics, *found)):
                found += _guarded("comparing with the reference problem", path, text, diagnostics,
                                  lambda: self._equivalence(document, cancelled)) or []
            return found
        if document.plan is not None:
            # imported here: plan simulation is a third of the lint path's imports, which a run over
            # domains and problems (and `plansight lint small.pddl`'s start-up) need not pay for
            from plansight.analyses.checks.plan import check_plan, simulation_diagnostics

            model_plan = document.plan
            static = _guarded("check_plan", path, text, diagnostics,
                              lambda: check_plan(model_plan, linked_problem, linked_domain)) or []
            budget = WorkBudget(*self.options.simulation_budget, cancelled=cancelled)
            return static + (_guarded("simulating", path, text, diagnostics, lambda: _uncancelled(
                path, lambda: simulation_diagnostics(text, model_plan, linked_problem, linked_domain,
                                                     (*diagnostics, *static), budget,
                                                     self.options.simulation_epsilon))) or [])
        if document.ltl is not None:
            from plansight.analyses.ltl.check import check_ltl
            from plansight.analyses.workspace.ltl_links import link_diagnostics

            formula = document.ltl.formula
            return _guarded("check_ltl", path, text, diagnostics, lambda: [
                *check_ltl(formula, linked_domain, linked_problem),
                *link_diagnostics(document, self.source, self.parse)]) or []
        return []

    def _equivalence(self, document: ParsedDocument,
                     cancelled: Callable[[], bool] | None) -> list[Diagnostic]:
        from plansight.analyses.workspace.references import find_reference

        options = self.options
        if find_reference(document, options.reference_globs) is None:
            return []
        from plansight.analyses.equivalence.goal_closure import Interrupted
        from plansight.analyses.workspace.equivalence_lint import (  # networkx only when needed
            equivalence_diagnostics,
            lint_budget,
        )

        budget = lint_budget(*options.equivalence_budget)
        try:
            return equivalence_diagnostics(self, document, options.reference_globs, budget, cancelled)
        except Interrupted as stopped:
            log.info("comparing %s with its reference stopped: %s", document.path, stopped)
            return []

    def _unreadable(self, path: str) -> Diagnostic:
        reason = self.source.failure(path) if isinstance(self.source, ExplainsFailures) else (
            "missing or unreadable")
        return make("unreadable-file", f"`{path}` could not be read: {reason}.", Span(0, 0))


def _guarded(stage: str, path: str, text: str, diagnostics: list[Diagnostic],
             run: Callable[[], _T]) -> _T | None:
    """Run one stage; a crash becomes a diagnostic so one bug never hides the other checks' results."""
    try:
        return run()
    except Exception as error:
        log.debug("internal error while %s %s", stage, path, exc_info=True)
        diagnostics.append(make(
            "internal-error",
            f"plansight failed while {stage} this file ({type(error).__name__}: {error}). This is a bug "
            "in plansight, not in your file; the other checks still ran. The traceback is logged at "
            "debug level (`plansight lint --debug`).",
            first_line_span(text)))
        return None


def _uncancelled(path: str, run: Callable[[], list[Diagnostic]]) -> list[Diagnostic]:
    """``run()``, or nothing when the caller's ``cancelled`` hook stopped it (the editor drops the
    result of a stale text anyway: a newer one is being analysed)."""
    try:
        return run()
    except Cancelled:
        log.info("simulating %s stopped: a newer text replaces it", path)
        return []


def _position_order(diagnostic: Diagnostic) -> tuple[int, int, int, str]:
    span = diagnostic.span
    return span.start, span.end, _SEVERITY_ORDER.get(diagnostic.severity, 4), diagnostic.code


def find_files(paths: Iterable[str]) -> list[str]:
    """The files to lint: given files as they are, folders searched recursively for PDDL and plans.

    Inside folders, ``.txt`` files count as plans only next to a problem of the same stem (a folder
    of notes must not be linted as plans); hidden folders and tool folders are skipped.
    """
    found: list[str] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        key = os.path.normcase(os.path.normpath(path))
        if key not in seen:
            seen.add(key)
            found.append(path)

    for path in paths:
        if not os.path.isdir(path):
            add(path)
            continue
        for folder, subfolders, files in os.walk(path):
            subfolders[:] = sorted(name for name in subfolders
                                   if not name.startswith(".") and name not in SKIPPED_FOLDERS)
            names = set(files)
            for name in sorted(files):
                lowered = name.lower()
                if lowered.endswith(LINTED_SUFFIXES) or (
                        lowered.endswith(".txt") and _problem_beside(folder, name[:-4], names)):
                    add(os.path.normpath(os.path.join(folder, name)))
    return found


def _problem_beside(folder: str, stem: str, names: set[str]) -> bool:
    partner = stem + ".pddl"
    if partner not in names:
        return False
    head = read_text_file(os.path.join(folder, partner), limit=1 << 16).text
    if head is None:
        return False
    header = sniff_header(head)
    return header is not None and header.kind == "problem"
