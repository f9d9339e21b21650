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
    return json_document([json_file(result, extracted) for result in results])


def json_file(result: LintResult,
              extracted: Mapping[str, dict[str, Any] | None] | None = None) -> dict[str, Any]:
    """One file's entry of the document; built as soon as the file is linted, so that a batch can let
    go of its text."""
    index = LineIndex(result.text)
    diagnostics = [{
        "code": diagnostic.code,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "range": lsp_range(index, diagnostic.span),
    } for diagnostic in result.diagnostics]
    entry: dict[str, Any] = {"path": result.path, "kind": result.kind, "diagnostics": diagnostics}
    if extracted is not None:
        entry["extracted"] = extracted.get(result.path)
    return entry


def json_document(files: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The document of the files' entries, with the totals."""
    severities = [d["severity"] for entry in files for d in entry["diagnostics"]]
    errors = severities.count(Severity.ERROR.value)
    warnings = severities.count(Severity.WARNING.value)
    return {"files": list(files), "summary": {"files": len(files), "errors": errors, "warnings": warnings}}
