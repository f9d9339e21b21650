"""Formatting through the real ``plansight serve`` process (pytest-lsp) after each edit of a random edit
sequence, where the server lays out the new version from the previous one's layout (``format_reuse.py``):
the client applies the edits it gets back and must hold exactly the fresh layout of the text (document
formatting), or the text a fresh range formatting gives (range formatting)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, at_offset, close_session, open_session
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.formatter import format_parsed, format_range
from plansight.analyses.syntax.documents import parse_document

pytestmark = pytest.mark.lsp

DOMAIN = """\
(define (domain shop)
  (:requirements :strips :typing)
  (:types crate pallet)
  (:predicates (on ?c - crate ?p - pallet) (empty ?p - pallet) (clear ?c - crate))
  (:action stack
    :parameters (?c - crate ?p - pallet)
    :precondition (empty ?p)
    :effect (and (on ?c ?p) (not (empty ?p)))))
"""


def problem(rng: random.Random) -> str:
    crates = " ".join(f"c{k}" for k in range(60))
    facts = "".join(rng.choice([f"    (clear c{k})\n", f"  (on c{k} p1)  ", f"\n   (clear c{k}) ; kept\n"])
                    for k in range(60))
    goal = " ".join(f"(on c{k} p1)" for k in range(0, 60, 3))
    return (f"(define (problem stock) (:domain shop)\n  (:objects {crates} - crate p1 - pallet)\n"
            f"  (:init (empty p1)\n{facts}  )\n  (:goal (and {goal}))\n)\n")


PIECES = [" ", "\n", "\n\n", " (clear c3)", "(on c1 p1) ", "   "]


def edited(text: str, rng: random.Random) -> tuple[int, int, str]:
    """A change that keeps the file well formed: a piece typed before a fact or after one, a comment line
    added, a fact deleted."""
    facts = [m.span() for m in re.finditer(r"\((?:on|clear) c\d+(?: p1)?\)", text)]
    start, end = rng.choice(facts)
    kind = rng.random()
    if kind < 0.5:
        return (start, start, rng.choice(PIECES)) if kind < 0.25 else (end, end, rng.choice(PIECES))
    if kind < 0.65:
        line = text.rfind("\n", 0, start) + 1
        return line, line, "  ; a note\n"
    return start, end, ""


def offset(text: str, at: types.Position) -> int:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return starts[at.line] + at.character


def applied(text: str, edits: list[types.TextEdit] | None) -> str:
    spans = [(offset(text, e.range.start), offset(text, e.range.end), e.new_text) for e in edits or []]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path: Path):
    await open_session(lsp_client, tmp_path)
    yield
    await close_session(lsp_client)


async def test_edits_after_each_change_give_the_fresh_layout(client: LanguageClient, tmp_path: Path) -> None:
    rng = random.Random(5)
    text = problem(rng)
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    path = tmp_path / "p01.pddl"
    path.write_text(text)
    uri = path.as_uri()
    doc = types.TextDocumentIdentifier(uri=uri)
    options = types.FormattingOptions(tab_size=2, insert_spaces=True)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="pddl", version=1, text=text)))
    ranged = 0
    for version in range(2, 40):
        start, end, piece = edited(text, rng)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=at_offset(text, start), end=at_offset(text, end)), text=piece)]))
        text = text[:start] + piece + text[end:]
        fresh = format_parsed(parse_document(str(path), text))
        assert fresh.text is not None
        if rng.random() < 0.5:
            edits = await client.text_document_formatting_async(
                types.DocumentFormattingParams(text_document=doc, options=options))
            assert applied(text, edits) == fresh.text, f"after version {version}"
            continue
        at = rng.randint(0, len(text))
        span = Span(at, min(len(text), at + rng.choice([0, 5, 80])))
        edits = await client.text_document_range_formatting_async(types.DocumentRangeFormattingParams(
            text_document=doc, options=options,
            range=types.Range(start=at_offset(text, span.start), end=at_offset(text, span.end))))
        one = format_range(text, span)
        expected = text if one is None else text[:one.span.start] + one.new_text + text[one.span.end:]
        assert applied(text, edits) == expected, f"after version {version}"
        ranged += expected != text
    assert ranged > 3  # some ranges did need formatting
