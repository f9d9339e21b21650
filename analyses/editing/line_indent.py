"""The indentation a new line gets as the user presses Enter (on-type formatting).

The formatter (``formatter.py``) puts the children of a broken form one indentation step deeper than
the line its ``(`` is on: ``(define`` at 0 puts its sections at 2, ``:precondition (and`` at 4 puts
the conjuncts at 6, and ``(:goal (and`` at 2 puts the goals at 4 (both forms open on that line). A
new line is indented the same way from the innermost form still open before it, read from the
parentheses (``cursor_context.py``), so it works in a file that does not parse yet. Plans are flat:
their lines are never indented.
"""

from __future__ import annotations

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.cursor_context import cursor_context


def leading_blanks(text: str, line_start: int) -> Span:
    """The spaces and tabs that start the line beginning at ``line_start``."""
    end = line_start
    while end < len(text) and text[end] in " \t":
        end += 1
    return Span(line_start, end)


def line_indent(text: str, line_start: int, indent: int) -> int:
    """The columns of indentation the formatter's layout gives a line starting at ``line_start``."""
    forms = cursor_context(text, line_start).forms
    if not forms:
        return 0
    opened = forms[-1].start
    opened_line = text.rfind("\n", 0, opened) + 1
    return leading_blanks(text, opened_line).end - opened_line + indent


def new_line_edit(text: str, line_start: int, indent: int, plan: bool = False) -> tuple[Span, str] | None:
    """The replacement of the line's leading blanks that indents it as the layout wants, or None when it
    already is."""
    blanks = leading_blanks(text, line_start)
    wanted = " " * (0 if plan else line_indent(text, line_start, indent))
    if text[blanks.start:blanks.end] == wanted:
        return None
    return blanks, wanted
