"""Text of a domain or problem file -> model + syntax diagnostics."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Domain, Formula, Problem
from plansight.analyses.syntax.build_model import (
    ModelBuilder,
    Outline,
    Splice,
    collecting_notes,
    collecting_outlines,
)
from plansight.analyses.syntax.grounded_sections import SECTION, GroundedSections
from plansight.analyses.syntax.lalr import Tables, build_tables, parse
from plansight.analyses.syntax.lexer import (
    BAD,
    COLON_WORD,
    DASH,
    FACTS,
    HASH_T,
    LPAR,
    NUMBER,
    OP,
    RPAR,
    RUNS,
    VARIABLE,
    WORD,
    SectionReader,
    Token,
    invalid_characters,
    lex_pddl,
    spelled_tokens,
)
from plansight.analyses.syntax.paren_runs import balance_keeping_runs, spelling_of
from plansight.analyses.syntax.parens import balance, form_structure

_WORD_KEYWORDS = {
    word: "K_" + word.upper().replace("-", "_")
    for word in (
        "define domain problem either and or not imply exists forall when preference at over start end "
        "all assign increase decrease scale-up scale-down minimize maximize always sometime within "
        "at-most-once sometime-after sometime-before always-within hold-during hold-after oneof unknown"
    ).split()
}
_COLON_KEYWORDS = {
    word: "K_" + word[1:].upper().replace("-", "_")
    for word in (
        ":requirements :types :constants :predicates :functions :constraints :action :durative-action "
        ":process :event :derived :parameters :precondition :effect :duration :condition :observe "
        ":objects :init :goal :metric :goal-utilities :vars"
    ).split()
}
_COLON_KEYWORDS[":domain"] = "K_DOMAIN_REF"
_OPERATORS = {"=": "EQ", "<": "LT", ">": "GT", "<=": "LE", ">=": "GE", "+": "PLUS", "*": "STAR", "/": "SLASH"}
_DESCRIPTIONS = {
    "LPAR": "`(`",
    "RPAR": "`)`",
    "NAME": "a name",
    "VARIABLE": "a variable like `?x`",
    "NUMBER": "a number",
    "REQ_KEY": "a requirement like `:strips`",
    "DASH": "`-` and a type",
    "HASH_T": "`#t`",
    "FACTS": "",
    "NAMES": "",
    "SECTION": "",
    **{v: f"`{k}`" for k, v in _OPERATORS.items()},
    **{v: f"`{k}`" for k, v in _WORD_KEYWORDS.items()},
    **{v: f"`{k}`" for k, v in _COLON_KEYWORDS.items()},
    # dialect sections that are read but never worth suggesting
    "K_GOAL_UTILITIES": "",
    "K_VARS": "",
}


def _resolve(token: Token, table: Mapping[str, Any]) -> str:
    kind = token.kind
    if kind == WORD:
        keyword = _WORD_KEYWORDS.get(token.text.lower())
        return keyword if keyword is not None and keyword in table else "NAME"
    if kind == COLON_WORD:
        keyword = _COLON_KEYWORDS.get(token.text.lower())
        if keyword is not None and keyword in table:
            return keyword
        if "REQ_KEY" in table:
            return "REQ_KEY"
        return keyword or "UNKNOWN_KEYWORD"
    if kind == OP:
        return _OPERATORS[token.text]
    if kind in (VARIABLE, NUMBER, DASH, HASH_T):
        return kind
    return kind  # LPAR, RPAR, FACTS, SECTION, BAD


@cache
def _tables() -> Tables:
    return build_tables("pddl", ModelBuilder(), _resolve, lambda t: _DESCRIPTIONS.get(t, t), rooted=True)


@dataclass(frozen=True, slots=True)
class PddlParse:
    """The model read from a domain or problem file (None when it could not be built) and its syntax
    diagnostics.
    """

    model: Domain | Problem | None
    diagnostics: tuple[Diagnostic, ...]
    outline: Outline | None = field(default=None, compare=False, repr=False)
    """The sections of a file without syntax errors, for the incremental re-parse of its next edit."""
    splice: Splice | None = field(default=None, compare=False, repr=False)
    """Set by an incremental parse: what it parsed again (``incremental.py``)."""


def parse_pddl(text: str, fast_facts: bool = True, fast_sections: bool = True) -> PddlParse:
    """Parse a domain or a problem, recovering from errors so the rest can still be checked.

    ``fast_facts`` and ``fast_sections`` (the latter only with the former) let the lexer read runs of
    facts and whole plain sections in one step; the result is the same without them, only slower.
    """
    if fast_facts and fast_sections:
        parsed = _parse_pddl(text, True, GroundedSections())
        if parsed is not None:
            return parsed
    parsed = _parse_pddl(text, fast_facts, None)
    assert parsed is not None
    return parsed


def _parse_pddl(text: str, fast_facts: bool, sections: SectionReader | None) -> PddlParse | None:
    """The parse; None when sections read in one step met a syntax error, which the tokens must then
    recover from (``grounded_sections.py``)."""
    tokens, diagnostics = _skip_lisp_headers(lex_pddl(text, fast_facts, read_section=sections))
    bad = [t for t in tokens if t.kind == BAD]
    if bad:
        diagnostics.extend(invalid_characters(bad, "PDDL (names use letters, digits, `-` and `_`)"))
        tokens = [t for t in tokens if t.kind != BAD]
    if not tokens:
        if not bad:
            diagnostics.append(
                make(
                    "empty-file",
                    "The file is empty: start with `(define (domain NAME) ...)` or "
                    "`(define (problem NAME) ...)`.",
                    Span(0, len(text)),
                )
            )
        return PddlParse(None, tuple(diagnostics))
    lexed = tokens
    opaque: list[int] | None = [] if fast_facts else None
    tokens, paren_diagnostics = balance(tokens, text, opaque)
    if paren_diagnostics and sections is not None and _any_section(tokens):
        return None
    spell = _spelling(text)
    if paren_diagnostics and fast_facts and _any_run(lexed):
        assert opaque is not None
        # the repair's guesses may look at the facts' own parentheses: ``paren_runs`` spells out the
        # runs they would, and reads the facts after a repair as runs again
        repaired = balance_keeping_runs(lexed, text, (tokens, paren_diagnostics, opaque))
        if repaired is None:
            return _parse_pddl(text, False, None)
        tokens, paren_diagnostics = repaired
        spell = spelling_of(tokens, text)
    diagnostics.extend(paren_diagnostics)
    runs = fast_facts and _any_run(tokens)
    with collecting_notes() as notes, collecting_outlines() as outlines:
        # a syntax error is parsed again another way (below, or by the caller): the first one will do
        first_only = runs or (sections is not None and _any_section(tokens))
        model, syntax = parse(tokens, _tables(), len(text), first_error_only=first_only)
    if syntax and sections is not None and _any_section(tokens):
        return None
    if syntax and runs:
        # recovery from an error next to a run of facts must see the atoms' own tokens, as a parse
        # without the runs does; the runs before the error stay, so a large file stays cheap
        kept, resume = _kept_before(text, tokens, syntax[0].span.start)
        first = bisect_left(tokens, syntax[0].span.start, key=_start_of)
        until = tokens[first].end if first < len(tokens) else None
        for _ in range(_MAX_WIDENINGS):
            # the runs come back after the error, where nothing recovery looks at is in them
            stop, fast = _fast_from(tokens, until) if until is not None else (None, [])
            spelled = spell(resume, stop)
            hybrid = kept + spelled + fast
            with collecting_notes() as notes, collecting_outlines() as outlines:
                model, syntax = parse(hybrid, _tables(), len(text))
            if stop is None:
                break
            until = _needs_spelling_out_to(hybrid, syntax, len(kept) + len(spelled))
            if until == stop:
                break
        else:
            spelled = spell(resume, None)
            with collecting_notes() as notes, collecting_outlines() as outlines:
                model, syntax = parse(kept + spelled, _tables(), len(text))
    diagnostics.extend(syntax)
    diagnostics.extend(dict.fromkeys(notes))  # error recovery may replay a form, and note it twice
    diagnostics.sort(key=lambda d: d.span)
    outline = None
    if not paren_diagnostics and not syntax and model is not None and len(outlines) == 1:
        outline = Outline.of(outlines[0], isinstance(model, Problem))
    return PddlParse(model, tuple(diagnostics), outline)


def _spelling(text: str) -> Callable[[int, int | None], list[Token]]:
    """The tokens of ``text`` from one offset to another (None: to the end), read token by token."""
    return lambda start, stop: spelled_tokens(text, start, stop)


def _any_run(tokens: list[Token]) -> bool:
    return any(t.kind in RUNS for t in tokens)



def _kept_before(text: str, tokens: list[Token], error: int) -> tuple[list[Token], int]:
    """The tokens before the first syntax error, at offset ``error``, that the parse may keep as they
    are, and the offset from which the text must be lexed token by token again.

    The parse before the error stays as it was: a run is a whole number of list items, and once the
    items before a token are reduced into their list, the parser's stack is the same whichever way they
    were read. The token where the parse failed is another matter: the reductions it triggers, and so
    the terminals the error lists and the forms recovery skips, depend on how the item before it was
    read. So the last fact of the last run before the error is spelled out too (or the whole run, for
    names or a single fact). Invalid characters were reported by the first lex already.
    """
    index = bisect_left(tokens, error, key=_start_of)
    last = next((i for i in range(index - 1, -1, -1) if tokens[i].kind in RUNS), None)
    if last is None:
        kept = tokens[:index]
        resume = tokens[index].start if index < len(tokens) else len(text)
    else:
        run = tokens[last]
        kept = tokens[:last]
        items: tuple[Formula, ...] = run.value  # type: ignore[assignment]
        if run.kind == FACTS and len(items) > 1:
            kept.append(Token(FACTS, "", run.start, items[-2].span.end, items[:-1]))
            resume = items[-1].span.start
        else:
            resume = run.start
    return kept, resume


_MAX_WIDENINGS = 4
"""Parses that widen the stretch read token by token before it runs to the end of the file."""


def _needs_spelling_out_to(tokens: list[Token], errors: list[Diagnostic], fast_from: int) -> int | None:
    """How far the text must be read token by token for a parse of ``tokens``, whose runs are spelled
    out before index ``fast_from`` only, to be the token-by-token parse: the end of the furthest run
    that an error lies in or after, or that recovery looked at (the token after the error, the token
    after its form, the token after each form around it); ``tokens[fast_from].start`` when nothing
    reached the runs; None (to the end) for an error outside every form, whose recovery scans on.
    """
    matching, parent = form_structure(tokens)
    reach = tokens[fast_from].start
    count = len(tokens)
    for error in errors:
        index = bisect_left(tokens, error.span.start, key=_start_of)
        if index >= count:
            continue  # the end of the file: the parser's state there is the same either way
        if index >= fast_from:
            reach = max(reach, tokens[index].end)
            continue
        if parent[index] < 0:
            return None
        looked = [index + 1]
        for at in (index, index + 1):
            if at < count and tokens[at].kind == LPAR:
                looked.append(matching[at] + 1)
        opener = parent[index]
        while opener >= 0:
            looked.append(matching[opener] + 1)
            opener = parent[opener]
        for at in looked:
            if fast_from <= at < count and tokens[at].kind in RUNS:
                run = tokens[at]
                items: tuple[Formula, ...] = run.value  # type: ignore[assignment]
                # only the run's first fact is looked at: the rest may stay one token
                split = run.kind == FACTS and len(items) > 1
                reach = max(reach, items[1].span.start if split else run.end)
    return reach


def _fast_from(tokens: list[Token], until: int) -> tuple[int | None, list[Token]]:
    """The tokens of the first parse from offset ``until`` on (a run it falls in cut there, for facts),
    and the offset they start at (None when there are none)."""
    index = bisect_left(tokens, until, key=_start_of)
    if index and tokens[index - 1].kind == FACTS and tokens[index - 1].end > until:
        run = tokens[index - 1]
        items: tuple[Formula, ...] = run.value  # type: ignore[assignment]
        cut = next((i for i, item in enumerate(items) if item.span.start >= until), None)
        if cut is not None:
            start = items[cut].span.start
            return start, [Token(FACTS, "", start, run.end, items[cut:]), *tokens[index:]]
    if index < len(tokens):
        return tokens[index].start, tokens[index:]
    return None, []


def _start_of(token: Token) -> int:
    return token.start


def _any_section(tokens: list[Token]) -> bool:
    return any(t.kind == SECTION for t in tokens)


def _skip_lisp_headers(tokens: list[Token]) -> tuple[list[Token], list[Diagnostic]]:
    """Drop the `(in-package "PDDL")` forms that files written for Lisp planners put before `(define`.

    The string in it is no PDDL token (its quotes lex as invalid characters), so the form is cut out
    of the token stream whole, before anything else looks at it.
    """
    diagnostics: list[Diagnostic] = []
    start = 0
    while (
        len(tokens) > start + 1
        and tokens[start].kind == LPAR
        and tokens[start + 1].kind == WORD
        and tokens[start + 1].text.lower() == "in-package"
    ):
        # the form holds a package name and nothing in parentheses: a `(` before its `)` means the
        # `)` is missing, and the form must not swallow the `(define ...)` after it
        end = next((i for i in range(start + 2, len(tokens)) if tokens[i].kind in (LPAR, RPAR)), None)
        if end is None or tokens[end].kind == LPAR:
            break
        opener, closer = tokens[start], tokens[end]
        diagnostics.append(
            make(
                "skipped-form",
                f"`({tokens[start + 1].text} ...)` is a Lisp package header, not PDDL: plansight ignores it. "
                "Planners not written in Lisp may reject it: remove it if one does.",
                Span(opener.start, closer.end),
            )
        )
        start = end + 1
    return tokens[start:], diagnostics
