"""Semantic tokens after an edit: the new encoded array from the previous one, and the edit between them.

An editor asks for the tokens of a document again after each change; with LSP's ``full/delta`` request
it sends the id of the array it holds and takes back only the edits to it. LSP encodes each token
relative to the one before it, so an edit changes only the integers of the tokens around it: those
before it are unchanged, those after it keep their relative encoding (only the first of them moves
against its new predecessor). This module rebuilds the token array of the new text that way and
returns the one edit of the integer array that turns the old answer into the new one.

Nothing is assumed lightly about what the edit changed in the *meaning* of names: a declaration added in
``:objects`` recolours every use of the name further down. Two cases:

* The edit touched only elements of ``:init`` or of the goal's conjunction, and the new version's
  symbol index was updated from the one the previous answer used (:func:`update_index` keeps the very
  declaration tables, which it does only when no declaration changed; a full build makes new ones).
  Then every name outside the re-parsed stretch (the parse's ``Derivation.splice``) means what it
  meant: only the tokens of the edited lines are computed again (from the index, in that range, and a
  lexical scan), those before are kept and those after are the previous ones, moved. Their offsets
  are moved lazily (a few runs, each with its shift), so an edit near the start of a 1 MB problem does
  not rewrite 140,000 offsets; the cost is that of the edited lines plus copying the integer array.
* Anything else (a declaration, a section, the partner's version, a text derived from an older
  version than the previous answer's): the names come from the new version's whole index, and the
  lexical scan is redone only on the edited lines; the tokens before and after the change are found by
  comparing whole runs of the arrays, which runs in C, and only those that differ are encoded again.

Either way the result is exactly what a fresh
:func:`~plansight.analyses.editing.semantic_tokens.encode` of the new text gives (checked by the
property tests over random edits, ``tests/test_semantic_token_edits.py``).
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import add, sub

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.semantic_tokens import (
    Token,
    TokenArrays,
    encode_arrays,
    lexical_tokens,
    token_arrays,
)
from plansight.analyses.editing.symbols import Occurrence, SymbolIndex
from plansight.analyses.syntax.documents import Derivation

Shifts = tuple[tuple[int, int], ...]
"""``(first, shift)`` pairs, ``first`` increasing: the stored offsets of the tokens from ``first`` on (up
to the next pair's) are to be moved by ``shift``; none before the first pair"""


@dataclass(frozen=True, slots=True)
class EncodedTokens:
    """One version's semantic tokens: what the next version's tokens are computed from."""

    text: str
    encoding: str
    lexical: list[Token] | None
    """the raw lexical tokens of ``text`` (before names hide some), reused outside the edited lines;
    None after an update that scanned only the edited lines (a later full update scans the text)"""
    tokens: TokenArrays
    """the tokens as stored: their start and end offsets still to be moved by ``shifts``
    (:meth:`arrays` gives them moved)"""
    data: list[int]
    """the LSP encoding of the tokens"""
    shifts: Shifts = ()
    tables: tuple[object, object] | None = None
    """the declaration tables of the index the names came from (compared by identity: an index updated
    without a change of declarations keeps them, a full build makes new ones)"""

    def arrays(self) -> TokenArrays:
        """The tokens with their offsets moved: the real columns."""
        return _settled(self.tokens, self.shifts)


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
    return EncodedTokens(text, encoding, lexical, tokens, encode_arrays(text, tokens, encoding),
                         tables=_tables(index))


def update_document(previous: EncodedTokens, text: str, index: SymbolIndex | None,
                    encoding: str = "utf-16", derived: Derivation | None = None
                    ) -> tuple[EncodedTokens, ArrayEdit | None]:
    """The tokens of ``text`` (the document after some edit of ``previous.text``, or the same text
    against a changed partner), and the one edit of ``previous.data`` that gives their encoding
    (``None``: the encoding did not change). ``derived`` is how the parse of ``text`` was made from an
    earlier one (``ParsedDocument.derived``), if it was."""
    if encoding != previous.encoding or _lone_carriage_return(text) or _lone_carriage_return(previous.text):
        fresh = encode_document(text, index, encoding)
        return fresh, array_edit(previous.data, fresh.data)
    kept = _names_kept_outside(previous, text, index, derived)
    if kept is not None and index is not None:
        return _update_edited_lines(previous, text, index, *kept)
    old_text = previous.text
    prefix, old_end, new_end = changed_region(old_text, text)
    if previous.lexical is not None:
        lexical = _lexical_after_edit(previous.lexical, old_text, text, prefix, old_end, new_end)
    else:
        lexical = lexical_tokens(text)
    tokens = _packed(token_arrays(_occurrences(index), lexical))
    old = previous.arrays()
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
    return EncodedTokens(text, encoding, lexical, tokens, data, tables=_tables(index)), edit


def advance(previous: EncodedTokens, text: str, index: SymbolIndex | None,
            derived: Derivation | None) -> EncodedTokens | None:
    """The tokens of ``text`` from ``previous`` when that costs in proportion to the edit (the names
    outside the edited list elements are known to be the previous ones), else None: what the server
    computes for each version as it is parsed, so that a request after a burst of edits finds the
    tokens of its version ready instead of recolouring the whole document."""
    if index is None or _lone_carriage_return(text) or _lone_carriage_return(previous.text):
        return None
    kept = _names_kept_outside(previous, text, index, derived)
    if kept is None:
        return None
    return _update_edited_lines(previous, text, index, *kept)[0]


def _tables(index: SymbolIndex | None) -> tuple[object, object] | None:
    return None if index is None else (index.declarations, index.visible)


def _names_kept_outside(previous: EncodedTokens, text: str, index: SymbolIndex | None,
                        derived: Derivation | None) -> tuple[int, int] | None:
    """``[start, stop)`` of ``previous.text`` outside which every name of ``text`` is the previous one
    (moved by the length difference after it), or None when that is not known for certain.

    Known when the parse of ``text`` was made from ``previous.text`` by re-parsing a run of list
    elements (``:init``, the goal's conjunction), which declare nothing, and the index of ``text``
    holds the very declaration tables of the index the previous tokens came from: only
    :func:`update_index` passes them on, and only when the declarations and everything names resolve
    to are unchanged (the partners' versions too: the index of another partner is built anew). A
    name's kind then depends on its element alone, and the elements outside the splice are the
    previous ones. Likewise for names typed at the end of the object list, when the index updated from
    the previous tokens' one says no name outside the edit changed its kind (``kinds_kept_from``)."""
    if derived is None or index is None or previous.tables is None:
        return None
    splice = derived.splice
    declarations, visible = previous.tables
    kept_from = index.kinds_kept_from
    if kept_from is not None and kept_from[0] is declarations and kept_from[1] is visible:
        pass  # an edit of the object list after which no name outside it changed its kind
    elif splice.list == ":objects":
        # object names declared or undeclared: only when the update of the index found that no name
        # outside the edit changed its kind (nothing named the new object yet) do the others keep theirs
        return None
    elif splice.list is None and splice.elements:
        return None  # sections parsed again: they may declare
    elif index.declarations is not declarations or index.visible is not visible:
        return None
    if not 0 <= splice.start <= splice.stop:
        return None
    if splice.delta != len(text) - len(previous.text):
        # nothing after the splice moved as the text did: right only when nothing follows it (an edit
        # after the closing bracket of ``(define ...)``, where only blanks and comments may be)
        occurrences = index.occurrences
        if splice.elements or splice.start != splice.stop or (
                occurrences and occurrences[-1].span.start >= splice.stop):
            return None
    if derived.previous_text is not previous.text and derived.previous_text != previous.text:
        return None  # derived from another version than the one these tokens are of
    return splice.start, splice.stop


def _update_edited_lines(previous: EncodedTokens, text: str, index: SymbolIndex, start: int,
                         stop: int) -> tuple[EncodedTokens, ArrayEdit | None]:
    """The update when the names outside ``[start, stop)`` of the previous text are known to be the
    previous ones: the tokens of the lines around that stretch and the text change computed again,
    the others taken over (those after it moved)."""
    old_text = previous.text
    delta = len(text) - len(old_text)
    prefix, _, new_end = changed_region(old_text, text)
    if start < stop:
        prefix, new_end = min(start, prefix), max(stop + delta, new_end)
    low, high = _within_long_line(text, *_rescanned_lines(text, prefix, new_end), prefix, new_end)
    old = previous.tokens
    shifts = previous.shifts
    old_count = len(old.starts)
    # tokens of the previous version starting before `low` are unchanged; those from `high - delta` on moved
    lo = _first_from(old, shifts, low)
    hi = _first_from(old, shifts, high - delta)
    window = token_arrays(index.in_range(Span(low, high)), lexical_tokens(text, low, high))
    count = len(window.starts)
    columns: list[list[int]] = [list(window.starts), list(window.ends), list(window.types),
                                list(window.modifiers)]
    if lo > 0:  # the token the window is encoded against
        before = _token(old, shifts, lo - 1)
        for column, value in zip(columns, before, strict=True):
            column.insert(0, value)
    if hi < old_count:  # the first token after the window, encoded again against its new predecessor
        after = _token(old, shifts, hi)
        for column, value in zip(columns, (after[0] + delta, after[1] + delta, after[2], after[3]),
                                 strict=True):
            column.append(value)
    encoded = encode_arrays(text, TokenArrays(*columns), previous.encoding, 1 if lo > 0 else 0)
    old_data = previous.data
    tail_from = 5 * min(hi + 1, old_count)
    data = old_data[:5 * lo] + encoded + old_data[tail_from:]
    edit = _trimmed(old_data, 5 * lo, tail_from, encoded)
    tokens = TokenArrays(_spliced(old.starts, lo, hi, window.starts, "i"),
                         _spliced(old.ends, lo, hi, window.ends, "i"),
                         _spliced(old.types, lo, hi, window.types, "B"),
                         _spliced(old.modifiers, lo, hi, window.modifiers, "B"))
    moved = _spliced_shifts(shifts, lo, hi, count, delta, len(tokens.starts))
    if len(moved) > _MAX_SHIFTS:
        tokens, moved = _settled(tokens, moved), ()
    return EncodedTokens(text, previous.encoding, None, tokens, data, moved, _tables(index)), edit


def _spliced(column: MutableSequence[int], lo: int, hi: int, middle: Sequence[int], typecode: str
             ) -> array[int]:
    """``column`` with its items ``[lo, hi)`` replaced by ``middle``, as machine integers (copied in C)."""
    packed = column if isinstance(column, array) else array(typecode, column)
    return packed[:lo] + array(typecode, middle) + packed[hi:]


def _rescanned_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """The stretch of ``text`` whose lexical tokens are scanned again when ``[start, end)`` changed:
    whole lines, widened past any ``(`` whose keyword may sit on a later line (``(\\n  and``), so that
    no token reaches across its bounds."""
    low = _line_start(text, _last_visible_before(text, start))
    while (before := _last_visible_before(text, low)) >= 0 and text[before] == "(":
        low = _line_start(text, before)
    high = _line_end(text, _first_visible_from(text, end))
    while (last := _last_visible_before(text, high)) >= 0 and text[last] == "(" and high < len(text):
        high = _line_end(text, _first_visible_from(text, high))
    return low, high


LONG_LINE = 4096
"""a stretch of lines longer than this is narrowed to the edited words (:func:`_within_long_line`)"""

def _within_long_line(text: str, low: int, high: int, start: int, end: int) -> tuple[int, int]:
    """``[low, high)`` (the whole lines around the change ``[start, end)``) narrowed, when they are
    long, to the blanks around the change: a generated problem writes its 25,000 objects on one line,
    and a name typed among them would otherwise scan and encode all of them again at every keystroke.

    Narrowed only where no token can reach across the new bounds: no ``;`` on those lines (a comment
    runs to the end of its line), a blank at each bound (names, keywords and numbers contain none),
    and no ``(`` as the last character before the lower bound or the upper one (its keyword, after
    the blanks, is scanned with it). A re-parsed stretch starts at an element's ``(``, so the change
    given here already holds any comment or keyword it touches whole; the checks keep the narrowing
    exact whatever the change."""
    if high - low <= LONG_LINE or text.find(";", low, high) >= 0:
        return low, high
    before = max(text.rfind(" ", low, start), text.rfind("\t", low, start))
    after = [at for at in (text.find(" ", end, high), text.find("\t", end, high)) if at >= 0]
    if before < 0 or not after:
        return low, high
    stop = min(after)
    if text[low:before].rstrip().endswith("(") or text[low:stop].rstrip().endswith("("):
        return low, high
    return before, stop


# --- token columns whose offsets are moved lazily ---------------------------------------------------------

_MAX_SHIFTS = 8
"""past this many runs of moved offsets, they are moved once for all (typing in one place keeps two)"""


def _shift_at(shifts: Shifts, at: int) -> int:
    shift = 0
    for first, moved in shifts:
        if first > at:
            break
        shift = moved
    return shift


def _runs(shifts: Shifts, count: int) -> list[tuple[int, int, int]]:
    """``(first, stop, shift)`` of each run of tokens sharing a shift, in order, covering ``count``."""
    bounds = [(0, 0), *shifts] if not shifts or shifts[0][0] > 0 else list(shifts)
    return [(first, bounds[i + 1][0] if i + 1 < len(bounds) else count, shift)
            for i, (first, shift) in enumerate(bounds)]


def _first_from(tokens: TokenArrays, shifts: Shifts, offset: int) -> int:
    """The index of the first token starting at or after ``offset``."""
    starts = tokens.starts
    for first, stop, shift in _runs(shifts, len(starts)):
        if stop > first and starts[stop - 1] + shift >= offset:
            return bisect.bisect_left(starts, offset - shift, first, stop)
    return len(starts)


def _token(tokens: TokenArrays, shifts: Shifts, at: int) -> Token:
    shift = _shift_at(shifts, at)
    return (tokens.starts[at] + shift, tokens.ends[at] + shift, tokens.types[at], tokens.modifiers[at])


def _spliced_shifts(shifts: Shifts, lo: int, hi: int, count: int, delta: int, total: int) -> Shifts:
    """The shifts once the stored tokens ``[lo, hi)`` are replaced by ``count`` tokens stored as they are
    and those after them moved by ``delta`` more."""
    pairs = [(first, shift) for first, shift in shifts if first < lo]
    pairs.append((lo, 0))
    pairs.append((lo + count, _shift_at(shifts, hi) + delta))
    pairs.extend((first - hi + lo + count, shift + delta) for first, shift in shifts if first > hi)
    normal: list[tuple[int, int]] = []
    for first, shift in pairs:
        if first >= total:
            break
        if normal and normal[-1][0] == first:
            normal.pop()
        if (normal[-1][1] if normal else 0) != shift:
            normal.append((first, shift))
    return tuple(normal)


def _settled(tokens: TokenArrays, shifts: Shifts) -> TokenArrays:
    """The columns with every offset moved by its shift."""
    if not shifts:
        return tokens
    starts, ends = array("i"), array("i")
    for first, stop, shift in _runs(shifts, len(tokens.starts)):
        if shift:
            starts.extend(map(add, tokens.starts[first:stop], repeat(shift)))
            ends.extend(map(add, tokens.ends[first:stop], repeat(shift)))
        else:
            starts.extend(tokens.starts[first:stop])
            ends.extend(tokens.ends[first:stop])
    return TokenArrays(starts, ends, tokens.types, tokens.modifiers)


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
    those of the edited lines (:func:`_rescanned_lines`) scanned again."""
    start, end = _rescanned_lines(text, prefix, new_end)
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
