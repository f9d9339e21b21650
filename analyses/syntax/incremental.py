"""Re-parse only what an edit touched: one top-level section, or a few facts of a long list.

A keystroke in a 1 MB problem changes one fact of a list of tens of thousands; parsing the whole file
again costs hundreds of milliseconds. Given the previous text, its parse and the new text, this module
finds the smallest stretch the edit lies in, at one of two levels:

* the *elements* of ``(:init ...)`` or of the ``(and ...)`` directly inside ``(:goal ...)``, when the
  edit lies inside that list;
* the *sections* of ``(define ...)`` (an action, ``:objects``, ``:init``, ...) otherwise.

It lexes and parses only that stretch, wrapped in the tokens of its enclosing forms so the parser is in
the very state it would be in a full parse, splices the new nodes between the old ones (those after
the edit moved by its change in length, ``span_shift.py``) and folds the sections into a Domain or
Problem the way the parser does. Syntax diagnostics are spliced the same way.

It gives up (returns None, and the caller parses in full) whenever the result might differ from a
full parse: the previous parse had syntax errors, the edit reaches a section's own parentheses or the
header, the re-parsed stretch is not a run of complete forms, a comment opened in it runs past its
end, or its parse reports anything but the builder's notes. ``tests/test_incremental_parse.py``
checks against a full parse after every edit of random edit sequences.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.model.pddl import And
from plansight.analyses.syntax.build_model import (
    Outline,
    Section,
    Splice,
    collecting_notes,
    collecting_outlines,
)
from plansight.analyses.syntax.lalr import parse
from plansight.analyses.syntax.lexer import BAD, FACTS, LPAR, NAME, RPAR, WORD, Token, lex_pddl
from plansight.analyses.syntax.local_repair import REPAIR_CODES, repaired_facts
from plansight.analyses.syntax.parens import balance
from plansight.analyses.syntax.parse_pddl import PddlParse, _tables
from plansight.analyses.syntax.runs import MovedAnd, Run, moved_lazily
from plansight.analyses.syntax.span_shift import NotShiftable, shifted, shifted_diagnostic, shifted_span

logger = logging.getLogger(__name__)

_NAME_CHARACTER = re.compile(r"[A-Za-z0-9_\-]")
_AND_HEAD = re.compile(r"\(\s*(and)(?![A-Za-z0-9_\-])", re.IGNORECASE)
_CHUNK = 4096


@dataclass(frozen=True, slots=True)
class Change:
    """Where two texts differ: ``[start, old_end)`` of the old text became ``[start, start + delta +
    (old_end - start))`` of the new one."""

    start: int
    old_end: int
    delta: int


def changed_range(old: str, new: str) -> Change | None:
    """The one stretch that differs between ``old`` and ``new`` (their common prefix and suffix
    excluded); None when they are equal."""
    if old == new:
        return None
    limit = min(len(old), len(new))
    prefix = _common_prefix(old, new, limit)
    suffix = _common_suffix(old, new, limit - prefix)
    return Change(prefix, len(old) - suffix, len(new) - len(old))


def _common_prefix(old: str, new: str, limit: int) -> int:
    # whole chunks first (compared in C), then a binary search inside the first chunk that differs
    start = 0
    while start + _CHUNK <= limit and old[start:start + _CHUNK] == new[start:start + _CHUNK]:
        start += _CHUNK
    low, high = start, min(start + _CHUNK, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if old[start:middle] == new[start:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(old: str, new: str, limit: int) -> int:
    old_length, new_length = len(old), len(new)
    done = 0
    while done + _CHUNK <= limit and (
        old[old_length - done - _CHUNK:old_length - done] == new[new_length - done - _CHUNK:new_length - done]
    ):
        done += _CHUNK
    low, high = done, min(done + _CHUNK, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if old[old_length - middle:old_length - done] == new[new_length - middle:new_length - done]:
            low = middle
        else:
            high = middle - 1
    return low


def reparse_pddl(old_text: str, old: PddlParse, new_text: str) -> PddlParse | None:
    """The parse of ``new_text`` built from ``old`` (the parse of ``old_text``) by re-parsing only what
    changed; None when that cannot be done safely and the caller should parse in full."""
    outline = old.outline
    if outline is None or old.model is None:
        return None
    change = changed_range(old_text, new_text)
    if change is None:
        return PddlParse(old.model, old.diagnostics, outline, Splice(0, 0, 0, None, ()))
    if change.start >= outline.close.end:
        return _after_define(new_text, old, outline)
    try:
        return _within_list(old_text, new_text, old, outline, change) or _sections(
            old_text, new_text, old, outline, change)
    except NotShiftable as reason:
        logger.debug("full parse: cannot move %s", reason)
        return None


def _after_define(new_text: str, old: PddlParse, outline: Outline) -> PddlParse | None:
    """An edit after the closing ``)`` of ``(define ...)`` that leaves only blanks and comments there
    changes nothing: no offset moves."""
    end = outline.close.end
    if lex_pddl(new_text, True, end) or any(
            d.span.end > end or d.code in REPAIR_CODES for d in old.diagnostics):
        return None
    return PddlParse(old.model, old.diagnostics, outline, Splice(end, end, 0, None, ()))


def _sections(old_text: str, new_text: str, old: PddlParse, outline: Outline,
              change: Change) -> PddlParse | None:
    """Re-parse the run of whole sections the change touches (possibly none: an edit between them)."""
    head_end, close_start = outline.head[-1].end, outline.close.start
    if change.start < head_end or change.old_end > close_start:
        return None
    sections = outline.sections
    first = bisect_right(sections, change.start, key=_end)  # those before end at or before the change
    after = bisect_left(sections, change.old_end, key=_start)  # those after start at or after its end
    start = sections[first - 1].span.end if first > 0 else head_end
    stop = sections[after].span.start if after < len(sections) else close_start
    delta = change.delta
    tokens = _lex_forms(new_text, start, stop + delta, in_facts=False)
    if tokens is None:
        return None
    close = _moved(outline.close, delta)
    parsed = _parse_wrapped(new_text, [*map(_copy, outline.head), *tokens, close])
    if parsed is None:
        return None
    fresh, notes = parsed
    spliced = (*sections[:first], *fresh, *_moved_sections(sections[after:], delta, outline.problem))
    new_outline = Outline(outline.head, spliced, close, outline.problem)
    return _finish(old, new_outline, notes, Splice(start, stop, delta, None, tuple(fresh)))


def _within_list(old_text: str, new_text: str, old: PddlParse, outline: Outline,
                 change: Change) -> PddlParse | None:
    """Re-parse the run of elements of ``(:init ...)``, ``(:goal (and ...))`` or a problem's ``(:objects
    ...)`` that the change touches."""
    sections = outline.sections
    index = bisect_right(sections, change.start, key=_end) if sections else 0
    if index >= len(sections):
        return None
    section = sections[index]
    if not (section.span.start < change.start and change.old_end < section.span.end):
        return None
    keyword = section.keyword.text.lower()
    opening: list[Token]
    if keyword in (":init", ":objects") and outline.problem:
        container_end = section.span.end - 1
        elements = Run.of(section.payload)
        inner = section.keyword.end
        opening = [Token(LPAR, "(", section.span.start, section.span.start + 1), _copy(section.keyword)]
    elif keyword == ":goal" and type(section.payload) in (And, MovedAnd):
        conjunction = section.payload
        head = _AND_HEAD.match(old_text, conjunction.span.start)
        if head is None or not (head.end() <= change.start and change.old_end < conjunction.span.end):
            return None
        container_end = conjunction.span.end - 1
        elements = Run.of(conjunction.args)
        inner = head.end()
        opening = [Token(LPAR, "(", section.span.start, section.span.start + 1), _copy(section.keyword),
                   Token(LPAR, "(", conjunction.span.start, conjunction.span.start + 1),
                   Token(WORD, head.group(1), head.start(1), head.end(1))]
    else:
        return None
    if change.start < inner or (change.start == inner and not _delimits(new_text, inner)):
        return None  # the edit reaches the list's keyword, or glues a name to it (`:objectsx`)
    names = keyword == ":objects"
    # names are not delimited: one that ends or starts at the edit is parsed again, as it may grow
    widen = 1 if names else 0
    first = elements.ending_by(change.start - widen)
    after = elements.starting_before(change.old_end + widen)
    for diagnostic in old.diagnostics:  # a fact left open (and repaired) is parsed again with the edit
        if diagnostic.code in REPAIR_CODES and inner <= diagnostic.span.start < container_end:
            held = elements.starting_before(diagnostic.span.start + 1) - 1
            if held >= 0:
                first, after = min(first, held), max(after, held + 1)
    count = len(elements)
    start = elements.span(first - 1).end if first > 0 else inner
    stop = elements.span(after).start if after < count else container_end
    delta = change.delta
    if names:
        untyped = _untyped_around(elements, first, after, start)
        tokens = _lex_names(new_text, start, stop + delta) if untyped else None
    elif old_text[stop] in "()":
        tokens = _lex_forms(new_text, start, stop + delta, in_facts=True)
    else:
        return None
    repairs: list[Diagnostic] = []
    if tokens is None and outline.problem:
        # a fact left open while it is typed: repaired where the facts show the repair of the whole
        # file would put its `)` (``local_repair.py``)
        frames = [(opening[i], opening[i + 1]) for i in range(0, len(opening), 2)]
        found = repaired_facts(new_text, sections[:index], frames, elements, first, after, start, delta,
                               _closers(section, container_end))
        if found is not None:
            tokens, repairs, stop, after = found
    if tokens is None:
        return None
    closing = [Token(RPAR, ")", p + delta, p + delta + 1) for p in _closers(section, container_end)]
    close = _moved(outline.close, delta)
    parsed = _parse_wrapped(new_text, [*map(_copy, outline.head), *opening, *tokens, *closing, close])
    if parsed is None or len(parsed[0]) != 1:
        return None
    (fresh,), notes = parsed
    if fresh.keyword.text.lower() != keyword:
        return None
    new_elements = _elements(fresh.payload)
    merged = Run.join(elements.window(0, first), new_elements, elements.window(after, count).moved(delta))
    payload: Any = merged if keyword != ":goal" else MovedAnd(merged, fresh.payload.span)
    section = Section(fresh.keyword, payload, fresh.span)
    spliced = (*sections[:index], section, *_moved_sections(sections[index + 1:], delta, outline.problem))
    new_outline = Outline(outline.head, spliced, close, outline.problem)
    # the list is named: objects declare, and whoever follows the splice must know (the symbol index
    # re-resolves names)
    return _finish(old, new_outline, [*notes, *repairs], Splice(start, stop, delta, keyword, new_elements))


def _delimits(text: str, at: int) -> bool:
    """Whether the character at ``at`` ends the word before it (a blank, a parenthesis, a comment)."""
    character = text[at:at + 1]
    return character.isspace() or character in ("(", ")", ";", "")


def _untyped_around(elements: Run, first: int, after: int, start: int) -> bool:
    """Whether the names on both sides of the stretch between elements ``first - 1`` and ``after`` have no
    type, so that names parsed there alone (with no ``- type``: :func:`_lex_names`) are exactly what a
    full parse gives. A typed group's ``- type`` follows its names: the names before an edit would take
    a moved type, or a new one, so an edit in a typed group re-parses the section. That includes the
    name just before the stretch when its ``- type`` lies inside it (``f a - block`` with ``a - block``
    deleted: ``f`` loses its type), though not when its group closed before the stretch began."""
    last = after - 1 if after > first else first - 1
    if not all(elements.node(index)[0].type is None for index in (last, after) if 0 <= index < len(elements)):
        return False
    if first == 0:
        return True
    before, moved = elements.node(first - 1)
    return before.type is None or before.type.span.end + moved <= start


def _lex_names(text: str, start: int, stop: int) -> list[Token] | None:
    """The tokens of ``text[start:stop]`` when they are only names (no ``- type``, nothing else), so that
    the names before and after the stretch keep their types; None otherwise."""
    tokens = lex_pddl(text, True, start, stop)
    last = tokens[-1].end if tokens else start
    if last > stop or _comment_runs_past(text, last, stop):
        return None
    if any(token.kind != WORD and token.kind != NAME for token in tokens):
        return None
    return tokens


def _moved_sections(sections: Sequence[Section], delta: int, problem: bool) -> tuple[Section, ...]:
    """The sections after an edit, moved by ``delta``. A problem's are moved lazily (``runs.py``): its
    fields take deferred values. A domain's fold reads every payload, so its sections are copied."""
    if not problem:
        return tuple(shifted(tuple(sections), delta))
    if delta == 0:
        return tuple(sections)
    return tuple(
        Section(_moved(s.keyword, delta), moved_lazily(s.payload, delta), shifted_span(s.span, delta))
        for s in sections)


