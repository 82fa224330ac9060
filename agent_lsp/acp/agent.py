"""The ACP Agent: sessions, prompts, cancel and load, on the same loop as every other face.

One ACP session is one engine Session (its history carries over between prompts) with
its own AcpHost, on a folder the client names (`cwd`, confined like a workspace root).
A prompt runs as its own task, so `session/cancel` cancels exactly that turn: the model
request is aborted, a running command's process tree killed, a pending permission
request dropped, and the loop answers every open tool call before the prompt returns
`cancelled`. Bad requests are JSON-RPC errors with a sentence saying what was wrong;
nothing a client sends ends the process.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote, urlparse

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    EmbeddedResourceContentBlock,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from .. import __version__
from ..agent.loop import CANCELLED_RESULT, Session, TurnResult
from ..agent.paths import Workspace
from ..agent.settings import Settings
from ..agent.transcript import Transcript
from . import updates
from .history import HistoryError, read_history, transcript_path
from .host import AcpHost

log = logging.getLogger("agent_lsp.acp")

INVALID_PARAMS, INTERNAL_ERROR, RESOURCE_NOT_FOUND = -32602, -32603, -32002
STOP_REASONS = {"done": "end_turn", "stepLimit": "max_turn_requests", "cancelled": "cancelled"}


@dataclass
class AcpSession:
    session: Session
    host: AcpHost
    turn: asyncio.Task[TurnResult] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    cancels: int = 0  # bumped by session/cancel: prompts queued before it end as cancelled

    @property
    def busy(self) -> bool:
        return self.turn is not None and not self.turn.done()


class AcpAgent:
    """`settings_for(root)` builds a session's settings (environment, flags, settings files)."""

    def __init__(self, settings_for: Callable[[Path], Settings]) -> None:
        self.settings_for = settings_for
        self.conn: Any = None
        self.caps = ClientCapabilities()
        self.sessions: dict[str, AcpSession] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # ------------------------------------------------------------ setup

    async def initialize(self, protocol_version: int, client_capabilities: ClientCapabilities | None = None,
                         client_info: Any = None, **_: Any) -> InitializeResponse:
        self.caps = client_capabilities or ClientCapabilities()
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,  # the one version there is; a client on another one disconnects
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=False, sse=False),
            ),
            auth_methods=[],
            agent_info=Implementation(name="agent-lsp", title="agent-lsp", version=__version__),
        )

    def _root(self, cwd: Any) -> Path:
        if not isinstance(cwd, str) or not cwd or not Path(cwd).is_absolute():
            raise RequestError(INVALID_PARAMS, f"cwd must be an absolute path, got {cwd!r}")
        root = Path(cwd)
        if not root.is_dir():
            raise RequestError(INVALID_PARAMS, f"cwd is not a folder: {cwd}")
        return root

    def _open(self, root: Path, mcp_servers: Any, extra: dict[str, Any],
              saved: tuple[str, Path, list[dict[str, Any]]] | None = None) -> tuple[str, AcpSession]:
        """A session on `root`: a new one, or (`saved`: id, transcript, history) a loaded one."""
        if mcp_servers:
            log.info("ignoring %d MCP server(s) from the client: this agent has no MCP support yet", len(mcp_servers))
        if extra.get("additional_directories"):
            log.info("ignoring additionalDirectories: the workspace is the session's cwd only")
        settings = self.settings_for(root)
        workspace = Workspace([root])
        tr = Transcript(scrub=settings.scrub)
        if saved is not None:
            tr.session_id, tr.path = saved[0], saved[1]  # the loaded session appends to its own file
        host = AcpHost(self.conn, tr.session_id, self.caps, workspace, settings)
        session = Session(workspace, host, settings, transcript=None if saved is not None else tr)
        if saved is not None:
            session.restore(saved[2])
            session.transcript = tr
        entry = AcpSession(session, host)
        self.sessions[tr.session_id] = entry
        return tr.session_id, entry

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **extra: Any) -> NewSessionResponse:
        session_id, _entry = self._open(self._root(cwd), mcp_servers, extra)
        log.info("session %s on %s", session_id, cwd)
        return NewSessionResponse(session_id=session_id)

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           **extra: Any) -> LoadSessionResponse:
        root = self._root(cwd)
        live = self.sessions.get(session_id)
        if live is not None and live.busy:
            raise RequestError(INVALID_PARAMS, f"session {session_id} is running a prompt; cancel it first")
        try:
            path = transcript_path(session_id)
            history = await asyncio.to_thread(read_history, path)
        except HistoryError as e:
            raise RequestError(RESOURCE_NOT_FOUND, str(e)) from None
        if live is not None:
            await self._close(session_id)
        _sid, entry = self._open(root, mcp_servers, extra, (session_id, path, history))
        for update in updates.replay(history[1:], entry.session.workspace):
            entry.host.send(update)
        await entry.host.flush()
        log.info("session %s loaded (%d messages)", session_id, len(history))
        return LoadSessionResponse()

    # ------------------------------------------------------------ turns

    def _get(self, session_id: Any) -> AcpSession:
        entry = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if entry is None:
            raise RequestError(INVALID_PARAMS, f"unknown session: {session_id!r} (start one with session/new)")
        return entry

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        """Run one turn. A prompt sent while another runs waits for it (one turn at a time per
        session); a cancel ends the running turn and every prompt waiting behind it."""
        entry = self._get(session_id)
        task = prompt_text(prompt)
        generation = entry.cancels
        async with entry.lock:
            if entry.cancels != generation:
                return PromptResponse(stop_reason="cancelled")
            entry.turn = asyncio.get_running_loop().create_task(entry.session.run_turn(task))
            try:
                await asyncio.wait({entry.turn})
            except asyncio.CancelledError:  # the connection went away: stop the turn too
                entry.turn.cancel()
                raise
            result = None if entry.turn.cancelled() else entry.turn.result()
            entry.host.end_turn("error: " + result.error if result is not None and result.error else CANCELLED_RESULT)
            await entry.host.flush()
        if result is None:
            return PromptResponse(stop_reason="cancelled")
        if result.status == "error":
            raise RequestError(INTERNAL_ERROR, f"the model request failed: {result.error or result.answer}")
        return PromptResponse(stop_reason=STOP_REASONS.get(result.status, "end_turn"))

    async def cancel(self, session_id: str, **_: Any) -> None:
        entry = self.sessions.get(session_id)
        if entry is None:
            log.info("session/cancel for an unknown session %r", session_id)
            return
        entry.cancels += 1
        if entry.busy:
            assert entry.turn is not None
            entry.turn.cancel()

    # ------------------------------------------------------------ the end

    async def _close(self, session_id: str) -> None:
        entry = self.sessions.pop(session_id, None)
        if entry is None:
            return
        if entry.busy:
            assert entry.turn is not None
            entry.turn.cancel()
            await asyncio.wait({entry.turn}, timeout=2)
        entry.host.close()
        await entry.session.client.aclose()

    async def shutdown(self) -> None:
        for session_id in list(self.sessions):
            await self._close(session_id)


def _file_path(uri: str) -> str | None:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else None


def prompt_text(blocks: list[Any]) -> str:
    """One request for the model from the prompt's content blocks.

    Resource links name a file the model can read with read_file; embedded resources
    (text the editor attached, e.g. a selection) are given inline.
    """
    parts: list[str] = []
    for b in blocks or []:
        if isinstance(b, TextContentBlock):
            parts.append(b.text)
        elif isinstance(b, ResourceContentBlock):
            path = _file_path(b.uri)
            parts.append(f"[attached: {path}]" if path else f"[attached: {b.name} <{b.uri}>]")
        elif isinstance(b, EmbeddedResourceContentBlock):
            res = b.resource
            where = _file_path(res.uri) or res.uri
            if isinstance(res, TextResourceContents):
                parts.append(f'<attached uri="{where}">\n{res.text}\n</attached>')
            else:
                parts.append(f"[attached binary content {where}: not shown, this agent reads text only]")
        else:
            kind = getattr(b, "type", "content")
            parts.append(f"[an attached {kind} is not shown: this agent reads text only]")
    text = "\n\n".join(p for p in parts if p).strip()
    if not text:
        raise RequestError(INVALID_PARAMS, "the prompt holds no text")
    return text
