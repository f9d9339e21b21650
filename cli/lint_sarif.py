"""``plansight lint --format sarif``: SARIF 2.1.0, the format code-scanning services ingest.

Every code of the catalogue is a rule, so a result's ``ruleIndex`` is stable across runs. Columns are
UTF-16 code units (declared in ``columnKind``), 1-based, with an end column just past the region, as
SARIF defines them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from plansight import __version__
from plansight.analyses.diagnostics.diagnostic import CODES, Severity
from plansight.analyses.diagnostics.spans import LineIndex, Span
from plansight.analyses.workspace.lint import LintResult

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "note",
    Severity.HINT: "note",
}


def artifact_location(path: str, root: str) -> dict[str, str]:
    """A URI relative to ``root`` (the working directory) when the file is under it, else absolute."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, root)
    except ValueError:  # another drive on Windows
        relative = os.pardir
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(relative.replace(os.sep, "/")), "uriBaseId": "%SRCROOT%"}


def region(index: LineIndex, span: Span) -> dict[str, int]:
    """A span as a SARIF region (1-based lines and columns)."""
    start, end = index.range(span)
    return {"startLine": start.line + 1, "startColumn": start.character + 1,
            "endLine": end.line + 1, "endColumn": end.character + 1}


def lint_sarif(results: Sequence[LintResult], root: str | None = None) -> dict[str, Any]:
    """The lint results as a SARIF 2.1.0 log, paths relative to ``root``, for code-scanning services."""
    root = os.path.abspath(root or os.getcwd())
    return sarif_document([entry for result in results for entry in sarif_results(result, root)], root)


def sarif_results(result: LintResult, root: str | None = None) -> list[dict[str, Any]]:
    """One file's SARIF results; built as soon as the file is linted, so that a batch can let go of
    its text."""
    root = os.path.abspath(root or os.getcwd())
    rule_index = {code: position for position, code in enumerate(CODES)}
    entries = []
    index = LineIndex(result.text)
    location = artifact_location(result.path, root)
    for diagnostic in result.diagnostics:
        entry: dict[str, Any] = {
            "ruleId": diagnostic.code,
            "level": LEVELS[diagnostic.severity],
            "message": {"text": diagnostic.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": location,
                "region": region(index, diagnostic.span),
            }}],
        }
        if diagnostic.code in rule_index:
            entry["ruleIndex"] = rule_index[diagnostic.code]
        related = [{
            "id": number,
            "message": {"text": item.message},
            "physicalLocation": {"artifactLocation": location, "region": region(index, item.span)},
        } for number, item in enumerate(diagnostic.related) if item.path is None]
        if related:
            entry["relatedLocations"] = related
        entries.append(entry)
    return entries


def sarif_document(sarif_results: list[dict[str, Any]], root: str | None = None) -> dict[str, Any]:
    """The SARIF log of the files' results."""
    root = os.path.abspath(root or os.getcwd())
    rules = [{
        "id": info.code,
        "name": "".join(part.capitalize() for part in info.code.split("-")),
        "shortDescription": {"text": info.summary},
        "defaultConfiguration": {"level": LEVELS[info.severity]},
    } for info in CODES.values()]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "plansight", "version": __version__, "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(root).as_uri() + "/"}},
            "columnKind": "utf16CodeUnits",
            "results": sarif_results,
        }],
    }
