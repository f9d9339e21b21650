"""The client side shared by the benchmarks that drive the real server over stdio: a pygls client that
reads semantic tokens as plain JSON, and one open document whose edits wait for their diagnostics."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient


def token_reading_client() -> LanguageClient:
    """A client that reads a token array as an editor does, as plain JSON: pygls's client would also run
    cattrs over each of a 1 MB problem's ~700,000 integers (~120 ms), a cost of this Python client, not
    of the server."""
    client = LanguageClient("plansight-bench", "1")
    client.protocol._converter.register_structure_hook(
        lsp.SemanticTokens,
        lambda raw, _type: lsp.SemanticTokens(data=raw["data"], result_id=raw.get("resultId")))
    return client


class EditedDocument:
    """One document the benchmark opens and edits; each edit returns once that version's diagnostics
    are published, so the server has parsed it and nothing more is pending for the request timed next."""

    def __init__(self, client: LanguageClient, path: Path) -> None:
        self.client = client
        self.uri = path.as_uri()
        self.version = 1
        self._published = asyncio.Event()

        @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            if params.uri == self.uri and params.version in (None, self.version):
                self._published.set()

    async def start(self, folder: Path, options: dict[str, Any] | None = None) -> None:
        """Start ``plansight serve`` with ``folder`` as the workspace."""
        await self.client.start_io(sys.executable, "-m", "plansight", "serve")
        await self.client.initialize_async(lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), root_uri=folder.as_uri(), initialization_options=options))
        self.client.initialized(lsp.InitializedParams())

    async def open(self, text: str) -> None:
        """Open the document with ``text`` and wait for its first diagnostics."""
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=self.uri, language_id="pddl", version=1, text=text)))
        await asyncio.wait_for(self._published.wait(), 120)

    async def insert(self, at: lsp.Position, text: str) -> None:
        """Insert ``text`` at ``at`` as the next version, and wait for its diagnostics."""
        self.version += 1
        self._published.clear()
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=[lsp.TextDocumentContentChangePartial(range=lsp.Range(start=at, end=at),
                                                                  text=text)]))
        await asyncio.wait_for(self._published.wait(), 120)
