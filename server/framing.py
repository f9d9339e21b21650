"""Splitting the client's byte stream into messages, surviving whatever a broken client writes.

The base protocol frames each JSON-RPC message with ``Content-Length: N`` (other header lines, such as
``Content-Type``, are allowed), a blank line and N bytes of body. pygls's reader trusted all of it: a
``Content-Length`` it could not parse, a header without one, or a header glued behind garbage left it
waiting for a header that never came (alive but deaf), and ``Content-Length: 1000000000000`` made it
allocate the body and die of ``MemoryError``. This decoder is pure (bytes in, events out) so that
every one of those streams can be tested byte for byte, without a process. Its rules, documented for
users in ``docs/reliability.md``:

* a header block with a valid ``Content-Length`` is read even when a line of it is malformed or
  garbage precedes it (the body's end is known, so nothing is lost by being lenient);
* a block whose length is missing, not a number, or above :data:`MAX_BODY_BYTES` is refused, and
  the decoder then skips bytes until the next ``Content-Length:``, wherever it appears (a body
  written without a valid header ends where the next header begins, often on the same line);
* nothing the client writes makes the decoder hold more than the limit plus one read in memory.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_BODY_BYTES = 64 * 1024 * 1024
"""The largest message body accepted: 64 MiB, far above the JSON of any PDDL file an editor opens."""

MAX_HEADER_LINE_BYTES = 64 * 1024
"""A longer header line is garbage (a real one is under 100 bytes)."""

_MARKER = b"content-length:"


@dataclass(frozen=True, slots=True)
class Frame:
    """One message body, to be decoded as JSON."""

    body: bytes


@dataclass(frozen=True, slots=True)
class Trouble:
    """Something wrong in the stream, for the log: what was skipped, refused or tolerated."""

    message: str


Event = Frame | Trouble


class FrameDecoder:
    """Turns the bytes of the stream, fed in pieces of any size, into frames and troubles."""

    def __init__(self, max_body: int = MAX_BODY_BYTES, max_header_line: int = MAX_HEADER_LINE_BYTES) -> None:
        self._max_body = max_body
        self._max_header_line = max_header_line
        self._buffer = bytearray()
        self._state = "headers"  # "headers" | "body" | "resync"
        self._skipped = 0
        self._new_block()

    def _new_block(self) -> None:
        self._length: int | None = None
        self._header_lines = 0
        self._problems: list[str] = []

    def feed(self, data: bytes) -> list[Event]:
        """The messages and troubles ``data`` completes, in stream order (bytes of an incomplete
        message wait in the decoder for the next feed)."""
        self._buffer += data
        events: list[Event] = []
        while self._step(events):
            pass
        return events

    def close(self) -> list[Event]:
        """The stream ended: report a message it cut short."""
        if self._state == "body":
            return [Trouble(f"the input ended {len(self._buffer)} bytes into a {self._length}-byte message")]
        if self._state == "headers" and (self._header_lines or self._buffer.strip()):
            return [Trouble("the input ended inside a message header")]
        return []

    # --- the state machine -----------------------------------------------------------------------

    def _step(self, events: list[Event]) -> bool:
        if self._state == "body":
            return self._read_body(events)
        if self._state == "resync":
            return self._resync(events)
        return self._read_header_line(events)

    def _read_body(self, events: list[Event]) -> bool:
        assert self._length is not None
        if len(self._buffer) < self._length:
            return False
        events.append(Frame(bytes(self._buffer[:self._length])))
        del self._buffer[:self._length]
        self._state = "headers"
        self._new_block()
        return True

    def _refuse(self, events: list[Event], why: str) -> None:
        events.append(Trouble(f"refused a message: {why}; skipping to the next Content-Length header"))
        self._state = "resync"
        self._new_block()

    def _resync(self, events: list[Event]) -> bool:
        found = self._buffer.lower().find(_MARKER)
        if found < 0:
            keep = len(_MARKER) - 1  # the start of a marker split across two reads
            drop = max(0, len(self._buffer) - keep)
            self._skipped += drop
            del self._buffer[:drop]
            return False
        self._skipped += found
        del self._buffer[:found]
        if self._skipped:
            events.append(Trouble(f"skipped {self._skipped} bytes to reach the next Content-Length header"))
        self._skipped = 0
        self._state = "headers"
        return True

    def _read_header_line(self, events: list[Event]) -> bool:
        newline = self._buffer.find(b"\n")
        if newline < 0:
            if len(self._buffer) > self._max_header_line:
                self._refuse(events, f"a header line longer than {self._max_header_line} bytes")
                del self._buffer[:1]  # a marker at the very start must not be found again
                return True
            return False
        line = bytes(self._buffer[:newline]).rstrip(b"\r")
        del self._buffer[:newline + 1]
        if not line.strip():
            return self._end_of_block(events) if self._header_lines else True
        marker = line.lower().rfind(_MARKER)
        if marker < 0:
            self._header_lines += 1
            if b":" not in line:
                self._problems.append(f"ignored a header line without a colon: {_show(line)}")
            return True
        if marker > 0 or self._length is not None:
            # garbage (an unframed body, say) before this header, or a second header: start afresh
            dropped = line[:marker] if marker > 0 else b""
            if self._header_lines or dropped.strip():
                events.append(Trouble(f"skipped {marker} bytes and {self._header_lines} header lines "
                                      "before a Content-Length header"))
            self._new_block()
        self._header_lines += 1
        value = line[marker + len(_MARKER):].strip()
        if value.isdigit() and len(value) <= 20:
            self._length = int(value)
        else:
            self._length = None
            self._problems.append(f"Content-Length {_show(value)} is not a number")
        return True

    def _end_of_block(self, events: list[Event]) -> bool:
        if self._length is None:
            problems = "; ".join(self._problems) or "no Content-Length header"
            self._refuse(events, f"no valid Content-Length ({problems})")
            return True
        if self._length > self._max_body:
            self._refuse(events, f"its Content-Length {self._length} is over the limit of "
                                 f"{self._max_body} bytes")
            return True
        events.extend(Trouble(problem) for problem in self._problems)
        self._state = "body"
        return True


def _show(raw: bytes) -> str:
    text = raw[:60].decode("utf-8", "replace")
    return repr(text + ("…" if len(raw) > 60 else ""))
