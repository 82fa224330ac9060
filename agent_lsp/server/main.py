"""`agent-lsp serve`: start the language server on stdio (or TCP / WebSocket, see transport.py)."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from .transport import Transport, TransportError, from_args


def serve(args: argparse.Namespace | None = None, log_file: str | None = None) -> int:
    try:
        transport = from_args(args) if args is not None else Transport("stdio")
    except TransportError as e:
        print(f"agent-lsp serve: {e}", file=sys.stderr)
        return 2
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]  # never stdout: it carries LSP
    if log_file:
        handlers.append(logging.FileHandler(log_file))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", handlers=handlers)
    from .conformance import one_line_logs

    one_line_logs(handlers)  # no traceback reaches an editor's stderr buffer
    logging.getLogger("pygls").setLevel(logging.WARNING)  # it logs every message at INFO
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # pygls reads stdin in a worker thread, so every message crosses threads a few times;
    # while a tool's thread holds the GIL (sorting a big grep, the Python file walk) each
    # crossing waited up to the default 5 ms, and a code action took 30+ ms at p99
    # (bench/bench_server.py). Answering the editor matters more than that thread's speed.
    sys.setswitchinterval(0.001)

    from .app import server
    from . import features  # noqa: F401  (registers the handlers)

    if transport.kind == "tcp":
        server.start_tcp(transport.host, transport.port)
    elif transport.kind == "ws":
        server.start_ws(transport.host, transport.port)
    else:
        server.start_io()
    # The session is over (exit, or the editor closed the pipe) and every thread the loop
    # used has been joined. Tearing down the interpreter (lsprotocol's thousand classes)
    # would add a few hundred ms that editors wait for on quit: flush and leave now.
    logging.shutdown()
    sys.stderr.flush()
    os._exit(0 if server.protocol._shutdown else 1)  # LSP: exit without shutdown is an error
