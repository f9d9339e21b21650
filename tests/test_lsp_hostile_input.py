"""Hostile input through the real ``plansight serve`` process (pytest-lsp), as an editor sends it
(docs/reliability.md): a CR-only buffer, a buffer holding a lone surrogate, a ``; @domain`` line that
names a FIFO. Each must get its ordinary diagnostics at the right places, and the server must go on
answering afterwards: before, the first was reported one line too high, the second became a single
``internal-error``, and the third wedged an analysis thread for good.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, session
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.lsp

TIMEOUT = 60.0
DOMAIN = (Path(__file__).resolve().parent.parent / "examples" / "blocksworld" / "domain.pddl").read_text()
PROBLEM = """; blocks
(define (problem p) (:domain blocksworld) (:objects a b)
  (:init (onn a b) (clear a))
  (:goal (on a b)))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Deep enough that the domain search (three folders up) never leaves ``tmp_path``."""
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    (folder / "domain.pddl").write_text(DOMAIN)
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    async with session(lsp_client, project):
        yield


def open_text(client: LanguageClient, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="pddl", version=1, text=text)))
    return uri


async def published(client: LanguageClient, uri: str) -> Sequence[types.Diagnostic]:
    deadline = time.monotonic() + TIMEOUT
    while uri not in client.diagnostics:
        assert time.monotonic() < deadline, f"no diagnostics for {uri} within {TIMEOUT}s"
        await asyncio.sleep(0.01)
    return client.diagnostics[uri]


def found(diagnostics: Sequence[types.Diagnostic]) -> list[tuple[str, int, int]]:
    return [(str(d.code), d.range.start.line, d.range.start.character) for d in diagnostics]


async def test_a_cr_only_buffer_gets_its_error_on_its_own_line(client: LanguageClient, project: Path) -> None:
    uri = open_text(client, project / "p.pddl", PROBLEM.replace("\n", "\r"))
    assert found(await published(client, uri)) == [("undeclared-predicate", 2, 10)]


async def test_a_lone_surrogate_is_an_invalid_character_not_an_internal_error(
        client: LanguageClient, project: Path) -> None:
    text = PROBLEM.replace("(clear a))", "(clear a) \ud800)")
    uri = open_text(client, project / "p.pddl", text)
    diagnostics = found(await published(client, uri))
    assert ("invalid-character", 2, 29) in diagnostics
    assert all(code != "internal-error" for code, _, _ in diagnostics)
    # and the rest of the file is still checked
    assert ("undeclared-predicate", 2, 10) in diagnostics


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX feature")
async def test_a_fifo_directive_target_is_a_broken_link_and_the_server_goes_on(
        client: LanguageClient, project: Path) -> None:
    os.mkfifo(project / "pipe.pddl")
    linked = open_text(client, project / "linked.pddl", "; @domain pipe.pddl\n" + PROBLEM)
    codes = [code for code, _, _ in found(await published(client, linked))]
    assert "broken-link" in codes
    message = next(d.message for d in client.diagnostics[linked] if d.code == "broken-link")
    assert "FIFO" in message
    later = open_text(client, project / "later.pddl", PROBLEM)
    assert found(await published(client, later)) == [("undeclared-predicate", 2, 10)]
