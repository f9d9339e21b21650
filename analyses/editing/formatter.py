"""Domains, problems and plans in one canonical layout, keeping every comment.

The formatter works on the text's tokens, not on the model: the model has no comments, and
re-printing it (``printer.py``) would also drop the user's choices the model does not record. Only
the whitespace *between* tokens changes, and never between two adjacent word characters, so the
lexer sees the same token stream afterwards: that is what makes formatting meaning-preserving by
construction (the property tests check it over the whole corpus anyway). A ``;`` comment runs to the
end of its line, so every comment is followed by a line break; a comment that followed code on its
line stays after that code, a comment on a line of its own stays on a line of its own before the
element it preceded.

The layout follows the printer's (two-space steps, one section per block, the head of a form and its
leading names on the form's first line, one argument per line when a form does not fit): a form
stays on one line when it fits within the line width and holds no comment; ``define``, actions,
``:predicates``, ``:functions`` and ``:init`` are always broken; typed lists are broken per type
(``a b c - block``); at most one blank line is kept where the user left blank lines.

A text with syntax errors is not formatted: guessing where a missing ``)`` belongs could lose what
the user wrote.
"""

from __future__ import annotations

import bisect
import logging
import re
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from plansight.analyses.diagnostics.diagnostic import Severity
from plansight.analyses.diagnostics.spans import Span, line_end_at, line_start_at, unify_line_breaks
from plansight.analyses.syntax.lexical import COMMENT, WORD

if TYPE_CHECKING:  # the layout itself needs no parser: `plansight --help` stays fast
    from plansight.analyses.syntax.documents import ParsedDocument

logger = logging.getLogger(__name__)

DEFAULT_INDENT = 2
DEFAULT_WIDTH = 100

_TOKEN = re.compile(
    r"(?P<ws>\s+)|(?P<comment>" + COMMENT + r")|(?P<open>\()|(?P<close>\))|(?P<word>" + WORD + ")")
_SPACED_TOKEN = re.compile(
    r"\s*(?:(?P<comment>" + COMMENT + r")|(?P<open>\()|(?P<close>\))|(?P<word>" + WORD + "))")

_ACTION_HEADS = frozenset((":action", ":durative-action", ":process", ":event"))
_ALWAYS_BROKEN = _ACTION_HEADS | {"define", ":predicates", ":functions", ":init"}
_TYPED_SECTIONS = frozenset((":types", ":objects", ":constants"))
_DECLARATION_SECTIONS = frozenset((":predicates", ":functions"))
_QUANTIFIERS = frozenset(("forall", "exists"))
_ONE_CHILD_ON_HEAD_LINE = frozenset(("define", ":goal", ":constraints", ":derived")) | _QUANTIFIERS


# --- the tree of tokens --------------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Word:
    """An atom of the source kept verbatim by the formatter (names, numbers, keywords)."""

    text: str
    span: Span
    blank_before: bool = False


@dataclass(slots=True, eq=False)
class Comment:
    """A comment, kept where the author put it: after the code on its line when trailing, on its own line
    otherwise.
    """

    text: str
    span: Span
    trailing: bool  # on the line of the code before it
    blank_before: bool = False


@dataclass(slots=True, eq=False)
class Form:
    """A parenthesised form; its one-line text is computed on demand and cached, since layout asks for it
    repeatedly while choosing where to break.
    """

    children: list[Element]
    span: Span
    blank_before: bool = False
    flat: str | None = field(default=None)  # the one-line text, once computed ("" = cannot be flat)
    simple: bool = False
    """read in one step (``(on a b)`` on one line): ``children`` stay empty until someone needs them"""


Element = Word | Comment | Form


class Unbalanced(ValueError):
    """The parentheses do not pair up (the parser reports where; the formatter just declines)."""


# A form of names only, on one line: the bulk of a large problem (its init facts and goal atoms). It is
# read in one regex step; only its one-line text is needed unless it is too long for a line.
_SIMPLE_FORM = re.compile(r"\([ \t]*(" + WORD + r"(?:[ \t]+" + WORD + r")*)[ \t]*\)")
# the next such form when it starts on the same or the next line (no blank line, no comment between)
_NEXT_SIMPLE_FORM = re.compile(r"[ \t]*(?:\r?\n[ \t]*)?(" + _SIMPLE_FORM.pattern + ")")


