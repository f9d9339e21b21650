"""A ``plansight serve`` process driven with hand-made bytes, for tests of what a broken client
writes: the stdin side is raw, the stdout side is parsed into JSON messages by a reader thread."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from typing import Any

SERVE = [sys.executable, "-m", "plansight", "serve"]


def frame(message: Any) -> bytes:
    """A correctly framed message (``bytes`` bodies are sent as they are, JSON or not)."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(msg_id: int | str, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


class RawServer:
    def __init__(self) -> None:
        self.process = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.received: list[dict[str, Any]] = []
        self.stderr = b""
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n") and length is not None:
                    break
            message = json.loads(out.read(length))
            with self._lock:
                self.received.append(message)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr += line

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def response(self, msg_id: int | str | None, timeout: float = 30.0) -> dict[str, Any]:
        """The first response with ``msg_id`` (``None``: an error response with ``"id": null``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                for message in self.received:
                    if "id" in message and message["id"] == msg_id and "method" not in message:
                        self.received.remove(message)
                        return message
            if self.process.poll() is not None:
                raise AssertionError(f"the server died (exit {self.process.returncode}): "
                                     f"{self.stderr.decode(errors='replace')[-2000:]}")
            time.sleep(0.01)
        raise AssertionError(f"no response to id {msg_id!r} within {timeout}s; got {self.received}")

    def initialize(self) -> None:
        params = {"processId": None, "rootUri": None, "capabilities": {}}
        self.send(frame(request("init", "initialize", params)))
        assert "capabilities" in self.response("init")["result"]
        self.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

    def close(self) -> int:
        """``shutdown`` then ``exit`` when the server still listens; the exit code either way."""
        try:
            self.send(frame(request("bye", "shutdown")))
            self.response("bye", timeout=10)
            self.send(frame({"jsonrpc": "2.0", "method": "exit"}))
            return self.process.wait(timeout=10)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
