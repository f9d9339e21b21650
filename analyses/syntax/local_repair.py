"""The parenthesis repair of a fact left open in a list (``:init``, the goal's ``(and ...)``), made on
the edited elements alone.

Typing a fact in an editor that does not close brackets leaves its ``(`` open at every keystroke until
the ``)``. The repair (``parens.py``) then decides where the missing ``)`` goes by the indentation of
the following lines, over the whole file: a line whose ``(`` starts at or left of the column of an
open form's line closes that form. For a 1 MB problem that is a full lex and parse at every key,
~0.4 s. Yet in the usual layout (one fact per line, indented under ``(:init``) the decision is local:
the next fact's line closes the open one. This module makes that decision on the edited stretch and
the elements after it, by running the repair itself on a token list that stands for the whole file:
``(define``, the forms around the list (``(:init``, or ``(:goal`` and ``(and``, with what decides
whether each starts its line), the stretch, then their ``)`` and that of ``define``. It is taken only
when it is exactly what the repair of the whole file decides (``incremental.py`` uses it, and
``tests/test_incremental_parse.py`` compares with full parses):

* the rest of the file is balanced, so the number of ``)`` missing is the stretch's own;
* nothing before the stretch could have been taken for the end of a form while a ``)`` was missing:
  every ``(`` that starts a line in the list before the stretch (and in ``:init``, before the goal)
  starts one of its elements, right of the column of the list's line (``parens.line_starts_inert``,
  which the repair asks of a run of facts too);
* within the stretch, the missing ``)`` are all placed, and nowhere else: after it the count is even
  again and no rule applies.
"""

from __future__ import annotations

from collections.abc import Sequence

from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.diagnostics.spans import line_start_at
from plansight.analyses.syntax.build_model import Section
from plansight.analyses.syntax.lexer import BAD, COLON_WORD, LPAR, RPAR, WORD, Token, lex_pddl
from plansight.analyses.syntax.parens import balance, line_starts_inert
from plansight.analyses.syntax.runs import Run

REPAIR_CODES = frozenset({"unclosed-paren", "unexpected-close-paren"})
"""the diagnostics of the parenthesis repair"""
MORE_FACTS = 4
"""how many facts after the edited ones may be read to find the line that closes an open one"""
BEFORE_INIT = frozenset({":domain", ":requirements", ":objects"})
"""sections that may come before the list here: none holds a form of its own, so none starts a line with
a ``(`` that the repair could take for the end of a form (``:init``, before the goal, is checked)"""


def repaired_facts(text: str, before: Sequence[Section], frames: Sequence[tuple[Token, Token]],
                   elements: Run, first: int, after: int, start: int, delta: int,
                   closers: Sequence[int]) -> tuple[list[Token], list[Diagnostic], int, int] | None:
    """The tokens of the stretch from ``start`` (after element ``first - 1`` of the list) through the
    elements after element ``after - 1``, with the ``)`` the repair of the whole of ``text`` would add
    there, its diagnostics, the end of the stretch in the previous version's offsets and the index of the
    first element after it; None when the repair would decide anything outside the stretch, or the
    stretch needs no repair.

    ``frames`` are the ``(`` and head of the forms around the list, outermost first (``(:init``, or
    ``(:goal`` and ``(and``), ``closers`` where their ``)`` are, innermost first, and ``before`` the
    sections before the list's."""
    checks = _regions_before(text, before, frames, elements, first, start)
    if checks is None or not all(line_starts_inert(text, *check) for check in checks):
        return None
    count = len(elements)
    for extra in range(1, MORE_FACTS + 1):
        upto = after + extra
        if upto > count:
            return None
        stop = elements.span(upto).start if upto < count else closers[0]
        repaired = _repaired(text, frames, elements, first, start, stop + delta,
                             [closer + delta for closer in closers])
        if repaired is not None:
            return repaired[0], repaired[1], stop, upto
    return None


def _repaired(text: str, frames: Sequence[tuple[Token, Token]], elements: Run, first: int, start: int,
              stop: int, closers_at: Sequence[int]) -> tuple[list[Token], list[Diagnostic]] | None:
    tokens = lex_pddl(text, False, start, stop)
    if not tokens or tokens[-1].end > stop or any(t.kind in (BAD, COLON_WORD) for t in tokens):
        return None
    comment = text.rfind(";", tokens[-1].end, stop)
    if comment >= 0 and "\n" not in text[comment:stop] and "\r" not in text[comment:stop]:
        return None  # a comment typed in the stretch runs into the facts after it
    opens = sum(t.kind == LPAR for t in tokens) - sum(t.kind == RPAR for t in tokens)
    if opens <= 0:
        return None  # balanced (the plain incremental path), or a `)` too many (not handled here)
    # what decides, for the repair, whether each `(` around the list and the stretch's first token start
    # their lines: the end of the token before each
    standing = [Token(LPAR, "(", 0, 0), Token(WORD, "define", 0, 0)]
    for opener, head in frames:
        column = _column_if_first(text, opener.start)
        before = opener.start - column if column >= 0 else opener.start  # its line's start, if it is first
        standing += [Token(WORD, "", before, before), opener, head]
    before_stretch = elements.span(first - 1).end if first > 0 else frames[-1][1].end
    standing.append(Token(WORD, "", before_stretch, before_stretch))
    lead = len(standing)
    closers = [Token(RPAR, ")", at, at + 1) for at in closers_at] + [Token(RPAR, ")", len(text), len(text))]
    out, diagnostics = balance([*standing, *tokens, *closers], text)
    kept = out[-len(closers):]
    if len(diagnostics) != opens or any(a is not b for a, b in zip(kept, closers, strict=True)):
        return None
    for diagnostic in diagnostics:
        inserted = dict(diagnostic.data).get("insert")
        if diagnostic.code != "unclosed-paren" or diagnostic.span.start < start or inserted is None or not (
                start <= int(inserted) <= stop):
            return None
    return out[lead:-len(closers)], diagnostics


def _column_if_first(text: str, opener: int) -> int:
    """The column of the ``(`` at ``opener`` if it starts its line, else -1 (no line's indentation closes
    a form that does not start its line)."""
    line = line_start_at(text, opener)
    return opener - line if not text[line:opener].strip() else -1


Check = tuple[int, int, set[int], int]
"""a stretch of text, the starts of the elements of the list it lies in, and the column of the list's
``(`` if it starts its line (else -1)"""


def _regions_before(text: str, before: Sequence[Section], frames: Sequence[tuple[Token, Token]],
                    elements: Run, first: int, start: int) -> list[Check] | None:
    """What must be checked before the stretch (``parens.line_starts_inert``); None when something there
    could be taken for the end of a form in a way not checked here: a section other than ``:domain``,
    ``:requirements``, ``:objects`` (and ``:init``, before the goal). The goal's ``(and``, which a line
    could also close, is among the tokens the repair runs on (:func:`_repaired`)."""
    checks: list[Check] = []
    list_keyword = frames[0][1].text.lower()
    for section in before:
        keyword = section.keyword.text.lower()
        if keyword == ":init" and list_keyword == ":goal":
            inside = Run.of(section.payload)
            end = inside.span(len(inside) - 1).end if len(inside) else section.keyword.end
            checks.append((section.keyword.end, end, set(inside.starts()),
                           _column_if_first(text, section.span.start)))
        elif keyword not in BEFORE_INIT:
            return None
    head = frames[-1][1]
    checks.append((head.end, start, set(elements.window(0, first).starts()),
                   _column_if_first(text, frames[-1][0].start)))
    return checks