def read_tree(text: str, start: int = 0, end: int | None = None) -> list[Element]:
    """The top-level elements of ``text`` (of ``text[start:end]``), with comments and blank-line marks."""
    text = unify_line_breaks(text)  # line breaks are counted by `\n`; same length, same spans
    stack: list[list[Element]] = [[]]
    starts: list[int] = []
    newlines = 2  # line breaks seen since the last token (the start of the text counts as a line start)
    match = _SPACED_TOKEN.match
    simple = _SIMPLE_FORM.match
    next_simple = _NEXT_SIMPLE_FORM.match
    new_span = tuple.__new__  # ``Span(...)`` without NamedTuple's Python-level constructor
    count = text.count
    pos = start
    length = len(text) if end is None else end
    while pos < length:
        m = match(text, pos, length)
        if m is None:  # only whitespace is left
            break
        pos = m.end()
        kind = m.lastgroup
        assert kind is not None
        at = m.start(kind)
        if at > m.start():
            newlines += count("\n", m.start(), at)
        blank = newlines >= 2
        trailing = newlines == 0  # a comment on the line of the token before it
        newlines = 0
        siblings = stack[-1]
        if kind == "word":
            siblings.append(Word(m.group(kind), Span(at, pos), blank))
        elif kind == "open":
            one_line = simple(text, at, length)
            if one_line is not None and one_line.group(1).split(None, 1)[0].lower() not in _ALWAYS_BROKEN:
                pos = one_line.end()
                flat = "(" + " ".join(one_line.group(1).split()) + ")"
                siblings.append(Form([], Span(at, pos), blank, flat, True))
                # the facts that follow, one regex step each (the bulk of a large problem's `:init`)
                while (following := next_simple(text, pos, length)) is not None:
                    names = following.group(2).split()
                    if names[0].lower() in _ALWAYS_BROKEN:
                        break
                    pos = following.end()
                    flat = "(" + " ".join(names) + ")"
                    siblings.append(Form([], new_span(Span, (following.start(1), pos)), False, flat, True))
                continue
            stack.append([])
            starts.append(at)
            siblings.append(Form([], Span(at, at), blank))
        elif kind == "close":
            if len(stack) == 1:
                raise Unbalanced(f"unexpected `)` at offset {at}")
            children = stack.pop()
            opened = starts.pop()
            parent = stack[-1][-1]
            assert isinstance(parent, Form)
            parent.children = children
            parent.span = Span(opened, pos)
        else:
            siblings.append(Comment(m.group(kind).rstrip(), Span(at, pos), trailing, blank))
    if len(stack) != 1:
        raise Unbalanced("a `(` is never closed")
    return stack[0]


# --- layout ---------------------------------------------------------------------------------------------


def _head(form: Form) -> str:
    if form.simple and form.flat:
        return form.flat[1:-1].split(" ", 1)[0].lower()
    first = form.children[0] if form.children else None
    return first.text.lower() if isinstance(first, Word) else ""


@dataclass(slots=True)
class _Item:
    """Elements that share a line (a name run with its type, a keyword with its value), the comment
    that ends their line, and whether a blank line precedes them."""

    elements: list[Word | Form]
    comment: Comment | None = None
    blank_before: bool = False
    own_line_comment: Comment | None = None


def independent_items(head: str, context: str) -> bool:
    """Whether :meth:`Layout.items` makes each element an item of its own, whatever its neighbours
    (a dash still joins the element after it): no typed runs, no keyword-value pairs, no filled lines."""
    return not (context == "typed" or head in _TYPED_SECTIONS or head in _DECLARATION_SECTIONS
                or head in _ACTION_HEADS or head == ":requirements")


def _extent(item: _Item) -> tuple[int, int, int]:
    """Where an item starts, where it ends with its trailing comment, and where its elements end."""
    if item.own_line_comment is not None:
        start, end = item.own_line_comment.span
        return start, end, end
    start, elements_end = item.elements[0].span[0], item.elements[-1].span[1]
    return start, elements_end if item.comment is None else item.comment.span[1], elements_end


