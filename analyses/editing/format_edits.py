"""The edits that turn a text into its formatted layout, line by line, touching only the lines that change.

One edit spanning from the first to the last change (common prefix and suffix dropped) is simple, but on
a large problem whose only unformatted parts are its first and last lines it is the whole file: a 1 MB
string sent to the editor, which then replaces every line, moves the folds and scrolls. Formatting only
changes the whitespace between tokens, so the two texts can be aligned without a general diff. Both are
walked line by line (each line with its line break); equal lines are skipped, whole runs compared at
once; where they differ, each side advances, the one behind in the common stream of non-blank
characters first, until both stand at a line start after the same characters again and the next
lines agree. Each such block is one edit, without the lines, then the characters, it starts or ends
with on both sides.

The result does not rely on the texts differing only in whitespace: the edits always turn ``text`` into
``formatted``; for other pairs they may just be larger than needed.
"""

from __future__ import annotations

from itertools import accumulate

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.formatter import TextEdit, whole_document_edit

_RUN = 64
"""equal lines are compared this many at a time first (a list comparison runs in C)"""


def line_edits(text: str, formatted: str) -> list[TextEdit]:
    """Edits of ``text``, in order and not overlapping, each within a block of lines that changes, that
    give ``formatted``; none when they are equal."""
    if text == formatted:
        return []
    old, new = text.splitlines(keepends=True), formatted.splitlines(keepends=True)
    old_starts, new_starts = _line_starts(old), _line_starts(new)
    edits: list[TextEdit] = []
    i = j = 0
    n, m = len(old), len(new)
    while i < n or j < m:
        same = _equal_run(old, new, i, j)
        i, j = i + same, j + same
        if i >= n and j >= m:
            break
        first_old, first_new = i, j
        i, j = _resynchronised(old, new, i, j)
        lo_old, lo_new, hi_old, hi_new = _trim(old, new, first_old, first_new, i, j)
        start = old_starts[lo_old]
        edit = whole_document_edit(text[start:old_starts[hi_old]],
                                   formatted[new_starts[lo_new]:new_starts[hi_new]])
        if edit is not None:  # the characters the block's lines start and end with on both sides stay
            edits.append(TextEdit(Span(start + edit.span.start, start + edit.span.end), edit.new_text))
    return _checked(text, formatted, edits)


def _line_starts(lines: list[str]) -> list[int]:
    """The offset of each line's first character, then the length of the text."""
    return [0, *accumulate(map(len, lines))]


def _equal_run(old: list[str], new: list[str], i: int, j: int) -> int:
    """How many lines from ``old[i]`` and ``new[j]`` on are equal (runs of them compared at once,
    growing while they agree)."""
    limit = min(len(old) - i, len(new) - j)
    same = 0
    step = _RUN
    while same < limit:
        step = min(step, limit - same)
        if old[i + same:i + same + step] == new[j + same:j + same + step]:
            same += step
            step *= 2
        elif step > 1:
            step //= 2
        else:
            break
    return same


def _visible(line: str) -> int:
    """How many non-blank characters ``line`` holds."""
    return len("".join(line.split()))


def _resynchronised(old: list[str], new: list[str], i: int, j: int) -> tuple[int, int]:
    """Where the two texts agree again after the lines ``old[i]`` and ``new[j]`` that differ."""
    n, m = len(old), len(new)
    ahead_old = ahead_new = 0  # non-blank characters passed on each side since the block began
    start = (i, j)
    while i < n or j < m:
        if ahead_old == ahead_new and (i, j) != start and i < n and j < m and old[i] == new[j]:
            break
        if j >= m or (i < n and ahead_old <= ahead_new):
            ahead_old += _visible(old[i])
            i += 1
        else:
            ahead_new += _visible(new[j])
            j += 1
    return i, j


def _trim(old: list[str], new: list[str], lo_old: int, lo_new: int, hi_old: int,
          hi_new: int) -> tuple[int, int, int, int]:
    """The block without the lines both sides start or end it with."""
    while lo_old < hi_old and lo_new < hi_new and old[lo_old] == new[lo_new]:
        lo_old += 1
        lo_new += 1
    while hi_old > lo_old and hi_new > lo_new and old[hi_old - 1] == new[hi_new - 1]:
        hi_old -= 1
        hi_new -= 1
    return lo_old, lo_new, hi_old, hi_new


def _checked(text: str, formatted: str, edits: list[TextEdit]) -> list[TextEdit]:
    """The edits, or one edit of the whole differing stretch should they not give ``formatted`` (they
    always do; the fallback keeps a user's text safe from a bug here)."""
    pieces = []
    at = 0
    for edit in edits:
        pieces.append(text[at:edit.span.start])
        pieces.append(edit.new_text)
        at = edit.span.end
    pieces.append(text[at:])
    if "".join(pieces) == formatted:
        return edits
    return [TextEdit(Span(0, len(text)), formatted)]