def _closers(section: Section, container_end: int) -> list[int]:
    """The positions of the ``)`` that close the list and the forms around it, innermost first."""
    if container_end == section.span.end - 1:
        return [container_end]
    return [container_end, section.span.end - 1]


def _elements(payload: Any) -> tuple[Any, ...]:
    return tuple(payload.args) if type(payload) is And else tuple(payload)


def _finish(old: PddlParse, outline: Outline, notes: list[Diagnostic], splice: Splice) -> PddlParse | None:
    """The new parse: the outline folded, and the old diagnostics outside ``[start, stop)`` (moved when
    after it) with the re-parsed stretch's notes in place of those inside."""
    start, stop, delta = splice.start, splice.stop, splice.delta
    kept: list[Diagnostic] = []
    for diagnostic in old.diagnostics:
        span = diagnostic.span
        if span.start == span.end and span.start in (start, stop):
            return None  # empty and on the stretch's boundary: whose is it?
        if diagnostic.code in REPAIR_CODES and not (start <= span.start and span.end <= stop):
            return None  # a parenthesis repaired elsewhere: the repair's count of missing `)` changed
        if span.end <= start:
            kept.append(diagnostic)
        elif span.start >= stop:
            kept.append(shifted_diagnostic(diagnostic, delta))
        elif not (start <= span.start and span.end <= stop):
            return None  # it straddles the stretch's boundary
    kept.extend(dict.fromkeys(notes))
    kept.sort(key=lambda d: d.span)
    with collecting_notes():
        model = outline.fold()
    return PddlParse(model, tuple(kept), outline, splice)