@dataclass(slots=True)
class ListMarks:
    """Where the items of one broken form were read and written: per item its source extent (from its
    first element to its trailing comment), where its elements end, its first and last output line
    (relative to the form's first line) and the length of its last line before any closing
    parenthesis of the enclosing forms was added. Plus what decided that the form is broken: an
    edit that leaves the form broken and touches some items only changes those items' lines."""

    head: str
    context: str
    deeper: int
    column: int
    always_broken: bool
    flat_len: int
    """the form's one-line length (-1: a comment keeps it off one line)"""
    end: int
    """where the form ends (after its closing parenthesis)"""
    items_from: int
    """where the form's head ends (its head word, the names and the form on its first line): the items
    are what follows"""
    starts: array[int]
    lengths: array[int]
    """per item, from its start to the end of its trailing comment"""
    element_lengths: array[int]
    """per item, from its start to the end of its elements"""
    firsts: array[int]
    heights: array[int]
    """per item, its last line less its first"""
    last_lens: array[int]
    # the starts and first lines are the only columns an edit before an item moves: the others are
    # kept relative to them, so that an edit costs two columns' worth of updates, not five

    def item_end(self, item: int) -> int:
        """Where item ``item`` ends, with its trailing comment."""
        return self.starts[item] + self.lengths[item]

    def elements_end(self, item: int) -> int:
        """Where the elements of item ``item`` end."""
        return self.starts[item] + self.element_lengths[item]

    def last_line(self, item: int) -> int:
        """The last line of item ``item``."""
        return self.firsts[item] + self.heights[item]

    @classmethod
    def of(cls, record: list[tuple[_Item, int, int, int]], head: str, context: str, deeper: int,
           column: int, always_broken: bool, flat: str | None, end: int, items_from: int) -> ListMarks:
        """The marks of a form's items, each recorded as (item, first line, last line, last length)."""
        extents = [_extent(item) for item, _, _, _ in record]
        return cls(head, context, deeper, column, always_broken, -1 if flat is None else len(flat), end,
                   items_from, array("q", [e[0] for e in extents]),
                   array("q", [e[1] - e[0] for e in extents]), array("q", [e[2] - e[0] for e in extents]),
                   array("q", [r[1] for r in record]),
                   array("q", [r[2] - r[1] for r in record]), array("q", [r[3] for r in record]))


