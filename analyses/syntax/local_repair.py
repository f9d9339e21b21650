"""The parenthesis repair of a fact left open in ``:init``, made on the edited facts alone.

Typing a fact in an editor that does not close brackets leaves its ``(`` open at every keystroke until
the ``)``. The repair (``parens.py``) then decides where the missing ``)`` goes by the indentation of
the following lines, over the whole file: a line whose ``(`` starts at or left of the column of an
open form's line closes that form. For a 1 MB problem that is a full lex and parse at every key,
~0.4 s. Yet in the usual layout (one fact per line, indented under ``(:init``) the decision is local:
the next fact's line closes the open one. This module makes that decision on the edited stretch and
the facts after it, by running the repair itself on a token list that stands for the whole file:
``(define``, ``(:init`` (with what decides whether each starts its line), the stretch, then the ``)``
of ``:init`` and of ``define``. It is taken only when it is exactly what the repair of the whole file
decides (``incremental.py`` uses it, and ``tests/test_incremental_parse.py`` compares with full parses):

* the rest of the file is balanced, so the number of ``)`` missing is the stretch's own;
* nothing before the stretch could have been taken for the end of a form while a ``)`` was missing:
  every ``(`` that starts a line between ``(:init`` and the stretch starts a fact, right of the column
  of ``(:init``'s line (``parens._inert`` asks the same of a run of facts);
* within the stretch, the missing ``)`` are all placed, and nowhere else: after it the count is even
  again and no rule applies.
"""

from __future__ import annotations

from collections.abc import Sequence

from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.syntax.build_model import Section
from plansight.analyses.syntax.lexer import BAD, COLON_WORD, LPAR, RPAR, WORD, Token, lex_pddl
from plansight.analyses.syntax.parens import _LINE_START_PAREN, balance
from plansight.analyses.syntax.runs import Run

REPAIR_CODES = frozenset({"unclosed-paren", "unexpected-close-paren"})
"""the diagnostics of the parenthesis repair"""
MORE_FACTS = 4
"""how many facts after the edited ones may be read to find the line that closes an open one"""
BEFORE_INIT = frozenset({":domain", ":requirements", ":objects"})
"""sections that may come before ``:init`` here: none holds a form of its own, so none starts a line with
a ``(`` that the repair could take for the end of a form"""


def repaired_facts(text: str, before: Sequence[Section], section: Section, elements: Run, first: int,
                   after: int, start: int, delta: int, container_end: int
                   ) -> tuple[list[Token], list[Diagnostic], int, int] | None:
    """The tokens of the stretch from ``start`` (after element ``first - 1`` of ``:init``) through the
    facts after element ``after - 1``, with the ``)`` the repair of the whole of ``text`` would add there,
    its diagnostics, the end of the stretch in the previous version's offsets and the index of the first
    element after it; None when the repair would decide anything outside the stretch, or the stretch
    needs no repair. ``before`` are the sections before ``:init``."""
    if any(s.keyword.text.lower() not in BEFORE_INIT for s in before):
        return None
    if not _nothing_guessed_before(text, section, elements, first, start):
        return None
    count = len(elements)
    for extra in range(1, MORE_FACTS + 1):
        upto = after + extra
        if upto > count:
            return None
        stop = elements.span(upto).start if upto < count else container_end
        repaired = _repaired(text, section, elements, first, start, stop + delta, container_end + delta)
        if repaired is not None:
            return repaired[0], repaired[1], stop, upto
    return None


def _repaired(text: str, section: Section, elements: Run, first: int, start: int, stop: int,
              container_end: int) -> tuple[list[Token], list[Diagnostic]] | None:
    tokens = lex_pddl(text, False, start, stop)
    if not tokens or tokens[-1].end > stop or any(t.kind in (BAD, COLON_WORD) for t in tokens):
        return None
    comment = text.rfind(";", tokens[-1].end, stop)
    if comment >= 0 and "\n" not in text[comment:stop] and "\r" not in text[comment:stop]:
        return None  # a comment typed in the stretch runs into the facts after it
    opens = sum(t.kind == LPAR for t in tokens) - sum(t.kind == RPAR for t in tokens)
    if opens <= 0:
        return None  # balanced (the plain incremental path), or a `)` too many (not handled here)
    opener = Token(LPAR, "(", section.span.start, section.span.start + 1)
    keyword = section.keyword
    # what decides, for the repair, whether `(:init` and the stretch's first token start their lines:
    # the end of the token before each
    init_line = text.rfind("\n", 0, opener.start) + 1
    init_line = max(init_line, text.rfind("\r", 0, opener.start) + 1)
    before_init = init_line if not text[init_line:opener.start].strip() else opener.start
    before_stretch = elements.span(first - 1).end if first > 0 else keyword.end
    closers = (Token(RPAR, ")", container_end, container_end + 1), Token(RPAR, ")", len(text), len(text)))
    standing = [Token(LPAR, "(", 0, 0), Token(WORD, "define", 0, 0),
                Token(WORD, "", before_init, before_init), opener, keyword,
                Token(WORD, "", before_stretch, before_stretch), *tokens, *closers]
    out, diagnostics = balance(standing, text)
    if len(diagnostics) != opens or out[-2] is not closers[0] or out[-1] is not closers[1]:
        return None
    for diagnostic in diagnostics:
        inserted = dict(diagnostic.data).get("insert")
        if diagnostic.code != "unclosed-paren" or diagnostic.span.start < start or inserted is None or not (
                start <= int(inserted) <= stop):
            return None
    return out[6:-2], diagnostics


def _nothing_guessed_before(text: str, section: Section, elements: Run, first: int, start: int) -> bool:
    """Whether, with a ``)`` missing further on, the repair of the whole file would leave everything
    between ``(:init`` and ``start`` as it is: each ``(`` starting a line there starts one of the first
    ``first`` elements, right of the column of ``(:init``'s line if that starts its line."""
    opener = section.span.start
    line = max(text.rfind("\n", 0, opener), text.rfind("\r", 0, opener)) + 1
    column = opener - line if not text[line:opener].strip() else -1
    starts = set(elements.window(0, first).starts())
    for match in _LINE_START_PAREN.finditer(text, section.keyword.end, start):
        paren = match.end() - 1
        if paren not in starts or paren - match.start(1) <= column:
            return False
    return True
