"""Where the cursor is in the structure of a PDDL text that is being typed, for completion and
signature help.

The model cannot answer this: while the user types, the form around the cursor is unfinished and the
parser's recovery may drop it. The parentheses before the cursor can: which forms are open, what
each one's head word is, and how many arguments the innermost one has so far. Only parentheses and
comments are scanned (with one regular expression), so this stays fast on a 1 MB problem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from plansight.analyses.diagnostics.spans import Span, line_start_at
from plansight.analyses.syntax.lexical import COMMENT, WORD, WORD_CHAR, WORD_RE, in_comment

_PARENS = re.compile(COMMENT + r"|[()]")
_PREFIX = re.compile(WORD_CHAR + r"*\Z")
_TOKEN = re.compile(COMMENT + r"|[()]|" + WORD)
LONG_FORM = 4096
"""Characters of a form before the cursor beyond which its top-level words are not re-read one by one."""


@dataclass(frozen=True, slots=True)
class OpenForm:
    """An open ``(`` before the cursor: where it is and its first word (lower-cased, ``""`` if none)."""

    start: int
    head: str
    head_span: Span


@dataclass(frozen=True, slots=True)
class CursorContext:
    """The cursor's place: the word being typed, the open forms around it (outermost first), the
    words of the innermost form before the cursor, and whether the cursor is typing that form's head."""

    offset: int
    prefix: str
    prefix_span: Span
    forms: tuple[OpenForm, ...]
    words_before: tuple[str, ...]
    """the innermost form's complete top-level words before the prefix, its head included (nested
    forms count as one ``"(...)"`` word each)"""

    @property
    def innermost(self) -> OpenForm | None:
        """The form the cursor is directly inside, or None at the top level."""
        return self.forms[-1] if self.forms else None

    @property
    def heads(self) -> tuple[str, ...]:
        """The head word of each enclosing form, outermost first: completion decides what fits from this path.
        """
        return tuple(f.head for f in self.forms)

    @property
    def at_head(self) -> bool:
        """Typing the first word right after a ``(``."""
        return bool(self.forms) and not self.words_before

    @property
    def argument_index(self) -> int:
        """Which argument of the innermost form the cursor is on (0: the first after the head)."""
        return max(len(self.words_before) - 1, 0)

    @property
    def previous_word(self) -> str:
        """The word just before the cursor in its form (empty at the form's start), e.g. the ``-`` that calls
        for a type.
        """
        return self.words_before[-1] if self.words_before else ""


def cursor_context(text: str, offset: int) -> CursorContext:
    """Where the cursor is, read from the raw text rather than the model, so completion still works in a file
    that does not parse yet.
    """
    offset = max(0, min(offset, len(text)))
    line_start = line_start_at(text, offset)
    prefix_match = _PREFIX.search(text, line_start, offset)
    prefix_start = prefix_match.start() if prefix_match else offset
    prefix = text[prefix_start:offset]
    if in_comment(text, offset):
        return CursorContext(offset, prefix, Span(prefix_start, offset), (), ())
    stack: list[int] = []  # open parentheses
    children: list[int] = []  # per open form: how many forms it directly contains so far
    last_close: list[int] = []  # per open form: the end of its last closed child (-1: none yet)
    for match in _PARENS.finditer(text, 0, prefix_start):
        char = match.group()
        if char == "(":
            if children:
                children[-1] += 1
            stack.append(match.start())
            children.append(0)
            last_close.append(-1)
        elif char == ")" and stack:
            stack.pop()
            children.pop()
            last_close.pop()
            if last_close:
                last_close[-1] = match.end()
    forms = []
    for start in stack:
        word = WORD_RE.match(text, _skip_blanks(text, start + 1, prefix_start))
        if word is not None and word.end() <= prefix_start:
            forms.append(OpenForm(start, word.group().lower(), Span(word.start(), word.end())))
        else:
            forms.append(OpenForm(start, "", Span(start + 1, start + 1)))
    words: tuple[str, ...] = ()
    if stack:
        inner = stack[-1] + 1
        if prefix_start - inner > LONG_FORM and last_close[-1] > inner:
            # a long form (an `:init` of 40,000 facts): its children are counted, not re-read; words
            # written between them (never seen in such forms) are not counted
            head = (forms[-1].head,) if forms[-1].head else ()
            words = head + ("(...)",) * children[-1] + _words(text, last_close[-1], prefix_start)
        else:
            words = _words(text, inner, prefix_start)
    return CursorContext(offset, prefix, Span(prefix_start, offset), tuple(forms), words)


def _skip_blanks(text: str, start: int, end: int) -> int:
    while start < end and text[start].isspace():
        start += 1
    return start


def _words(text: str, start: int, end: int) -> tuple[str, ...]:
    """Top-level words of ``text[start:end]``; a nested form is one word, ``"(...)"``."""
    words: list[str] = []
    depth = 0
    for match in _TOKEN.finditer(text, start, end):
        token = match.group()
        if token.startswith(";"):
            continue
        if token == "(":
            if depth == 0:
                words.append("(...)")
            depth += 1
        elif token == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            words.append(token)
    return tuple(words)
