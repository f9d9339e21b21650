"""Lint one file end to end: parse, semantic checks, and the cross-file checks its partners allow.

The CLI and the language server both lint through :class:`Analyzer`, so a file gets the same
diagnostics in the terminal and in the editor; they differ only in the :class:`FileSource` they give
it (the disk, or open buffers over the disk). An :class:`Analyzer` may be called from worker threads:
its only mutable state is the parse cache, behind a lock.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from plansight.analyses.checks.domain import check_domain
from plansight.analyses.checks.plan import check_plan, simulation_diagnostics
from plansight.analyses.checks.problem import check_problem
from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.gc_pause import gc_paused
from plansight.analyses.ltl.check import check_ltl
from plansight.analyses.syntax.documents import FileKind, ParsedDocument, parse_document
from plansight.analyses.syntax.lexical import first_line_span, sniff_header
from plansight.analyses.workspace.association import Association, Associator
from plansight.analyses.workspace.ltl_links import associate_ltl, link_diagnostics
from plansight.analyses.workspace.sources import DiskSource, ExplainsFailures, FileSource, MemorySource

__all__ = [
    "Analyzer",
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


class Analyzer:
    """Parses (with a cache keyed by path and text) and lints files read from a :class:`FileSource`.

    ``domain_globs`` are (glob, domain path) pairs from the editor's settings, tried after directives
    and before the folder conventions.
    """

    reference_globs: Sequence[tuple[str, str]] = ()
    """(glob, reference problem) pairs from the editor's ``referenceGlobs`` (absolute paths); a
    problem linked to a reference, by these or a ``; @reference`` line, is checked for equivalence."""
    equivalence_budget: tuple[int, float] = (200_000, 10.0)
    """(states, seconds) the exact search may spend on a domain without rules."""

    def __init__(self, source: FileSource, domain_globs: Sequence[tuple[str, str]] = (),
                 cache_size: int = 512) -> None:
        self.source = source
        self._cache: OrderedDict[tuple[str, str], ParsedDocument] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        # Not an Associator kept here: it would hold ``self.parse``, a reference cycle that keeps each
        # analyzer (and its source: every open buffer's text, in the server) alive until a full collection.
        self._domain_globs = tuple(domain_globs)

    def parse(self, path: str, text: str | None = None) -> ParsedDocument | None:
        """The parsed document, or None when ``text`` is not given and the file cannot be read."""
        if text is None:
            text = self.source.read(path)
            if text is None:
                return None
        key = (path, text)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        document = parse_document(path, text)  # outside the lock: parsing a big file must not block others
        with self._lock:
            self._cache[key] = document
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return document

    def associate(self, document: ParsedDocument, domain: str | None = None,
                  problem: str | None = None) -> Association:
        """The partners of a problem or plan (an empty association for anything else)."""
        associator = Associator(self.source, self.parse, self._domain_globs)
        if document.kind == "problem":
            return associator.for_problem(document, domain)
        if document.kind == "plan":
            return associator.for_plan(document, domain, problem)
        if document.kind == "ltl":
            return associate_ltl(associator, document, domain, problem)
        return Association()

    def lint(self, path: str, text: str | None = None, domain: str | None = None,
             problem: str | None = None, cancelled: Callable[[], bool] | None = None) -> LintResult:
        """Every diagnostic for one file, sorted by position; never raises for bad input.

        ``domain`` / ``problem`` override the association rules (the CLI's flags). A crash inside one
        stage becomes an ``internal-error`` diagnostic and the other stages still run. ``cancelled``
        is asked during the long equivalence search: once it is true the search stops, its diagnostic
        is left out (the editor drops such a result anyway: a newer text is coming).
        """
        with gc_paused():  # see gc_pause.py: the checks of a large problem allocate as much as its parse
            return self._lint(path, text, domain, problem, cancelled)

    def _lint(self, path: str, text: str | None, domain: str | None, problem: str | None,
              cancelled: Callable[[], bool] | None = None) -> LintResult:
        if text is None:
            text = self.source.read(path)
            if text is None:
                return LintResult(path, "unknown", "", (self._unreadable(path),))
        diagnostics: list[Diagnostic] = []
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

    def _semantic(self, document: ParsedDocument, association: Association,
                  diagnostics: list[Diagnostic],
                  cancelled: Callable[[], bool] | None = None) -> list[Diagnostic]:
        path, text = document.path, document.text
        linked_domain = association.domain.domain if association.domain is not None else None
        linked_problem = association.problem.problem if association.problem is not None else None
        if document.domain is not None:
            model_domain = document.domain
            return _guarded("check_domain", path, text, diagnostics, lambda: check_domain(model_domain)) or []
        if document.problem is not None:
            model_problem = document.problem
            found = _guarded("check_problem", path, text, diagnostics,
                             lambda: check_problem(model_problem, linked_domain)) or []
            if not any(d.severity == Severity.ERROR for d in (*diagnostics, *found)):
                found += _guarded("comparing with the reference problem", path, text, diagnostics,
                                  lambda: self._equivalence(document, cancelled)) or []
            return found
        if document.plan is not None:
            model_plan = document.plan
            static = _guarded("check_plan", path, text, diagnostics,
                              lambda: check_plan(model_plan, linked_problem, linked_domain)) or []
            return static + (_guarded("simulating", path, text, diagnostics, lambda: simulation_diagnostics(
                text, model_plan, linked_problem, linked_domain, (*diagnostics, *static))) or [])
        if document.ltl is not None:
            formula = document.ltl.formula
            return _guarded("check_ltl", path, text, diagnostics, lambda: [
                *check_ltl(formula, linked_domain, linked_problem),
                *link_diagnostics(document, self.source, self.parse)]) or []
        return []

    def _equivalence(self, document: ParsedDocument,
                     cancelled: Callable[[], bool] | None) -> list[Diagnostic]:
        from plansight.analyses.workspace.references import find_reference

        if find_reference(document, self.reference_globs) is None:
            return []
        from plansight.analyses.equivalence.goal_closure import Interrupted
        from plansight.analyses.workspace.equivalence_lint import (  # networkx only when needed
            equivalence_diagnostics,
            lint_budget,
        )

        budget = lint_budget(*self.equivalence_budget)
        try:
            return equivalence_diagnostics(self, document, self.reference_globs, budget, cancelled)
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
    try:
        with open(os.path.join(folder, partner), "rb") as handle:
            head = handle.read(1 << 16).decode("utf-8", errors="replace")
    except OSError:
        return False
    header = sniff_header(head)
    return header is not None and header.kind == "problem"
