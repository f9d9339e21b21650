"""pygls's protocol with a faster JSON encoder for what the server sends.

The answers that scale with the file are large: the semantic tokens of a 1 MB problem are about
700,000 integers, a whole-document formatting edit is a 1 MB string. The standard library's encoder
spends ~110 ms on such a token array (one ``int.__repr__`` per number); ``orjson`` writes the same
bytes in ~13 ms. The message is still unstructured by pygls's own cattrs converter, so what is sent
is identical in content; anything ``orjson`` refuses (an integer beyond 64 bits, say) falls back to
pygls's ``json.dumps`` path, and without ``orjson`` installed nothing changes at all.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

from pygls.exceptions import JsonRpcInternalError

from plansight.server.document_text import DocumentSyncProtocol

try:
    import orjson
except ImportError:  # optional: the standard encoder is the fall-back
    orjson = None  # type: ignore[assignment]

# Pinned pygls internals (checked by name in tests/test_pinned_internals.py, so an upgrade that moves
# one fails there rather than leaving the client without answers): every outgoing message passes through
# the private ``JsonRPCProtocol._send_data(data)`` we override; it reads ``writer`` and
# ``_include_headers`` (set by ``set_writer``), ``CONTENT_TYPE``/``CHARSET``, the private
# ``_serialize_message(data)``, and reports failures through ``_server._report_server_error(error, source)``.
logger = logging.getLogger(__name__)
_PENDING_WRITES: set[asyncio.Future[Any]] = set()


class FastJsonProtocol(DocumentSyncProtocol):
    """Encodes outgoing messages with ``orjson`` when it is available."""

    def _send_data(self, data: Any) -> None:
        if orjson is None or not data or self.writer is None:
            super()._send_data(data)
            return
        try:
            body = orjson.dumps(data, default=self._serialize_message)
        except (TypeError, orjson.JSONEncodeError):
            super()._send_data(data)
            return
        header = (f"Content-Length: {len(body)}\r\n"
                  f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n").encode("ascii")
        try:
            written = self.writer.write(header + body if self._include_headers else body)
            if inspect.isawaitable(written):
                pending = asyncio.ensure_future(written)
                _PENDING_WRITES.add(pending)
                pending.add_done_callback(_PENDING_WRITES.discard)
        except BrokenPipeError:
            logger.exception("Error sending data. BrokenPipeError", exc_info=True)
            raise
        except Exception as error:
            logger.exception("Error sending data", exc_info=True)
            self._server._report_server_error(error, JsonRpcInternalError)
