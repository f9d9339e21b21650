"""The server's send path: faster, and indistinguishable to the client."""

from __future__ import annotations

import json

from lsprotocol import types

from plansight.server.app import create_server
from plansight.server.json_protocol import FastJsonProtocol


class _Collect:
    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.chunks.append(data)

    def close(self) -> None:  # the writer protocol pygls expects
        pass


def _sent(protocol: FastJsonProtocol) -> tuple[dict[str, str], bytes]:
    writer = protocol.writer
    assert isinstance(writer, _Collect)
    raw = writer.chunks.pop()
    head, _, body = raw.partition(b"\r\n\r\n")
    headers = dict(line.split(": ", 1) for line in head.decode("ascii").split("\r\n"))
    return headers, body


def _protocol() -> FastJsonProtocol:
    server = create_server()
    assert isinstance(server.protocol, FastJsonProtocol)
    server.protocol.set_writer(_Collect())
    return server.protocol


def test_a_response_decodes_to_what_the_standard_encoder_sends() -> None:
    protocol = _protocol()
    hover = types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="`on` — é ∀"),
                        range=types.Range(start=types.Position(line=1, character=2),
                                          end=types.Position(line=1, character=4)))
    response = types.HoverResponse(id=7, result=hover)
    protocol._send_data(response)
    headers, body = _sent(protocol)
    # Content-Length counts bytes, which differ from characters once the text is not ASCII
    assert int(headers["Content-Length"]) == len(body)
    expected = json.loads(json.dumps(response, default=protocol._serialize_message))
    assert json.loads(body) == expected
    assert expected["result"]["contents"]["kind"] == "markdown"


def test_a_large_token_array_is_sent_whole() -> None:
    protocol = _protocol()
    data = [i % 97 for i in range(50_000)]
    protocol._send_data(types.SemanticTokensResponse(id=3, result=types.SemanticTokens(data=data)))
    _, body = _sent(protocol)
    assert json.loads(body)["result"]["data"] == data


def test_what_orjson_refuses_goes_through_the_standard_encoder() -> None:
    protocol = _protocol()
    huge = 2 ** 70  # beyond 64 bits: orjson raises, the standard encoder does not
    protocol._send_data(types.SemanticTokensResponse(id=4, result=types.SemanticTokens(data=[huge])))
    headers, body = _sent(protocol)
    assert json.loads(body)["result"]["data"] == [huge]
    assert int(headers["Content-Length"]) == len(body)


def test_a_large_token_array_handed_to_orjson_as_it_is_gives_the_converters_bytes() -> None:
    import orjson

    protocol = _protocol()
    data = [i % 89 for i in range(60_000)]
    for result in (types.SemanticTokens(data=data, result_id="12"), types.SemanticTokens(data=data)):
        response = types.SemanticTokensResponse(id=5, result=result)
        protocol._send_data(response)
        headers, body = _sent(protocol)
        assert body == orjson.dumps(protocol._serialize_message(response))  # the converter's message
        assert int(headers["Content-Length"]) == len(body)
        assert protocol._with_token_data(response)["result"]["data"] is data  # not copied by cattrs
    assert result.data is data  # the handler's list is left as it was


def test_a_large_token_array_orjson_refuses_goes_through_the_standard_encoder() -> None:
    protocol = _protocol()
    data = [*range(20_000), 2 ** 70]
    protocol._send_data(types.SemanticTokensResponse(id=6, result=types.SemanticTokens(data=data)))
    _, body = _sent(protocol)
    assert json.loads(body)["result"]["data"] == data
