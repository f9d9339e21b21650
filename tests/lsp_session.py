"""The editor session every pytest-lsp test module opens against the real ``plansight serve``
process, and the small editor-side helpers they share.

Each module keeps its own ``@pytest_lsp.fixture`` (pytest-lsp starts one server per fixture
declaration, with that module's client class), so only the session itself lives here: one place
that says what an editor announces at ``initialize``, with the differences between modules (a
client's capabilities, the settings passed as initialization options) as parameters."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

SERVER = [sys.executable, "-m", "plansight", "serve"]


async def open_session(client: LanguageClient, folder: Path,
                       capabilities: types.ClientCapabilities | None = None,
                       initialization_options: Any = None) -> types.InitializeResult:
    """Initialize the server with ``folder`` as the workspace, as VS Code would unless
    ``capabilities`` says otherwise; returns what the server announced."""
    if capabilities is None:
        capabilities = client_capabilities("visual-studio-code")
    return await client.initialize_session(types.InitializeParams(
        capabilities=capabilities,
        root_uri=folder.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name=folder.name)],
        initialization_options=initialization_options,
    ))


async def close_session(client: LanguageClient) -> None:
    await client.shutdown_session()


@asynccontextmanager
async def session(client: LanguageClient, folder: Path,
                  capabilities: types.ClientCapabilities | None = None,
                  initialization_options: Any = None) -> AsyncIterator[types.InitializeResult]:
    """``open_session`` ... ``close_session`` around a fixture's ``yield``."""
    result = await open_session(client, folder, capabilities, initialization_options)
    yield result
    await close_session(client)


def write(path: Path, text: str) -> Path:
    """Put ``text`` on disk at ``path`` (folders included), as a file the user never opened."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def open_file(client: LanguageClient, path: Path, text: str | None = None) -> str:
    """Open ``path`` in the editor (with ``text`` as its unsaved contents when given)."""
    if text is None:
        text = path.read_text()
    language = "plan" if path.suffix == ".plan" else "pddl"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id=language, version=1, text=text)))
    return path.as_uri()


def position(text: str, needle: str, nth: int = 0, shift: int = 0) -> types.Position:
    """The position of the ``nth`` ``needle`` in ``text`` (plus ``shift`` characters; ASCII only)."""
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    return at_offset(text, offset + shift)


def at_offset(text: str, offset: int) -> types.Position:
    """The LSP position (UTF-16 columns, lines split at ``\\n``) of character ``offset`` of ``text``."""
    line = text.count("\n", 0, offset)
    before = text[text.rfind("\n", 0, offset) + 1:offset]
    return types.Position(line=line, character=len(before.encode("utf-16-le")) // 2)


def span(text: str, needle: str, nth: int = 0, word: str | None = None) -> types.Range:
    """The range of ``word`` (default: all of it) inside the ``nth`` ``needle``."""
    shift = needle.index(word) if word is not None else 0
    start = position(text, needle, nth, shift)
    length = len(word if word is not None else needle)
    return types.Range(start=start, end=types.Position(line=start.line, character=start.character + length))


def text_document(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)
