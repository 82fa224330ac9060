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
from typing import Any, Awaitable, Callable
from urllib.parse import unquote, urlparse

from acp import PROTOCOL_VERSION, RequestError, helpers
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    CurrentModeUpdate,
    EmbeddedResourceContentBlock,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    ListSessionsResponse,
    PromptCapabilities,
    PromptResponse,
    ResourceContentBlock,
    SessionCapabilities,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    TextContentBlock,
    TextResourceContents,
)

from .. import __version__
from ..agent.loop import CANCELLED_RESULT, Session, TurnResult
from ..agent.model.messages import message_text
from ..agent.outcome import finished
from ..agent.workspace.paths import Workspace
from ..agent.settings import Settings
from ..agent.setup import TrustDecisions, attach_mcp
from ..agent.state.transcript import Transcript
from . import model_choice, modes, session_info, slash_commands, updates
from .acphost import AcpHost
from .history import HistoryError, read_history, transcript_path
from .legacy import LoadSessionWithModels, NewSessionWithModels

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
    models: model_choice.ModelList | None = None  # what the model picker offers
    title: str | None = None  # from the first prompt (session_info_update)

    @property
    def busy(self) -> bool:
        return self.turn is not None and not self.turn.done()


class AcpAgent:
    """`settings_for(root, decisions)` builds a session's settings (environment, flags, settings files)."""

    def __init__(self, settings_for: Callable[[Path, TrustDecisions], Awaitable[Settings]]) -> None:
        self.settings_for = settings_for
        self.trust_decisions = TrustDecisions()  # a "no" to trust holds for this process, every session
        self.conn: Any = None
        self.caps = ClientCapabilities()
        self.sessions: dict[str, AcpSession] = {}
        self.catalog = model_choice.ModelCatalog()
        self.client_name = ""

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # ------------------------------------------------------------ setup

    async def initialize(self, protocol_version: int, client_capabilities: ClientCapabilities | None = None,
                         client_info: Any = None, **_: Any) -> InitializeResponse:
        self.caps = client_capabilities or ClientCapabilities()
        self.client_name = f"{getattr(client_info, 'name', '')}/{getattr(client_info, 'version', '')}".lower()
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,  # the one version there is; a client on another one disconnects
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
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

    def _open(self, root: Path, settings: Settings, mcp_servers: Any, extra: dict[str, Any],
              saved: tuple[str, Path, list[dict[str, Any]]] | None = None) -> tuple[str, AcpSession]:
        """A session on `root`: a new one, or (`saved`: id, transcript, history) a loaded one."""
        if extra.get("additional_directories"):
            log.info("ignoring additionalDirectories: the workspace is the session's cwd only")
        # The client's servers are the person's own choice for this session: trusted, and they
        # win over a settings entry of the same name (a project's .mcp.json still waits for trust).
        settings.mcp_servers = {**settings.mcp_servers, **client_mcp_servers(mcp_servers)}
        workspace = Workspace([root])
        tr = Transcript(scrub=settings.scrub, roots=[root.resolve()])  # session/list finds it by its folder
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

    async def _attach_mcp(self, entry: AcpSession, root: Path) -> None:
        """Start the session's MCP servers (the SDK is imported only when there are some)."""
        for note in await attach_mcp(entry.session, root, self.trust_decisions):
            log.info("%s", note)

    async def _controls(self, entry: AcpSession) -> dict[str, Any]:
        """What session/new and session/load return besides the id: modes and the model picker."""
        s = entry.session.settings
        entry.models = await self.catalog.models(s.base_url, s.api_key, s.model)
        return {"modes": modes.state(entry.host.mode),
                "config_options": [model_choice.config_option(entry.models, s.model)],
                "models": model_choice.legacy_state(entry.models, s.model)}

    def _advertise(self, entry: AcpSession) -> None:
        """The slash commands (and a loaded session's title), sent once the client has the session."""
        entry.host.send(slash_commands.available_update())
        if entry.title and self._takes("session_info_update"):
            entry.host.send(session_info.title_update(entry.title))

    def _takes(self, kind: str) -> bool:
        """Toad 0.6 type-checks every update against a schema without session_info_update and
        answers it with an error; it keeps its own session titles, so it is not sent one."""
        return not (kind == "session_info_update" and self.client_name.startswith("toad/0.6."))

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **extra: Any) -> NewSessionResponse:
        root = self._root(cwd)
        session_id, entry = self._open(root, await self.settings_for(root, self.trust_decisions), mcp_servers, extra)
        await self._attach_mcp(entry, root)
        controls = await self._controls(entry)
        log.info("session %s on %s", session_id, cwd)
        asyncio.get_running_loop().call_soon(self._advertise, entry)  # after the answer names the session
        return NewSessionWithModels(session_id=session_id, **controls)

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
        settings = await self.settings_for(root, self.trust_decisions)
        _sid, entry = self._open(root, settings, mcp_servers, extra, (session_id, path, history))
        await self._attach_mcp(entry, root)
        for update in updates.replay(history[1:], entry.session.workspace):
            entry.host.send(update)
        first = next((m for m in history if m.get("role") == "user"), None)
        entry.title = session_info.title_from_prompt(message_text(first)) if first else None
        controls = await self._controls(entry)
        self._advertise(entry)
        await entry.host.flush()
        log.info("session %s loaded (%d messages)", session_id, len(history))
        return LoadSessionWithModels(**controls)

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> ListSessionsResponse:
        root = self._root(cwd) if cwd is not None else Path.cwd()
        live = {sid: e.title for sid, e in self.sessions.items() if e.title}
        try:
            return await asyncio.to_thread(session_info.list_response, root, live, cursor)
        except session_info.CursorError as e:
            raise RequestError(INVALID_PARAMS, str(e)) from None

    # ------------------------------------------------------------ modes and models

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        entry = self._get(session_id)
        try:
            entry.host.mode = modes.check(mode_id)
        except modes.ModeError as e:
            raise RequestError(INVALID_PARAMS, str(e)) from None
        log.info("session %s: mode %s", session_id, entry.host.mode)
        entry.host.send(CurrentModeUpdate(session_update="current_mode_update", current_mode_id=entry.host.mode))
        await entry.host.flush()
        return SetSessionModeResponse()

    async def set_model(self, session_id: str, model_id: str) -> None:
        """session/set_model and the model config option: the next turn goes to `model_id`."""
        entry = self._get(session_id)
        models = entry.models or model_choice.ModelList((entry.session.settings.model,), False)
        if not models.accepts(model_id):
            raise RequestError(INVALID_PARAMS, model_choice.unknown_model(model_id, models))
        entry.session.settings.model = model_id
        log.info("session %s: the next turn goes to model %s", session_id, model_id)

    async def set_config_option(self, config_id: str, session_id: str, value: Any, **_: Any) -> SetSessionConfigOptionResponse:
        if config_id != model_choice.CONFIG_ID or not isinstance(value, str):
            raise RequestError(INVALID_PARAMS, f"unknown config option {config_id!r} (there is: model)")
        await self.set_model(session_id, value)
        entry = self._get(session_id)
        models = entry.models or model_choice.ModelList((value,), False)
        return SetSessionConfigOptionResponse(config_options=[model_choice.config_option(models, value)])

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
        command = slash_commands.parse(task)
        if command is not None:
            return await self._slash(entry, *command)
        if entry.title is None:
            entry.title = session_info.title_from_prompt(task)
            if self._takes("session_info_update"):
                entry.host.send(session_info.title_update(entry.title))
        generation = entry.cancels
        async with entry.lock:
            if entry.cancels != generation:
                return PromptResponse(stop_reason="cancelled")
            entry.turn = asyncio.get_running_loop().create_task(entry.session.run_turn(task))
            result = await finished(entry.turn)  # the connection going away stops the turn too
            entry.host.end_turn("error: " + result.error if result.error else CANCELLED_RESULT)
            await entry.host.flush()
        if result.status == "error":
            raise RequestError(INTERNAL_ERROR, f"the model request failed: {result.error or result.answer}")
        return PromptResponse(stop_reason=STOP_REASONS.get(result.status, "end_turn"))

    async def _slash(self, entry: AcpSession, name: str, arg: str) -> PromptResponse:
        """Run a slash command (slash_commands.py): its answer is shown, the model is not called."""
        root = entry.session.workspace.root
        async with entry.lock:
            if name == "undo":
                text = await slash_commands.undo_in_client(entry.host, root)
            elif name == "memory":
                text = await asyncio.to_thread(slash_commands.show_memory, root)
            else:
                text = await asyncio.to_thread(slash_commands.always_allow, root, list(entry.session.ctx.gate.session_allow))
            entry.host.send(helpers.update_agent_message_text(text))
            await entry.host.flush()
        return PromptResponse(stop_reason="end_turn")

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
        await entry.session.aclose()  # its MCP servers and diagnostic servers stop too

    async def shutdown(self) -> None:
        for session_id in list(self.sessions):
            await self._close(session_id)


def client_mcp_servers(servers: list[Any] | None) -> dict[str, dict[str, Any]]:
    """ACP's mcpServers (a list; env and headers as name/value lists) in .mcp.json's shape."""
    out: dict[str, dict[str, Any]] = {}
    for s in servers or []:
        name = str(getattr(s, "name", "") or "")
        if not name:
            continue
        pairs = lambda items: {str(i.name): str(i.value) for i in (items or [])}  # noqa: E731
        if getattr(s, "url", None):
            kind = getattr(s, "type", "http")
            if kind != "http":
                log.info("ignoring MCP server %r from the client: %s is not supported (http and stdio are)", name, kind)
                continue
            out[name] = {"type": "http", "url": s.url, "headers": pairs(getattr(s, "headers", None))}
        else:
            out[name] = {"command": s.command, "args": list(s.args or []), "env": pairs(getattr(s, "env", None))}
    return out


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
