"""Tokens for the PDDL and plan grammars.

The lexer is context-free (but for one token of lookahead, see ``_demote_time_words``); keyword
resolution happens in the parser driver, which knows the parser state. Splitting it this way lets
the parenthesis repair (``parens.py``) see the whole token stream before parsing starts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Atom, Formula, Name, Not, Number
from plansight.analyses.syntax.lexical import COMMENT, NAME_END, STRICT_NAME
from plansight.analyses.syntax.lexical import NAME as _NAME

# Raw token kinds. The driver maps WORD and COLON_WORD to grammar terminals.
LPAR, RPAR, WORD, COLON_WORD, VARIABLE, NUMBER, OP, DASH, HASH_T, FACTS, BAD = (
    "LPAR",
    "RPAR",
    "WORD",
    "COLON_WORD",
    "VARIABLE",
    "NUMBER",
    "OP",
    "DASH",
    "HASH_T",
    "FACTS",
    "BAD",
)
COLON, LBRACK, RBRACK = "COLON", "LBRACK", "RBRACK"
NAME = "NAME"  # a word that the tokens after it show cannot be a keyword; the grammar's NAME terminal


def _shown(character: str) -> str:
    return (
        f"`{character}`" if character.isprintable() and not character.isspace() else f"U+{ord(character):04X}"
    )


def invalid_characters(bad: list[Token], where: str) -> list[Diagnostic]:
    """One diagnostic per run of adjacent invalid characters, and at most 100 runs.

    A binary file or a paste of the wrong encoding would otherwise bury the user (and the editor)
    under one diagnostic per byte.
    """
    runs: list[list[Token]] = []
    for token in bad:
        if runs and runs[-1][-1].end == token.start:
            runs[-1].append(token)
        else:
            runs.append([token])
    diagnostics = []
    for run in runs[:100]:
        shown = ", ".join(dict.fromkeys(_shown(t.text) for t in run[:5]))
        if len(run) == 1:
            message = f"{shown} cannot appear in {where}: remove it."
        else:
            message = f"{len(run)} characters ({shown}...) cannot appear in {where}: remove them."
        diagnostics.append(make("invalid-character", message, Span(run[0].start, run[-1].end)))
    if len(runs) > 100:
        rest = runs[100:]
        diagnostics.append(
            make(
                "invalid-character",
                f"{len(rest)} more runs of invalid characters follow: is this really a text file in UTF-8?",
                Span(rest[0][0].start, rest[-1][-1].end),
            )
        )
    return diagnostics


class Token:
    """A token; ``type`` is the grammar terminal once the driver has resolved it."""

    __slots__ = ("end", "kind", "start", "text", "type", "value")

    def __init__(self, kind: str, text: str, start: int, end: int, value: object = None) -> None:
        self.kind = kind
        self.type = kind
        self.text = text
        self.start = start
        self.end = end
        self.value = value

    def __repr__(self) -> str:
        return f"Token({self.type}, {self.text!r}, {self.start})"

    def __deepcopy__(self, memo: dict) -> Token:
        return self

    def name(self) -> Name:
        """The token as a model Name, keeping its spelling and position."""
        return Name(_key(self.text), self.text, Span(self.start, self.end))


_PDDL_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<comment>" + COMMENT + r")"
    r"|(?P<LPAR>\()"
    r"|(?P<RPAR>\))"
    r"|(?P<VARIABLE>\?" + _NAME + r")"
    r"|(?P<NUMBER>-?(?:\d+(?:\.\d*)?|\.\d+)(?![A-Za-z_\-]))"
    r"|(?P<WORD>" + _NAME + r")"
    r"|(?P<COLON_WORD>:" + _NAME + r")"
    r"|(?P<OP><=|>=|[=<>+*/])"
    r"|(?P<DASH>-)"
    r"|(?P<HASH_T>\#t\b)"
    r"|(?P<BAD>.)",
    re.DOTALL,
)

# A run of ground atoms, the bulk of any large :init. Parsed here in one regex step per atom. A comment
# ends only at a line end: otherwise backtracking would shorten `;(p a)` to `;` and read the
# commented-out atom as a fact.
_SIMPLE_ATOM = re.compile(
    r"(?:\s|" + COMMENT + r"(?![^\r\n]))*\(\s*(" + STRICT_NAME + r")((?:\s+" + STRICT_NAME + r")*)\s*\)"
)
# `(not (atom))`, the delete effects of every grounded action: read in the same step as the atoms around it.
_NEGATED_ATOM = re.compile(
    r"(?:\s|;[^\n]*(?![^\n]))*\(\s*((?i:not))\s*\(\s*([A-Za-z][A-Za-z0-9_\-]*)((?:\s+[A-Za-z][A-Za-z0-9_\-]*)*)"
    r"\s*(\))\s*\)"
)
_INIT_KEYWORD = re.compile(r"\s*:init" + NAME_END, re.IGNORECASE)
# Words that start a non-atomic formula where an init element may stand; an atom-shaped form headed
# by one of them is not an atom.
FORMULA_HEADS = frozenset(
    "and or not imply exists forall preference when assign increase decrease scale-up scale-down "
    "always sometime within at-most-once sometime-after sometime-before always-within hold-during "
    "hold-after oneof unknown over".split()
)


SectionReader = Callable[[str, int, int], "tuple[Token, int] | None"]
"""Reads a whole section at a ``(`` directly inside ``(define`` into one token (see ``grounded_sections.py``),
or returns None to leave it to the tokens."""


def lex_pddl(text: str, fast_facts: bool = True, start: int = 0, stop: int | None = None,
             in_facts: bool = False, read_section: SectionReader | None = None) -> list[Token]:
    """All significant tokens of a domain or problem.

    With ``fast_facts``, the bulk of a large problem skips the token-by-token path: runs of ground
    atoms directly inside ``(:init`` or ``(and`` become one FACTS token, and runs of object names in
    ``(:objects``/``(:constants`` one NAMES token. The model is identical either way (the round-trip
    tests compare both paths); it is only built with far fewer parser steps.

    ``start`` and ``stop`` lex only a stretch of the text, for the incremental re-parse of one edited
    section (``incremental.py``); ``in_facts`` says the stretch lies directly inside ``(:init`` or
    ``(and``. Lexing stops at the first token boundary at or past ``stop``: the caller checks that no
    comment runs past it.

    ``read_section``, given, is tried on every ``(`` directly inside the top-level form; the token it
    returns stands for the whole section.
    """
    tokens: list[Token] = []
    append = tokens.append
    pos = start
    length = len(text) if stop is None else stop
    match = _PDDL_TOKEN.match
    depth = 0
    lists: dict[int, str] = {}  # paren depth -> FACTS or NAMES: what a run of elements there may become
    time_words: list[int] = []
    if in_facts and fast_facts:
        lists[0] = FACTS
        pos = _append_facts(text, pos, append, length)
    while pos < length:
        m = match(text, pos)
        assert m is not None  # BAD matches any character
        kind = m.lastgroup
        end = m.end()
        if kind == "ws" or kind == "comment":
            pos = end
            continue
        if kind == "WORD" and lists.get(depth) == NAMES and _extend_names(tokens, m.group(), pos, end):
            pos = end
            continue
        if kind == "LPAR" and depth == 1 and read_section is not None:
            section = read_section(text, pos, length)
            if section is not None:
                append(section[0])
                pos = section[1]
                continue
        append(Token(kind, m.group(), pos, end))  # type: ignore[arg-type]
        if kind == "WORD":
            if end - pos <= 5 and m.group().lower() in _TIME_WORDS and lists.get(depth) != NAMES:
                time_words.append(len(tokens) - 1)
        elif kind == "LPAR":
            depth += 1
            if fast_facts:
                head = _LIST_HEAD.match(text, end)
                if head is not None:
                    word = head.group(1)
                    start = head.start(1)
                    append(Token(WORD if word[0] != ":" else COLON_WORD, word, start, head.end()))
                    end = head.end()
                    lists[depth] = FACTS if word.lower() in _FACT_LIST_HEADS else NAMES
                    if lists[depth] == FACTS:
                        end = _append_facts(text, end, append, length)
        elif kind == "RPAR":
            lists.pop(depth, None)
            depth -= 1
            if lists.get(depth) == FACTS:
                end = _append_facts(text, end, append, length)
        pos = end
    _demote_time_words(tokens, time_words)
    return tokens


NAMES = "NAMES"
RUNS = frozenset((FACTS, NAMES))
"""The tokens that stand for a run of list elements read in one step."""


def spelled_tokens(text: str, start: int, stop: int | None) -> list[Token]:
    """The tokens of ``text[start:stop]`` (None: to the end) read one by one, with no runs, invalid
    characters left out (the first lex reported them): what a parenthesis repair or a syntax error's
    recovery must see where runs hid the facts' own tokens."""
    return [t for t in lex_pddl(text, False, start=start, stop=stop) if t.kind != BAD]
_FACT_LIST_HEADS = frozenset((":init", "and"))
_LIST_HEAD = re.compile(r"\s*(:init|and|:objects|:constants)" + NAME_END, re.IGNORECASE)


def facts_list_at(text: str, pos: int) -> bool:
    """Whether the `(` ending at ``pos`` opens a list that the lexer reads as runs of facts (``:init``,
    ``and``)."""
    head = _LIST_HEAD.match(text, pos)
    return head is not None and head.group(1).lower() in _FACT_LIST_HEADS


def _extend_names(tokens: list[Token], word: str, start: int, end: int) -> bool:
    """Add a name of an object list to the NAMES run before it, if there is one to join."""
    last = tokens[-1] if tokens else None
    if last is None:
        return False
    if last.kind == NAMES:
        names: list[Name] = last.value  # type: ignore[assignment]
        names.append(_new_name(_key(word), word, _new_span(Span, (start, end))))
        last.end = end
        return True
    if last.kind == WORD and (len(tokens) < 2 or tokens[-2].kind not in (DASH, LPAR)):
        # two names in a row (and the first is not the type after `-`): start a run
        first = _new_name(_key(last.text), last.text, _new_span(Span, (last.start, last.end)))
        second = _new_name(_key(word), word, _new_span(Span, (start, end)))
        tokens[-1] = Token(NAMES, "", last.start, end, [first, second])
        return True
    return False


_TIME_WORDS = frozenset(("over", "start", "end", "all"))


def _demote_time_words(tokens: list[Token], candidates: list[int]) -> None:
    """Mark ``start``/``end``/``all``/``over`` as plain names where they cannot open a time specifier.

    The driver resolves a word to a keyword whenever the parser state accepts the keyword, and after
    ``(at`` it accepts both ``start`` and an argument: ``(at start end)`` (predicate ``at``, objects
    ``start`` and ``end``) or ``(over ?x)`` (a predicate named ``over``) would fail on the next token.
    One token of lookahead settles it: the specifier is ``(at start (``, ``(at end (``,
    ``(over all (``, as every condition or effect starts with ``(``.
    """
    count = len(tokens)
    for index in candidates:
        token = tokens[index]
        word = token.text.lower()
        following = tokens[index + 1] if index + 1 < count else None
        if word == "over":
            keyword = (
                following is not None
                and following.text.lower() == "all"
                and index + 2 < count
                and tokens[index + 2].kind == LPAR
            )
        else:
            keyword = following is not None and following.kind == LPAR
        if not keyword:
            token.kind = token.type = NAME


def _append_facts(text: str, pos: int, append: Callable[[Token], None], stop: int) -> int:
    facts, end = _scan_facts(text, pos, stop)
    if facts:
        append(Token(FACTS, "", facts[0].span.start, facts[-1].span.end, tuple(facts)))
    return end


# The hot path builds hundreds of thousands of names: set the slots directly instead of going through
# the frozen dataclasses' __init__ (which routes every field through object.__setattr__).
_new = object.__new__


def _slot_setter(cls: type, field: str) -> Callable[[object, object], None]:
    setter: Callable[[object, object], None] = vars(cls)[field].__set__
    return setter


_set_key, _set_text, _set_name_span = (_slot_setter(Name, f) for f in ("key", "text", "span"))
_set_predicate, _set_args, _set_atom_span = (_slot_setter(Atom, f) for f in ("predicate", "args", "span"))
_new_span = tuple.__new__


def _key(text: str) -> str:
    """A name's case-folded key; the spelling itself when that is already lower case, which saves a string
    per name (the model of a large problem is mostly names)."""
    return text if text.islower() else text.lower()


def _new_name(key: str, text: str, span: Span) -> Name:
    name = _new(Name)
    _set_key(name, key)
    _set_text(name, text)
    _set_name_span(name, span)
    return name


def names_at(words: str, start: int) -> list[Name]:
    """The Names of the blank-separated ``words`` found at offset ``start`` of a text, exactly as the tokens'
    :meth:`Token.name` make them (readers that skip tokens build their names here)."""
    parts = words.split()
    names: list[Name] = []
    append = names.append
    if " ".join(parts) != words:  # tabs or runs of blanks: find each word
        for found in _BLANK_SEPARATED.finditer(words):
            word = found.group()
            append(_new_name(_key(word), word, _new_span(Span, (start + found.start(), start + found.end()))))
        return names
    at = start
    for word in parts:
        end = at + len(word)
        name = _new(Name)
        _set_key(name, word if word.islower() else word.lower())
        _set_text(name, word)
        _set_name_span(name, _new_span(Span, (at, end)))
        append(name)
        at = end + 1
    return names


_BLANK_SEPARATED = re.compile(r"\S+")
_set_value, _set_number_text, _set_number_span = (_slot_setter(Number, f) for f in ("value", "text", "span"))


def number_at(text: str, start: int, end: int) -> Number:
    """The Number of ``text`` (a plan's decimal time or duration) read at ``start``..``end``, as the
    plan grammar makes it, without the frozen dataclass's __init__ (a timed plan has two a step)."""
    number = _new(Number)
    _set_value(number, float(text))
    _set_number_text(number, text)
    _set_number_span(number, _new_span(Span, (start, end)))
    return number


def span_at(start: int, end: int) -> Span:
    """``Span(start, end)`` without the named tuple's Python-level ``__new__``."""
    return _new_span(Span, (start, end))  # type: ignore[no-any-return]


def _new_atom(predicate: Name, args: tuple[Name, ...], span: Span) -> Atom:
    atom = _new(Atom)
    _set_predicate(atom, predicate)
    _set_args(atom, args)
    _set_atom_span(atom, span)
    return atom


fast_name = _new_name
"""``Name(key, text, span)`` for readers that build the model without tokens (``grounded_sections.py``)."""
fast_atom = _new_atom
"""``Atom(predicate, args, span)``, likewise."""


def read_facts(text: str, pos: int, stop: int) -> tuple[list[Formula], int]:
    """The run of ground atoms and negated ground atoms from ``pos``, as the FACTS tokens hold them, and
    where the run ends (``pos`` itself when there is none)."""
    return _scan_facts(text, pos, stop)


def _scan_facts(text: str, pos: int, stop: int) -> tuple[list[Formula], int]:
    facts: list[Formula] = []
    append = facts.append
    match = _SIMPLE_ATOM.match
    negated = _NEGATED_ATOM.match
    spellings: dict[str, tuple[str, str]] = {}  # a predicate's spelling -> one shared (spelling, key)
    while True:
        m = match(text, pos, stop)
        if m is not None:
            atom = _atom(text, m, 1, m.end(), spellings)
            if atom is None:
                return facts, pos
            append(atom)
            pos = m.end()
            continue
        m = negated(text, pos, stop)
        if m is None:
            return facts, pos
        atom = _atom(text, m, 2, m.end(4), spellings)
        if atom is None:
            return facts, pos
        paren = text.rfind("(", m.start(), m.start(1))  # a comment before the form may hold a `(`
        append(Not(atom, _new_span(Span, (paren, m.end()))))
        pos = m.end()


def _atom(
    text: str, m: re.Match[str], group: int, end: int, spellings: dict[str, tuple[str, str]]
) -> Atom | None:
    """The atom whose predicate is ``m``'s ``group`` and arguments the next group, ending at ``end``; None
    when the predicate is a formula's keyword (``(and)`` is no atom)."""
    head, args_text = m.group(group, group + 1)
    shared = spellings.get(head)
    if shared is None:
        shared = spellings[head] = (head, _key(head))
    head, head_key = shared
    if head_key in FORMULA_HEADS:
        return None
    head_start = m.start(group)
    at = m.start(group + 1)
    find = text.find
    args = []
    for arg in args_text.split():
        at = find(arg, at)
        arg_end = at + len(arg)
        args.append(_new_name(_key(arg), arg, _new_span(Span, (at, arg_end))))
        at = arg_end
    paren = text.rfind("(", m.start(), head_start)  # a comment before the atom may hold a `(`
    return _new_atom(
        _new_name(head_key, head, _new_span(Span, (head_start, head_start + len(head)))),
        tuple(args),
        _new_span(Span, (paren, end)),
    )


_PLAN_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<comment>" + COMMENT + r")"
    r"|(?P<LPAR>\()"
    r"|(?P<RPAR>\))"
    r"|(?P<LBRACK>\[)"
    r"|(?P<RBRACK>\])"
    r"|(?P<NUMBER>(?:\d+(?:\.\d*)?|\.\d+)(?![A-Za-z_\-]))"
    r"|(?P<COLON>:)"
    r"|(?P<WORD>" + _NAME + r")"
    r"|(?P<BAD>.)",
    re.DOTALL,
)
COST_COMMENT = re.compile(r";+\s*cost\s*=\s*(\d+(?:\.\d*)?)", re.IGNORECASE)


def lex_plan(text: str) -> tuple[list[Token], Token | None]:
    """Plan tokens, and the ``; cost = N`` comment's number if there is one."""
    tokens: list[Token] = []
    cost: Token | None = None
    for m in _PLAN_TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "ws":
            continue
        if kind == "comment":
            c = COST_COMMENT.match(m.group())
            if c is not None:
                cost = Token(NUMBER, c.group(1), m.start() + c.start(1), m.start() + c.end(1))
            continue
        tokens.append(Token(kind, m.group(), m.start(), m.end()))  # type: ignore[arg-type]
    return tokens, cost
