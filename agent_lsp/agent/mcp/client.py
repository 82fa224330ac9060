"""One MCP server, owned by one task: start, list its tools, call them, stop (the SDK, imported late).

Each server is owned by one long-lived task that enters the SDK's transport and
ClientSession and, at the end, leaves them in that same task: anyio's cancel scopes are
bound to the task that entered them (python-sdk #79, #577). Tool calls are plain
requests on that session from whichever task runs the call; cancelling that task makes
the SDK send `notifications/cancelled`, and the session stays usable.

A server only runs once it is trusted (mcp/config.py); its tools join the session
through mcp/source.py. Whatever goes wrong — an `is_error` result, an unknown tool, a
timeout (`mcpTimeout`), a server that exits mid-call or never starts — is a message for
the model plus one status line for the person; the session goes on. A server's stderr
goes to its log file in the state dir (and the Python log), never to the model.

The SDK costs about a second to import; it is imported in a worker thread, and only
when a server is configured and allowed to start.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
from collections import deque
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from ... import __version__
from ..context import ToolContext
from ..host import Event
from .config import ServerSpec
from ..settings import Settings
from ..state import state_dir

log = logging.getLogger("agent_lsp.mcp")

PREFIX = "mcp__"
MAX_NAME = 64  # what OpenAI-compatible APIs accept for a function name
MAX_DESCRIPTION = 2_000
STOP_WAIT = 8.0  # the SDK's own shutdown: close stdin, 2 s, SIGTERM, 2 s, SIGKILL
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# JSON-RPC codes the SDK raises with (mcp_types.jsonrpc)
CONNECTION_CLOSED, REQUEST_TIMEOUT = -32000, -32001


def tool_name(server: str, tool: str) -> str:
    name = f"{PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    if len(name) > MAX_NAME:
        import hashlib

        name = name[: MAX_NAME - 9] + "_" + hashlib.sha1(name.encode()).hexdigest()[:8]
    return name


def log_path(name: str) -> Path:
    return state_dir() / "mcp" / f"{_UNSAFE.sub('_', name)}.log"


def _leaf(e: BaseException) -> BaseException:
    """The first real exception inside anyio's exception groups."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


