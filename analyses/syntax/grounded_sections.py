"""Whole sections of a grounded domain read in one step, straight into the model.

A domain that a planner's preprocessor grounded (IPC's grounded trucks, logistics) is thousands of
``(:action NAME :parameters () :precondition (and (p) ...) :effect (and (q) (not (p))))`` over
thousands of nullary ``(:predicates (p) ...)``. Token by token, each action costs some twenty tokens
through the lexer, the parenthesis pass and the LALR driver; read here, it costs a few regular
expression matches and the model nodes themselves. Only the plainest forms are taken (no comment
inside, no parameter, literals of names only); anything else returns None and the tokens take over,
so the model, its spans and the diagnostics are exactly the token-by-token parse's
(``tests/test_grounded_sections.py`` compares both on generated domains, broken variants and the
corpus). The caller uses these only on a full parse, and parses again without them when the file
has any syntax error, so that recovery and parenthesis repair always see the real tokens.
"""

from __future__ import annotations

import re

from plansight.analyses.model.pddl import Action, And, Formula, PredicateDecl
from plansight.analyses.syntax.build_model import Section
from plansight.analyses.syntax.lexer import COLON_WORD, Token, read_facts, span_at, word_name
from plansight.analyses.syntax.lexical import NAME_END, STRICT_NAME

SECTION = "SECTION"
"""The token kind (and grammar terminal) of a section read here; its value is the :class:`Section`."""

_HEAD = re.compile(r"\(\s*(:(?i:action|predicates))" + NAME_END + r"\s*")
_ACTION_NAME = re.compile(r"(" + STRICT_NAME + r")(?=[\s()])\s*")
_PART = re.compile(r"(:(?i:parameters|precondition|effect))" + NAME_END + r"\s*")
_NO_PARAMETERS = re.compile(r"\(\s*\)\s*")
_AND = re.compile(r"\(\s*((?i:and))(?=[\s()])")
_CLOSE = re.compile(r"\s*\)")
_NULLARY = re.compile(r"\(\s*(" + STRICT_NAME + r")\s*(\))\s*")
_KINDS = {":action": "K_ACTION", ":predicates": "K_PREDICATES"}


def read_section(text: str, pos: int, stop: int) -> tuple[Token, int] | None:
    """The SECTION token of the ``(:action`` or ``(:predicates`` form at ``pos`` (a ``(`` directly inside
    ``(define``) and the offset after it; None when the form is not one of the plain shapes read here."""
    head = _HEAD.match(text, pos, stop)
    if head is None:
        return None
    keyword = Token(COLON_WORD, head.group(1), head.start(1), head.end(1))
    key = keyword.text.lower()
    keyword.type = _KINDS[key]
    if key == ":action":
        return _action(text, pos, head.end(), stop, keyword)
    return _predicates(text, pos, head.end(), stop, keyword)


def _action(text: str, start: int, pos: int, stop: int, keyword: Token) -> tuple[Token, int] | None:
    """``(:action NAME`` then ``:parameters ()``, ``:precondition`` and ``:effect``, each at most once."""
    named = _ACTION_NAME.match(text, pos, stop)
    if named is None:
        return None
    name = word_name(named.group(1), named.start(1))
    pos = named.end()
    parts: dict[str, Formula | tuple[()]] = {}
    sections = []
    while True:
        part = _PART.match(text, pos, stop)
        if part is None:
            break
        word = part.group(1)
        key = word.lower()
        if key in parts:
            return None
        sections.append(word_name(word, part.start(1)))
        pos = part.end()
        if key == ":parameters":
            empty = _NO_PARAMETERS.match(text, pos, stop)
            if empty is None:
                return None
            parts[key] = ()
            pos = empty.end()
            continue
        read = _formula(text, pos, stop)
        if read is None:
            return None
        parts[key], pos = read
    close = _CLOSE.match(text, pos, stop)
    if close is None:
        return None
    end = close.end()
    span = span_at(start, end)
    action = Action(
        name=name,
        parameters=(),
        precondition=parts.get(":precondition"),  # type: ignore[arg-type]
        effect=parts.get(":effect"),  # type: ignore[arg-type]
        sections=tuple(sections),
        span=span,
    )
    return Token(SECTION, "", start, end, Section(keyword, action, span)), end


def _formula(text: str, pos: int, stop: int) -> tuple[Formula, int] | None:
    """A conjunction of literals or one literal at ``pos``, and the offset after it and the blanks after
    that; None for anything else."""
    conjunction = _AND.match(text, pos, stop)
    if conjunction is not None:
        facts, after = read_facts(text, conjunction.end(), stop)
        close = _CLOSE.match(text, after, stop)
        if close is None:
            return None
        formula: Formula = And(tuple(facts), span_at(pos, close.end()))
        after = close.end()
    else:
        facts, after = read_facts(text, pos, stop)
        if len(facts) != 1:
            return None
        formula = facts[0]
    while after < stop and text[after].isspace():
        after += 1
    return formula, after


def _predicates(text: str, start: int, pos: int, stop: int, keyword: Token) -> tuple[Token, int] | None:
    """``(:predicates`` holding only nullary skeletons, ``(p)``."""
    match = _NULLARY.match
    declarations = []
    while True:
        found = match(text, pos, stop)
        if found is None:
            break
        name = word_name(found.group(1), found.start(1))
        declarations.append(PredicateDecl(name, (), span_at(found.start(), found.end(2))))
        pos = found.end()
    close = _CLOSE.match(text, pos, stop)
    if close is None or not declarations:
        return None
    end = close.end()
    span = span_at(start, end)
    return Token(SECTION, "", start, end, Section(keyword, tuple(declarations), span)), end