def _lex_forms(text: str, start: int, stop: int, in_facts: bool) -> list[Token] | None:
    """The tokens of ``text[start:stop]`` when they are a run of complete forms that a full lex would
    produce too; None otherwise."""
    if 0 < start < stop and _NAME_CHARACTER.match(text, start - 1) and _NAME_CHARACTER.match(text, start):
        return None  # the edit glued a word onto the keyword before the stretch
    tokens = lex_pddl(text, True, start, stop, in_facts)
    last = tokens[-1].end if tokens else start
    if last > stop or _comment_runs_past(text, last, stop):
        return None
    depth = 0
    for token in tokens:
        kind = token.kind
        if kind == LPAR:
            depth += 1
        elif kind == RPAR:
            depth -= 1
            if depth < 0:
                return None
        elif kind == BAD or (depth == 0 and not (in_facts and kind == FACTS)):
            return None  # an invalid character, or something outside any form
    return tokens if depth == 0 else None


def _comment_runs_past(text: str, start: int, stop: int) -> bool:
    """Whether a comment opened between ``start`` and ``stop`` (only blanks and comments lie there) is still
    open at ``stop``."""
    semicolon = text.rfind(";", start, stop)
    if semicolon < 0:
        return False
    return "\n" not in text[semicolon:stop] and "\r" not in text[semicolon:stop]


def _parse_wrapped(text: str, tokens: list[Token]) -> tuple[list[Section], list[Diagnostic]] | None:
    """The sections a clean parse of ``tokens`` (a ``(define ...)`` holding only the re-parsed stretch)
    finds, and the builder's notes; None when the parse reports anything else."""
    balanced, repairs = balance(tokens, text)
    if repairs:
        return None
    with collecting_notes() as notes, collecting_outlines() as outlines:
        model, syntax = parse(balanced, _tables(), len(text))
    if syntax or model is None or len(outlines) != 1:
        return None
    return list(outlines[0][6:-1]), notes


def _copy(token: Token) -> Token:
    return _moved(token, 0)


def _moved(token: Token, delta: int) -> Token:
    copy = Token(token.kind, token.text, token.start + delta, token.end + delta, token.value)
    copy.type = token.kind
    return copy


def _start(node: Any) -> int:
    return node.span.start  # type: ignore[no-any-return]


def _end(node: Any) -> int:
    return node.span.end  # type: ignore[no-any-return]


