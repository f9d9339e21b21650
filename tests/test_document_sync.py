"""The server's copy of a document after incremental edits, against an independent model of the
editor's copy, by the Language Server Protocol's line rules (lines end at ``\\n``, ``\\r\\n`` and
``\\r`` only; a position past a line's end means the line's end, past the last line the document's end).

pygls's own copy split lines with ``str.splitlines``, so one U+2028 (or U+0085, form feed, ...) in the
text shifted every later edit; these tests would catch that drift in a few examples.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from plansight.analyses.diagnostics.spans import LineIndex, Span
from plansight.analyses.editing.semantic_tokens import encode, semantic_tokens
from plansight.analyses.editing.symbols import build_index
from plansight.analyses.syntax.documents import parse_document
from plansight.server.app import create_server
from plansight.server.convert import RangeMapper
from plansight.server.document_text import apply_change, apply_changes

# --- an editor's model of its own text -------------------------------------------------------------

ENCODINGS = ("utf-16", "utf-8", "utf-32")


def editor_lines(text: str) -> list[str]:
    """The lines an editor shows, each without its terminator."""
    return re.split("\r\n|\r|\n", text)


def editor_terminators(text: str) -> list[str]:
    return [*re.findall("\r\n|\r|\n", text), ""]


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def editor_offset(text: str, line: int, character: int, encoding: str) -> int:
    """Where the editor applies a position: walks lines and counts code units, no shared code."""
    lines, terminators = editor_lines(text), editor_terminators(text)
    if line >= len(lines):
        return len(text)
    offset = sum(len(lines[i]) + len(terminators[i]) for i in range(line))
    counted = 0
    for char in lines[line]:
        if counted >= character:
            break
        counted += units(char, encoding)
        offset += 1
    return offset


def editor_apply(text: str, start: tuple[int, int], end: tuple[int, int], new: str, encoding: str) -> str:
    a, b = editor_offset(text, *start, encoding), editor_offset(text, *end, encoding)
    a, b = min(a, b), max(a, b)
    return text[:a] + new + text[b:]


Change = types.TextDocumentContentChangePartial


def partial(start: tuple[int, int], end: tuple[int, int], text: str) -> Change:
    return types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=start[0], character=start[1]),
                          end=types.Position(line=end[0], character=end[1])),
        text=text)


# --- strategies ----------------------------------------------------------------------------------

TRICKY = ["\n", "\r", "\r\n", "\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e",
          "é", "😀", "𝔸", "a", "(", " ", ";"]
texts = st.lists(st.sampled_from(TRICKY), max_size=30).map("".join)


@st.composite
def positions(draw: st.DrawFn, text: str, encoding: str) -> tuple[int, int]:
    """A position on a character boundary, at or past a line's end, or on a line past the last."""
    lines = editor_lines(text)
    line = draw(st.integers(0, len(lines) + 1))
    content = lines[line] if line < len(lines) else ""
    index = draw(st.integers(0, len(content) + 3))
    if index <= len(content):
        return line, units(content[:index], encoding)
    return line, units(content, encoding) + index - len(content)


@st.composite
def edit_sessions(draw: st.DrawFn) -> tuple[str, str, list[Any]]:
    encoding = draw(st.sampled_from(ENCODINGS))
    text = draw(texts)
    edits = []
    model = text
    for _ in range(draw(st.integers(1, 8))):
        start, end = draw(positions(model, encoding)), draw(positions(model, encoding))
        new = draw(texts)
        edits.append((start, end, new))
        model = editor_apply(model, start, end, new, encoding)
    return encoding, text, edits


# --- the property --------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(edit_sessions())
def test_the_server_text_stays_the_editor_text_through_any_edits(session: tuple[str, str, list[Any]]) -> None:
    encoding, text, edits = session
    server_text = editor_text = text
    for start, end, new in edits:
        server_text = apply_change(server_text, partial(start, end, new), encoding)
        editor_text = editor_apply(editor_text, start, end, new, encoding)
        assert server_text == editor_text


