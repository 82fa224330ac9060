"""The session's MCP servers as one tool source: their tools, listed the same way on every request.

A server's tools join the tool list as `mcp__<server>__<tool>` with the server's own
input schema, sorted, so the list is byte-identical on every request. A tool is gated
like bash unless it says `readOnlyHint: true`. `attach` gives a session the servers its
settings and workspace configure (mcp/config.py says which may start), keeping running
ones whose configuration holds.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..host import Event, Host
from ..policy import trust
from ..registry import Tool
from ..settings import Settings
from .client import MAX_DESCRIPTION, McpServer, tool_name
from .config import ServerSpec, configured, runnable

if TYPE_CHECKING:
    from ..context import ToolContext
    from ..loop import Session


def _schema(listed: Any) -> dict[str, Any]:
    schema = dict(getattr(listed, "input_schema", None) or {})
    schema.setdefault("type", "object")
    if schema.get("type") == "object":
        schema.setdefault("properties", {})
    return schema


def _bind(server: McpServer, tool: str) -> tuple[Any, Any]:
    """The call and the approval text of one tool (a closure per tool, not per loop variable)."""

    async def fn(ctx: ToolContext, **args: Any) -> str:
        return await server.call(ctx, tool, args)

    def describe(args: dict[str, Any]) -> str:
        return f"MCP server {server.name}, tool {tool}: {json.dumps(args, ensure_ascii=False)[:1000]}"

    return fn, describe


def _tools_of(server: McpServer) -> list[Tool]:
    out: list[Tool] = []
    for listed in sorted(server.tools, key=lambda t: t.name):
        name = tool_name(server.name, listed.name)
        hints = getattr(listed, "annotations", None)
        read_only = bool(hints is not None and getattr(hints, "read_only_hint", None) is True)
        text = (listed.description or getattr(listed, "title", None) or listed.name).strip()
        description = f"{text[:MAX_DESCRIPTION]}\n(tool {listed.name} of the MCP server {server.name})"

        fn, describe = _bind(server, listed.name)
        out.append(Tool(
            name=name,
            fn=fn,
            schema={"type": "function", "function": {"name": name, "description": description,
                                                     "parameters": _schema(listed)}},
            params={},
            read_only=read_only,
            gated=not read_only,
            optional_group=None,
            check=lambda args: args,  # the server checks its own arguments (an is_error result)
            describe=describe,
        ))
    return out


class McpTools:
    """The session's MCP servers as one tool source: started together, stopped with the session."""

    kind = "mcp"

    def __init__(self, specs: list[ServerSpec], settings: Settings, root: Path | None, key: str) -> None:
        self.servers = [McpServer(s, settings, root) for s in specs]
        self.key = key
        self._starting: asyncio.Task[None] | None = None
        self._tools: list[Tool] | None = None

    def start(self) -> None:
        self._starting = asyncio.ensure_future(self._start_all())

    async def _start_all(self) -> None:
        await asyncio.to_thread(importlib.import_module, "mcp")  # ~1 s: not on the event loop
        for server in self.servers:
            server.start()

    async def open(self, host: Host) -> tuple[list[Tool], list[str]]:
        """The tools (waiting for the servers the first time), and notes for the model (once)."""
        if self._tools is not None:
            return self._tools, []
        if self._starting is None:
            self.start()
        assert self._starting is not None
        if not all(s.ready.is_set() for s in self.servers):
            host.emit(Event("status", "starting MCP servers: " + ", ".join(s.name for s in self.servers)))
        await self._starting
        await asyncio.gather(*(s.ready.wait() for s in self.servers))
        tools: list[Tool] = []
        notes: list[str] = []
        for server in self.servers:
            if server.session is None:
                line = f"MCP server {server.name!r} did not start: {server.error}"
                host.emit(Event("status", line + server._stderr_hint(), {"mcp": server.name}))
                notes.append(f"(note from agent-lsp: {line}; its tools are not available in this session)")
            tools += _tools_of(server)
        self._tools = tools
        return tools, notes

    async def aclose(self) -> None:
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
        await asyncio.gather(*(s.stop() for s in self.servers), return_exceptions=True)


async def attach(session: Session, root: Path | None, declined: dict[str, str] | None = None) -> list[str]:
    """Give `session` the MCP servers its settings and workspace configure (starting them).

    Servers already running for the same configuration are kept; a changed configuration
    replaces them. The SDK is imported only when at least one server may start.
    """
    specs, notes = configured(root, session.settings.mcp_servers)
    allowed, more = await runnable(session.host, root, specs, declined) if specs else ([], [])
    notes += more
    key = trust.fingerprint([s.key() for s in allowed])
    current = [src for src in session.sources if getattr(src, "kind", None) == "mcp"]
    if current and current[0].key == key:
        return notes
    for src in current:
        session.sources.remove(src)
        await src.aclose()
    if allowed:
        from .source import McpTools

        source = McpTools(allowed, session.settings, root, key)
        source.start()
        session.sources.append(source)
    return notes
