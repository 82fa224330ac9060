"""`agent-lsp serve`: start the language server on stdio (or TCP for debugging)."""

from __future__ import annotations

import logging
import os
import sys


def serve(tcp: str | None = None, log_file: str | None = None) -> int:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]  # never stdout: it carries LSP
    if log_file:
        handlers.append(logging.FileHandler(log_file))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", handlers=handlers)
    logging.getLogger("pygls").setLevel(logging.WARNING)  # it logs every message at INFO
    logging.getLogger("httpx").setLevel(logging.WARNING)

    from .app import server
    from . import features  # noqa: F401  (registers the handlers)

    if tcp:
        host, _, port = tcp.rpartition(":")
        if not port.isdigit():
            print(f"agent-lsp serve: --tcp wants HOST:PORT, got {tcp!r}", file=sys.stderr)
            return 2
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    # The session is over (exit, or the editor closed the pipe) and every thread the loop
    # used has been joined. Tearing down the interpreter (lsprotocol's thousand classes)
    # would add a few hundred ms that editors wait for on quit: flush and leave now.
    logging.shutdown()
    sys.stderr.flush()
    os._exit(0 if server.protocol._shutdown else 1)  # LSP: exit without shutdown is an error
