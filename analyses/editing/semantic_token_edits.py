"""Semantic tokens after an edit: the new encoded array from the previous one, and the edit between them.

An editor asks for the tokens of a document again after each change; with LSP's ``full/delta`` request
it sends the id of the array it holds and takes back only the edits to it. LSP encodes each token
relative to the one before it, so an edit changes only the integers of the tokens around it: those
before it are unchanged, those after it keep their relative encoding (only the first of them moves
against its new predecessor). This module rebuilds the token array of the new text that way and
returns the one edit of the integer array that turns the old answer into the new one.

Nothing is assumed about what the edit changed in the *meaning* of names: a declaration added in
``:objects`` recolours every use of the name further down. The names come from the new version's
symbol index every time (a few C-level passes over its occurrences); what is saved is the lexical
scan of the whole text (only the edited lines are scanned again) and the encoding, which is redone
only for the tokens that differ from the previous ones; those before and after the change are found
by comparing whole runs of the arrays, which runs in C. The result is exactly what a fresh
:func:`~plansight.analyses.editing.semantic_tokens.encode` of the new text gives (checked by the
property tests over random edits).
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from operator import sub

from plansight.analyses.editing.semantic_tokens import (
    Token,
    TokenArrays,
    encode_arrays,
    lexical_tokens,
    token_arrays,
)
from plansight.analyses.editing.symbols import Occurrence, SymbolIndex


@dataclass(frozen=True, slots=True)
class EncodedTokens:
    """One version's semantic tokens: what the next version's tokens are computed from."""

    text: str
    encoding: str
    lexical: list[Token]
    """the raw lexical tokens of ``text`` (before names hide some), reused outside the edited lines"""
    tokens: TokenArrays
    data: list[int]
    """the LSP encoding of ``tokens``"""


@dataclass(frozen=True, slots=True)
class ArrayEdit:
    """Replace ``delete_count`` integers from ``start`` by ``data`` (LSP's ``SemanticTokensEdit``)."""

    start: int
    delete_count: int
    data: list[int]


def encode_document(text: str, index: SymbolIndex | None, encoding: str = "utf-16") -> EncodedTokens:
    """The tokens of a whole document, from scratch."""
    lexical = lexical_tokens(text)
    tokens = _packed(token_arrays(_occurrences(index), lexical))
    return EncodedTokens(text, encoding, lexical, tokens, encode_arrays(text, tokens, encoding))


def update_document(previous: EncodedTokens, text: str, index: SymbolIndex | None,
                    encoding: str = "utf-16") -> tuple[EncodedTokens, ArrayEdit | None]:
    """The tokens of ``text`` (the document after some edit of ``previous.text``, or the same text
    against a changed partner), and the one edit of ``previous.data`` that gives their encoding
    (``None``: the encoding did not change)."""
    if encoding != previous.encoding or _lone_carriage_return(text) or _lone_carriage_return(previous.text):
        fresh = encode_document(text, index, encoding)
        return fresh, array_edit(previous.data, fresh.data)
    old_text = previous.text
    prefix, old_end, new_end = changed_region(old_text, text)
    lexical = _lexical_after_edit(previous.lexical, old_text, text, prefix, old_end, new_end)
    tokens = _packed(token_arrays(_occurrences(index), lexical))
    old = previous.tokens
    # tokens wholly before the change: same place, same text before them, same encoding
    keep_before = min(_common_prefix(old, tokens), bisect.bisect_right(tokens.ends, prefix))
    # tokens after it: moved by `delta`, written on text that did not change, so their relative encoding
    # holds; the first of them is encoded again against its new predecessor
    delta = len(text) - len(old_text)
    keep_after = min(_common_suffix(old, tokens, delta, keep_before),
                     len(tokens.starts) - bisect.bisect_left(tokens.starts, new_end))
    new_count, old_count = len(tokens.starts), len(old.starts)
    first_after_new, first_after_old = new_count - keep_after, old_count - keep_after
    window = encode_arrays(text, tokens, encoding, keep_before, min(first_after_new + 1, new_count))
    old_data = previous.data
    tail_from = 5 * min(first_after_old + 1, old_count)
    data = old_data[:5 * keep_before] + window + old_data[tail_from:]
    edit = _trimmed(old_data, 5 * keep_before, tail_from, window)
    return EncodedTokens(text, encoding, lexical, tokens, data), edit


def changed_region(old: str, new: str) -> tuple[int, int, int]:
    """Where two texts differ: the common prefix's length, and the end of the differing part in the old
    and in the new text (what follows is common)."""
    limit = min(len(old), len(new))
    prefix = _common_text_prefix(old, new, limit)
    suffix = _common_text_suffix(old, new, limit - prefix)
    return prefix, len(old) - suffix, len(new) - suffix


def array_edit(old: list[int], new: list[int]) -> ArrayEdit | None:
    """The single edit turning ``old`` into ``new``: their common prefix and suffix kept (whole tokens)."""
    return _trimmed(old, 0, len(old), new)


def apply_edit(data: list[int], edit: ArrayEdit | None) -> list[int]:
    """``data`` with ``edit`` applied, as a client applies it (for tests and benchmarks)."""
    if edit is None:
        return list(data)
    return data[:edit.start] + edit.data + data[edit.start + edit.delete_count:]


def _packed(tokens: TokenArrays) -> TokenArrays:
    """The columns as machine integers: kept between requests for each open document, a quarter of the
    memory of lists (offsets fit 32 bits; types and modifier bits a byte), and compared as fast."""
    return TokenArrays(array("i", tokens.starts), array("i", tokens.ends), array("B", tokens.types),
                       array("B", tokens.modifiers))


def _occurrences(index: SymbolIndex | None) -> Sequence[Occurrence]:
    return index.occurrences if index is not None else ()


# --- the lexical tokens of the edited lines only ---------------------------------------------------------


def _lone_carriage_return(text: str) -> bool:
    return "\r" in text and text.count("\r") != text.count("\r\n")


def _lexical_after_edit(previous: list[Token], old_text: str, text: str, prefix: int, old_end: int,
                        new_end: int) -> list[Token]:
    """The lexical tokens of ``text``: the previous ones outside the edited lines (moved after them) and
    those of the edited lines scanned again. The rescanned stretch is widened to whole lines and past
    any ``(`` whose keyword may sit on a later line (``(\\n  and``), so no token reaches across its
    bounds."""
    start = _line_start(text, _last_visible_before(text, prefix))
    while (before := _last_visible_before(text, start)) >= 0 and text[before] == "(":
        start = _line_start(text, before)
    end = _line_end(text, _first_visible_from(text, new_end))
    while (last := _last_visible_before(text, end)) >= 0 and text[last] == "(" and end < len(text):
        end = _line_end(text, _first_visible_from(text, end))
    delta = len(text) - len(old_text)
    old_stop = end - delta
    low = bisect.bisect_left(previous, (start,))
    high = bisect.bisect_left(previous, (old_stop,))
    moved = [(s + delta, e + delta, kind, modifiers) for s, e, kind, modifiers in previous[high:]]
    return [*previous[:low], *lexical_tokens(text, start, end), *moved]


def _last_visible_before(text: str, offset: int) -> int:
    """The offset of the last non-blank character before ``offset`` (-1: none)."""
    stripped = text[:offset].rstrip()
    return len(stripped) - 1


def _first_visible_from(text: str, offset: int) -> int:
    """The offset of the first non-blank character at or after ``offset`` (the length: none)."""
    rest = len(text) - offset
    return offset + rest - len(text[offset:].lstrip()) if rest > 0 else len(text)


def _line_start(text: str, offset: int) -> int:
    return 0 if offset < 0 else text.rfind("\n", 0, offset) + 1


def _line_end(text: str, offset: int) -> int:
    end = text.find("\n", offset)
    return len(text) if end < 0 else end


# --- comparing arrays in C ---------------------------------------------------------------------------------

_CHUNK = 4096


def _common_prefix(old: TokenArrays, new: TokenArrays) -> int:
    """How many leading tokens the two arrays share."""
    limit = min(len(old.starts), len(new.starts))
    for a, b in ((old.starts, new.starts), (old.ends, new.ends), (old.types, new.types),
                 (old.modifiers, new.modifiers)):
        limit = _list_prefix(a, b, limit)
    return limit


def _common_suffix(old: TokenArrays, new: TokenArrays, delta: int, keep_before: int) -> int:
    """How many trailing tokens of ``new`` are those of ``old`` moved by ``delta`` (none of the
    ``keep_before`` leading ones counted twice). Offsets are compared by their differences, which are
    all ``delta`` where they agree: a small edit's delta is one of the integers Python keeps, so the
    comparison allocates nothing per token."""
    limit = min(len(old.starts), len(new.starts)) - keep_before
    for a, b in ((old.types, new.types), (old.modifiers, new.modifiers)):
        if limit <= 0:
            return 0
        limit = _list_suffix(a, b, limit)
    for a, b in ((old.starts, new.starts), (old.ends, new.ends)):
        if limit <= 0:
            return 0
        if delta:
            differences = list(map(sub, b[len(b) - limit:], a[len(a) - limit:]))
            limit = _list_suffix(differences, [delta] * limit, limit)
        else:
            limit = _list_suffix(a, b, limit)
    return max(limit, 0)


def _list_prefix(a: Sequence[int], b: Sequence[int], limit: int) -> int:
    """The length of the common prefix of ``a`` and ``b``, at most ``limit``; whole chunks compared in C."""
    at = 0
    while at < limit:
        step = min(_CHUNK, limit - at)
        if a[at:at + step] == b[at:at + step]:
            at += step
            continue
        while a[at] == b[at]:
            at += 1
        return at
    return limit


def _list_suffix(a: Sequence[int], b: Sequence[int], limit: int) -> int:
    """The length of the common suffix of ``a`` and ``b``, at most ``limit``."""
    na, nb = len(a), len(b)
    found = 0
    while found < limit:
        step = min(_CHUNK, limit - found)
        if a[na - found - step:na - found] == b[nb - found - step:nb - found]:
            found += step
            continue
        while a[na - found - 1] == b[nb - found - 1]:
            found += 1
        return found
    return limit


def _common_text_prefix(a: str, b: str, limit: int) -> int:
    low, high = 0, limit
    while low < high:  # bisection: each comparison runs in C
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_text_suffix(a: str, b: str, limit: int) -> int:
    low, high = 0, limit
    na, nb = len(a), len(b)
    while low < high:
        middle = (low + high + 1) // 2
        if a[na - middle:] == b[nb - middle:]:
            low = middle
        else:
            high = middle - 1
    return low


def _trimmed(old: list[int], start: int, stop: int, replacement: list[int]) -> ArrayEdit | None:
    """The edit replacing ``old[start:stop]`` by ``replacement``, with what they share at either end
    left out, in whole tokens (five integers)."""
    same_start = _list_prefix(old[start:stop], replacement, min(stop - start, len(replacement)))
    same_start -= same_start % 5
    rest = min(stop - start, len(replacement)) - same_start
    same_end = _list_suffix(old[start + same_start:stop], replacement[same_start:], rest)
    same_end -= same_end % 5
    start += same_start
    stop -= same_end
    data = replacement[same_start:len(replacement) - same_end]
    if start == stop and not data:
        return None
    return ArrayEdit(start, stop - start, data)
