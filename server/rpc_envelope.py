"""What makes a decoded JSON value a JSON-RPC 2.0 message, and the error owed to one that is not.

The JSON-RPC 2.0 specification (and the Language Server Protocol built on it) answers every request
it cannot honour with an error response: an unparsable body gets -32700 with a ``null`` id, an
object that is not a valid request -32600 (with the request's id when one can be read, else
``null``), an unknown method -32601, unusable parameters -32602. pygls answered only the unknown
method; every other case was logged and dropped, and the client waited forever. The checks here are
pure so that they can be tested without a server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

MessageId = int | str


@dataclass(frozen=True, slots=True)
class EnvelopeError:
    """The error response owed to a message whose envelope is wrong."""

    code: int
    message: str
    id: MessageId | None


def valid_id(value: object) -> bool:
    """LSP ids are integers or strings (JSON-RPC's ``null`` and fractions are not used by LSP)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def message_id(data: object) -> MessageId | None:
    """The id to answer ``data`` with: its own when it has a usable one, else ``None`` (JSON null)."""
    if isinstance(data, dict):
        value = data.get("id")
        if valid_id(value):
            return value  # type: ignore[no-any-return]
    return None


def envelope_error(data: Any) -> EnvelopeError | None:
    """Why ``data`` is not a JSON-RPC 2.0 request, notification or response; ``None`` if it is one.

    A response from the client (an id and a ``result`` or ``error``) is valid here: whether it
    matches a request the server sent is pygls's business, and a response is never answered.
    """
    if not isinstance(data, dict):
        kind = "a batch (array)" if isinstance(data, list) else f"a JSON {type(data).__name__}"
        return EnvelopeError(INVALID_REQUEST, f"Invalid Request: expected a JSON object, got {kind}", None)
    answer_to = message_id(data)
    if data.get("jsonrpc") != "2.0":
        return EnvelopeError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', answer_to)
    if "id" in data and not valid_id(data["id"]):
        return EnvelopeError(INVALID_REQUEST, 'Invalid Request: "id" must be an integer or a string', None)
    if "method" in data:
        if not isinstance(data["method"], str):
            return EnvelopeError(INVALID_REQUEST, 'Invalid Request: "method" must be a string', answer_to)
        if data.get("params") is not None and not isinstance(data["params"], (dict, list)):
            why = f'Invalid params for {data["method"]}: "params" must be an object or an array'
            return EnvelopeError(INVALID_PARAMS, why, answer_to)
        return None
    if "id" in data and ("result" in data or "error" in data):
        return None
    return EnvelopeError(INVALID_REQUEST, 'Invalid Request: no "method" (and not a response)', answer_to)
