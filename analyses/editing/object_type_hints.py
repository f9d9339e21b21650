"""The type of each problem object, shown after its name where the ``- type`` is out of sight.

In ``(:objects a b c d e f g - block)`` the type of ``a`` is far to its right, or several lines
below it in a generated problem. The hint repeats it after each name of such a run; a short run on
one line needs no help and gets none (the editor setting ``plansight.inlayHints.objectTypes`` turns
the hints on at all).
"""

from __future__ import annotations

from typing import NamedTuple

from plansight.analyses.diagnostics.spans import Span, line_start_at
from plansight.analyses.model.deferred import peek
from plansight.analyses.model.pddl import Problem
from plansight.analyses.model.printer import type_text
from plansight.analyses.syntax.runs import list_run

LONG_RUN = 3
"""Runs of at least this many names sharing one ``- type`` get hints."""


class TypeHint(NamedTuple):
    """An inlay hint naming an object's type when ``a b c ... - type`` states it far from the name (a long
    run, or another line).
    """

    offset: int  # just after the object's name
    label: str


def object_type_hints(problem: Problem, text: str, span: Span | None = None) -> list[TypeHint]:
    """The type hints of a problem's ``:objects``, limited to ``span`` when given (the visible range of the
    editor).
    """
    runs: dict[Span, list[int]] = {}
    # as the parse left them: after an edit of `:objects` in a large problem, only the names hinted are
    # moved to their current spans (the list is not built, nor are :init and the goal)
    objects = list_run(peek(problem, "objects"))
    for index, (typed, delta) in enumerate(zip(objects.originals(), objects.deltas(), strict=True)):
        if typed.type is not None:  # by where the type is now (an older piece's offsets are its own text's)
            type_span = typed.type.span
            runs.setdefault(Span(type_span.start + delta, type_span.end + delta), []).append(index)
    first, stop = 0, len(objects)
    if span is not None:  # the declarations that may hold a name ending in the span (they are in order)
        first, stop = objects.ending_by(span.start - 1), objects.starting_before(span.end + 1)
    hints = []
    for members in runs.values():
        last = members[-1]
        shown = [index for index in members if first <= index < stop]
        if not shown:
            continue
        type_ref = objects.current(last).type
        assert type_ref is not None
        type_line_start = line_start_at(text, type_ref.span.start)
        for index in shown:
            name = objects.current(index).name
            far = line_start_at(text, name.span.start) != type_line_start  # not on the type's line
            if index == last and not far:
                continue
            if len(members) < LONG_RUN and not far:
                continue
            if span is not None and not (span.start <= name.span.end <= span.end):
                continue
            hints.append(TypeHint(name.span.end, f": {type_text(type_ref)}"))
    hints.sort()
    return hints
