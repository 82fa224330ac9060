"""How `agent-lsp serve` talks to its editor: stdio, TCP or WebSocket, spelled the usual ways.

Clients start servers the common way: vscode-languageclient's `TransportKind.stdio`
and many editor configs append `--stdio`; pygls servers take `--tcp --host H --port P`
and `--ws`. Our own `--tcp HOST:PORT` stays. Kept free of heavy imports: the CLI
builds its parser from it on every start.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 2087  # pygls' examples and most pygls servers


@dataclass(frozen=True)
class Transport:
    kind: str  # "stdio" | "tcp" | "ws"
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT


class TransportError(ValueError):
    """A command line that names no single transport; the message says what to write."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument(
        "--tcp", nargs="?", const="", default=None, metavar="HOST:PORT",
        help="listen on TCP instead: --tcp HOST:PORT, or --tcp with --host/--port (debugging)",
    )
    parser.add_argument("--ws", action="store_true", help="listen for a WebSocket client (with --host/--port)")
    parser.add_argument("--host", help=f"address for --tcp/--ws (default {DEFAULT_HOST})")
    parser.add_argument("--port", help=f"port for --tcp/--ws (default {DEFAULT_PORT})")


def from_args(args: argparse.Namespace) -> Transport:
    stdio, tcp, ws = bool(getattr(args, "stdio", False)), getattr(args, "tcp", None), bool(getattr(args, "ws", False))
    host, port = getattr(args, "host", None), getattr(args, "port", None)
    chosen = [name for name, on in (("--stdio", stdio), ("--tcp", tcp is not None), ("--ws", ws)) if on]
    if len(chosen) > 1:
        raise TransportError(f"give one of --stdio, --tcp, --ws (got {' and '.join(chosen)})")
    if not chosen or stdio:
        if host is not None or port is not None:
            raise TransportError("--host and --port go with --tcp or --ws")
        return Transport("stdio")
    if tcp:  # --tcp HOST:PORT (or :PORT, or PORT)
        if host is not None or port is not None:
            raise TransportError("give --tcp HOST:PORT or --tcp --host H --port P, not both")
        h, _, p = tcp.rpartition(":")
        return Transport("tcp", h or DEFAULT_HOST, _port(p, f"--tcp wants HOST:PORT, got {tcp!r}"))
    port_no = DEFAULT_PORT if port is None else _port(port, f"--port wants a number from 0 to 65535, got {port!r}")
    return Transport("ws" if ws else "tcp", host or DEFAULT_HOST, port_no)


def _port(text: str, error: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise TransportError(error)
    return int(text)
