"""Read a problem too large to hold as a model, one bounded piece at a time.

The model of a problem keeps every name with its own position, about 45 times the file's size in
memory (docs/reliability.md, "Why 50 MiB"). A generated problem of 100 MB is almost all ``:objects``
names, ``:init`` facts and atoms of the goal's ``(and ...)``, so this reader walks those three lists
in chunks and hands each chunk over as the very nodes a full parse makes, with the same positions:

* plain facts come from the lexer's own run-of-facts reader (:func:`read_facts`);
* any other element of ``:init`` or of the goal's ``(and ...)`` (a numeric assignment, a timed
  literal, a syntax error) is lexed and parsed alone, wrapped in the tokens of the forms around it
  (``(define (problem NAME) (:init`` ... ``))``), so the parser is in the state a full parse would
  put it in, as the editor's incremental re-parse does (``incremental.py``);
* every other section (``:domain``, ``:requirements``, ``:metric``...) is small and parsed whole, the
  same way.

What it cannot read piece by piece with the full parse's result it refuses with the reason
(:class:`NotStreamable`): parentheses that do not balance, text outside the ``(define ...)``, an
element longer than :data:`MAX_ELEMENT`, a large section other than these three lists, a syntax
error whose recovery reaches outside its element.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import And, Formula, TypedName, TypeRef
from plansight.analyses.syntax.build_model import Section, collecting_notes, collecting_outlines
from plansight.analyses.syntax.lalr import parse
from plansight.analyses.syntax.lexer import (
    BAD,
    COLON_WORD,
    LPAR,
    RPAR,
    WORD,
    Token,
    invalid_characters,
    lex_pddl,
    read_facts,
)
from plansight.analyses.syntax.lexical import COMMENT, NAME, STRICT_NAME
from plansight.analyses.syntax.parens import balance
from plansight.analyses.syntax.parse_pddl import _tables

SMALL_SECTION = 1 << 20
"""Sections up to this many characters are parsed whole; only ``:objects``, ``:init`` and a goal's
``(and ...)`` may be longer."""
MAX_ELEMENT = 1 << 16
"""An element of ``:init`` or of the goal longer than this is not a fact: refused (it would be parsed
whole)."""
CHUNK = 1 << 16
"""Characters of facts or object names read per batch: what bounds the nodes alive at once."""

_BLANKS = re.compile(r"(?:\s+|" + COMMENT + r")*")
_PAREN_OR_COMMENT = re.compile(r"[()]|" + COMMENT)
_LINE_BREAK = re.compile(r"[\r\n]")
_KEYWORD = re.compile(r"\(\s*(:?[A-Za-z][A-Za-z0-9_\-]*)")
_AND = re.compile(r"\(\s*(and)(?![A-Za-z0-9_\-])", re.IGNORECASE)
_NAME_RUN = re.compile(r"(?:\s+|" + COMMENT + r"(?![^\r\n]))*(" + STRICT_NAME + r"(?:\s+" + STRICT_NAME
                       + r")*)(?=[\s();])")
_OBJECT_WORD = re.compile(COMMENT + r"|(" + NAME + r")")
_STREAMED = (":objects", ":init", ":goal")
_BATCH = CHUNK // 16


class NotStreamable(Exception):
    """The file cannot be read piece by piece with the result a full parse would give; ``reason`` says
    why, worded to follow "too large to analyse fully: "."""

    def __init__(self, reason: str, offset: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset


@dataclass(frozen=True, slots=True)
class SectionSpan:
    """One top-level section of ``(define (problem ...))``: where it lies and its keyword."""

    start: int
    end: int
    keyword: Token

    @property
    def key(self) -> str:
        """The keyword in lower case (``:init``)."""
        return self.keyword.text.lower()

    @property
    def size(self) -> int:
        """Its length in characters."""
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class ObjectGroup:
    """A run of object names and the type written after it (None: no ``- type``)."""

    start: int
    end: int
    type: TypeRef | None


class ProblemStream:
    """The outline of a problem's text, and readers of its sections in bounded pieces.

    Syntax diagnostics and the builder's notes of every piece read are gathered in
    :attr:`diagnostics`; invalid characters are reported by :meth:`syntax_diagnostics` once all
    pieces are read (adjacent ones form one run, as in a full parse)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.diagnostics: list[Diagnostic] = []
        self._bad: list[Token] = []
        self.head = self._head()
        self.sections, self.close = self._outline()
        for section in self.sections:
            if section.size > SMALL_SECTION and section.key not in _STREAMED:
                raise NotStreamable(f"its `{section.keyword.text}` section is {section.size:,} characters "
                                    "long; only `:objects`, `:init` and the goal may be that long",
                                    section.start)

    # --- the outline ----------------------------------------------------------------------------
    def _head(self) -> list[Token]:
        text = self.text
        start = _BLANKS.match(text).end()  # type: ignore[union-attr]
        tokens = lex_pddl(text, False, start, min(len(text), start + 4096))[:6]
        shape = [(t.kind, t.text.lower()) for t in tokens]
        expected = [(LPAR, "("), (WORD, "define"), (LPAR, "("), (WORD, "problem")]
        if len(tokens) < 6 or shape[:4] != expected or tokens[4].kind != WORD or tokens[5].kind != RPAR:
            raise NotStreamable("it does not start with `(define (problem NAME)`", start)
        return tokens

    def _outline(self) -> tuple[list[SectionSpan], Token]:
        text = self.text
        pos = self.head[-1].end
        sections: list[SectionSpan] = []
        while True:
            pos = _BLANKS.match(text, pos).end()  # type: ignore[union-attr]
            if pos >= len(text):
                raise NotStreamable("the `(define` that opens it is never closed", self.head[0].start)
            if text[pos] == ")":
                close = Token(RPAR, ")", pos, pos + 1)
                break
            keyword = _KEYWORD.match(text, pos)
            if text[pos] != "(" or keyword is None:
                raise NotStreamable("it holds something other than sections inside `(define ...)`", pos)
            end = form_end(text, pos, len(text))
            if end < 0:
                raise NotStreamable(f"the `({keyword.group(1)}` section is never closed", pos)
            word = keyword.group(1)
            sections.append(SectionSpan(pos, end, Token(WORD if word[0] != ":" else COLON_WORD, word,
                                                        keyword.start(1), keyword.end(1))))
            pos = end
        if _BLANKS.match(text, close.end).end() != len(text):  # type: ignore[union-attr]
            raise NotStreamable("text follows the closing `)` of `(define ...)`", close.end)
        return sections, close

    # --- parsing a piece in place ---------------------------------------------------------------
    def parse_section(self, section: SectionSpan) -> Section:
        """A small section, parsed whole."""
        tokens = lex_pddl(self.text, True, section.start, section.end)
        sections = self._parse(tokens, Span(section.start, section.end), section.start)
        if len(sections) != 1:
            raise NotStreamable(f"its `{section.keyword.text}` section could not be read on its own",
                                section.start)
        return sections[0]

    def _parse(self, tokens: list[Token], where: Span, offset: int) -> list[Section]:
        """The sections a parse of ``tokens`` inside this file's ``(define ...)`` makes; its syntax
        diagnostics must lie inside ``where``."""
        bad = [t for t in tokens if t.kind == BAD]
        if bad:
            self._bad.extend(bad)
            tokens = [t for t in tokens if t.kind != BAD]
        wrapped = [*(_copy(t) for t in self.head), *tokens, _copy(self.close)]
        balanced, repairs = balance(wrapped, self.text)
        if repairs:
            raise NotStreamable("its parentheses do not balance", offset)
        with collecting_notes() as notes, collecting_outlines() as outlines:
            model, syntax = parse(balanced, _tables(), len(self.text))
        if model is None or len(outlines) != 1 or any(
                not (where.start <= d.span.start and d.span.end <= where.end and d.span.start < where.end)
                for d in syntax):
            raise NotStreamable("a syntax error there could not be told apart from the text around it",
                                offset)
        self.diagnostics.extend(syntax)
        self.diagnostics.extend(dict.fromkeys(notes))
        return list(outlines[0][6:-1])

    # --- lists read in chunks -------------------------------------------------------------------
    def _list_of(self, section: SectionSpan) -> tuple[list[Token], int, int]:
        """The tokens that open the list ``section`` holds (``(:init``, or ``(:goal (and``), where its
        elements start, and the offset of the ``)`` that closes it."""
        text = self.text
        opening = [Token(LPAR, "(", section.start, section.start + 1), _copy(section.keyword)]
        pos = section.keyword.end
        close = section.end - 1
        if section.key == ":goal":
            conjunction = _AND.match(text, _BLANKS.match(text, pos).end())  # type: ignore[union-attr]
            if conjunction is None:
                raise NotStreamable("its goal is long but not a conjunction `(and ...)`", section.start)
            opening += [Token(LPAR, "(", conjunction.start(), conjunction.start() + 1),
                        Token(WORD, conjunction.group(1), conjunction.start(1), conjunction.end(1))]
            pos = conjunction.end()
            close = form_end(text, conjunction.start(), section.end) - 1
            if close < 0 or _BLANKS.match(text, close + 1).end() != section.end - 1:  # type: ignore[union-attr]
                raise NotStreamable("its goal holds more than one `(and ...)`", section.start)
        return opening, pos, close

    def elements(self, section: SectionSpan) -> Iterator[list[Formula]]:
        """The elements of ``(:init ...)``, or of the ``(and ...)`` of ``(:goal (and ...))``, in
        batches of about :data:`CHUNK` characters' worth."""
        text = self.text
        opening, pos, close = self._list_of(section)
        batch: list[Formula] = []
        while True:
            limit = min(pos + CHUNK, close)
            facts, pos = read_facts(text, pos, limit)
            batch.extend(facts)
            if len(batch) >= _BATCH:
                yield batch
                batch = []
            element = _BLANKS.match(text, pos, close).end()  # type: ignore[union-attr]
            if element >= close:
                break
            if facts and limit < close and text[element] == "(" and form_end(text, element, limit) < 0:
                continue  # the chunk ended inside a fact: read on from it
            node, pos = self._element(section, opening, element, close, run=True)
            batch.extend(node)
        if batch:
            yield batch

    def _element(self, section: SectionSpan, opening: list[Token], pos: int,
                 close: int, run: bool = False) -> tuple[tuple[Formula, ...], int]:
        """The element (not a plain fact) at ``pos`` of the list ``opening`` starts, parsed in place,
        and the offset after it; with ``run``, the elements after it too, up to about :data:`CHUNK`
        characters (a numeric problem's thousands of ``(= (f a) 3)`` parsed together, as in a full
        parse, rather than one parse each)."""
        text = self.text
        end = self._element_end(section, pos, close)
        if end < 0:
            raise NotStreamable(f"an element of `{section.keyword.text}` is longer than "
                                f"{MAX_ELEMENT:,} characters or never closed", pos)
        while run:
            following = _BLANKS.match(text, end, close).end()  # type: ignore[union-attr]
            if following >= close or following >= pos + CHUNK:
                break
            after = self._element_end(section, following, close)
            if after < 0 or after > pos + CHUNK:
                break
            end = after
        tokens = lex_pddl(text, True, pos, end, True)
        closers = [Token(RPAR, ")", end, end) for _ in range(len(opening) // 2)]
        parsed = self._parse([*opening, *tokens, *closers], Span(pos, end), pos)
        if len(parsed) != 1:
            raise NotStreamable(f"an element of `{section.keyword.text}` could not be read on its own", pos)
        payload = parsed[0].payload
        if type(payload) is And:
            return payload.args, end
        return ((payload,) if section.key == ":goal" else tuple(payload)), end

    def _element_end(self, section: SectionSpan, pos: int, close: int) -> int:
        """The end of the element at ``pos``: a form, or a stray word; -1 when it is too long."""
        text = self.text
        if text[pos] == "(":
            return form_end(text, pos, min(close, pos + MAX_ELEMENT))
        return _word_end(text, pos, close)

    def node_at(self, offset: int, section: SectionSpan) -> Formula:
        """The element of ``section``'s list that starts at ``offset``, read again: the streaming
        checks keep only where each fact is, and read it back when a diagnostic needs it."""
        end = form_end(self.text, offset, section.end)
        facts, _ = read_facts(self.text, offset, end) if end > 0 else ([], offset)
        if len(facts) == 1:
            return facts[0]
        saved = len(self.diagnostics), len(self._bad)
        opening, _, close = self._list_of(section)
        nodes, _ = self._element(section, opening, offset, close)
        del self.diagnostics[saved[0]:], self._bad[saved[1]:]
        return nodes[0]

    def object_groups(self, section: SectionSpan) -> Iterator[ObjectGroup]:
        """The runs of names of ``(:objects ...)`` with their types, checked token by token."""
        text = self.text
        pos = section.keyword.end
        close = section.end - 1
        start = pos
        names = 0
        while True:
            run = _NAME_RUN.match(text, pos, min(close + 1, pos + CHUNK))
            if run is not None:
                names += 1
                pos = run.end()
                continue
            pos = _BLANKS.match(text, pos, close).end()  # type: ignore[union-attr]
            if pos >= close:
                if names:
                    yield ObjectGroup(start, pos, None)
                return
            if text[pos] != "-" or not names:
                raise NotStreamable("`:objects` holds something other than names and `- type`", pos)
            type_end = _type_end(text, pos + 1, close)
            if type_end < 0:
                raise NotStreamable("`:objects` holds a `-` without a type after it", pos)
            first = next(found for found in _OBJECT_WORD.finditer(text, start, pos) if found.group(1))
            tokens = [Token(LPAR, "(", section.start, section.start + 1), _copy(section.keyword),
                      Token(WORD, first.group(1), first.start(1), first.end(1)),
                      *lex_pddl(text, True, pos, type_end), Token(RPAR, ")", type_end, type_end)]
            parsed = self._parse(tokens, Span(pos, type_end), pos)
            typed: tuple[TypedName, ...] = parsed[0].payload if len(parsed) == 1 else ()
            if len(typed) != 1 or typed[0].type is None:
                raise NotStreamable("`:objects` holds a type that could not be read on its own", pos)
            yield ObjectGroup(start, pos, typed[0].type)
            start = pos = type_end
            names = 0

    def object_names(self, group: ObjectGroup) -> Iterator[list[tuple[str, int]]]:
        """The names of a group as (spelling, offset), in batches."""
        text = self.text
        batch: list[tuple[str, int]] = []
        for found in _OBJECT_WORD.finditer(text, group.start, group.end):
            word = found.group(1)
            if word is not None:
                batch.append((word, found.start()))
                if len(batch) >= CHUNK // 8:
                    yield batch
                    batch = []
        if batch:
            yield batch

    def syntax_diagnostics(self) -> list[Diagnostic]:
        """The diagnostics of every piece read, and one per run of invalid characters."""
        found = list(self.diagnostics)
        if self._bad:
            found.extend(invalid_characters(sorted(self._bad, key=lambda t: t.start),
                                            "PDDL (names use letters, digits, `-` and `_`)"))
        return found


def form_end(text: str, start: int, limit: int) -> int:
    """The offset after the ``)`` that closes the ``(`` at ``start`` (comments skipped), or -1 when it
    is not closed before ``limit``. Stretches that cannot hold the closing parenthesis are counted, not
    scanned."""
    depth = 0
    pos = start
    window = 4096  # most forms are short: look at a little first
    while pos < limit:
        stop = min(pos + window, limit)
        window = CHUNK
        closes = text.count(")", pos, stop)
        if depth - closes > 0 and text.find(";", pos, stop) < 0:
            depth += text.count("(", pos, stop) - closes
            pos = stop
            continue
        next_pos = stop
        for found in _PAREN_OR_COMMENT.finditer(text, pos, stop):
            character = text[found.start()]
            if character == "(":
                depth += 1
            elif character == ")":
                depth -= 1
                if depth == 0:
                    return found.end()
            elif found.end() == stop:  # a comment that may run on past the chunk
                line_break = _LINE_BREAK.search(text, found.start())
                next_pos = line_break.start() if line_break is not None else len(text)
                break
        pos = next_pos
    return -1


def _word_end(text: str, start: int, limit: int) -> int:
    """The end of a stray word or character in a list (up to the next blank, parenthesis or comment)."""
    found = re.compile(r"[^\s();]*").match(text, start, limit)
    end = found.end() if found is not None else start
    return max(end, start + 1)


def _type_end(text: str, start: int, limit: int) -> int:
    """The end of the type after a ``-``: a name, or an ``(either ...)`` form; -1 when neither follows."""
    pos = _BLANKS.match(text, start, limit).end()  # type: ignore[union-attr]
    if pos >= limit:
        return -1
    if text[pos] == "(":
        return form_end(text, pos, limit)
    word = re.compile(NAME).match(text, pos, limit)
    return word.end() if word is not None else -1


def _copy(token: Token) -> Token:
    """A fresh token: the parser's driver resolves each token's terminal in place."""
    copy = Token(token.kind, token.text, token.start, token.end, token.value)
    copy.type = token.kind
    return copy
