"""Drives lark's LALR(1) tables token by token, with keyword resolution and error recovery.

lark's own ``parse`` stops at the first error. We feed tokens ourselves so that we can (1) decide
whether a word is a keyword from the parser state (``at`` is a predicate in ``(at ?t ?l)`` and a
time specifier in ``(at start ...)``), and (2) recover: drop a stray token, skip the smallest
enclosing form that cannot be parsed (or replace it with ``()``), and go on, so that every syntax
error is reported and the rest of the file still reaches the semantic checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lark import Lark, Transformer, Tree
from lark.exceptions import UnexpectedInput
from lark.lexer import Lexer
from lark.parsers.lalr_parser_state import ParseConf, ParserState

from ..grammar import grammar_text
from .diagnostics import Diagnostic, make
from .lexer import LPAR, RPAR, Token
from .spans import Span
from .suggest import did_you_mean


class _NoLexer(Lexer):
    """Placeholder: tokens come from plansight's own lexer."""

    def __init__(self, conf: Any) -> None:
        pass

    def lex(self, *args: Any) -> Any:  # pragma: no cover - never called
        raise NotImplementedError


@dataclass(frozen=True)
class Tables:
    conf: ParseConf  # type: ignore[type-arg]
    resolve: Callable[[Token, Mapping[str, Any]], str]
    describe: Callable[[str], str]


def build_tables(
    grammar: str,
    transformer: Transformer,
    resolve: Callable[[Token, Mapping[str, Any]], str],
    describe: Callable[[str], str],
) -> Tables:  # type: ignore[type-arg]
    lark = Lark(grammar_text(grammar), parser="lalr", lexer=_NoLexer, transformer=transformer, start="start")
    inner = lark.parser.parser.parser  # ParsingFrontend -> LALR_Parser -> _Parser
    return Tables(ParseConf(inner.parse_table, inner.callbacks, "start"), resolve, describe)


def _copy_value(value: Any) -> Any:
    # Repetitions are lark Trees whose child lists grow in place; everything else is immutable.
    if isinstance(value, Tree):
        return Tree(value.data, [_copy_value(c) for c in value.children])
    return value


class _Run:
    """One pass over the tokens: the parser state plus the stack of open parentheses."""

    __slots__ = ("opens", "state")

    def __init__(self, state: ParserState, opens: list[int]) -> None:  # type: ignore[type-arg]
        self.state = state
        self.opens = opens

    def copy(self) -> _Run:
        s = self.state
        return _Run(
            ParserState(s.parse_conf, None, list(s.state_stack), [_copy_value(v) for v in s.value_stack]),  # type: ignore[arg-type]
            list(self.opens),
        )


_MAX_RECOVERIES = 200