class Layout:
    """One formatting run: the settings and the per-form one-line texts."""

    def __init__(self, indent: int = DEFAULT_INDENT, width: int = DEFAULT_WIDTH, plan: bool = False,
                 text: str = "") -> None:
        self.text = text  # what the tree was read from
        self.indent = max(0, min(indent, 16))
        self.width = max(20, width)
        self.plan = plan
        self.lists: dict[int, ListMarks] | None = None
        """when set, the items of each broken form at the top two levels, by the form's start offset,
        so that a later version's layout can reuse the lines of the items an edit did not touch
        (``format_reuse.py``)"""
        self.head_line_child: dict[int, int] = {}
        """form start -> the start of the child laid out on its first line (``(:goal (and``)"""

    # one-line texts, computed bottom-up without recursion (a deep formula must not overflow the stack)
    def flat(self, root: Form) -> str | None:
        """The form on one line, or None when a comment inside forbids it; computed bottom-up without
        recursion, so deeply nested files cannot overflow the stack, and cached on each form.
        """
        if root.flat is None:
            stack: list[tuple[Form, bool]] = [(root, False)]
            while stack:
                form, ready = stack.pop()
                if form.flat is not None:
                    continue
                if not ready:
                    stack.append((form, True))
                    stack.extend((c, False) for c in form.children if isinstance(c, Form) and c.flat is None)
                    continue
                parts: list[str] = []
                for child in form.children:
                    if isinstance(child, Comment) or (isinstance(child, Form) and not child.flat):
                        form.flat = ""  # a comment inside: the form cannot be written on one line
                        break
                    parts.append(child.flat if isinstance(child, Form) else child.text)  # type: ignore[arg-type]
                else:
                    form.flat = "(" + " ".join(parts) + ")"
        return root.flat or None

    def fits(self, form: Form, column: int) -> str | None:
        """The form's one-line text when it may be written on one line starting at ``column``."""
        text = self.flat(form)
        if text is None:
            return None
        if self.plan:
            return text
        head = _head(form)
        if not form.simple and head in _ALWAYS_BROKEN and len(form.children) > 1:
            return None
        return text if column + len(text) <= self.width else None

    def form(self, form: Form, column: int, base: int, context: str = "",
             marks: list[tuple[Span, int, int]] | None = None) -> list[str]:
        """``form`` written from ``column`` on a line indented by ``base``: its lines, the first
        without its leading text, the others with their indentation."""
        one_line = self.fits(form, column)
        if one_line is not None:
            return [one_line]
        if form.simple and not form.children:  # too long for its line after all
            if marks is None and form.flat:
                names = self.names_form(form.flat[1:-1].split(" "), base, context)
                if names is not None:
                    return names
            form.children = read_tree(self.text, form.span.start + 1, form.span.end - 1)
        head = _head(form)
        children = form.children
        line = "("
        taken = 0
        # the head word and the names after it (`:action move`, `at start`, `preference p1`)
        typed = context == "typed" or head in _TYPED_SECTIONS
        if children and isinstance(children[0], Word) and not (context == "typed" and head.startswith("?")):
            line += children[0].text
            taken = 1
            if not typed and head != ":requirements":
                while taken < len(children):
                    word = children[taken]
                    if not isinstance(word, Word) or word.text.startswith(":"):
                        break
                    line += " " + word.text
                    taken += 1
        lines: list[str] = []
        deeper = base + self.indent
        if head in _ONE_CHILD_ON_HEAD_LINE and taken < len(children) and isinstance(children[taken], Form):
            child = children[taken]
            assert isinstance(child, Form)
            sub_context = "typed" if head in _QUANTIFIERS or head == ":derived" else ""
            sub = self.form(child, column + len(line) + 1, base, sub_context)
            if self.lists is not None:
                self.head_line_child[form.span.start] = child.span.start
            line += " " + sub[0]
            lines.append(line)
            lines.extend(sub[1:])
            taken += 1
        else:
            lines.append(line)
        if taken < len(children) and isinstance(children[taken], Comment) and children[taken].trailing:  # type: ignore[union-attr]
            lines[-1] += " " + children[taken].text  # type: ignore[union-attr]
            taken += 1
        items = list(self.items(children[taken:], head, context))
        prefix = " " * deeper
        recorded = (self.lists is not None and base <= self.indent and bool(items)
                    and independent_items(head, context))
        record: list[tuple[_Item, int, int, int]] | None = [] if recorded else None
        for index, item in enumerate(items):
            if item.blank_before and index > 0:
                lines.append("")
            first_line = len(lines)
            if item.own_line_comment is not None:
                lines.append(prefix + item.own_line_comment.text)
            else:
                only = item.elements[0] if len(item.elements) == 1 else None
                if (isinstance(only, Form) and only.simple and item.comment is None and only.flat
                        and deeper + len(only.flat) <= self.width):  # as item_lines() does
                    lines.append(prefix + only.flat)  # the bulk of a large problem: one fact per line
                else:
                    lines.extend(self.item(item, deeper, head))
                if marks is not None and item.elements:
                    marks.append((Span(item.elements[0].span.start, item.elements[-1].span.end),
                                  first_line, len(lines) - 1))
            if record is not None:
                record.append((item, first_line, len(lines) - 1, len(lines[-1])))
        if record is not None and self.lists is not None:
            self.lists[form.span.start] = ListMarks.of(
                record, head, context, deeper, column,
                not form.simple and head in _ALWAYS_BROKEN and len(children) > 1, self.flat(form),
                form.span.end, children[taken - 1].span[1] if taken else form.span.start + 1)
        if ";" in lines[-1]:  # words never hold a `;`: the line ends in a comment
            lines.append(" " * base + ")")
        else:
            lines[-1] += ")"
        return lines

    def item_lines(self, item: _Item, deeper: int, head: str) -> list[str]:
        """The lines :meth:`form` writes for one of its items (without the blank line before it)."""
        prefix = " " * deeper
        if item.own_line_comment is not None:
            return [prefix + item.own_line_comment.text]
        only = item.elements[0] if len(item.elements) == 1 else None
        if (isinstance(only, Form) and only.simple and item.comment is None and only.flat
                and deeper + len(only.flat) <= self.width):
            return [prefix + only.flat]
        return self.item(item, deeper, head)

    def names_form(self, words: list[str], base: int, context: str) -> list[str] | None:
        """What :meth:`form` writes for a form of names only (``(:objects b1 ... b25000 - block)``),
        straight from its words: a one-line form of a large problem holds tens of thousands of them,
        too many to make an element of each. ``None`` where the general path must decide."""
        head = words[0].lower()
        if context == "typed" and head.startswith("?"):
            return None
        line = "(" + words[0]
        taken = 1
        if not (context == "typed" or head in _TYPED_SECTIONS) and head != ":requirements":
            while taken < len(words) and not words[taken].startswith(":"):
                line += " " + words[taken]
                taken += 1
        lines = [line]
        # grouped into items as items() groups words: runs of names (typed lists, requirements) or one
        # name each, and everywhere the word after a `-` closes its item
        joins = (context == "typed" or head in _TYPED_SECTIONS or head in _DECLARATION_SECTIONS
                 or head == ":requirements")
        runs: list[list[str]] = []
        current: list[str] | None = None
        after_dash = False
        for word in words[taken:]:
            if current is None:
                current = [word]
            elif after_dash:
                current.append(word)
                runs.append(current)
                current = None
                after_dash = False
                continue
            elif joins:
                current.append(word)
            else:
                runs.append(current)
                current = [word]
            after_dash = word == "-"
        if current is not None:
            runs.append(current)
        deeper = base + self.indent
        prefix = " " * deeper
        width = self.width
        for run in runs:  # as item() fills a line: break before a name that would pass the width
            current_line = prefix + run[0]
            column = deeper + len(run[0])
            for word in run[1:]:
                if column + 1 + len(word) > width:
                    lines.append(current_line)
                    current_line = prefix + word
                    column = deeper + len(word)
                else:
                    current_line += " " + word
                    column += 1 + len(word)
            lines.append(current_line)
        lines[-1] += ")"
        return lines

    def items(self, elements: Sequence[Element], head: str, context: str) -> Iterator[_Item]:
        """Group the elements after a form's head line into lines."""
        typed = context == "typed" or head in _TYPED_SECTIONS or head in _DECLARATION_SECTIONS
        pairs = head in _ACTION_HEADS
        fill = head == ":requirements"
        current: _Item | None = None
        previous: _Item | None = None  # the last item handed out, which a trailing comment may end
        after_dash = False
        for element in elements:
            if isinstance(element, Comment):
                if element.trailing and current is not None:
                    current.comment = element
                    previous = current
                    yield current
                elif (element.trailing and previous is not None and previous.comment is None
                      and previous.own_line_comment is None):
                    previous.comment = element
                else:
                    if current is not None:
                        previous = current
                        yield current
                    previous = _Item([], None, element.blank_before, element)
                    yield previous
                current = None
                after_dash = False
                continue
            if current is not None and element.blank_before:
                previous = current
                yield current
                current = None
            if current is None:
                current = _Item([element], None, element.blank_before)
                after_dash = isinstance(element, Word) and element.text == "-"
                continue
            if after_dash:  # the type after `-` ends the run
                current.elements.append(element)
                previous = current
                yield current
                current = None
                after_dash = False
                continue
            is_dash = isinstance(element, Word) and element.text == "-"
            last = current.elements[-1]
            joins = (
                (typed and (is_dash or (isinstance(element, Word) and isinstance(last, Word))))
                or (pairs and len(current.elements) == 1 and isinstance(last, Word)
                    and last.text.startswith(":")
                    and not (isinstance(element, Word) and element.text.startswith(":")))
                or fill
            )
            if joins:
                current.elements.append(element)
                after_dash = is_dash
            else:
                previous = current
                yield current
                current = _Item([element], None, False)
                after_dash = is_dash
        if current is not None:
            previous = current
            yield current

    def item(self, item: _Item, indent: int, head: str) -> list[str]:
        """The lines of one item of a section, wrapped at the configured width and indented at ``indent``."""
        prefix = " " * indent
        lines = [prefix]
        column = indent
        sub_context = "typed" if head in _DECLARATION_SECTIONS else ""
        for position, element in enumerate(item.elements):
            separator = "" if position == 0 else " "
            if isinstance(element, Word):
                if position > 0 and column + 1 + len(element.text) > self.width and lines[-1].strip() != "":
                    lines.append(prefix + element.text)
                    column = indent + len(element.text)
                    continue
                lines[-1] += separator + element.text
                column += len(separator) + len(element.text)
                continue
            context = sub_context
            first = item.elements[0]
            if position > 0 and isinstance(first, Word) and first.text.lower() == ":parameters":
                context = "typed"
            sub = self.form(element, column + len(separator), indent, context)
            lines[-1] += separator + sub[0]
            lines.extend(sub[1:])
            column = len(lines[-1])
        if item.comment is not None:
            lines[-1] += " " + item.comment.text
        return lines

    def document(self, elements: Sequence[Element]) -> tuple[list[str], list[tuple[Span, int, int]]]:
        """The lines of the whole text, and each top-level element's span with its first and last
        output line (for range formatting)."""
        lines: list[str] = []
        placed: list[tuple[Span, int, int]] = []
        for element in elements:
            if isinstance(element, Comment) and element.trailing and lines:
                lines[-1] += " " + element.text
                continue
            if element.blank_before and lines:
                lines.append("")
            first = len(lines)
            if isinstance(element, (Comment, Word)):
                lines.append(element.text)
            else:
                inner: list[tuple[Span, int, int]] = []
                lines.extend(self.form(element, 0, 0, "", inner if _head(element) == "define" else None))
                # a section of `define` is a unit of its own, unless it shares the header's line
                placed.extend((span, first + a, first + b) for span, a, b in inner if a > 0)
            placed.append((element.span, first, len(lines) - 1))
        return lines, placed


