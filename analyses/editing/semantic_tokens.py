"""Semantic tokens: every name coloured by what it *means*, not by how it looks.

A TextMate grammar cannot tell a predicate from an object, nor know that ``at`` in ``(at ?t ?p)`` is
a predicate while in ``(at start ...)`` it is a keyword. The symbol index (``symbols.py``) knows what
each name resolved to; a light lexical pass adds what the index does not hold (keywords, numbers,
comments). Where both cover a token the index wins.

Token types are LSP's standard ones, so every colour theme styles them without configuration:
keywords ``keyword``, types ``type``, predicates ``function``, numeric functions ``property``, actions
``method``, parameters and variables ``parameter``, problem objects ``variable``, domain constants
``enumMember``, requirements ``modifier``, numbers ``number``, comments ``comment``, the domain and
problem names ``namespace``. A declaration carries the ``declaration`` modifier.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import itemgetter

from plansight.analyses.diagnostics.spans import LineIndex, Span, line_start_at
from plansight.analyses.editing.symbols import Occurrence, SymbolIndex
from plansight.analyses.syntax.lexical import COMMENT_RE

TOKEN_TYPES = ("keyword", "type", "function", "method", "parameter", "variable", "enumMember", "modifier",
               "number", "comment", "property", "namespace")
TOKEN_MODIFIERS = ("declaration",)

(KEYWORD, TYPE, PREDICATE, ACTION, PARAMETER, OBJECT, CONSTANT, REQUIREMENT, NUMBER, COMMENT, FUNCTION,
 NAME) = range(len(TOKEN_TYPES))
DECLARATION = 1

_BY_KIND = {
    "type": TYPE, "predicate": PREDICATE, "function": FUNCTION, "action": ACTION, "variable": PARAMETER,
    "object": OBJECT, "constant": CONSTANT, "requirement": REQUIREMENT, "domain": NAME, "problem": NAME,
}

# Words that are PDDL syntax where they head a form; as arguments they are names (the index has those).
FORM_KEYWORDS = frozenset(
    "define domain problem and or not imply exists forall when either preference at over increase "
    "decrease assign scale-up scale-down always sometime within at-most-once sometime-after "
    "sometime-before always-within hold-during hold-after oneof unknown total-time".split())
_AFTER_TIME = frozenset(("start", "end", "all"))

_KEYWORD_HEADS = "|".join(sorted(FORM_KEYWORDS, key=len, reverse=True))
# One pattern per kind, each starting with a literal or a small character set, so the regex engine skips
# straight to the few candidates of a 1 MB problem instead of trying a lookbehind at every character.
_COLON_WORD = re.compile(r":[A-Za-z][\w\-]*")
_HEAD = re.compile(r"\([ \t\r\n]*((?i:" + _KEYWORD_HEADS + r"))(?![\w\-])"
                   r"(?:[ \t]+((?i:start|end|all))(?![\w\-]))?")
_NUMBER = re.compile(r"[\s(](-?(?:\d+(?:\.\d*)?|\.\d+))(?![\w\-.])")
_DIRECTION = re.compile(r"[\s(]((?i:minimize|maximize))(?![\w\-])")
_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-?")

Token = tuple[int, int, int, int]
"""start and end offsets, the index of the type in :data:`TOKEN_TYPES`, the modifier bits"""


def lexical_tokens(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """Keywords, numbers and comments, in text order (comments hide what they contain)."""
    stop = len(text) if end is None else end
    tokens: list[Token] = [(m.start(), m.end(), COMMENT, 0) for m in COMMENT_RE.finditer(text, start, stop)]
    has_comments = bool(tokens)
    tokens.extend((m.start(), m.end(), KEYWORD, 0) for m in _COLON_WORD.finditer(text, start, stop)
                  if m.start() == 0 or text[m.start() - 1] not in _NAME_CHARACTERS)
    # the character before a number or a direction is matched too (they follow a space or a `(`)
    tokens.extend((m.start(1), m.end(1), NUMBER, 0) for m in _NUMBER.finditer(text, max(0, start - 1), stop))
    tokens.extend((m.start(1), m.end(1), KEYWORD, 0)
                  for m in _DIRECTION.finditer(text, max(0, start - 1), stop))
    for m in _HEAD.finditer(text, start, stop):
        tokens.append((m.start(1), m.end(1), KEYWORD, 0))
        if m.group(2) is not None and m.group(1).lower() in ("at", "over"):
            tokens.append((m.start(2), m.end(2), KEYWORD, 0))
    tokens.sort()
    if not has_comments:
        return tokens
    kept: list[Token] = []
    comment_end = -1
    for token in tokens:
        if token[0] < comment_end:
            continue  # inside a comment
        if token[2] == COMMENT:
            comment_end = token[1]
        kept.append(token)
    return kept


_MODIFIERS = {"declaration": DECLARATION, "reference": 0}


@dataclass(frozen=True, slots=True)
class TokenArrays:
    """Tokens as four parallel columns (start and end offsets, type, modifier bits), in text order.

    Columns, not a tuple per token: on a large problem they are filled straight from the symbol index
    by C-level ``map`` passes, and two versions are compared run by run (``semantic_token_edits.py``)."""

    starts: MutableSequence[int]
    ends: MutableSequence[int]
    types: MutableSequence[int]
    modifiers: MutableSequence[int]

    def tuples(self) -> list[Token]:
        """One :data:`Token` per token."""
        return list(zip(self.starts, self.ends, self.types, self.modifiers, strict=True))


_SPAN, _KIND, _ROLE = itemgetter(0), itemgetter(1), itemgetter(4)
_START, _END = itemgetter(0), itemgetter(1)
_MERGE_BY_INSERTION = 64
"""up to this many keywords, numbers and comments go into the names' columns one insertion each;
beyond (a domain is mostly keywords), both are merged by one sort"""


def semantic_tokens(text: str, index: SymbolIndex | None, span: Span | None = None) -> list[Token]:
    """The tokens of ``text`` (or of the part ``span`` covers), in order, never overlapping; where a
    name of the index and a lexical token overlap, the name wins."""
    if span is None:
        occurrences: Sequence[Occurrence] = index.occurrences if index is not None else ()
        lexical = lexical_tokens(text)
    else:
        occurrences = index.in_range(span) if index is not None else ()
        lexical = lexical_tokens(text, line_start_at(text, span.start), span.end)
    return token_arrays(occurrences, lexical).tuples()


def token_arrays(occurrences: Sequence[Occurrence], lexical: Sequence[Token]) -> TokenArrays:
    """The tokens of the names ``occurrences`` (in text order) and of the ``lexical`` tokens that no
    name overlaps."""
    spans = list(map(_SPAN, occurrences))
    starts = list(map(_START, spans))
    ends = list(map(_END, spans))
    types: list[int | None] = list(map(_BY_KIND.get, map(_KIND, occurrences)))
    modifiers = list(map(_MODIFIERS.get, map(_ROLE, occurrences), repeat(0)))
    if None in types:  # occurrences that are no token (preferences)
        keep = [kind is not None for kind in types]
        starts, ends = list(compress(starts, keep)), list(compress(ends, keep))
        types, modifiers = list(compress(types, keep)), list(compress(modifiers, keep))
    names = TokenArrays(starts, ends, types, modifiers)  # type: ignore[arg-type]
    kept = []
    for token in lexical:  # few: the names are the bulk of any large file
        at = bisect.bisect_right(starts, token[0]) - 1
        if at >= 0 and ends[at] > token[0]:
            continue  # inside a name
        if at + 1 < len(starts) and starts[at + 1] < token[1]:
            continue  # a name starts inside it
        kept.append(token)
    if not kept:
        return names
    if len(kept) > _MERGE_BY_INSERTION:
        merged = names.tuples()
        merged.extend(kept)
        merged.sort()  # two sorted runs: merged in linear time
        columns = list(map(list, zip(*merged, strict=True)))
        return TokenArrays(*columns)
    for start, end, kind, modifier in kept:
        at = bisect.bisect_left(starts, start)
        starts.insert(at, start)
        ends.insert(at, end)
        types.insert(at, kind)
        modifiers.insert(at, modifier)
    return names


def encode(text: str, tokens: Sequence[Token], encoding: str = "utf-16") -> list[int]:
    """LSP's relative encoding: ``deltaLine, deltaStart, length, type, modifiers`` per token, with
    characters counted in the negotiated position encoding (``utf-16``, ``utf-8`` or ``utf-32``)."""
    if _lone_carriage_return(text):
        return _encode_by_index(text, tokens, encoding)
    return _encode(text, tokens, encoding, 0)


def encode_arrays(text: str, tokens: TokenArrays, encoding: str = "utf-16", start: int = 0,
                  stop: int | None = None) -> list[int]:
    """:func:`encode` of the tokens ``start`` to ``stop`` (all by default), each relative to the one
    before it as in the encoding of all of them: a stretch of the array spliced into the previous
    encoding after an edit."""
    columns = (tokens.starts, tokens.ends, tokens.types, tokens.modifiers)
    stop = len(tokens.starts) if stop is None else stop
    first = max(0, start - 1)  # the token the first one is encoded against
    window = list(zip(*(column[first:stop] for column in columns), strict=True))
    if _lone_carriage_return(text):
        data = _encode_by_index(text, window, encoding)
    else:
        data = _encode(text, window, encoding, window[0][0] if window else 0)
    return data[5:] if start > 0 else data


def _lone_carriage_return(text: str) -> bool:
    return "\r" in text and text.count("\r") != text.count("\r\n")


def _encode(text: str, tokens: Sequence[Token], encoding: str, first: int) -> list[int]:
    """The encoding walk; it starts at offset ``first`` (the first token's), whose line is counted once."""
    data: list[int] = []
    extend = data.extend
    count, rfind, find = text.count, text.rfind, text.find
    plain = text.isascii() or encoding == "utf-32"
    line = count("\n", 0, first)
    line_start = rfind("\n", 0, first) + 1
    previous_line = previous_start = 0
    position = first
    line_end = find("\n", first)  # tokens on the current line (most of them) need no counting
    if line_end < 0:
        line_end = len(text)
    for start, end, kind, modifiers in tokens:
        if start > line_end:  # tokens come in order: the text is walked once
            line += count("\n", position, start)
            line_start = rfind("\n", position, start) + 1
            line_end = find("\n", start)
            if line_end < 0:
                line_end = len(text)
        position = start
        if plain:
            column = start - line_start
            length = end - start
        else:
            column = _units(text[line_start:start], encoding)
            length = _units(text[start:end], encoding)
        delta_line = line - previous_line
        extend((delta_line, column - previous_start if delta_line == 0 else column, length, kind, modifiers))
        previous_line, previous_start = line, column
    return data


def _encode_by_index(text: str, tokens: Sequence[Token], encoding: str) -> list[int]:
    """The same encoding for a text with a lone ``\\r``, which ends a line for the editor as ``\\n``
    does (the fast walk above counts ``\\n`` only); rare enough to take the general path."""
    index = LineIndex(text)
    data: list[int] = []
    previous_line = previous_start = 0
    for start, end, kind, modifiers in tokens:
        line = index.line_of(start)
        line_start = index.line_start(line)
        if encoding == "utf-32":
            column, length = start - line_start, end - start
        else:
            column, length = _units(text[line_start:start], encoding), _units(text[start:end], encoding)
        delta_line = line - previous_line
        delta_start = column - previous_start if delta_line == 0 else column
        data.extend((delta_line, delta_start, length, kind, modifiers))
        previous_line, previous_start = line, column
    return data


def _units(segment: str, encoding: str) -> int:
    # "surrogatepass": a lone surrogate (an editor's broken buffer) counts as one UTF-16 unit, not a crash
    if encoding == "utf-8":
        return len(segment.encode("utf-8", "surrogatepass"))
    return len(segment.encode("utf-16-le", "surrogatepass")) // 2
