"""The server's read loop over stdio and TCP, on :class:`~plansight.server.framing.FrameDecoder`.

pygls's own loop reads a header line at a time and trusts it (see ``framing.py`` for what that cost);
this one reads whatever bytes are available, lets the decoder find the messages, and hands each body
to the protocol, which answers anything that is not a valid JSON-RPC message with an error. A broken
message is logged and skipped; only the end of the input, ``exit`` or a lost client ends the loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import BinaryIO, Protocol, runtime_checkable

from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from plansight.server.framing import Frame, FrameDecoder

logger = logging.getLogger(__name__)

# Pinned pygls internals (checked by name in tests/test_pinned_internals.py): ``start_io`` calls the
# private ``_start_io_async(stdin, stdout)`` that we override, as we override ``start_tcp``; both set the
# private ``_stop_event`` (and ``_server`` for TCP) that ``shutdown()`` reads, read in ``thread_pool``
# and write through ``pygls.io_.StdoutWriter`` or the asyncio stream writer, as pygls's own loop does.

READ_SIZE = 1024 * 1024
"""Bytes asked for per read; a read returns what is available, so a small message is not delayed."""


@runtime_checkable
class FrameHandler(Protocol):
    """What the read loop hands each message body to (the protocol, in the server)."""

    def handle_frame(self, body: bytes) -> None:
        """Decode, check and dispatch one message body; never raises for a bad message."""


async def serve_frames(read: Callable[[], Awaitable[bytes]], handler: FrameHandler,
                       stop_event: threading.Event) -> None:
    """Read until the input ends or ``stop_event`` is set, handling each message as it completes."""
    decoder = FrameDecoder()
    while not stop_event.is_set():
        data = await read()
        events = decoder.feed(data) if data else decoder.close()
        for event in events:
            if isinstance(event, Frame):
                try:
                    handler.handle_frame(event.body)
                except Exception:  # one message's failure must not end the session
                    logger.exception("Unable to handle a message")
                await asyncio.sleep(0)  # let tasks the message started run, as between two reads
            else:
                logger.warning("%s", event.message)
        if not data:
            break


def _read_available(stream: BinaryIO) -> Callable[[int], bytes]:
    """A blocking read that returns as soon as some bytes are there (``read(n)`` waits for all n)."""
    read1 = getattr(stream, "read1", None)
    if callable(read1):
        return read1  # type: ignore[no-any-return]
    descriptor = stream.fileno()
    return lambda size: os.read(descriptor, size)


class FramedTransportServer(LanguageServer):
    """A pygls server whose stdio and TCP transports read through the robust decoder."""

    def _handler(self) -> FrameHandler:
        protocol = self.protocol
        if not isinstance(protocol, FrameHandler):
            raise TypeError(f"{type(protocol).__name__} cannot handle raw frames")
        return protocol

    def _start_io_async(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls's stdio server, reading through :func:`serve_frames`."""
        logger.info("Starting async IO server")
        self._stop_event = stop_event = threading.Event()
        read_available = _read_available(stdin or sys.stdin.buffer)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        handler = self._handler()

        async def read() -> bytes:
            """What stdin has now, read off the event loop."""
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.thread_pool, read_available, READ_SIZE)

        try:
            asyncio.run(serve_frames(read, handler, stop_event))
        except BrokenPipeError:
            logger.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """pygls's TCP server, reading through :func:`serve_frames`."""
        logger.info("Starting TCP server on %s:%s", host, port)
        self._stop_event = stop_event = threading.Event()
        handler = self._handler()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            """One client's session; the server shuts down when it ends, as pygls's does."""
            logger.debug("Connected to client")
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await serve_frames(lambda: reader.read(READ_SIZE), handler, stop_event)
            logger.debug("Main loop finished")
            self.shutdown()

        async def tcp_server() -> None:
            """Listen until :meth:`shutdown` closes the listening socket."""
            self._server = server = await asyncio.start_server(connection, host, port)
            addresses = ", ".join(str(sock.getsockname()) for sock in server.sockets)
            logger.info("Serving on %s", addresses)
            async with server:
                await server.serve_forever()

        try:
            asyncio.run(tcp_server())
        except asyncio.CancelledError:
            logger.debug("Server was cancelled")
