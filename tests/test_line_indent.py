"""On-type formatting's indentation (``line_indent.py``) agrees with the formatter: a line typed anew
(its leading blanks removed, as after Enter) is indented exactly as ``plansight format`` lays it out,
on every line of every example domain and problem, at two indentation widths."""

from __future__ import annotations

from pathlib import Path

import pytest

from plansight.analyses.editing.formatter import format_text
from plansight.analyses.editing.line_indent import line_indent, new_line_edit

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _formattable(path: Path) -> bool:
    """Well-formed files only: the formatter refuses a file whose parentheses do not balance."""
    try:
        format_text(path.read_text())
    except ValueError:
        return False
    return "(define" in path.read_text()


FILES = sorted(path for path in EXAMPLES.rglob("*.pddl") if _formattable(path))[:40]


@pytest.mark.parametrize("indent", [2, 4])
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(EXAMPLES)) for p in FILES])
def test_a_new_line_is_indented_as_the_formatter_lays_it_out(path: Path, indent: int) -> None:
    formatted = format_text(path.read_text(), indent, 60)
    lines = formatted.splitlines(keepends=True)
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        start = sum(len(previous) for previous in lines[:number])
        typed = formatted[:start] + line.lstrip(" ") + formatted[start + len(line):]
        expected = len(line) - len(line.lstrip(" "))
        assert line_indent(typed, start, indent) == expected, f"line {number + 1}: {line!r}"


def test_the_edit_replaces_only_wrong_leading_blanks() -> None:
    text = "(define (domain d)\n(:predicates\n\t(p))"
    start = text.index("(:predicates")
    edit = new_line_edit(text, start, 2)
    assert edit is not None and edit[0].start == edit[0].end == start and edit[1] == "  "
    edit = new_line_edit(text, text.index("\t"), 2)
    # relative to the line `(:predicates` is on, as written (not yet re-indented itself)
    assert edit is not None and edit[1] == "  " and text[edit[0].start:edit[0].end] == "\t"
    assert new_line_edit("(define\n  x", 8, 2) is None


def test_an_unfinished_file_and_a_plan() -> None:
    text = "(define (problem p)\n  (:init (at a\n"
    assert line_indent(text, len(text), 2) == 4  # inside `(at a`, opened on a line indented by 2
    assert new_line_edit("(a b)\n   (c d)\n", 6, 2, plan=True) is not None
    assert new_line_edit("(a b)\n(c d)\n", 6, 2, plan=True) is None
    assert line_indent("; (not a form\n", 14, 2) == 0