def _plan_lines(elements: Sequence[Element], layout: Layout) -> list[str]:
    """A plan: one step per line, its time stamp (``0.5:``) before it and its duration (``[2]``)
    after it."""
    lines: list[str] = []
    current = ""
    has_step = False
    brackets = 0
    for element in elements:
        if isinstance(element, Comment):
            if element.trailing and (current or lines):
                if current:
                    current += " " + element.text
                    lines.append(current)
                    current, has_step = "", False
                else:
                    lines[-1] += " " + element.text
                continue
            if current:
                lines.append(current)
                current, has_step = "", False
            if element.blank_before and lines:
                lines.append("")
            lines.append(element.text)
            continue
        text = element.text if isinstance(element, Word) else (layout.flat(element) or "")
        if not text:
            raise Unbalanced("a plan step with a comment inside")
        is_step = isinstance(element, Form)
        continues = brackets > 0 or (isinstance(element, Word) and text.startswith("[") and has_step)
        if current and not continues and has_step:
            lines.append(current)
            current, has_step = "", False
        if not current and element.blank_before and lines:
            lines.append("")
        if current and not current.endswith(" "):
            current += " "
        current += text
        has_step = has_step or is_step
        if isinstance(element, Word):
            brackets += text.count("[") - text.count("]")
            if brackets < 0:
                brackets = 0
    if current:
        lines.append(current)
    return lines


