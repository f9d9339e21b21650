"""An editor for server features, in this process: a server built with ``create_server(features=...)``
and driven through pygls's own message dispatch, with no subprocess, pipe or framing.

The pytest-lsp tests (``test_lsp_*.py``) start ``plansight serve`` for each module and exchange
framed JSON over stdio; that proves the whole server works, at ~600 times the cost of a unit test.
Here each message is the JSON object an editor would send: pygls structures its params, runs the
registered handler (on this test's event loop; analyses still run in the server's worker threads)
and serialises the answer, which :class:`InProcessClient` reads back as plain JSON. So a test sees
what a client would see — capabilities, results, published diagnostics, errors — for only the
features it built the server with. The pygls parts this relies on are pinned in
``tests/test_pinned_internals.py``.

Use the :func:`editor` context manager in an ``async`` test::

    async with editor([HoverFeature], tmp_path) as client:
        uri = client.open(tmp_path / "domain.pddl", DOMAIN)
        await client.diagnostics_of(uri)
        answer = await client.request("textDocument/hover", {...})
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from plansight.server.app import PlansightServer, create_server
from plansight.server.feature_contract import ServerFeature

TIMEOUT_S = 30.0
"""How long a request or an analysis may take before the test fails instead of hanging."""


class ServerError(Exception):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = str(error.get("message"))


class InProcessClient:
    """The client side of one in-process server: sends JSON messages, collects what the server sends.

    It is also the server's writer (pygls calls :meth:`write` with each outgoing message).
    Requests from the server (progress tokens, configuration, ``workspace/applyEdit``) are recorded in
    ``server_requests`` and answered with ``null``, as a client that supports none of them would.
    """

    def __init__(self, server: PlansightServer) -> None:
        self.server = server
        self._protocol = server.protocol
        self._protocol.set_writer(self, include_headers=False)
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._published: dict[str, asyncio.Event] = {}
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        """the last diagnostics published for each uri"""
        self.diagnostics_version: dict[str, int | None] = {}
        self.notifications: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []
        self.capabilities: dict[str, Any] = {}
        self._versions: dict[str, int] = {}

    # --- the writer pygls sends through ------------------------------------------------------------

    def write(self, data: bytes | str) -> None:
        message = json.loads(data)
        if "method" in message and "id" in message:
            self.server_requests.append(message)
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif "method" in message:
            self.notifications.append(message)
            if message["method"] == "textDocument/publishDiagnostics":
                params = message["params"]
                self.diagnostics[params["uri"]] = params["diagnostics"]
                self.diagnostics_version[params["uri"]] = params.get("version")
                self._published.setdefault(params["uri"], asyncio.Event()).set()
        else:
            future = self._pending.pop(message["id"], None)
            if future is None or future.done():
                return
            if "error" in message and message["error"] is not None:
                future.set_exception(ServerError(message["error"]))
            else:
                future.set_result(message.get("result"))

    def close(self) -> None:
        """Part of the writer interface pygls expects; nothing to release."""

    # --- messages ----------------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        self._protocol.handle_message(self._protocol.structure_message(message))

    async def request(self, method: str, params: Any = None) -> Any:
        """Send a request and wait for its result (JSON); raises :class:`ServerError` on an error."""
        msg_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return await asyncio.wait_for(future, TIMEOUT_S)

    def notify(self, method: str, params: Any = None) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def execute(self, command: str, argument: dict[str, Any]) -> Any:
        """Run a server command the way the extension does: one argument object."""
        return await self.request("workspace/executeCommand", {"command": command, "arguments": [argument]})

    # --- the session -------------------------------------------------------------------------------

    async def initialize(self, root: Path, capabilities: dict[str, Any] | None = None,
                         initialization_options: Any = None) -> dict[str, Any]:
        """``initialize`` + ``initialized`` with ``root`` as the workspace; returns the server's answer."""
        result = await self.request("initialize", {
            "processId": None, "rootUri": root.as_uri(),
            "capabilities": capabilities if capabilities is not None else {},
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": initialization_options,
        })
        self.capabilities = result["capabilities"]
        self.notify("initialized", {})
        return dict(result)

    async def shutdown(self) -> None:
        await self.request("shutdown")

    # --- documents ---------------------------------------------------------------------------------

    def open(self, path: Path, text: str, language: str = "pddl") -> str:
        """Open ``path`` with ``text`` as its buffer (the file need not exist); returns its uri."""
        uri = path.as_uri()
        self._versions[uri] = 1
        self._published.pop(uri, None)
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": 1, "text": text}})
        return uri

    def replace(self, uri: str, text: str) -> int:
        """Replace the whole buffer (a full-text ``didChange``); returns the new version."""
        version = self._versions[uri] = self._versions[uri] + 1
        self._published.pop(uri, None)
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})
        return version

    async def diagnostics_of(self, uri: str) -> list[dict[str, Any]]:
        """The diagnostics of the buffer's current version, once its analysis has been published."""
        wanted = self._versions.get(uri)
        while True:
            event = self._published.setdefault(uri, asyncio.Event())
            await asyncio.wait_for(event.wait(), TIMEOUT_S)
            if self.diagnostics_version.get(uri) == wanted:
                return self.diagnostics[uri]
            event.clear()


@asynccontextmanager
async def editor(features: Iterable[type[ServerFeature]] | None, root: Path,
                 capabilities: dict[str, Any] | None = None,
                 initialization_options: Any = None) -> AsyncIterator[InProcessClient]:
    """A server with ``features`` (None: all), initialized on ``root``; shut down on leaving."""
    client = InProcessClient(create_server(features))
    await client.initialize(root, capabilities, initialization_options)
    try:
        yield client
    finally:
        await client.shutdown()
