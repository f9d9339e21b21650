"""``plansight lint --format json``: the document of docs/cli.md, for scripts and CI.

Positions are LSP-style (0-based line, UTF-16 character, end-exclusive) so a tool can feed them
straight to an editor; the keys are part of the product contract.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from plansight.analyses.diagnostics.diagnostic import Severity
from plansight.analyses.diagnostics.spans import LineIndex, Span
from plansight.analyses.workspace.lint import LintResult


def lsp_range(index: LineIndex, span: Span) -> dict[str, dict[str, int]]:
    """A span as an LSP range, so JSON consumers can reuse editor tooling."""
    start, end = index.range(span)
    return {"start": {"line": start.line, "character": start.character},
            "end": {"line": end.line, "character": end.character}}


def lint_json(results: Sequence[LintResult],
              extracted: Mapping[str, dict[str, Any] | None] | None = None) -> dict[str, Any]:
    """The lint results as the ``--format json`` document, with totals of errors and warnings, and with
    ``--extract`` what was removed from each file."""
    files = []
    errors = warnings = 0
    for result in results:
        index = LineIndex(result.text)
        diagnostics = []
        for diagnostic in result.diagnostics:
            errors += diagnostic.severity is Severity.ERROR
            warnings += diagnostic.severity is Severity.WARNING
            diagnostics.append({
                "code": diagnostic.code,
                "severity": diagnostic.severity.value,
                "message": diagnostic.message,
                "range": lsp_range(index, diagnostic.span),
            })
        entry: dict[str, Any] = {"path": result.path, "kind": result.kind, "diagnostics": diagnostics}
        if extracted is not None:
            entry["extracted"] = extracted.get(result.path)
        files.append(entry)
    return {"files": files, "summary": {"files": len(results), "errors": errors, "warnings": warnings}}