# --- entry points -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``span`` of the original text by ``new_text``."""

    span: Span
    new_text: str


def _newline_of(text: str) -> str:
    """The file's own line ending, so formatting never changes it (a CR-only file stays CR-only)."""
    head = text[:10000]
    if "\r\n" in head:
        return "\r\n"
    return "\r" if "\r" in head and "\n" not in head else "\n"


def format_text(text: str, indent: int = DEFAULT_INDENT, width: int = DEFAULT_WIDTH,
                plan: bool = False) -> str:
    """The canonical layout of ``text`` (a domain, problem or, with ``plan``, a plan).

    Raises :class:`Unbalanced` when the parentheses do not pair up; callers check syntax first.
    """
    lines = _layout_lines(text, indent, width, plan)[0]
    if not lines:
        return ""
    newline = _newline_of(text)
    return newline.join(lines) + newline


def _layout_lines(text: str, indent: int, width: int,
                  plan: bool) -> tuple[list[str], list[tuple[Span, int, int]]]:
    return _lay_out(text, indent, width, plan)


def _lay_out(text: str, indent: int, width: int, plan: bool) -> tuple[list[str], list[tuple[Span, int, int]]]:
    elements = read_tree(text)
    layout = Layout(indent, width, plan, text)
    if plan:
        return _plan_lines(elements, layout), []
    return layout.document(elements)


def format_range(text: str, span: Span, indent: int = DEFAULT_INDENT, width: int = DEFAULT_WIDTH,
                 plan: bool = False, sections: Sequence[Span] = (),
                 laid_out: tuple[list[str], list[tuple[Span, int, int]]] | None = None) -> TextEdit | None:
    """One edit that formats the top-level forms overlapping ``span`` (and the comments between
    them), or ``None`` when they are already formatted.

    ``sections`` are the spans of the sections of ``define`` in order, as the parser found them: when
    ``span`` touches one of them only, that section alone is laid out (an action of a large grounded
    domain, the goal of a large problem), with the same result as laying out the whole text.
    ``laid_out`` is the whole text's layout, lines and units (:meth:`Layout.document`), when the caller
    has it already (``format_reuse.py`` keeps it from version to version): nothing is laid out then."""
    if sections and not plan and laid_out is None:
        alone = _one_section_edit(text, span, indent, width, sections)
        if not isinstance(alone, bool):
            return alone
    lines, placed = _layout_lines(text, indent, width, plan) if laid_out is None else laid_out
    newline = _newline_of(text)
    whole = newline.join(lines) + newline if lines else ""  # what format_text() gives
    if plan or not placed:
        return whole_document_edit(text, whole)
    for units in (_sections(placed), placed):  # the sections of `define` first, then whole forms
        edit = _range_edit(text, span, units, lines)
        if not isinstance(edit, bool):
            return edit
    return whole_document_edit(text, whole)


