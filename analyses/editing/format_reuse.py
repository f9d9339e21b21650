"""The layout of a document's new version from the layout of the previous one, in proportion to the edit.

Formatting lays out every form from scratch (``formatter.py``), ~100 ms of pure Python for a 1 MB problem,
and an editor asks for it after each edit (format on save, range formatting of the line just typed).
Most of that layout is the same as before the edit: the formatter writes each item of a broken form
(an init fact, a goal conjunct, a section of ``define``) on lines of its own, from the item's own text,
the form's indentation and the line width alone. What the item's lines do not show is decided once per
form: whether it is broken at all (always for ``define`` and ``:init``; for a goal's ``and``, whether
its one-line text is too long for the line or holds a comment), which items are grouped onto one line
(never, for the forms kept here: no typed name runs, no keyword-value pairs), the blank line before an
item (from the whitespace before it) and the closing parentheses after the form's last item.

So a layout is kept with, for ``define`` and for the broken form inside each of its sections
(``:init``, the goal's conjunction), where each item was read and written (:class:`~plansight.analyses.
editing.formatter.ListMarks`). After an edit, the items that the changed characters touch are read and
laid out again, between the unchanged item before them and the unchanged item after them, and their
lines replace the old ones; the form's own decisions are checked to stand (still broken, the same
closing parentheses, no comment running past the re-read text, no dash joining across the boundary).
Where a check fails, a coarser level is tried (the sections of ``define``), then the whole text.
The result is exactly the layout of the new text from scratch: ``tests/test_format_reuse.py``
compares the two after each edit of random edit sequences.
"""

from __future__ import annotations

import bisect
import logging
import operator
from array import array
from dataclasses import dataclass, field, replace
from itertools import repeat
from typing import TYPE_CHECKING

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.formatter import (
    _ONE_CHILD_ON_HEAD_LINE,
    DEFAULT_INDENT,
    DEFAULT_WIDTH,
    Comment,
    Form,
    Formatted,
    Layout,
    ListMarks,
    Unbalanced,
    Word,
    _extent,
    _head,
    _newline_of,
    _tokens,
    format_parsed,
    read_tree,
    refusal,
    same_tokens,
)

if TYPE_CHECKING:
    from plansight.analyses.syntax.documents import ParsedDocument

logger = logging.getLogger(__name__)

_BLOCK = 4096
"""characters compared at a time while looking for where two versions start and stop differing"""


@dataclass(slots=True)
class LaidOut:
    """A text's layout (a domain or problem) with what a later version's layout needs to reuse it."""

    text: str
    indent: int
    width: int
    lines: list[str]
    tops: list[tuple[Span, int, int]]
    """the top-level elements with their first and last line"""
    define: ListMarks | None = None
    """the items of ``define`` (offsets in the text; lines from ``define_line``)"""
    define_line: int = 0
    define_top: int = 0
    """the position of ``define`` in ``tops``"""
    inner: list[ListMarks | None] = field(default_factory=list)
    """per item of ``define``, the broken form inside it whose items are kept (offsets from the item's
    start; lines from its first line)"""

    def formatted(self) -> str:
        """The formatted text."""
        if not self.lines:
            return ""
        newline = _newline_of(self.text)
        return newline.join(self.lines) + newline

    def placed(self) -> list[tuple[Span, int, int]]:
        """Range formatting's units, as :meth:`~plansight.analyses.editing.formatter.Layout.document`
        gives them: the top-level elements, each preceded by the items of ``define`` (but comments)
        that do not share its first line."""
        define = self.define
        if define is None:
            return list(self.tops)
        line = self.define_line
        items = [(Span(define.starts[k], define.elements_end(k)), line + define.firsts[k],
                  line + define.last_line(k)) for k in range(len(define.starts))
                 if define.firsts[k] > 0 and self.text[define.starts[k]] != ";"]
        return [*self.tops[:self.define_top], *items, *self.tops[self.define_top:]]


