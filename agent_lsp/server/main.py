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
    # pygls reads stdin in a worker thread, so every message crosses threads a few times;
    # while a tool's thread holds the GIL (sorting a big grep, the Python file walk) each
    # crossing waited up to the default 5 ms, and a code action took 30+ ms at p99
    # (bench/bench_server.py). Answering the editor matters more than that thread's speed.
    sys.setswitchinterval(0.001)

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
