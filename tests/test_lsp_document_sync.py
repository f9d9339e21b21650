"""The server's copy of a document stays the editor's through incremental edits, end to end
(pytest-lsp against ``plansight serve``): with a U+2028 in the text, pygls's line splitting once put
every later edit one line off, and the diagnostics then described text the user never wrote."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, session
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.lsp

TIMEOUT = 60.0

DOMAIN = """\
; notes\u2028still the first line for the editor
(define (domain tiny)
  (:requirements :strips)
  (:predicates (clear ?x) (holding ?x) (handempty))
  (:action pick
    :parameters (?x)
    :precondition (and (clear ?x) (handempty))
    :effect (and (holding ?x) (not (clear ?x)) (not (handempty)))))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    async with session(lsp_client, project):
        yield


def rng(a: tuple[int, int], b: tuple[int, int]) -> types.Range:
    return types.Range(start=types.Position(line=a[0], character=a[1]),
                       end=types.Position(line=b[0], character=b[1]))


def edit(client: LanguageClient, uri: str, version: int, where: types.Range, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangePartial(range=where, text=text)]))


async def diagnostics(client: LanguageClient, uri: str,
                      accept: Callable[[list[types.Diagnostic]], bool]) -> list[types.Diagnostic]:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        found = client.diagnostics.get(uri)
        if found is not None and accept(list(found)):
            return list(found)
        await asyncio.sleep(0.02)
    raise AssertionError(f"diagnostics of {uri} never matched: {client.diagnostics.get(uri)}")


def errors(found: list[types.Diagnostic]) -> list[tuple[object, types.Range]]:
    return [(d.code, d.range) for d in found if d.severity == types.DiagnosticSeverity.Error]


async def test_a_diagnostic_range_is_right_after_edits_in_a_document_with_a_line_separator(
        client: LanguageClient, project: Path) -> None:
    path = project / "domain.pddl"
    path.write_text(DOMAIN, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="pddl", version=1, text=DOMAIN)))
    await diagnostics(client, uri, lambda found: not errors(found))

    # `holding` -> `holdin` on the :effect line (line 7 for the editor, line 8 for str.splitlines)
    edit(client, uri, 2, rng((7, 24), (7, 25)), "")
    expected = ("undeclared-predicate", rng((7, 18), (7, 24)))
    assert errors(await diagnostics(client, uri, lambda found: bool(errors(found)))) == [expected]

    # another line separator typed on the first line, then an edit past the end of the last line
    edit(client, uri, 3, rng((0, 7), (0, 7)), "\u2028\u2029")
    edit(client, uri, 4, rng((20, 0), (21, 5)), "; appended at the end\n")
    edit(client, uri, 5, rng((7, 18), (7, 24)), "(holding")
    fixed = await diagnostics(client, uri, lambda found: errors(found) != [expected])
    assert ("syntax-error", rng((7, 18), (7, 19))) in errors(fixed)  # the extra `(` of `((holding`
    edit(client, uri, 6, rng((7, 18), (7, 19)), "")
    await diagnostics(client, uri, lambda found: not errors(found))
