"""pygls's protocol, with a faster JSON encoder for what the server sends and an answer for every
malformed request it receives.

The answers that scale with the file are large: the semantic tokens of a 1 MB problem are about
700,000 integers, a whole-document formatting edit is a 1 MB string. The standard library's encoder
spends ~110 ms on such a token array (one ``int.__repr__`` per number); ``orjson`` writes the same
bytes in ~13 ms. The message is still unstructured by pygls's own cattrs converter, so what is sent
is identical in content (a large semantic-token array excepted: the converter would only copy it, so
the handler's list is handed to ``orjson`` as it is); anything ``orjson`` refuses (an integer beyond
64 bits, say) falls back to pygls's ``json.dumps`` path, and without ``orjson`` installed nothing
changes at all.

Incoming, each message body the transport's decoder (``framing.py``) delimits is decoded and checked
here (``rpc_envelope.py``) before pygls sees it, so that a body that is not JSON, an object that is not
a request and parameters of the wrong shape get the JSON-RPC error the client is waiting for instead
of a line in the log; ``docs/reliability.md`` lists the answers.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import attrs
from cattrs import transform_error
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.protocol.json_rpc import RPCRequest

from plansight.server.document_text import DocumentSyncProtocol
from plansight.server.rpc_envelope import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    MessageId,
    envelope_error,
    message_id,
)

try:
    import orjson
except ImportError:  # optional: the standard encoder is the fall-back
    orjson = None  # type: ignore[assignment]

# Pinned pygls internals (checked by name in tests/test_pinned_internals.py, so an upgrade that moves
# one fails there rather than leaving the client without answers): every outgoing message passes through
# the private ``JsonRPCProtocol._send_data(data)`` we override; it reads ``writer`` and
# ``_include_headers`` (set by ``set_writer``), ``CONTENT_TYPE``/``CHARSET``, the private
# ``_serialize_message(data)``, and reports failures through ``_server._report_server_error(error, source)``.
# Incoming messages go through ``structure_message(data)`` (raising ``JsonRpcInvalidParams`` from a cattrs
# ``ClassValidationError``), ``get_message_type(method)`` (``None`` for an unknown method) and
# ``handle_message``, which we extend using the private ``_shutdown`` flag and ``json_rpc.RPCRequest``; a
# command's coroutine is started within ``handle_message`` (so it sees :data:`CURRENT_REQUEST`).
logger = logging.getLogger(__name__)

CURRENT_REQUEST: ContextVar[MessageId | None] = ContextVar("plansight_current_request", default=None)
"""The id of the request whose handler is running (``None`` outside a request handler)."""
_PENDING_WRITES: set[asyncio.Future[Any]] = set()
_LARGE_TOKEN_ARRAY = 10_000
"""integers of a semantic-token answer from which :meth:`FastJsonProtocol._with_token_data` pays"""


def _why(error: Exception) -> str:
    """What cattrs could not read, by JSON path (``invalid value for type, expected int @
    $.params.position.line``), rather than its exception group's headline."""
    cause = error.__cause__
    if isinstance(cause, ClassValidationError):
        return "; ".join(transform_error(cause, path="$"))
    return str(cause or error) or type(error).__name__