_REST_OF_LINE = re.compile(r"[ \t]*(?:(?P<comment>" + COMMENT + r")|(?P<close>\)[ \t]*))?(?=\r?\n|$)")
_SPACE_THEN_CLOSE = re.compile(r"\s*\)")
_AFTER_A_LAST_UNIT = frozenset(("", " ", "\t", "\r", "\n", ")", ";"))
"""what may follow a section that no other unit of the layout starts right against"""


def _one_section_edit(text: str, span: Span, indent: int, width: int,
                      sections: Sequence[Span]) -> TextEdit | bool | None:
    """:func:`format_range`'s edit when ``span`` lies within a single section, computed from that
    section's text only; ``False`` where the whole layout must decide (a range reaching out of the
    section, a section sharing its lines with other code, a comment after the closing parenthesis of
    ``define``)."""
    at = bisect.bisect_right([s.start for s in sections], span.start) - 1
    if at < 0:
        return False
    section = sections[at]
    # within the section, and touching no neighbour (the layout's units are define's items: the sections,
    # and the `(problem p)` a comment keeps off the header line; a neighbour written right against the
    # section touches a range that begins or ends there)
    if not (section.start <= span.start and span.end <= section.end):
        return False
    if span.start == section.start and section.start > 0 and not text[section.start - 1].isspace():
        return False
    if span.start == section.end and text[section.end:section.end + 1] not in _AFTER_A_LAST_UNIT:
        return False
    rest = _REST_OF_LINE.match(unify_line_breaks(text[section.end:line_end_at(text, section.end) + 1]))
    if rest is None:
        return False  # more code after the section on its line
    layout = Layout(indent, width, False, text)
    elements: list[Element] = read_tree(text, section.start, section.end)
    if len(elements) != 1 or not isinstance(elements[0], Form):
        return False
    if rest.group("comment") is not None:
        elements.append(Comment(rest.group("comment").rstrip(), Span(section.end + rest.start("comment"),
                                                                        section.end + rest.end("comment")),
                                True))
    closes_next = _SPACE_THEN_CLOSE.match(text, section.end + rest.end())
    if rest.group("close") is not None and closes_next is not None:
        return False  # not the `)` of define this layout would write
    unit_end = section.end
    if rest.group("close") is not None:  # `define` closes on the section's line
        unit_end = section.end + rest.end("close")
    elif rest.group("comment") is None and closes_next is not None:  # ... or on a line of its own after it
        close = closes_next.end() - 1
        after = _REST_OF_LINE.match(unify_line_breaks(text[close + 1:line_end_at(text, close) + 1]))
        if span.end > close or after is None or after.group(0).strip():
            return False
        unit_end = close + 1  # the layout writes that `)` at the end of the section's last line
    items = list(layout.items(elements, "define", ""))
    lines = layout.item(items[0], layout.indent, "define")
    if unit_end != section.end:
        lines[-1] += ")"  # no comment ends the line: the comment after the section is the other case
    return _range_edit(text, span, [(Span(section.start, unit_end), 0, len(lines) - 1)], lines)


def _sections(placed: list[tuple[Span, int, int]]) -> list[tuple[Span, int, int]]:
    """The units inside a top-level form (those another unit contains)."""
    return [p for p in placed if any(q is not p and q[0].start <= p[0].start and p[0].end <= q[0].end
                                     for q in placed)]