def parse(tokens: list[Token], tables: Tables, text_length: int) -> tuple[Any, list[Diagnostic]]:
    """The model built from ``tokens`` (balanced in parentheses), or None, and the syntax errors."""
    conf = tables.conf
    states = conf.states
    resolve = tables.resolve
    diagnostics: list[Diagnostic] = []
    matching = _match(tokens)
    skips: dict[int, tuple[int, bool]] = {}  # form start -> (index after it, replaced by "()")
    snapshots: list[tuple[int, _Run]] = []
    run = _Run(ParserState(conf, None), [])  # type: ignore[arg-type]
    count = len(tokens)
    index = 0
    recoveries = 0

    def feed(run: _Run, i: int) -> bool:
        token = tokens[i]
        table = states[run.state.position]
        token.type = resolve(token, table)
        if token.type not in table:
            return False
        try:
            run.state.feed_token(token)  # type: ignore[arg-type]
        except UnexpectedInput:
            return False
        if token.kind == LPAR:
            run.opens.append(i)
        elif token.kind == RPAR and run.opens:
            run.opens.pop()
        return True

    def accepts(run: _Run, i: int) -> bool:
        if i >= count:
            return "$END" in states[run.state.position]
        token = tokens[i]
        return resolve(token, states[run.state.position]) in states[run.state.position]

    def replay_to(target: int) -> _Run:
        start_index, start_run = 0, _Run(ParserState(conf, None), [])  # type: ignore[arg-type]
        for snap_index, snap in reversed(snapshots):
            if snap_index <= target:
                start_index, start_run = snap_index, snap.copy()
                break
        i = start_index
        while i < target:
            if i in skips:
                after, replaced = skips[i]
                if replaced:
                    _feed_empty_form(start_run, tokens[i])
                i = after
                continue
            feed(start_run, i)
            i += 1
        return start_run

    while index < count:
        if index in skips:
            after, replaced = skips[index]
            if replaced:
                _feed_empty_form(run, tokens[index])
            index = after
            continue
        token = tokens[index]
        if token.kind == LPAR and len(run.opens) == 1:
            snapshots.append((index, run.copy()))
        if feed(run, index):
            index += 1
            continue
        diagnostics.append(_syntax_error(token, states[run.state.position], tables))
        recoveries += 1
        if recoveries > _MAX_RECOVERIES:
            return None, diagnostics
        # 1. a stray token (or a stray keyword with its argument form): drop it
        if token.kind not in (LPAR, RPAR):
            if accepts(run, index + 1):
                index += 1
                continue
            if index + 1 < count and tokens[index + 1].kind == LPAR:
                after = matching[index + 1] + 1
                if accepts(run, after):
                    index = after
                    continue
        # 2. the smallest enclosing form that can be skipped or emptied
        candidates = list(reversed(run.opens))
        if token.kind == LPAR:
            candidates.insert(0, index)
        recovered = False
        for opener in candidates:
            if opener == 0:
                break
            after = matching[opener] + 1
            attempt = replay_to(opener)
            if accepts(attempt, after):
                skips[opener] = (after, False)
            else:
                empty = attempt.copy()
                if not _feed_empty_form(empty, tokens[opener]) or not accepts(empty, after):
                    continue
                attempt = empty
                skips[opener] = (after, True)
            run = attempt
            snapshots = [s for s in snapshots if s[0] < opener]
            index = after
            recovered = True
            break
        if not recovered:
            return None, diagnostics
    try:
        result = run.state.feed_token(Token("$END", "", text_length, text_length), True)  # type: ignore[arg-type]
    except UnexpectedInput:
        end = tokens[-1] if tokens else Token("$END", "", text_length, text_length)
        diagnostics.append(_syntax_error(end, states[run.state.position], tables, at_end=True))
        return None, diagnostics
    return result, diagnostics


def _feed_empty_form(run: _Run, at: Token) -> bool:
    states = run.state.parse_conf.states
    for kind in (LPAR, RPAR):
        if kind not in states[run.state.position]:
            return False
        run.state.feed_token(Token(kind, "", at.start, at.start))  # type: ignore[arg-type]
    return True


def _match(tokens: list[Token]) -> list[int]:
    matching = list(range(len(tokens)))
    stack: list[int] = []
    for i, token in enumerate(tokens):
        if token.kind == LPAR:
            stack.append(i)
        elif token.kind == RPAR and stack:
            matching[stack.pop()] = i
    return matching


def _syntax_error(token: Token, table: Mapping[str, Any], tables: Tables, at_end: bool = False) -> Diagnostic:
    expected = sorted({tables.describe(t) for t in table if t.isupper() and t != "$END"})
    if len(expected) > 8:
        expected = [*expected[:8], "..."]
    listing = ", ".join(expected) if expected else "the end of the file"
    if at_end:
        message = f"The file ends too early: expected {listing}."
        return make("syntax-error", message, Span(token.end, token.end))
    found = token.text or token.type
    message = f"Unexpected `{found}`: expected {listing}."
    keyword_options = [t for t in expected if t.startswith("`:") or t.startswith("`")]
    if token.text and keyword_options:
        words = [t.strip("`") for t in keyword_options]
        suggestion = did_you_mean(token.text.lower(), words)
        if suggestion:
            message += f" Did you mean `{suggestion}`?"
    return make("syntax-error", message, Span(token.start, token.end))
