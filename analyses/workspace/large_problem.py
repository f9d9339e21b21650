"""``plansight lint`` on a file too large for a full analysis: a problem is checked a chunk at a time.

A full analysis keeps the model of the file, about 45 times its size in memory (docs/reliability.md,
"Why 50 MiB"). Above the analyzer's ``stream_above`` size (the CLI's setting; the editor never
streams) a problem is read through ``analyses/syntax/problem_stream.py`` and checked by
``analyses/checks/problem_stream.py``: the same diagnostics at the same positions, in memory a small
multiple of the file. What that reader cannot handle, and any other kind of file over the full
analysis's limit, gets one ``file-too-large`` error saying why, and nothing else is checked.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

from plansight.analyses.checks.problem_stream import StreamedProblem
from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.syntax.documents import FileKind, ParsedDocument, directives
from plansight.analyses.syntax.problem_stream import NotStreamable, ProblemStream
from plansight.analyses.syntax.reading import MAX_FILE_BYTES
from plansight.analyses.workspace.association import Association

log = logging.getLogger(__name__)

FULL_ANALYSIS_CHARS = MAX_FILE_BYTES
"""Files longer than this are never analysed in full, whatever their kind: a problem is streamed,
anything else refused."""

_NOTHING_ELSE = "Nothing else in it was checked."


def too_large(path: str, text: str, reason: str, offset: int = 0, *, rest: str = _NOTHING_ELSE,
              severity: Severity = Severity.ERROR) -> Diagnostic:
    """The error of a file that is not checked because of its size, with the reason."""
    at = min(offset, len(text))
    return make("file-too-large",
                f"`{os.path.basename(path)}` is too large to analyse fully ({len(text):,} characters): "
                f"{reason}. {rest}", Span(at, min(at + 1, len(text))), severity=severity)


def not_a_problem(path: str, text: str, kind: FileKind) -> Diagnostic:
    """The refusal of a file over the full analysis's limit that is not a problem."""
    return too_large(path, text, f"it is a {kind}, and only problems over {FULL_ANALYSIS_CHARS:,} "
                                 "characters are checked (a chunk at a time)")


def lint_large_problem(path: str, text: str, domain: str | None,
                       associate: Callable[[ParsedDocument, str | None], Association],
                       reference_globs: tuple[tuple[str, str], ...]) -> tuple[list[Diagnostic], str | None]:
    """The diagnostics of a problem checked a chunk at a time, and the path of the domain it was checked
    against; ``domain`` overrides the association rules, as for any file, and ``associate`` is the
    analyzer's own way of finding partners."""
    try:
        stream = ProblemStream(text)
        streamed = StreamedProblem(stream)
    except NotStreamable as refusal:
        return [too_large(path, text, refusal.reason, refusal.offset)], None
    document = ParsedDocument(path, text, "problem", streamed.problem, (), directives(text))
    association = associate(document, domain)
    linked = association.domain.domain if association.domain is not None else None
    try:
        found = streamed.check(linked)
    except NotStreamable as refusal:
        return [*association.diagnostics, too_large(path, text, refusal.reason, refusal.offset)], (
            association.domain_path)
    diagnostics = [*stream.syntax_diagnostics(), *association.diagnostics, *found]
    if not any(d.severity == Severity.ERROR for d in diagnostics):
        from plansight.analyses.workspace.references import find_reference

        if find_reference(document, reference_globs) is not None:
            diagnostics.append(too_large(
                path, text, "it is checked a chunk at a time, so it is not compared with its reference "
                "problem",
                rest="Every other check ran.", severity=Severity.WARNING))
    log.debug("%s checked a chunk at a time", path)
    return diagnostics, association.domain_path
