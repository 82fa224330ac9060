"""A small MCP server (the official SDK's MCPServer) that misbehaves on request, for tests.

`python flaky_server.py [--hang-at-start | --http PORT]` (stdio, or streamable HTTP on 127.0.0.1:PORT/mcp). Tools: echo, crash (the process exits mid-call),
hang (never answers: only a cancel ends it), picture (an image), fail (an is_error result),
touch (writes a file: not read-only). It prints to stderr so tests can check where that goes.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import anyio
from mcp.server.mcpserver import Image, MCPServer
from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True)
app = MCPServer("flaky")


@app.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """Return the text."""
    print(f"flaky: echo {text!r}", file=sys.stderr, flush=True)
    return f"echo: {text}"


@app.tool(annotations=READ_ONLY)
def crash() -> str:
    """Exit the server process in the middle of the call."""
    print("flaky: crashing now", file=sys.stderr, flush=True)
    os._exit(3)


@app.tool(annotations=READ_ONLY)
async def hang(marker: str = "") -> str:
    """Never answer; `marker` is written when the call starts, `marker.cancelled` when the client cancels it."""
    if marker:
        Path(marker).write_text(str(time.time()))
    try:
        await anyio.sleep(3600)
    except BaseException:  # the SDK cancels the handler on notifications/cancelled
        if marker:
            Path(marker + ".cancelled").write_text(str(time.time()))
        raise
    return "never"


@app.tool(annotations=READ_ONLY)
def picture() -> list:
    """A tiny PNG and a caption."""
    return ["a caption", Image(data=b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, format="png")]


@app.tool(annotations=READ_ONLY)
def fail(reason: str) -> str:
    """Raise: the SDK turns it into an is_error result."""
    raise RuntimeError(f"failed on purpose: {reason}")


@app.tool()
def touch(path: str) -> str:
    """Create a file (a write: gated)."""
    Path(path).write_text("touched\n")
    return f"touched {path}"


if __name__ == "__main__":
    print(f"flaky: starting pid {os.getpid()}", file=sys.stderr, flush=True)
    if "--hang-at-start" in sys.argv:
        time.sleep(3600)
    if "--http" in sys.argv:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[sys.argv.index("--http") + 1]))
    else:
        app.run()