@settings(max_examples=100, deadline=None)
@given(edit_sessions())
def test_diagnostic_positions_use_the_editor_lines(session: tuple[str, str, list[Any]]) -> None:
    """Position -> offset -> position is the identity on the positions an editor can point at."""
    encoding, text, _ = session
    mapper = RangeMapper(text, encoding)
    lines = editor_lines(text)
    assert LineIndex(text).line_count == len(lines)
    for line, content in enumerate(lines):
        for index in range(len(content) + 1):
            character = units(content[:index], encoding)
            offset = editor_offset(text, line, character, encoding)
            assert mapper.offset(types.Position(line=line, character=character)) == offset
            assert mapper.position(offset) == types.Position(line=line, character=character)


# --- examples that once failed -------------------------------------------------------------------


def test_an_edit_after_a_line_separator_lands_where_the_editor_put_it() -> None:
    text = "; a\u2028b\n(define x)\n"
    edited = apply_change(text, partial((1, 8), (1, 9), "yz"), "utf-16")
    assert edited == "; a\u2028b\n(define yz)\n"


def test_a_position_past_the_end_of_the_last_line_is_the_document_end() -> None:
    assert apply_change("ab\ncd", partial((1, 7), (1, 9), "!"), "utf-16") == "ab\ncd!"
    assert apply_change("ab\ncd", partial((5, 0), (6, 0), "!"), "utf-16") == "ab\ncd!"
    assert apply_change("ab\ncd", partial((0, 9), (1, 0), ""), "utf-16") == "abcd"


def test_a_lone_carriage_return_ends_a_line() -> None:
    assert apply_change("ab\rcd", partial((1, 0), (1, 1), "X"), "utf-16") == "ab\rXd"
    assert RangeMapper("ab\rcd").range(Span(3, 4)) == types.Range(
        start=types.Position(line=1, character=0), end=types.Position(line=1, character=1))


def test_changes_apply_in_order_and_a_full_change_replaces_everything() -> None:
    changes = [partial((0, 0), (0, 0), "x\u2028"), partial((0, 2), (0, 3), "Y"),
               types.TextDocumentContentChangeWholeDocument(text="new\u0085text")]
    assert apply_changes("abc", changes[:2], "utf-16") == "x\u2028Ybc"
    assert apply_changes("abc", changes, "utf-16") == "new\u0085text"


def test_the_server_workspace_copy_follows_the_specification_line_rules() -> None:
    """Through the protocol's own didChange handler, not just the function it calls."""
    server = create_server()
    protocol = server.protocol
    list(protocol.lsp_initialize(types.InitializeParams(capabilities=types.ClientCapabilities())))
    uri = "untitled:sync-test"
    protocol.workspace.put_text_document(types.TextDocumentItem(
        uri=uri, language_id="pddl", version=1, text="; \x0c\u2029\n(define x)"))
    handler = protocol.lsp_text_document__did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[partial((1, 8), (1, 9), "y")]))
    next(handler)  # runs the edit, then offers the feature's own handler
    assert protocol.workspace.get_text_document(uri).source == "; \x0c\u2029\n(define y)"


def test_semantic_tokens_after_a_lone_carriage_return_are_on_the_editor_line() -> None:
    """Token positions follow the same line rules as every other position the server sends."""
    text = "(define (domain d)\r(:predicates (p é))\r\r(:action a :parameters ()))"
    tokens = semantic_tokens(text, build_index(parse_document("d.pddl", text)))
    data = encode(text, tokens, "utf-16")
    line = column = 0
    assert len(data) == 5 * len(tokens) and tokens
    for (start, end, _kind, _modifiers), i in zip(tokens, range(0, len(data), 5), strict=True):
        line, column = line + data[i], (column + data[i + 1]) if data[i] == 0 else data[i + 1]
        offset = editor_offset(text, line, column, "utf-16")
        assert (offset, offset + data[i + 2]) == (start, end), text[start:end]
    assert line == 3  # `a` sits on the editor's fourth line
