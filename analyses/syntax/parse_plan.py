"""Text of a plan file -> Plan model + syntax diagnostics.

One step per ``(name arg ...)``; IPC timestamps (``0.001: (a b)``) and durations (``[10]``) are
kept for temporal plans; ``; cost = N`` is read. A malformed line is reported and skipped, the
other steps still parse: each line is parsed on its own, so a stray ``[`` (a ``[PLAN]`` marker) cannot
make the parser's error recovery swallow the steps on the lines after it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from plansight.analyses.diagnostics.diagnostic import Diagnostic, capped, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Number, Plan, PlanStep
from plansight.analyses.syntax.build_model import numeric
from plansight.analyses.syntax.lalr import Tables, build_tables, parse
from plansight.analyses.syntax.lexer import (
    BAD,
    COLON,
    LBRACK,
    LPAR,
    NUMBER,
    RBRACK,
    RPAR,
    WORD,
    Token,
    invalid_characters,
    lex_plan,
)
from plansight.analyses.syntax.parens import stray_close_paren
from plansight.analyses.syntax.plain_plan import read_plain_plan


class _PlanBuilder:
    def start(self, children: list[Any]) -> tuple[PlanStep, ...]:
        return tuple(children)

    def step(self, children: list[Any]) -> PlanStep:
        time: Number | None = None
        duration: Number | None = None
        items = list(children)
        if items[0].type == "NUMBER":
            time = numeric(items[0])  # type: ignore[assignment]
            items = items[2:]
        if items[-1].type == "RBRACK":
            duration = numeric(items[-2])  # type: ignore[assignment]
            items = items[:-3]
        lpar, head, *args, rpar = items
        return PlanStep(
            head.name(), tuple(a.name() for a in args), time, duration, Span(lpar.start, rpar.end)
        )


_DESCRIPTIONS = {
    "LPAR": "`(`",
    "RPAR": "`)`",
    "NAME": "an action or object name",
    "NUMBER": "a number",
    "COLON": "`:`",
    "LBRACK": "`[`",
    "RBRACK": "`]`",
}


def _resolve(token: Token, table: Mapping[str, Any]) -> str:
    return "NAME" if token.kind == "WORD" else token.kind


@cache
def _tables() -> Tables:
    return build_tables("plan", _PlanBuilder(), _resolve, lambda t: _DESCRIPTIONS.get(t, t), rooted=False)


@dataclass(frozen=True, slots=True)
class PlanParse:
    """The plan read from a plan file (None when it could not be built) and its syntax diagnostics."""

    plan: Plan | None
    diagnostics: tuple[Diagnostic, ...]


def parse_plan(text: str) -> PlanParse:
    """Parse a plan file's text, reporting every syntax error rather than stopping at the first."""
    return _parse_plan(text)


def _parse_plan(text: str) -> PlanParse:
    plain = read_plain_plan(text)
    if plain is not None:  # the usual plan, one plain step a line: no tokens, nothing to diagnose
        return PlanParse(plain, ())
    tokens, cost_token = lex_plan(text)
    diagnostics: list[Diagnostic] = []
    diagnostics.extend(invalid_characters([t for t in tokens if t.kind == BAD], "a plan"))
    tokens = [t for t in tokens if t.kind != BAD]
    tokens = _balance_lines(tokens, text, diagnostics)
    steps: list[PlanStep] = []
    for group in _line_groups(tokens, text):
        step = _well_formed_step(group)
        if step is not None:
            steps.append(step)
            continue
        group_steps, syntax = parse(group, _tables(), len(text))
        steps.extend(group_steps or ())
        diagnostics.extend(syntax)
    diagnostics = capped(diagnostics)
    diagnostics.sort(key=lambda d: d.span)
    cost = numeric(cost_token) if cost_token is not None else None
    end = tokens[-1].end if tokens else 0
    return PlanParse(Plan(tuple(steps), cost, Span(0, end)), tuple(diagnostics))  # type: ignore[arg-type]


def _well_formed_step(group: list[Token]) -> PlanStep | None:
    """The step of a line that is exactly ``(name arg ...)``, optionally timed ``t: (...) [d]``, built
    without the LALR driver; None for anything else, which the grammar then parses with its diagnostics.

    Nearly every line of a plan has one of these shapes, and the generic driver costs tens of
    microseconds a step: a batch of 1,000 plans of 50 steps spent most of its time there."""
    count = len(group)
    first = 0
    if count >= 5 and group[0].kind == NUMBER and group[1].kind == COLON:
        first = 2
    last = count
    if count - first >= 6 and group[-1].kind == RBRACK and group[-2].kind == NUMBER \
            and group[-3].kind == LBRACK:
        last = count - 3
    if last - first < 3 or group[first].kind != LPAR or group[last - 1].kind != RPAR:
        return None
    words = group[first + 1 : last - 1]
    if any(token.kind != WORD for token in words):
        return None
    time = numeric(group[0]) if first else None
    duration = numeric(group[-2]) if last < count else None
    return PlanStep(words[0].name(), tuple(w.name() for w in words[1:]), time, duration,  # type: ignore[arg-type]
                    Span(group[first].start, group[last - 1].end))


def _line_groups(tokens: list[Token], text: str) -> list[list[Token]]:
    """The balanced tokens cut into lines (a step's `)` on the next line stays with its step)."""
    groups: list[list[Token]] = []
    depth = 0
    previous_end = -1
    for token in tokens:
        between = text[previous_end : token.start]
        # a line ends at \n, \r\n or a lone \r (the LSP rule every analysis follows)
        if not groups or (depth == 0 and ("\n" in between or "\r" in between)):
            groups.append([])
        groups[-1].append(token)
        previous_end = token.end
        if token.kind == LPAR:
            depth += 1
        elif token.kind == RPAR:
            depth = max(0, depth - 1)
    return groups


def _balance_lines(tokens: list[Token], text: str, diagnostics: list[Diagnostic]) -> list[Token]:
    """A step never spans lines in practice: close a step left open at the end of its line."""
    out: list[Token] = []
    open_token: Token | None = None
    previous_end = 0
    for token in tokens:
        between = text[previous_end : token.start]
        on_new_line = "\n" in between or "\r" in between
        previous_end = token.end
        if open_token is not None and token.kind != RPAR and on_new_line:
            _close(open_token, out, diagnostics)
            open_token = None
        if token.kind == LPAR:
            if open_token is not None:
                diagnostics.append(
                    make(
                        "syntax-error",
                        "A plan step is one flat `(action arg ...)`: remove this `(`.",
                        Span(token.start, token.end),
                    )
                )
                continue
            if open_token is None:
                open_token = token
                out.append(token)
                continue
        elif token.kind == RPAR:
            if open_token is None:
                diagnostics.append(stray_close_paren(token))
                continue
            open_token = None
        out.append(token)
    if open_token is not None:
        _close(open_token, out, diagnostics)
    return out


def _close(opener: Token, out: list[Token], diagnostics: list[Diagnostic]) -> None:
    at = out[-1].end
    out.append(Token(RPAR, ")", at, at))
    diagnostics.append(
        make(
            "unclosed-paren",
            "This step's `(` is not closed: add `)` at the end of the step.",
            Span(opener.start, opener.end),
        )
    )
