"""``plansight serve``: run the language server on stdio (the default) or on a TCP port."""

from __future__ import annotations

import argparse
import logging
import os
import sys


def parse_host_port(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) -> (host, port); raises ``ValueError`` with a reason."""
    host, sep, port_text = value.rpartition(":")
    if not sep or not host:
        raise ValueError(f"expected HOST:PORT, got {value!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"the port in {value!r} is not a number") from None
    if not 0 < port < 65536:
        raise ValueError(f"the port in {value!r} is outside 1-65535")
    return host, port


def run_serve(args: argparse.Namespace) -> int:
    """Start the server and block until the client disconnects or sends ``exit``.

    The server is imported here, not at the top of the CLI, so that ``plansight lint`` never pays
    for pygls. Logs go to stderr; ``PLANSIGHT_LOG_LEVEL`` (e.g. ``DEBUG``) makes them chattier.
    """
    tcp = getattr(args, "tcp", None)
    address: tuple[str, int] | None = None
    if tcp:
        try:
            address = parse_host_port(tcp)
        except ValueError as error:
            print(f"plansight serve: --tcp: {error}", file=sys.stderr)
            return 2

    from plansight.server.app import create_server, log_to_stderr

    level_name = os.environ.get("PLANSIGHT_LOG_LEVEL", "INFO").upper()
    log_to_stderr(getattr(logging, level_name, logging.INFO))
    server = create_server()
    if address is not None:
        host, port = address
        try:
            server.start_tcp(host, port)
        except OSError as error:  # port in use, address not local, ...
            reason = error.strerror or error
            print(f"plansight serve: cannot listen on {host}:{port}: {reason}", file=sys.stderr)
            return 2
        return 0

    # Keep the real stdout for the protocol and send stray prints (from any library) to stderr, where
    # they cannot corrupt a message.
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr
    server.start_io(sys.stdin.buffer, protocol_out)
    return 0
