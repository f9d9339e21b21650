"""Where the keyword of a form is written, for diagnostics that point at `not`, `when`, `:derived` ...

The model keeps each form's span (from its `(` to its `)`), not its keyword's. Section keywords of a
domain (`:action`, `:derived`, ...) are kept as names with exact spans, so those are looked up; for
the keywords inside formulas the keyword is taken to follow the `(` directly, which holds in every
file we have seen and otherwise still points inside the form.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Name


def keyword_span(form: Span, keyword: str) -> Span:
    """The span of ``keyword`` at the start of the form ``form`` (e.g. ``not`` in ``(not (p))``)."""
    start = form.start + 1
    return Span(start, max(start, min(start + len(keyword), form.end)))


class SectionKeywords:
    """Finds the section keyword (``:action``, ``:derived``, ...) that opens a top-level form."""

    def __init__(self, sections: Sequence[Name]) -> None:
        self._sections = sorted(sections, key=lambda s: s.span.start)
        self._starts = [s.span.start for s in self._sections]

    def of(self, form: Span, keyword: str) -> Span:
        """The span of the section keyword that opens ``form``; when the parser recorded none there, the place
        right after its ``(`` where the keyword belongs.
        """
        index = bisect.bisect_right(self._starts, form.start)
        if index < len(self._sections):
            found = self._sections[index].span
            if found.end <= form.end:
                return found
        return keyword_span(form, keyword)
