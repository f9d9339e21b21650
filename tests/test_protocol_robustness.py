"""What the server does with whatever bytes a broken or hostile client writes.

JSON-RPC 2.0 requires an error response to every request it cannot honour (-32700 for a body that is
not JSON, with id null; -32600 for an object that is not a request; -32601 for an unknown method;
-32602 for unusable parameters), and no stream of bytes may kill the server or leave it deaf. The
framing rules are tested byte for byte on the pure decoder; the answers and the recovery end to end,
on a real ``plansight serve`` process fed hand-made bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from raw_server import RawServer, frame, request

from plansight.server.app import create_server
from plansight.server.framing import MAX_BODY_BYTES, Frame, FrameDecoder, Trouble
from plansight.server.rpc_envelope import envelope_error

HOVER = {"textDocument": {"uri": "file:///nowhere/never-opened.pddl"},
         "position": {"line": 0, "character": 0}}


def frames(stream: bytes, decoder: FrameDecoder | None = None) -> list[bytes]:
    decoder = decoder or FrameDecoder()
    return [event.body for event in decoder.feed(stream) if isinstance(event, Frame)]


# --- the frame decoder ---------------------------------------------------------------------------

messages = st.lists(st.binary(max_size=40), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(messages, st.lists(st.integers(1, 30), max_size=40))
def test_frames_come_out_whole_however_the_stream_is_cut(bodies: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(b"Content-Type: application/vscode-jsonrpc\r\n" * (i % 2) + frame(body)
                      for i, body in enumerate(bodies))
    decoder = FrameDecoder()
    out: list[bytes] = []
    position = 0
    for cut in cuts:
        out += frames(stream[position:position + cut], decoder)
        position += cut
    out += frames(stream[position:], decoder)
    assert out == bodies
    assert decoder.close() == []


@pytest.mark.parametrize("broken", [
    b"Content-Type: application/vscode-jsonrpc\r\n\r\n{\"lost\": 1}",  # no Content-Length
    b"Content-Length: twelve\r\n\r\n{\"lost\": 1}",  # not a number
    b"Content-Length 11\r\n\r\n{\"lost\": 1}",  # no colon
    b"Content-Length: -11\r\n\r\n{\"lost\": 1}",
    b"Content-Length: 1000000000000\r\n\r\n{\"lost\": 1}",  # over the limit
    b"Content-Length: 99999999999999999999999999999\r\n\r\n{}",
    b"x" * 100_000,  # a header line that never ends
])
def test_a_broken_frame_is_refused_and_the_next_one_is_read(broken: bytes) -> None:
    decoder = FrameDecoder()
    events = decoder.feed(broken)  # on its own: a line that never ends is refused before its end
    events += decoder.feed(frame(b'{"next": 1}') + frame(b'{"then": 2}'))
    assert [e.body for e in events if isinstance(e, Frame)] == [b'{"next": 1}', b'{"then": 2}']
    assert any(isinstance(e, Trouble) and "refused" in e.message for e in events)


@pytest.mark.parametrize("prefix", [b"garbage", b"garbage\r\n", b"Bogus header\r\n", b"{\"a\": 1}\r\n\r\n",
                                    b"\r\n\r\n\r\n{\"no\": \"header\"}\n"])
def test_garbage_before_a_valid_header_is_skipped_and_the_message_read(prefix: bytes) -> None:
    assert frames(prefix + frame(b'{"ok": 1}')) == [b'{"ok": 1}']


def test_a_header_line_without_a_colon_next_to_a_valid_length_is_tolerated() -> None:
    decoder = FrameDecoder()
    events = decoder.feed(b"Content-Length: 9\r\nNo colon here\r\n\r\n{\"ok\": 1}")
    assert [e for e in events if isinstance(e, Frame)] == [Frame(b'{"ok": 1}')]
    assert any(isinstance(e, Trouble) and "without a colon" in e.message for e in events)


def test_an_oversize_frame_never_makes_the_decoder_hold_its_body() -> None:
    decoder = FrameDecoder(max_body=1000)
    decoder.feed(b"Content-Length: 5000\r\n\r\n")
    for _ in range(100):
        assert decoder.feed(b"y" * 1000) == []
    assert len(decoder._buffer) < 100
    assert frames(frame(b"{}"), decoder) == [b"{}"]
    assert MAX_BODY_BYTES == 64 * 1024 * 1024


def test_a_message_cut_short_by_the_end_of_input_is_reported() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"Content-Length: 50\r\n\r\n{\"jsonrpc\"")
    assert [e.message for e in decoder.close()] == ["the input ended 10 bytes into a 50-byte message"]


# --- the envelope --------------------------------------------------------------------------------

@pytest.mark.parametrize(("data", "code", "msg_id"), [
    ([], -32600, None),
    ([{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}], -32600, None),
    ("text", -32600, None),
    ({"id": 1, "method": "shutdown"}, -32600, 1),
    ({"jsonrpc": "1.0", "id": 1, "method": "shutdown"}, -32600, 1),
    ({"jsonrpc": "2.0", "id": 1}, -32600, 1),
    ({"jsonrpc": "2.0", "id": {"x": 1}, "method": "shutdown"}, -32600, None),
    ({"jsonrpc": "2.0", "id": True, "method": "shutdown"}, -32600, None),
    ({"jsonrpc": "2.0", "id": 1, "method": 5}, -32600, 1),
    ({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": "x"}, -32602, 1),
])
def test_envelopes_that_are_not_messages(data: object, code: int, msg_id: object) -> None:
    problem = envelope_error(data)
    assert problem is not None and (problem.code, problem.id) == (code, msg_id)


@pytest.mark.parametrize("data", [
    {"jsonrpc": "2.0", "id": 1, "method": "shutdown"},
    {"jsonrpc": "2.0", "id": "a", "method": "shutdown", "params": None},
    {"jsonrpc": "2.0", "method": "exit"},
    {"jsonrpc": "2.0", "id": 7, "result": None},
    {"jsonrpc": "2.0", "id": 7, "error": {"code": 1, "message": "no"}},
])
def test_valid_envelopes_pass(data: object) -> None:
    assert envelope_error(data) is None


# --- end to end: the answers ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def server() -> Iterator[RawServer]:
    raw = RawServer()
    raw.initialize()
    yield raw
    assert raw.close() == 0


def _error(server: RawServer, msg_id: object) -> dict[str, object]:
    response = server.response(msg_id)  # type: ignore[arg-type]
    assert "result" not in response and response["jsonrpc"] == "2.0"
    return response["error"]  # type: ignore[no-any-return]


def _still_answers(server: RawServer, msg_id: str) -> None:
    server.send(frame(request(msg_id, "textDocument/hover", HOVER)))
    assert server.response(msg_id) == {"jsonrpc": "2.0", "id": msg_id, "result": None}


def test_a_body_that_is_not_json_gets_a_parse_error_with_a_null_id(server: RawServer) -> None:
    server.send(frame(b'{"jsonrpc": "2.0", "id": 1, "method": '))
    assert _error(server, None)["code"] == -32700
    server.send(frame(b"\xff\xfe not utf-8"))
    assert _error(server, None)["code"] == -32700
    server.send(frame(b"[" * 100_000))
    assert _error(server, None)["code"] == -32700
    _still_answers(server, "after-parse-errors")


@pytest.mark.parametrize(("message", "code", "msg_id"), [
    ({"jsonrpc": "2.0", "id": 21}, -32600, 21),
    ({"jsonrpc": "2.0", "id": 22, "method": ["hover"]}, -32600, 22),
    ({"id": 23, "method": "textDocument/hover", "params": HOVER}, -32600, 23),
    ([1, 2], -32600, None),
    ({"jsonrpc": "2.0", "id": 24, "method": "plansight/noSuchThing"}, -32601, 24),
    ({"jsonrpc": "2.0", "id": 25, "method": "textDocument/hover", "params": {"textDocument": 5,
                                                                           "position": "x"}}, -32602, 25),
    ({"jsonrpc": "2.0", "id": 26, "method": "textDocument/hover"}, -32602, 26),
    ({"jsonrpc": "2.0", "id": 27, "method": "textDocument/hover", "params": "x"}, -32602, 27),
    ({"jsonrpc": "2.0", "id": "28", "method": "textDocument/hover", "params": [1]}, -32602, "28"),
])
def test_every_malformed_request_gets_its_error(server: RawServer, message: object, code: int,
                                                msg_id: object) -> None:
    server.send(frame(json.dumps(message).encode()))
    assert _error(server, msg_id)["code"] == code
    _still_answers(server, f"after-{msg_id}")


def test_the_invalid_params_error_names_what_is_wrong(server: RawServer) -> None:
    server.send(frame(request(30, "textDocument/hover", {"textDocument": {"uri": "file:///x.pddl"},
                                                         "position": {"line": "zero", "character": 0}})))
    assert "position.line" in str(_error(server, 30)["message"])


def test_a_notification_with_bad_params_is_dropped_without_an_answer(server: RawServer) -> None:
    server.send(frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"nonsense": 1}}))
    _still_answers(server, "after-bad-notification")
    assert server.received == []


# --- end to end: broken frames -------------------------------------------------------------------

@pytest.mark.parametrize("broken", [
    pytest.param(b"Content-Type: application/vscode-jsonrpc\r\n\r\n"
                 + json.dumps(request(41, "shutdown")).encode(), id="missing-content-length"),
    pytest.param(b"Content-Length: lots\r\n\r\n" + json.dumps(request(42, "shutdown")).encode(),
                 id="non-numeric-content-length"),
    pytest.param(b"Content-Length 45\r\n\r\n" + json.dumps(request(43, "shutdown")).encode(),
                 id="header-without-colon"),
    pytest.param(b"Content-Length: 1000000000000\r\n\r\n" + json.dumps(request(44, "shutdown")).encode(),
                 id="huge-content-length"),
])
def test_after_a_broken_frame_the_next_request_is_answered(broken: bytes) -> None:
    raw = RawServer()
    try:
        raw.initialize()
        raw.send(broken)
        _still_answers(raw, "after-broken-frame")
        assert raw.process.poll() is None
    finally:
        assert raw.close() == 0
    assert b"refused a message" in raw.stderr


def test_garbage_before_a_header_only_costs_the_garbage() -> None:
    raw = RawServer()
    try:
        raw.initialize()
        raw.send(b"garbage" + frame(request("behind-garbage", "textDocument/hover", HOVER)))
        assert raw.response("behind-garbage")["result"] is None
    finally:
        assert raw.close() == 0


def test_requests_after_shutdown_get_invalid_request() -> None:
    raw = RawServer()
    try:
        raw.initialize()
        raw.send(frame(request("down", "shutdown")))
        assert raw.response("down")["result"] is None
        raw.send(frame(request("late", "textDocument/hover", HOVER)))
        assert _error(raw, "late")["code"] == -32600
        raw.send(frame({"jsonrpc": "2.0", "method": "exit"}))
        assert raw.process.wait(timeout=10) == 0
    finally:
        if raw.process.poll() is None:
            raw.process.kill()


# --- a malformed response from the client ---------------------------------------------------------

@pytest.mark.parametrize("response", [{"result": 5}, {"error": {"code": "not a number"}}])
def test_an_unreadable_response_fails_the_request_instead_of_leaving_it_waiting(
        response: dict[str, object]) -> None:
    protocol = create_server().protocol
    sent: list[object] = []
    protocol._send_data = sent.append  # type: ignore[method-assign]
    waiting = protocol.send_request(types.WORKSPACE_CONFIGURATION, types.ConfigurationParams(items=[]))
    request_id = sent[0].id  # type: ignore[attr-defined]
    protocol.handle_frame(json.dumps({"jsonrpc": "2.0", "id": request_id, **response}).encode())
    assert waiting.done() and "unreadable response" in str(waiting.exception())