def lay_out(text: str, indent: int, width: int) -> LaidOut:
    """The layout of a domain or problem from scratch, with its items' marks (raises
    :class:`~plansight.analyses.editing.formatter.Unbalanced` on unbalanced parentheses)."""
    elements = read_tree(text)
    layout = Layout(indent, width, False, text)
    layout.lists = {}
    lines, placed = layout.document(elements)
    tops = [unit for unit in placed if any(unit[0] == e.span for e in elements)]
    laid = LaidOut(text, indent, width, lines, tops)
    defines = [e for e in elements if isinstance(e, Form) and _head(e) == "define"]
    if len(defines) == 1 and defines[0].span.start in layout.lists:
        define = defines[0]
        laid.define = layout.lists[define.span.start]
        laid.define_top = next(k for k, unit in enumerate(tops) if unit[0] == define.span)
        laid.define_line = tops[laid.define_top][1]
        if laid.placed() != placed:  # a layout this module does not know: keep only the lines
            logger.error("unexpected units of a layout; its items are not kept")
            laid.define = None
            laid.tops = placed
            return laid
        laid.inner = [_inner(layout, laid.define, k) for k in range(len(laid.define.starts))]
    return laid


def _inner(layout: Layout, marks: ListMarks, item: int) -> ListMarks | None:
    """The kept form inside item ``item`` of ``marks`` (the item itself or the form on its head line),
    with offsets made relative to the item's start."""
    assert layout.lists is not None
    start = marks.starts[item]
    inner = layout.lists.get(start)
    if inner is None and start in layout.head_line_child:
        inner = layout.lists.get(layout.head_line_child[start])
    if inner is None:
        return None
    return replace(inner, end=inner.end - start, items_from=inner.items_from - start,
                   starts=_shifted(inner.starts, -start))


def _shifted(values: array[int], by: int) -> array[int]:
    """``values`` each moved by ``by`` (a copy either way: the marks are never shared)."""
    return array("q", [v + by for v in values]) if by else array("q", values)


