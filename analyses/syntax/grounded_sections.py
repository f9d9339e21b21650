"""Whole sections of a grounded domain read in one step, straight into the model.

A domain that a planner's preprocessor grounded (IPC's grounded trucks, logistics) is thousands of
``(:action NAME :parameters () :precondition (and (p) ...) :effect (and (q) (not (p))))`` over
thousands of nullary ``(:predicates (p) ...)``. Token by token, each action costs some twenty tokens
through the lexer, the parenthesis pass and the LALR driver; read here, it costs a few regular
expression matches and the model nodes themselves. Only the plainest forms are taken (no comment
between an action's parts, no parameter, literals of names only); anything else returns None and the
tokens take over, so the model, its spans and the diagnostics are exactly the token-by-token parse's
(``tests/test_grounded_sections.py`` compares both on generated domains, shapes left alone and broken
variants, ``tests/test_fast_facts.py`` on the corpus). The caller uses these only on a full parse, and
parses again without them when the file needs a parenthesis repair or has a syntax error, so that
recovery and repair always see the real tokens.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Action, And, Formula, Name, Not, PredicateDecl
from plansight.analyses.syntax.build_model import Section
from plansight.analyses.syntax.lexer import (
    COLON_WORD,
    FORMULA_HEADS,
    Token,
    fast_atom,
    fast_name,
    read_facts,
    span_at,
)
from plansight.analyses.syntax.lexical import NAME_END, STRICT_NAME

SECTION = "SECTION"
"""The token kind (and grammar terminal) of a section read here; its value is the :class:`Section`."""

_HEAD = re.compile(r"\(\s*(:(?i:action|predicates))" + NAME_END + r"\s*")
_ACTION_NAME = re.compile(r"(" + STRICT_NAME + r")(?=[\s()])\s*")
_PART = re.compile(r"(:(?i:parameters|precondition|effect))" + NAME_END + r"\s*")
_NO_PARAMETERS = re.compile(r"\(\s*\)\s*")
_AND = re.compile(r"\(\s*((?i:and))(?=[\s()])")
_CLOSE = re.compile(r"\s*\)")
_BLANKS = re.compile(r"\s*")
_NULLARY = re.compile(r"\(\s*(" + STRICT_NAME + r")\s*(\))\s*")
_CLOSE_AND_BLANKS = re.compile(r"\s*(\))\s*")
# One literal of names, `(p a b)` or `(not (p a b))`, blanks only inside and before it. Group 1 is its `(`;
# 2-7 read a negated atom (`not`, the atom's `(`, predicate, arguments, the atom's `)`, the `)` of `not`),
# 8-10 a plain one (predicate, arguments, `)`).
_LITERAL = re.compile(
    r"\s*(\()\s*(?:((?i:not))\s*(\()\s*(" + STRICT_NAME + r")((?:\s+" + STRICT_NAME + r")*)\s*(\))\s*(\))"
    r"|(" + STRICT_NAME + r")((?:\s+" + STRICT_NAME + r")*)\s*(\)))"
)
_KINDS = {":action": "K_ACTION", ":predicates": "K_PREDICATES"}

# Thousands of actions, each with two conjunctions: their nodes are made as the lexer makes names and
# atoms, setting the slots directly rather than through the frozen dataclasses' __init__.
_new = object.__new__


def _setters(cls: type, *names: str) -> list[Callable[[object, object], None]]:
    return [vars(cls)[name].__set__ for name in names]


_set_and_args, _set_and_span = _setters(And, "args", "span")
_set_not_arg, _set_not_span = _setters(Not, "arg", "span")
_set_name, _set_precondition, _set_effect, _set_sections, _set_span = _setters(
    Action, "name", "precondition", "effect", "sections", "span")
_ACTION_DEFAULTS = [
    (vars(Action)[f.name].__set__, f.default)
    for f in fields(Action)
    if f.name not in ("name", "precondition", "effect", "sections", "span")
]
"""Every other field of an action read here keeps its default (no parameters, kind ``action``)."""


def _new_action(name: Name, precondition: Formula | None, effect: Formula | None, sections: tuple[Name, ...],
                span: Span) -> Action:
    """``Action(name, precondition=precondition, effect=effect, sections=sections, span=span)``."""
    action = _new(Action)
    for setter, default in _ACTION_DEFAULTS:
        setter(action, default)
    _set_name(action, name)
    _set_precondition(action, precondition)
    _set_effect(action, effect)
    _set_sections(action, sections)
    _set_span(action, span)
    return action


def _new_and(args: tuple[Formula, ...], span: Span) -> And:
    node = _new(And)
    _set_and_args(node, args)
    _set_and_span(node, span)
    return node


def _new_not(arg: Formula, span: Span) -> Not:
    node = _new(Not)
    _set_not_arg(node, arg)
    _set_not_span(node, span)
    return node


class GroundedSections:
    """The section reader of one full parse (see ``lexer.SectionReader``). Spellings are shared across the
    file: a grounded domain names each of its predicates in hundreds of literals."""

    __slots__ = ("_spellings",)

    def __init__(self) -> None:
        self._spellings: dict[str, tuple[str, str]] = {}  # spelling -> the one (spelling, key) kept

    def __call__(self, text: str, pos: int, stop: int) -> tuple[Token, int] | None:
        """The SECTION token of the ``(:action`` or ``(:predicates`` form at ``pos`` (a ``(`` directly inside
        ``(define``) and the offset after it; None when the form is not one of the plain shapes read
        here."""
        head = _HEAD.match(text, pos, stop)
        if head is None:
            return None
        word, key = self._spelling(head.group(1))
        keyword = Token(COLON_WORD, word, head.start(1), head.end(1))
        keyword.type = _KINDS[key]
        if key == ":action":
            return self._action(text, pos, head.end(), stop, keyword)
        return self._predicates(text, pos, head.end(), stop, keyword)

    def _spelling(self, word: str) -> tuple[str, str]:
        shared = self._spellings.get(word)
        if shared is None:
            shared = self._spellings[word] = (word, word if word.islower() else word.lower())
        return shared

    def _name(self, word: str, start: int) -> Name:
        spelling, key = self._spelling(word)
        return fast_name(key, spelling, span_at(start, start + len(word)))

    def _action(self, text: str, start: int, pos: int, stop: int, keyword: Token) -> tuple[Token, int] | None:
        """``(:action NAME`` then ``:parameters ()``, ``:precondition`` and ``:effect``, each at most once."""
        named = _ACTION_NAME.match(text, pos, stop)
        if named is None:
            return None
        name = fast_name(*_keyed(named.group(1)), span_at(named.start(1), named.end(1)))
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
            sections.append(self._name(word, part.start(1)))
            pos = part.end()
            if key == ":parameters":
                empty = _NO_PARAMETERS.match(text, pos, stop)
                if empty is None:
                    return None
                parts[key] = ()
                pos = empty.end()
                continue
            read = self._formula(text, pos, stop)
            if read is None:
                return None
            parts[key], pos = read
        close = _CLOSE.match(text, pos, stop)
        if close is None:
            return None
        end = close.end()
        span = span_at(start, end)
        action = _new_action(name, parts.get(":precondition"), parts.get(":effect"),  # type: ignore[arg-type]
                             tuple(sections), span)
        return Token(SECTION, "", start, end, Section(keyword, action, span)), end

    def _formula(self, text: str, pos: int, stop: int) -> tuple[Formula, int] | None:
        """A conjunction of literals or one literal at ``pos``, and the offset after it and the blanks after
        that; None for anything else."""
        conjunction = _AND.match(text, pos, stop)
        if conjunction is None:
            facts, after = read_facts(text, pos, stop)
            if len(facts) != 1:
                return None
            return facts[0], _BLANKS.match(text, after, stop).end()  # type: ignore[union-attr]
        inside = conjunction.end()
        read = self._literals(text, inside, stop)
        if read is not None:
            literals, close = read
        else:
            literals, after = read_facts(text, inside, stop)
            found = _CLOSE_AND_BLANKS.match(text, after, stop)
            if found is None:
                return None
            close = found
        return _new_and(tuple(literals), span_at(pos, close.end(1))), close.end()

    def _literals(self, text: str, pos: int, stop: int) -> tuple[list[Formula], re.Match[str]] | None:
        """The literals of a conjunction from ``pos``, and the match of the ``)`` that closes it and the
        blanks after that; None when something else stands among them (a comment, a nested formula),
        which :func:`read_facts` or the tokens read. (The loop of a grounded domain's 30,000 literals:
        spans and spellings are made inline.)"""
        literals: list[Formula] = []
        append = literals.append
        match = _LITERAL.match
        spellings = self._spellings
        new_span = tuple.__new__
        while True:
            found = match(text, pos, stop)
            if found is None:
                break
            negated = found.start(2) >= 0  # (not (p ...))
            group = 4 if negated else 8
            word = found.group(group)
            shared = spellings.get(word)
            if shared is None:
                shared = spellings[word] = (word, word if word.islower() else word.lower())
            head, key = shared
            if key in FORMULA_HEADS:
                return None
            head_start = found.start(group)
            args = found.group(group + 1)
            predicate = fast_name(key, head, new_span(Span, (head_start, head_start + len(head))))
            arguments = self._arguments(text, args, found.start(group + 1)) if args else ()
            if negated:
                atom = fast_atom(predicate, arguments, new_span(Span, (found.start(3), found.end(6))))
                append(_new_not(atom, new_span(Span, (found.start(1), found.end(7)))))
            else:
                append(fast_atom(predicate, arguments, new_span(Span, (found.start(1), found.end(10)))))
            pos = found.end()
        close = _CLOSE_AND_BLANKS.match(text, pos, stop)
        if close is None:
            return None
        return literals, close

    def _arguments(self, text: str, words: str, at: int) -> tuple[Name, ...]:
        """The Names of a ground atom's arguments, ``words`` found at offset ``at``."""
        names = []
        find = text.find
        for word in words.split():
            at = find(word, at)
            names.append(self._name(word, at))
            at += len(word)
        return tuple(names)

    def _predicates(
        self, text: str, start: int, pos: int, stop: int, keyword: Token
    ) -> tuple[Token, int] | None:
        """``(:predicates`` holding only nullary skeletons, ``(p)``."""
        match = _NULLARY.match
        declarations = []
        while True:
            found = match(text, pos, stop)
            if found is None:
                break
            name = self._name(found.group(1), found.start(1))
            declarations.append(PredicateDecl(name, (), span_at(found.start(), found.end(2))))
            pos = found.end()
        close = _CLOSE.match(text, pos, stop)
        if close is None or not declarations:
            return None
        end = close.end()
        span = span_at(start, end)
        return Token(SECTION, "", start, end, Section(keyword, tuple(declarations), span)), end


def _keyed(word: str) -> tuple[str, str]:
    return word if word.islower() else word.lower(), word