def _range_edit(text: str, span: Span, units: list[tuple[Span, int, int]],
                lines: list[str]) -> TextEdit | bool | None:
    """The edit formatting the ``units`` that overlap ``span``; ``False`` when they cannot be
    replaced on their own (they share lines with text outside them, or none overlaps)."""
    touched = [p for p in units if (p[0].start < span.end and span.start < p[0].end)
               or p[0].start <= span.start <= p[0].end]
    if not touched:
        return False
    first, last = touched[0], touched[-1]
    start = line_start_at(text, first[0].start)
    end = line_end_at(text, last[0].end)
    replacement = _newline_of(text).join(lines[first[1]:last[2] + 1])
    if _tokens(text[start:end]) != _tokens(replacement):  # something else shares those lines
        return False
    if text[start:end] == replacement:
        return None
    return TextEdit(Span(start, end), replacement)


_SIGNIFICANT = re.compile(r";(?:[^\r\n]*[^\s])?|[()]|" + WORD)
_COMMENT_SPLIT = re.compile("(" + COMMENT + ")")


def _tokens(text: str) -> list[str]:
    """What ``_SIGNIFICANT.findall`` gives, built by ``str`` methods: a ``;`` only ever starts a comment
    (it is in no word), and outside comments the tokens are the parentheses and the runs between
    them and whitespace (``str.split`` and ``\\s`` agree on what whitespace is). Faster than the regular
    expression on a large problem, where this check runs on every formatting."""
    if ";" not in text:
        return text.replace("(", " ( ").replace(")", " ) ").split()
    tokens: list[str] = []
    for number, piece in enumerate(_COMMENT_SPLIT.split(text)):
        if number % 2:
            tokens.append(piece.rstrip())
        else:
            tokens.extend(piece.replace("(", " ( ").replace(")", " ) ").split())
    return tokens


def whole_document_edit(text: str, formatted: str) -> TextEdit | None:
    """The smallest single edit turning ``text`` into ``formatted`` (common prefix and suffix
    kept), so the editor keeps the cursor and folds outside the change."""
    if formatted == text:
        return None
    limit = min(len(text), len(formatted))
    prefix = _common_length(lambda n: text[:n] == formatted[:n], limit)
    suffix = _common_length(lambda n: text[len(text) - n:] == formatted[len(formatted) - n:], limit - prefix)
    return TextEdit(Span(prefix, len(text) - suffix), formatted[prefix:len(formatted) - suffix])


def _common_length(same: Callable[[int], bool], limit: int) -> int:
    """The largest ``n <= limit`` with ``same(n)`` (``same`` holds up to some length, then fails),
    found by bisection: string comparisons run in C, a character loop would not on a 1 MB file."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if same(middle):
            low = middle
        else:
            high = middle - 1
    return low


def same_tokens(before: str, after: str) -> bool:
    """Whether two texts differ only in the whitespace between tokens (a safety net for callers)."""
    return _tokens(before) == _tokens(after)


@dataclass(frozen=True, slots=True)
class Formatted:
    """The formatted text, or ``None`` with the reason it was left alone."""

    text: str | None
    reason: str = ""


def refusal(parsed: ParsedDocument) -> str | None:
    """Why a parsed file must not be formatted (``None``: it may be)."""
    if parsed.kind == "unknown":
        return "not a PDDL domain, problem or plan"
    errors = [d for d in parsed.diagnostics if d.severity is Severity.ERROR]
    if errors:
        return f"{len(errors)} syntax error(s) (the first: {errors[0].message}); fix them first"
    return None


def format_parsed(parsed: ParsedDocument, indent: int = DEFAULT_INDENT,
                  width: int = DEFAULT_WIDTH) -> Formatted:
    """Format a parsed file (the editor has the parse already): not at all when it has syntax
    errors, so nothing the user wrote can be lost."""
    reason = refusal(parsed)
    if reason is not None:
        return Formatted(None, reason)
    text = parsed.text
    try:
        formatted = format_text(text, indent, width, plan=parsed.kind == "plan")
    except (Unbalanced, RecursionError) as error:
        return Formatted(None, f"cannot format: {error or 'nesting too deep'}")
    if not same_tokens(text, formatted):  # cannot happen by construction; never risk the user's text
        logger.error("formatting %s would change its tokens; left alone", parsed.path)
        return Formatted(None, "internal error: the layout would change the text's tokens")
    return Formatted(formatted)


def format_document(path: str, text: str, indent: int = DEFAULT_INDENT,
                    width: int = DEFAULT_WIDTH) -> Formatted:
    """What ``plansight format`` does with one file."""
    from plansight.analyses.syntax.documents import parse_document

    return format_parsed(parse_document(path, text), indent, width)