def changed(old: str, new: str) -> tuple[int, int, int]:
    """Where ``new`` differs from ``old``: the common prefix's length and the ends of the differing
    stretch in each (compared a block at a time, so in C)."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start:start + _BLOCK] == new[start:start + _BLOCK]:
        start += _BLOCK
    start = min(start, limit)
    while start < limit and old[start] == new[start]:
        start += 1
    tail = 0
    room = limit - start
    n, m = len(old), len(new)
    while tail + _BLOCK <= room and old[n - tail - _BLOCK:n - tail] == new[m - tail - _BLOCK:m - tail]:
        tail += _BLOCK
    while tail < room and old[n - tail - 1] == new[m - tail - 1]:
        tail += 1
    return start, n - tail, m - tail


def relaid(previous: LaidOut, text: str) -> LaidOut | None:
    """The layout of ``text`` reusing ``previous``'s where the edit left it alone; ``None`` when it
    cannot (the edit reaches outside the sections of ``define``, or changes what the file's line
    breaks are): the caller then lays ``text`` out from scratch."""
    old = previous.text
    if text == old:
        return previous
    define = previous.define
    if define is None or _newline_of(text) != _newline_of(old):
        return None
    start, old_end, new_end = changed(old, text)
    if _blank_tail(old, start) and _blank_tail(text, start):  # only whitespace after the last token changed
        return replace(previous, text=text)
    # the item of `define` that strictly contains the change (its parentheses unchanged)
    item = bisect.bisect_left(define.starts, start) - 1
    if item >= 0 and old_end < define.elements_end(item) and old[define.starts[item]] == "(":
        inner = previous.inner[item]
        if inner is not None:
            result = _reuse(previous, text, start, old_end, new_end, inner, item)
            if result is not None:
                return result
    return _reuse(previous, text, start, old_end, new_end, define, None)


def _blank_tail(text: str, start: int) -> bool:
    """Whether ``text`` holds only whitespace from ``start`` on, and no comment (whose span would take in
    that whitespace) on the line before ``start``."""
    if len(text) - start > _BLOCK or text[start:].strip():
        return False
    line = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    return ";" not in text[line:start]


def _comments_end_inside(text: str, start: int, end: int) -> bool:
    """Whether every comment in ``text[start:end]`` ends (at a line break) before ``end`` or at it: a
    comment running on past ``end`` would swallow what follows, which reading the stretch alone misses."""
    semicolon = text.rfind(";", start, end)
    if semicolon < 0 or end >= len(text) or text[end] in "\r\n":
        return True
    return "\n" in text[semicolon:end] or "\r" in text[semicolon:end]


def _flat_length(layout: Layout, elements: list[Word | Comment | Form]) -> int:
    """The length the elements take on one line, separated by spaces (-1: a comment keeps them off it)."""
    total = len(elements) - 1
    for element in elements:
        if isinstance(element, Comment):
            return -1
        if isinstance(element, Word):
            total += len(element.text)
            continue
        flat = layout.flat(element)
        if flat is None:
            return -1
        total += len(flat)
    return total


def _reuse(previous: LaidOut, text: str, start: int, old_end: int, new_end: int, marks: ListMarks,
           item: int | None) -> LaidOut | None:
    """The layout with the items of ``marks`` that the change ``[start, old_end)`` touches laid out again:
    ``marks`` is ``define``'s (``item`` None) or the kept form inside its item ``item``."""
    define = previous.define
    assert define is not None
    old = previous.text
    delta = new_end - old_end
    origin = 0 if item is None else define.starts[item]  # what the offsets of `marks` count from
    line_origin = previous.define_line + (0 if item is None else define.firsts[item])
    count = len(marks.starts)
    first = bisect.bisect_left(marks.starts, start - origin) - 1  # the last item starting before the change
    last = bisect.bisect_right(marks.starts, old_end - origin)  # the first item ending after the change
    if last and marks.item_end(last - 1) > old_end - origin:
        last -= 1
    window_end = origin + marks.item_end(min(last, count - 1))
    if last == count and old_end < origin + marks.end - 1:  # between the last item and the `)`
        last = count - 1
        window_end = origin + marks.end - 1
    window_start = origin + marks.starts[max(first, 0)]
    at_head = first < 0 and origin + marks.items_from < start and marks.head not in _ONE_CHILD_ON_HEAD_LINE
    if at_head:  # between the head and the first item: re-read from the change on
        first, window_start = 0, start
    if first < 0 or last >= count or first > last:
        return None
    if old[window_start] == ";" or not _comments_end_inside(text, window_start, window_end + delta):
        return None
    try:
        elements = read_tree(text, window_start, window_end + delta)
    except Unbalanced:
        return None
    if not elements or any(isinstance(e, Word) and e.text == "-" for e in elements):
        return None  # a dash joins the element after it into its item, across the window's edge
    if at_head and not isinstance(elements[0], Form):
        return None  # a name or a comment there would go on the head's line
    layout = Layout(previous.indent, previous.width, False, text)
    flat_len = marks.flat_len
    if not marks.always_broken:  # still too long for its line, or still holding a comment?
        try:
            before = read_tree(old, window_start, window_end)
        except Unbalanced:
            return None
        old_length, new_length = _flat_length(layout, before), _flat_length(layout, elements)
        if old_length < 0 and marks.flat_len < 0:
            return None  # the comment that kept the form broken may be gone
        if new_length < 0 or flat_len < 0:
            flat_len = -1
        else:
            flat_len = marks.flat_len - old_length + new_length
            if marks.column + flat_len <= layout.width:
                return None  # the form now fits on its line
    if item is None:
        layout.lists = {}
    items = list(layout.items(elements, marks.head, marks.context))
    lines: list[str] = []
    record: list[tuple[int, int, int, int, int, int]] = []
    inner: list[ListMarks | None] = []
    first_line = marks.firsts[first]
    for index, each in enumerate(items):
        if index and each.blank_before:
            lines.append("")
        at = len(lines)
        lines.extend(layout.item_lines(each, marks.deeper, marks.head))
        extent_start, extent_end, elements_end = _extent(each)
        record.append((extent_start - origin, extent_end - origin, elements_end - origin,
                       first_line + at, first_line + len(lines) - 1, len(lines[-1])))
    if _tokens(text[window_start:window_end + delta]) != _tokens("\n".join(lines)):
        logger.error("reusing a layout would change the text's tokens; laid out from scratch")
        return None
    old_first = line_origin + first_line
    old_last = line_origin + marks.last_line(last)
    kept = previous.lines[old_last]
    own_length = marks.last_lens[last]
    if last == count - 1 and (";" in kept[:own_length]) != (";" in lines[-1]):
        return None  # the closing parentheses go on a line of their own on one side only
    grown = len(lines[-1]) - own_length
    lines[-1] += kept[own_length:]
    new_lines = previous.lines[:old_first]
    new_lines += lines
    new_lines += previous.lines[old_last + 1:]
    line_delta = len(lines) - (old_last - old_first + 1)
    if item is None:
        assert layout.lists is not None
        new_marks = _spliced(marks, first, last, record, delta, line_delta, flat_len)
        inner = [_inner(layout, new_marks, k) for k in range(first, first + len(record))]
        laid_inner = [*previous.inner[:first], *inner, *previous.inner[last + 1:]]
        new_define = new_marks
    else:
        new_inner = _spliced(marks, first, last, record, delta, line_delta, flat_len)
        laid_inner = [*previous.inner[:item], new_inner, *previous.inner[item + 1:]]
        new_define = _grown_item(define, item, delta, line_delta,
                                 grown if define.last_line(item) + previous.define_line == old_last else 0)
    tops = [(Span(_moved(s.start, start, old_end, delta), _moved(s.end, start, old_end, delta)),
             f + line_delta if f > old_last else f, e + line_delta if e >= old_last else e)
            for s, f, e in previous.tops]
    return LaidOut(text, previous.indent, previous.width, new_lines, tops, new_define,
                   previous.define_line, previous.define_top, laid_inner)


