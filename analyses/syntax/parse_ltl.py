"""Text of a ``.ltl`` file -> LtlGoal model + syntax diagnostics; never raises.

The tables come from ``grammar/ltl.lark`` through :func:`.lalr.build_tables`, like the PDDL and
plan parsers, but recovery is different: a formula has no parenthesised sections to skip, and the
typical slip is one missing token (`forall x (p(x))` without the `.`, an unclosed `(`) or one stray
token (`p(a) and and q(b)`). So at an error the driver first tries to insert one missing
punctuation token, then to drop tokens until one fits, and reports one diagnostic per error with the
tokens that were expected. Keywords are resolved from the parser state, so an object that happens
to be called `then` or `or` still parses as an argument.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from plansight.analyses.diagnostics.diagnostic import Diagnostic, capped, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.ltl import (
    LtlAnd,
    LtlAtom,
    LtlFormula,
    LtlGoal,
    LtlImplies,
    LtlNot,
    LtlOr,
    LtlQuantified,
    LtlThen,
)
from plansight.analyses.syntax.lalr import Tables, _can_shift, _Reject, _Run, _syntax_error, build_tables
from plansight.analyses.syntax.lexer import Token, invalid_characters
from plansight.analyses.syntax.lexical import COMMENT, NAME

KEYWORDS: dict[str, str] = {
    "then": "THEN",
    "implies": "IMPLIES",
    "or": "OR",
    "and": "AND",
    "not": "NOT",
    "forall": "FORALL",
    "exists": "EXISTS",
    "forn": "FORN",
}

_DESCRIPTIONS = {
    "LPAR": "`(`",
    "RPAR": "`)`",
    "COMMA": "`,`",
    "DOT": "`.`",
    "NAME": "a name",
    "NUMBER": "a number",
    "IMPLIES": "`implies`",
    **{terminal: f"`{word}`" for word, terminal in KEYWORDS.items() if terminal != "IMPLIES"},
}

# Names follow the paper (`pants`, `pants.1000`) plus PDDL's `-`; `.` only before digits, so the
# quantifier's `x.` stays a name and a dot.
_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<comment>" + COMMENT + r")"
    r"|(?P<LPAR>\()"
    r"|(?P<RPAR>\))"
    r"|(?P<COMMA>,)"
    r"|(?P<IMPLIES>=>)"
    r"|(?P<NUMBER>\d+(?![A-Za-z_\-]))"
    r"|(?P<WORD>" + NAME + r"(?:\.\d+(?![A-Za-z_\-]))?)"
    r"|(?P<DOT>\.)"
    r"|(?P<BAD>.)",
    re.DOTALL,
)
_INSERTIONS = (("LPAR", "RPAR"), ("RPAR",), ("DOT",), ("COMMA",), ("LPAR",))
"""Tried in order at an error: `handempty and ...` (a 0-ary atom written without `()`) is the
commonest slip, then an unclosed `(`, a quantifier without its `.`, two arguments without `,`."""
_MAX_ERRORS = 50


def lex_ltl(text: str) -> tuple[list[Token], list[Token]]:
    """The significant tokens and the invalid characters."""
    tokens: list[Token] = []
    bad: list[Token] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        token = Token(kind or "BAD", m.group(), m.start(), m.end())
        (bad if kind == "BAD" else tokens).append(token)
    return tokens, bad


class _Builder:
    def start(self, children: list[Any]) -> LtlFormula:
        return children[0]  # type: ignore[no-any-return]

    def atom(self, children: list[Any]) -> LtlAtom:
        head, lpar, *rest = [c for c in children if c is not None]
        args = tuple(t.name() for t in rest if t.type in ("NAME", "NUMBER"))
        return LtlAtom(head.name(), args, Span(head.start, rest[-1].end if rest else lpar.end))

    def group(self, children: list[Any]) -> LtlFormula:
        lpar, inner, rpar = children
        return replace(inner, span=Span(lpar.start, rpar.end))  # type: ignore[no-any-return]

    def not_stmt(self, children: list[Any]) -> LtlNot:
        keyword, operand = children
        return LtlNot(operand, Span(keyword.start, operand.span.end))

    def and_stmt(self, children: list[Any]) -> LtlAnd:
        operands = tuple(children[::2])
        return LtlAnd(operands, _cover(operands))

    def or_stmt(self, children: list[Any]) -> LtlOr:
        operands = tuple(children[::2])
        return LtlOr(operands, _cover(operands))

    def then_stmt(self, children: list[Any]) -> LtlThen:
        stages = tuple(children[::2])
        return LtlThen(stages, _cover(stages))

    def implies_stmt(self, children: list[Any]) -> LtlImplies:
        left, _, right = children
        return LtlImplies(left, right, Span(left.span.start, right.span.end))

    def forall_stmt(self, children: list[Any]) -> LtlQuantified:
        return self._quantified("forall", children, None)

    def exists_stmt(self, children: list[Any]) -> LtlQuantified:
        return self._quantified("exists", children, None)

    def forn_stmt(self, children: list[Any]) -> LtlQuantified:
        number = children[1]
        rest = [c for c in children[2:] if c is not None and getattr(c, "type", None) != "DOT"]
        return self._quantified("forn", [children[0], *rest], int(number.text or "0"))

    @staticmethod
    def _quantified(kind: Any, children: list[Any], count: int | None) -> LtlQuantified:
        keyword, variable = children[0], children[1]
        body, rpar = children[-2], children[-1]
        return LtlQuantified(kind, variable.name(), body, count, Span(keyword.start, rpar.end))


def _cover(parts: tuple[LtlFormula, ...]) -> Span:
    return Span(parts[0].span.start, parts[-1].span.end)


def _resolve(token: Token, row: Mapping[str, Any]) -> str:
    """A keyword is a name only where no formula can start (an argument, a quantified variable)."""
    if token.kind != "WORD":
        return token.kind
    keyword = KEYWORDS.get(token.text)
    if keyword is None or keyword in row or "NAME" not in row or "NOT" in row:
        return keyword or "NAME"
    return "NAME"


@cache
def _tables() -> Tables:
    return build_tables("ltl", _Builder(), _resolve, lambda t: _DESCRIPTIONS.get(t, ""), rooted=False)


@dataclass(frozen=True, slots=True)
class LtlParse:
    """The goal read from an ``.ltl`` file and its syntax diagnostics."""

    goal: LtlGoal
    diagnostics: tuple[Diagnostic, ...]

    @property
    def formula(self) -> LtlFormula | None:
        """The formula, or None when it could not be parsed."""
        return self.goal.formula


def parse_ltl(text: str) -> LtlParse:
    """The formula of ``text`` (None when nothing could be recovered) and every syntax error."""
    tokens, bad = lex_ltl(text)
    diagnostics = invalid_characters(bad, "an LTL formula")
    if not tokens:
        diagnostics.append(make(
            "empty-file",
            "This LTL file has no formula yet: write one, e.g. `on(a, b) and on(b, c)` "
            "or `pick-up(a) then stack(a, b)`.", Span(0, 0)))
        return LtlParse(LtlGoal(None, Span(0, 0)), tuple(diagnostics))
    formula = _drive(tokens, _tables(), diagnostics)
    diagnostics = capped(diagnostics)
    diagnostics.sort(key=lambda d: d.span)
    return LtlParse(LtlGoal(formula, Span(tokens[0].start, tokens[-1].end)), tuple(diagnostics))


def _drive(tokens: list[Token], tables: Tables, diagnostics: list[Diagnostic]) -> LtlFormula | None:
    actions = tables.actions
    run = _Run(actions, [tables.start_state], [], [])
    errors = 0

    def fits(run: _Run, token: Token) -> bool:
        token.type = _resolve(token, run.row)
        return _can_shift(actions, run.states, token.type)

    index = 0
    while index < len(tokens):
        token = tokens[index]
        if fits(run, token):
            run.feed(token)
            index += 1
            continue
        errors += 1
        if errors > _MAX_ERRORS:
            return None
        diagnostics.append(_error(token, tokens[index - 1] if index else None, run, tables))
        keyword = KEYWORDS.get(token.text.lower()) if token.kind == "WORD" else None
        if keyword is not None and _can_shift(actions, run.states, keyword):
            token.type = keyword  # `AND`: reported, then read as the keyword it was meant to be
            run.feed(token)
            index += 1
            continue
        repaired = _insert_missing(run, token, fits)
        if repaired is not None:
            run = repaired
            continue
        index += 1
        while index < len(tokens) and not fits(run, tokens[index]):
            index += 1
    return _finish(run, tokens[-1], tables, diagnostics, reported=errors > 0)


def _insert_missing(run: _Run, token: Token, fits: Any) -> _Run | None:
    """The run with missing punctuation inserted before ``token``, if that lets ``token`` fit."""
    for kinds in _INSERTIONS:
        if kinds == ("LPAR",) and token.kind == "WORD" and token.text.lower() in KEYWORDS:
            continue  # `(` before a keyword would turn it into an argument and hide the real slip
        attempt = run.copy()
        for kind in kinds:
            if not _can_shift(attempt.actions, attempt.states, kind):
                break
            attempt.feed(Token(kind, "", token.start, token.start))
        else:
            if fits(attempt, token):
                return attempt
    return None


def _finish(run: _Run, last: Token, tables: Tables, diagnostics: list[Diagnostic],
            reported: bool) -> LtlFormula | None:
    """Reduce to a formula at the end, closing parentheses left open (reported once)."""
    closed = 0
    while True:
        try:
            return run.copy().finish(tables.end_state, last.end)  # type: ignore[no-any-return]
        except _Reject:
            pass
        if closed == 0:
            diagnostics.append(_syntax_error(Token("$END", "", last.end, last.end), run, tables, at_end=True))
        if not _can_shift(run.actions, run.states, "RPAR") or closed > 1000:
            return None
        run.feed(Token("RPAR", "", last.end, last.end))
        closed += 1


def _error(token: Token, previous: Token | None, run: _Run, tables: Tables) -> Diagnostic:
    diagnostic = _syntax_error(token, run, tables)
    hint = ""
    keyword = KEYWORDS.get(token.text.lower())
    if keyword is not None and token.text != token.text.lower() and _can_shift(tables.actions, run.states,
                                                                              keyword):
        hint = f" Keywords are lower-case: write `{token.text.lower()}`."
    elif previous is not None and previous.type in ("FORALL", "EXISTS", "FORN") and token.kind == "LPAR":
        hint = f" Quantifiers are written `{previous.text} x. (body)`, not `{previous.text}(x, body)`."
    elif previous is not None and previous.type == "NAME" and _can_shift(tables.actions, run.states, "LPAR"):
        hint = f" An atom needs parentheses even without arguments: `{previous.text}()`."
    if not hint:
        return diagnostic
    message = diagnostic.message.replace("`$END`", "the end of the formula") + hint
    return make("syntax-error", message, diagnostic.span)
