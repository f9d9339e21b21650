"""Balances parentheses before parsing, guessing where a missing or extra one belongs.

A single missing ``)`` makes a LALR parse of PDDL fail far from the mistake (often only at the end of
the file). Before parsing we therefore match parentheses using cues that PDDL's structure gives for
free: a section such as ``(:action`` or ``(:init`` must sit directly inside ``(define``, an action
section keyword (``:effect``) directly inside its action, and, where the file is short of ``)``,
a line that starts at the indentation of an open form's line closes that form. Every guess becomes
one diagnostic on the parenthesis concerned; the parser then sees a balanced stream.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.diagnostics.spans import LineIndex, Span
from plansight.analyses.syntax.lexer import COLON_WORD, FACTS, LPAR, RPAR, Token

SECTION_KEYWORDS = frozenset(
    ":requirements :types :constants :predicates :functions :constraints :action :durative-action "
    ":process :event :derived :domain :objects :init :goal :metric".split()
)
ACTION_KEYWORDS = frozenset(":parameters :precondition :effect :duration :condition :observe".split())
ACTION_SECTIONS = frozenset(":action :durative-action :process :event".split())


class _Opener:
    """An open ``(``; where it stands on its line is worked out only if a missing ``)`` needs placing."""

    __slots__ = ("head", "index", "token")

    def __init__(self, token: Token, head: str, index: int) -> None:
        self.token = token
        self.head = head
        self.index = index


def _line_info(tokens: list[Token], index: int, lines: LineIndex) -> tuple[bool, int]:
    """Whether ``tokens[index]`` is the first token on its line, and its column.

    Only tokens are compared (a comment runs to the end of its line, so nothing significant can
    precede a token on its line unnoticed): constant time even on a single line of a million
    characters.
    """
    offset = tokens[index].start
    line_start = lines.line_start(lines.line_of(offset))
    first = index == 0 or tokens[index - 1].end <= line_start
    return first, offset - line_start


def _describe(opener: _Opener, lines: LineIndex) -> str:
    head = f"`({opener.head}`" if opener.head else "`(`"
    return f"{head} on line {lines.line_of(opener.token.start) + 1}"


MAX_UNCLOSED_REPORTED = 50
"""Past this many, unclosed (or stray) parentheses are summed up in one diagnostic: a file of a million `(` is
not PDDL, and a million diagnostics would only bury the editor."""
_ONLY_LISTED = f" (only the first {MAX_UNCLOSED_REPORTED} are listed)."


def balance(tokens: list[Token], text: str,
            opaque_runs: list[int] | None = None) -> tuple[list[Token], list[Diagnostic]]:
    """The tokens with unbalanced parentheses repaired, and a diagnostic for each repair, so the LALR parser
    always sees balanced forms and recovery can skip whole forms.

    A run of facts (one ``FACTS`` token) is taken as it stands: its parentheses match. Given
    ``opaque_runs``, the index of every run at which a guess could have been made inside it (a fact's
    line closing a form by its indentation, a fact met outside every section) is added to it: the
    repair is then exactly the token-by-token one only once those runs are spelled out
    (``paren_runs.py``).
    """
    opens = sum(1 for t in tokens if t.kind == LPAR)
    closes = sum(1 for t in tokens if t.kind == RPAR)
    budget = opens - closes  # how many `)` are missing overall
    out: list[Token] = []
    diagnostics: list[Diagnostic] = []
    stack: list[_Opener] = []

    line_index: LineIndex | None = None
    unclosed = strays = 0

    def lines() -> LineIndex:
        nonlocal line_index
        if line_index is None:
            line_index = LineIndex(text)
        return line_index

    def close(reason: str) -> None:
        nonlocal unclosed
        opener = stack.pop()
        at = out[-1].end if out else 0
        out.append(Token(RPAR, ")", at, at))
        unclosed += 1
        if unclosed > MAX_UNCLOSED_REPORTED:
            return
        diagnostics.append(
            make(
                "unclosed-paren",
                f"{_describe(opener, lines())} is not closed: add `)` {reason}.",
                Span(opener.token.start, opener.token.end),
                related=(),
                data=(("insert", str(at)),),
            )
        )

    # The section the last `)` closed, while that `)` is the last token out: if what follows can only
    # belong inside that section, and the file has a `)` too many, that `)` is the extra one.
    just_closed: _Opener | None = None

    def reopen(section: _Opener, why: str) -> None:
        nonlocal budget
        extra = out.pop()
        stack.append(section)
        diagnostics.append(
            make(
                "unexpected-close-paren",
                f"This `)` closes {_describe(section, lines())} but {why}: remove it.",
                Span(extra.start, extra.end),
            )
        )
        budget += 1

    count = len(tokens)
    for index, token in enumerate(tokens):
        kind = token.kind
        closed, just_closed = just_closed, None
        if closed is not None and budget < 0 and len(stack) == 1:
            why = _belongs_inside(closed, tokens, index)
            if why:
                reopen(closed, why)
        if kind == LPAR:
            following = tokens[index + 1] if index + 1 < count else None
            head = following.text.lower() if following is not None and following.kind != LPAR else ""
            if head in SECTION_KEYWORDS and len(stack) > 1:
                while len(stack) > 1:
                    close(f"before `({head}` (a section must sit directly inside `(define`)")
                    budget -= 1
            elif budget > 0 and len(stack) > 1:
                first, indent = _line_info(tokens, index, lines())
                while first and budget > 0 and len(stack) > 1:
                    opener_first, opener_indent = _line_info(tokens, stack[-1].index, lines())
                    if not (opener_first and opener_indent >= indent):
                        break
                    close("before this line (its indentation says the form ended)")
                    budget -= 1
            stack.append(_Opener(token, head, index))
            out.append(token)
        elif kind == RPAR:
            if not stack:
                strays += 1
                if strays <= MAX_UNCLOSED_REPORTED:
                    diagnostics.append(stray_close_paren(token))
                continue
            if len(stack) == 1 and _more_sections_follow(tokens, index):
                diagnostics.append(
                    make(
                        "unexpected-close-paren",
                        "This `)` closes `(define` but more sections follow: remove it "
                        "(or the extra `)` just before it).",
                        Span(token.start, token.end),
                    )
                )
                budget += 1
                continue
            popped = stack.pop()
            out.append(token)
            if len(stack) == 1 and popped.head in SECTION_KEYWORDS:
                just_closed = popped
        else:
            if kind == FACTS and opaque_runs is not None and not _inert(token, index, tokens, stack, budget,
                                                                         lines, text):
                opaque_runs.append(index)
            if kind == COLON_WORD and token.text.lower() in ACTION_KEYWORDS:
                action_depth = next(
                    (d for d in range(len(stack) - 1, -1, -1) if stack[d].head in ACTION_SECTIONS), None
                )
                if action_depth is not None:
                    while len(stack) > action_depth + 1:
                        close(f"before `{token.text}` (it must sit directly inside the action)")
                        budget -= 1
            out.append(token)
    while stack:
        close("at the end of the file" if len(stack) == 1 else "where the form ends")
    end = Span(len(text), len(text))
    if strays > MAX_UNCLOSED_REPORTED:
        more = strays - MAX_UNCLOSED_REPORTED
        diagnostics.append(
            make("unexpected-close-paren", f"{more} more `)` close nothing{_ONLY_LISTED}", end)
        )
    if unclosed > MAX_UNCLOSED_REPORTED:
        more = unclosed - MAX_UNCLOSED_REPORTED
        diagnostics.append(make("unclosed-paren", f"{more} more `(` are not closed{_ONLY_LISTED}", end))
    return out, diagnostics


def _inert(run: Token, index: int, tokens: list[Token], stack: list[_Opener], budget: int,
           lines: Callable[[], LineIndex], text: str) -> bool:
    """Whether ``balance`` would guess nothing inside the run of facts ``tokens[index]``, were it spelled out.

    Inside a section, with no `)` missing, a fact's parentheses only open and close it. With a `)`
    missing, a fact that starts its line at or left of the column of the list's `(` would close the
    list: the run's line starts are found by one search of its text (a `(` starting a line inside a
    fact, rarer still, is not inert either). Outside every section (a `)` too many closed it), facts
    are where the extra `)` is looked for.
    """
    if len(stack) <= 1:
        return False
    if budget <= 0:
        return True
    first, column = _line_info(tokens, stack[-1].index, lines())
    run_first, run_column = _line_info(tokens, index, lines())
    if first and run_first and run_column <= column:
        return False
    items: tuple[Any, ...] = run.value  # type: ignore[assignment]
    return line_starts_inert(text, run.start, run.end, {item.span.start for item in items},
                             column if first else -1)


def line_starts_inert(text: str, begin: int, end: int, starts: set[int], column: int) -> bool:
    """Whether, with a ``)`` missing, :func:`balance` would guess nothing at the lines that start with a
    ``(`` in ``[begin, end)`` of a list: each such ``(`` starts one of the list's items (``starts``), right
    of ``column``, the column of the list's ``(`` when that starts its line (-1 when it does not: no
    line's indentation closes such a list)."""
    for m in _LINE_START_PAREN.finditer(text, begin, end):
        paren = m.end() - 1
        if paren not in starts or paren - m.start(1) <= column:
            return False
    return True


_LINE_START_PAREN = re.compile(r"[\r\n]([^\S\r\n]*)\(")
"""A `(` that starts its line: after a line break (``\\n``, ``\\r``: a ``\\r\\n`` matches at its ``\\n``) and
blanks only."""


def form_structure(tokens: list[Token]) -> tuple[list[int], list[int]]:
    """For each token, the index of its matching `)` (for a `(`) and of the `(` of the form around it
    (-1 at the top)."""
    matching = list(range(len(tokens)))
    parent = [-1] * len(tokens)
    stack: list[int] = []
    for i, token in enumerate(tokens):
        kind = token.kind
        parent[i] = stack[-1] if stack else -1  # a `)` belongs to the form it closes
        if kind == RPAR and stack:
            matching[stack.pop()] = i
        elif kind == LPAR:
            stack.append(i)
    return matching, parent


def _belongs_inside(section: _Opener, tokens: list[Token], index: int) -> str:
    """Why ``tokens[index]``, met directly inside ``(define``, must belong to ``section`` (or "")."""
    token = tokens[index]
    if token.kind == COLON_WORD and token.text.lower() in ACTION_KEYWORDS and section.head in ACTION_SECTIONS:
        return f"`{token.text}` after it belongs to that action"
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if (
        token.kind == LPAR
        and following is not None
        and following.kind != LPAR
        and (following.text.lower() not in SECTION_KEYWORDS)
    ):
        return f"`({following.text}` after it is not a section, so it belongs inside"
    return ""


def stray_close_paren(token: Token) -> Diagnostic:
    """The diagnostic for a ``)`` that closes nothing."""
    return make("unexpected-close-paren", "This `)` closes nothing: remove it.", Span(token.start, token.end))


def _more_sections_follow(tokens: list[Token], index: int) -> bool:
    nxt = index + 1
    return (
        nxt + 1 < len(tokens)
        and tokens[nxt].kind == LPAR
        and tokens[nxt + 1].text.lower() in SECTION_KEYWORDS
    )