def _moved(offset: int, start: int, old_end: int, delta: int) -> int:
    """Where an offset of the old text outside the changed stretch is in the new one."""
    return offset + delta if offset >= old_end and offset > start else offset


def _spliced(marks: ListMarks, first: int, last: int, record: list[tuple[int, int, int, int, int, int]],
             delta: int, line_delta: int, flat_len: int) -> ListMarks:
    """``marks`` with items ``first`` to ``last`` replaced by the ``record``ed ones (start, end, end of
    the elements, first line, last line, last line's length) and those after them moved by ``delta``
    characters and ``line_delta`` lines."""
    def column(values: array[int], new: list[int], shift: int = 0) -> array[int]:
        tail = values[last + 1:]
        moved = array("q", map(operator.add, tail, repeat(shift, len(tail)))) if shift else tail
        return values[:first] + array("q", new) + moved

    return replace(marks, flat_len=flat_len, end=marks.end + delta,
                   starts=column(marks.starts, [r[0] for r in record], delta),
                   lengths=column(marks.lengths, [r[1] - r[0] for r in record]),
                   element_lengths=column(marks.element_lengths, [r[2] - r[0] for r in record]),
                   firsts=column(marks.firsts, [r[3] for r in record], line_delta),
                   heights=column(marks.heights, [r[4] - r[3] for r in record]),
                   last_lens=column(marks.last_lens, [r[5] for r in record]))


def _grown_item(marks: ListMarks, item: int, delta: int, line_delta: int, grown: int) -> ListMarks:
    """``marks`` after item ``item`` grew by ``delta`` characters and ``line_delta`` lines (its last line
    by ``grown`` characters), the items after it moved."""
    def changed(values: array[int], at: int, by: int) -> array[int]:
        result = array("q", values)
        result[at] += by
        return result

    def moved(values: array[int], by: int) -> array[int]:
        result = array("q", values)
        for k in range(item + 1, len(result)):
            result[k] += by
        return result

    return replace(marks, end=marks.end + delta, starts=moved(marks.starts, delta),
                   lengths=changed(marks.lengths, item, delta),
                   element_lengths=changed(marks.element_lengths, item, delta),
                   firsts=moved(marks.firsts, line_delta), heights=changed(marks.heights, item, line_delta),
                   last_lens=changed(marks.last_lens, item, grown))


def format_again(previous: LaidOut | None, parsed: ParsedDocument, indent: int = DEFAULT_INDENT,
                 width: int = DEFAULT_WIDTH) -> tuple[Formatted, LaidOut | None]:
    """What :func:`~plansight.analyses.editing.formatter.format_parsed` answers, from ``previous`` (the
    layout of an earlier version of the document, or None) where the edit allows, and the layout to keep
    for the next version (None for plans and for files the formatter refuses)."""
    reason = refusal(parsed)
    if reason is not None:
        return Formatted(None, reason), None
    if parsed.kind == "plan":
        return format_parsed(parsed, indent, width), None
    text = parsed.text
    laid = None
    if previous is not None and (previous.indent, previous.width) == (indent, width):
        laid = relaid(previous, text)
    if laid is not None:
        return Formatted(laid.formatted()), laid
    try:
        laid = lay_out(text, indent, width)
    except (Unbalanced, RecursionError) as error:
        return Formatted(None, f"cannot format: {error or 'nesting too deep'}"), None
    formatted = laid.formatted()
    if not same_tokens(text, formatted):  # cannot happen by construction; never risk the user's text
        logger.error("formatting %s would change its tokens; left alone", parsed.path)
        return Formatted(None, "internal error: the layout would change the text's tokens"), None
    return Formatted(formatted), laid
