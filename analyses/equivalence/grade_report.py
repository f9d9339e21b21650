"""The grading report: CSV for spreadsheets, JSON for scripts, a self-contained HTML page for people.

Shared by ``plansight grade --report`` and the editor's *Grade folder* command, so both write the
same files. The HTML page has no external resources (inline CSS, an inline SVG chart) so it can be mailed or
attached to a course page as one file; every student-supplied string is escaped, in HTML as HTML and
in CSV against formula injection (:func:`spreadsheet_safe`).
"""

from __future__ import annotations

import csv
import html
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from plansight.analyses.equivalence.grading import OUTCOMES, Graded

COLUMNS = (
    "student",
    "path",
    "outcome",
    "parseable",
    "solvable",
    "equivalent",
    "mode",
    "explanation",
    "method",
)
_COLOURS = {
    "equivalent": "#2e7d32",
    "not equivalent": "#c62828",
    "unsolvable": "#ef6c00",
    "invalid": "#6a1b9a",
    "unparseable": "#455a64",
    "unknown": "#9e9d24",
}


def report_json(
    graded: Sequence[Graded], summary: Counter[str], reference: str, placeholder: bool
) -> dict[str, Any]:
    """The grading run as the JSON report's document."""
    return {
        "reference": reference,
        "mode": "placeholder" if placeholder else "identity",
        "submissions": [g.row() for g in graded],
        "summary": {"submissions": len(graded), **{o: summary[o] for o in OUTCOMES}},
    }


def write_report(
    path: str, graded: Sequence[Graded], summary: Counter[str], reference: str, placeholder: bool
) -> None:
    """Write the grading report to ``path`` in the format its extension names (CSV, JSON or HTML)."""
    lowered = path.lower()
    with open(path, "w", encoding="utf-8", newline="" if lowered.endswith(".csv") else "\n") as handle:
        if lowered.endswith(".csv"):
            writer = csv.DictWriter(handle, fieldnames=COLUMNS)
            writer.writeheader()
            for g in graded:
                writer.writerow({k: _cell(v) for k, v in g.row().items() if k in COLUMNS})
        elif lowered.endswith(".json"):
            json.dump(
                report_json(graded, summary, reference, placeholder), handle, indent=2, ensure_ascii=False
            )
            handle.write("\n")
        else:
            handle.write(report_html(graded, summary, reference, placeholder))


def _cell(value: object) -> object:
    return spreadsheet_safe("" if value is None else ("yes" if value is True else "no" if value is False
                                                      else value))


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection")."""


def spreadsheet_safe(value: object) -> object:
    """A CSV cell no spreadsheet runs as a formula: text starting with ``=``, ``+``, ``-``, ``@``, a tab
    or a carriage return gets a leading ``'``, as OWASP's CSV-injection guidance advises.

    Student names and explanations come from the submitted files' names and contents: a file called
    ``=HYPERLINK(...).pddl`` must show as that text in the grader's spreadsheet, never as a live link.
    """
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def report_html(graded: Sequence[Graded], summary: Counter[str], reference: str, placeholder: bool) -> str:
    """The grading run as an HTML page, one coloured row per submission, for reading in a browser."""
    e = html.escape
    mode = "placeholder" if placeholder else "identity"
    rows = "\n".join(
        f'<tr class="{e(g.verdict.outcome.replace(" ", "-"))}"><td>{e(g.student)}</td>'
        f'<td><span class="badge" style="background:{_COLOURS[g.verdict.outcome]}">'
        f"{e(g.verdict.outcome)}</span></td>"
        f"<td>{_yes_no(g.verdict.parseable)}</td><td>{_yes_no(g.verdict.solvable)}</td>"
        f"<td>{_yes_no(g.verdict.equivalent)}</td><td>{e(g.verdict.explanation)}"
        f'<div class="method">{e(g.path)} · {e(g.verdict.method)}</div></td></tr>'
        for g in graded
    )
    totals = "".join(f"<tr><td>{e(o)}</td><td>{summary[o]}</td></tr>" for o in OUTCOMES)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Grading against {e(reference)}</title>
<style>
body {{ font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }}
table {{ border-collapse: collapse; width: 100%; margin: 1em 0; }}
th, td {{ border-bottom: 1px solid #ddd; padding: .4em .6em; text-align: left; vertical-align: top; }}
th {{ background: #f4f4f4; }}
.badge {{ color: #fff; border-radius: .8em; padding: .1em .6em; white-space: nowrap; font-size: .9em; }}
.method {{ color: #777; font-size: .85em; margin-top: .2em; }}
.summary {{ width: auto; }}
</style></head><body>
<h1>Grading report</h1>
<p>Reference: <code>{e(reference)}</code> · mode: {e(mode)} · {len(graded)} submissions</p>
<h2>Outcomes</h2>
{_chart(summary)}
<table class="summary"><thead><tr><th>outcome</th><th>submissions</th></tr></thead>
<tbody>{totals}</tbody></table>
<h2>Submissions</h2>
<table><thead><tr><th>student</th><th>outcome</th><th>parseable</th><th>solvable</th><th>equivalent</th>
<th>explanation</th></tr></thead>
<tbody>
{rows}
</tbody></table>
</body></html>
"""


def _yes_no(value: bool | None) -> str:
    return "?" if value is None else ("yes" if value else "no")


def _chart(summary: Counter[str]) -> str:
    """A horizontal bar per outcome, drawn as inline SVG (no script, no external file)."""
    top = max([summary[o] for o in OUTCOMES] + [1])
    bar_height, label_width, width = 26, 130, 420
    parts = []
    for index, outcome in enumerate(OUTCOMES):
        y = index * (bar_height + 6)
        length = round(width * summary[outcome] / top)
        parts.append(
            f'<text x="{label_width - 8}" y="{y + 18}" text-anchor="end">{html.escape(outcome)}</text>'
            f'<rect x="{label_width}" y="{y}" width="{length}" height="{bar_height}" '
            f'fill="{_COLOURS[outcome]}">'
            f"<title>{html.escape(outcome)}: {summary[outcome]}</title></rect>"
            f'<text x="{label_width + length + 6}" y="{y + 18}">{summary[outcome]}</text>'
        )
    height = len(OUTCOMES) * (bar_height + 6)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="outcome counts" '
        f'width="{label_width + width + 60}" height="{height}" font-size="14">{"".join(parts)}</svg>'
    )