class FastJsonProtocol(DocumentSyncProtocol):
    """Encodes outgoing messages with ``orjson`` when it is available; answers malformed requests."""

    def handle_frame(self, body: bytes) -> None:
        """Decode, check and dispatch one message body."""
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
            logger.warning("Message is not JSON: %s", error)
            self.send_error(None, PARSE_ERROR, f"Parse error: {error}")
            return
        problem = envelope_error(data)
        if problem is not None:
            logger.warning("Invalid message: %s", problem.message)
            if problem.code != INVALID_PARAMS or "id" in data:  # a notification is never answered
                self.send_error(problem.id, problem.code, problem.message)
            return
        if "method" in data and "params" not in data and self.get_message_type(data["method"]) is None:
            data["params"] = None  # pygls's stand-in type for unknown methods insists on params
        try:
            message = self.structure_message(data)
        except Exception as error:  # pygls logged the details
            self._refuse_structure(data, error)
            return
        self.handle_message(message)

    def _refuse_structure(self, data: dict[str, Any], error: Exception) -> None:
        """The envelope was right, so what cattrs could not read is the parameters (or a response)."""
        if "method" in data and "id" in data:
            self.send_error(message_id(data), INVALID_PARAMS,
                            f"Invalid params for {data['method']}: {_why(error)}")
        elif "method" in data:
            logger.warning("Dropped a %s notification whose params could not be read", data["method"])
        else:
            # a client's malformed answer to our request: fail the request rather than wait forever
            logger.warning("Could not read the client's response to request %s: %s", data["id"], _why(error))
            future = self._request_futures.pop(data["id"], None)
            if future is not None and not future.done():
                future.set_exception(JsonRpcException(
                    code=INVALID_PARAMS, message=f"unreadable response: {_why(error)}"))

    def handle_message(self, message: Any) -> None:
        """pygls's dispatch, except that a request after ``shutdown`` is answered instead of dropped, and
        that a ``$/cancelRequest`` also reaches the listeners of :meth:`on_cancel`."""
        # pygls drops requests after ``shutdown`` without a word; the specification wants InvalidRequest
        if self._shutdown and isinstance(message, RPCRequest) and message.method != types.EXIT:
            self.send_error(message.id, INVALID_REQUEST, f"Invalid Request: {message.method} after shutdown")
            return
        if getattr(message, "method", None) == types.CANCEL_REQUEST:
            for listener in self._cancel_listeners().pop(getattr(message.params, "id", None), []):
                listener()
        token = CURRENT_REQUEST.set(message.id if isinstance(message, RPCRequest) else None)
        try:
            super().handle_message(message)
        finally:
            CURRENT_REQUEST.reset(token)

    def _cancel_listeners(self) -> dict[MessageId | None, list[Callable[[], None]]]:
        listeners: dict[MessageId | None, list[Callable[[], None]]] | None = getattr(self, "_on_cancel", None)
        if listeners is None:
            listeners = {}
            self._on_cancel = listeners
        return listeners

    def on_cancel(self, request_id: MessageId | None, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` when the client cancels request ``request_id``; returns what forgets it.

        pygls cancels only a request's own future on ``$/cancelRequest``; a command's coroutine runs in a
        task of its own that the cancel never reaches, so a long command (running a planner) listens here.
        """
        if request_id is None:
            return lambda: None
        listeners = self._cancel_listeners().setdefault(request_id, [])
        listeners.append(listener)

        def forget() -> None:
            if listener in listeners:
                listeners.remove(listener)
            if not listeners:
                self._cancel_listeners().pop(request_id, None)

        return forget

    def send_error(self, msg_id: MessageId | None, code: int, message: str) -> None:
        """A JSON-RPC error response; ``msg_id`` ``None`` is sent as ``"id": null``, as JSON-RPC wants
        when the request's id cannot be read (lsprotocol's message type would leave ``id`` out)."""
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})

    def _with_token_data(self, data: Any) -> Any:
        """The message as cattrs unstructures it, except that a large semantic-token array goes to
        ``orjson`` as the very list the handler returned: the converter would copy its ~700,000
        integers one by one first. The rest of the message (key order included) is the converter's
        own, so the bytes are the same (``tests/test_server_send_path.py``)."""
        result = getattr(data, "result", None)
        if not isinstance(result, types.SemanticTokens) or len(result.data) < _LARGE_TOKEN_ARRAY:
            return data
        message = self._serialize_message(attrs.evolve(data, result=attrs.evolve(result, data=[])))
        if not isinstance(message, dict) or message.get("result", {}).get("data") != []:
            return data
        message["result"]["data"] = result.data
        return message

    def _send_data(self, data: Any) -> None:
        if orjson is None or not data or self.writer is None:
            super()._send_data(data)
            return
        try:
            body = orjson.dumps(self._with_token_data(data), default=self._serialize_message)
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