class McpServer:
    """One configured server: its owner task, its session once ready, why it is not usable."""

    def __init__(self, spec: ServerSpec, settings: Settings, root: Path | None) -> None:
        self.spec = spec
        self.settings = settings
        self.root = root
        self.session: Any = None
        self.tools: list[Any] = []  # mcp.types.Tool, as listed at start
        self.error: str | None = None  # why it is not (or no longer) running
        self.ready = asyncio.Event()  # set once it is up, or has failed
        self.stderr_tail: deque[str] = deque(maxlen=5)
        self._stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def start(self) -> None:
        self.task = asyncio.ensure_future(self._own())

    async def _own(self) -> None:
        try:
            await self._serve()
        except Exception as e:  # anyio wraps failures in groups; the leaf says what happened
            if self.error is None:
                self.error = self._failure(_leaf(e))
            log.info("MCP server %s: %s", self.name, self.error)
        finally:
            self.session = None
            if self.error is None:
                self.error = "it was stopped"
            self.ready.set()

    def _failure(self, e: BaseException) -> str:
        if isinstance(e, FileNotFoundError):
            what = f"command not found: {self.spec.command}"
        elif isinstance(e, PermissionError):
            what = f"not executable: {self.spec.command}"
        elif isinstance(e, TimeoutError):
            what = f"it did not answer initialize within {self.settings.mcp_timeout:g} s (mcpTimeout)"
        elif getattr(e, "code", None) == CONNECTION_CLOSED or "closed" in str(e).lower():
            what = "it exited before it was ready"
        else:
            what = f"{type(e).__name__}: {e}"
        return what

    def _stderr_hint(self) -> str:
        tail = [ln for ln in self.stderr_tail if ln.strip()]
        return f" (its stderr: {tail[-1][:200]})" if tail else ""

    async def _serve(self) -> None:
        import anyio
        from mcp import ClientSession
        from mcp.types import Implementation, PaginatedRequestParams

        async with AsyncExitStack() as stack:
            if self.spec.kind == "stdio":
                read, write = await stack.enter_async_context(self._stdio())
            else:
                from mcp.client.streamable_http import streamable_http_client
                from mcp.shared._httpx_utils import create_mcp_http_client

                http = await stack.enter_async_context(create_mcp_http_client(headers=self.spec.headers or None))
                read, write = await stack.enter_async_context(streamable_http_client(self.spec.url, http_client=http))
            session = await stack.enter_async_context(
                ClientSession(read, write, client_info=Implementation(name="agent-lsp", version=__version__))
            )
            with anyio.fail_after(self.settings.mcp_timeout):
                await session.initialize()
                tools: list[Any] = []
                cursor = None
                while True:
                    page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
                    tools += page.tools
                    cursor = page.next_cursor
                    if not cursor:
                        break
            self.tools, self.session = tools, session
            self.ready.set()
            log.info("MCP server %s is ready with %d tools", self.name, len(tools))
            await self._stop.wait()

    @asynccontextmanager
    async def _stdio(self) -> AsyncIterator[Any]:
        from mcp import StdioServerParameters, stdio_client

        read_fd, write_fd = os.pipe()
        errlog = os.fdopen(write_fd, "w")  # the SDK wants a real file for the child's stderr
        threading.Thread(target=self._pump_stderr, args=(read_fd,), daemon=True,
                         name=f"mcp-stderr-{self.name}").start()
        params = StdioServerParameters(command=self.spec.command, args=list(self.spec.args),
                                       env=self.spec.env or None, cwd=str(self.root) if self.root else None)
        try:
            async with stdio_client(params, errlog=errlog) as streams:
                errlog.close()  # the child holds its own copy; EOF comes when it exits
                yield streams
        finally:
            if not errlog.closed:
                errlog.close()

    def _pump_stderr(self, fd: int) -> None:
        """The server's stderr, line by line, into its log file and the Python log."""
        path = log_path(self.name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            out = open(path, "w", encoding="utf-8")
        except OSError:
            out = None
        with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                self.stderr_tail.append(line)
                log.debug("[mcp %s] %s", self.name, line)
                if out is not None:
                    out.write(line + "\n")
                    out.flush()
        if out is not None:
            out.close()

    async def stop(self) -> None:
        self._stop.set()
        if self.task is None or self.task.done():
            return
        done, _ = await asyncio.wait([self.task], timeout=STOP_WAIT)
        if not done:
            self.task.cancel()

    # ------------------------------------------------------------ calls

    async def call(self, ctx: ToolContext, tool: str, args: dict[str, Any]) -> str:
        from mcp import MCPError

        where = f"MCP server {self.name!r}"
        session = self.session
        if session is None:
            return self._fail(ctx, tool, f"error: {where} is not running: {self.error}")
        timeout = ctx.settings.mcp_timeout
        try:
            result = await session.call_tool(tool, args, read_timeout_seconds=timeout)
        except MCPError as e:
            if e.code == REQUEST_TIMEOUT:
                return self._fail(ctx, tool, f"error: {where}: {tool} did not answer within {timeout:g} s (mcpTimeout); "
                                       "it was cancelled")
            if e.code == CONNECTION_CLOSED:
                return self._fail(ctx, tool, self._gone(where, tool))
            return self._fail(ctx, tool, f"error: {where}: {e.message}")
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a closed stream after the server died, a broken message
            if (self.task is not None and self.task.done()) or "closed" in str(e).lower():
                return self._fail(ctx, tool, self._gone(where, tool))
            return self._fail(ctx, tool, f"error: {where}: {type(e).__name__}: {e}")
        text = result_text(result)
        if getattr(result, "is_error", False):
            return self._fail(ctx, tool, "error: " + (text or f"{tool} failed"))
        return text

    def _gone(self, where: str, tool: str) -> str:
        self.session = None
        self.error = "it exited during a call"
        return f"error: {where} exited while running {tool}; its tools are unavailable for the rest of this session"

    def _fail(self, ctx: ToolContext, tool: str, message: str) -> str:
        """The model gets `message`; the person one line naming the server and the tool."""
        first = message.removeprefix("error: ").removeprefix(f"MCP server {self.name!r}: ").splitlines()[0]
        line = f"MCP server {self.name!r}, tool {tool}: {first[:200]}"
        if self.session is None:  # its last words are for the person's log, not the model
            line += self._stderr_hint()
        ctx.host.emit(Event("status", line, {"mcp": self.name, "tool": tool}))
        return message


def result_text(result: Any) -> str:
    """Text content for the model; images and other binary content as a one-line note."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            size = len(getattr(block, "data", "") or "") * 3 // 4
            parts.append(f"[{kind} content ({getattr(block, 'mime_type', '?')}, about {size} bytes) not shown]")
        elif kind == "resource":
            res = block.resource
            if isinstance(getattr(res, "text", None), str):
                parts.append(res.text)
            else:
                parts.append(f"[binary resource {getattr(res, 'uri', '')} ({getattr(res, 'mime_type', None) or '?'}) not shown]")
        elif kind == "resource_link":
            parts.append(f"[resource link: {getattr(block, 'uri', '')}]")
        else:
            parts.append(f"[{kind or 'unknown'} content not shown]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=1))
    return "\n".join(parts) if parts else "(no output)"
