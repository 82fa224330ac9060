"""One agent task at a time: start it, show its progress, cancel it by any route, report how it ended.

Three ways to cancel reach the same place: the progress bar's cancel button
(`window/workDoneProgress/cancel`), `$/cancelRequest` on the executeCommand request,
and the `agentLsp.cancel` command. All cancel the turn's asyncio task, which aborts
the model request or kills the running command's process group; the loop then
answers every pending tool call so the history stays valid for the next task.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ..agent.diagnostics.problems import Target
from ..agent.diagnostics.watch import final_note
from ..agent.outcome import TurnResult, cancelled_before_start, finished, outcome_line
from ..agent.setup import TrustDecisions, attach_mcp, settings_files_for
from ..agent.state.transcript import Transcript
from ..agent.workspace.paths import Workspace
from .app import AgentServer

if TYPE_CHECKING:  # the engine (the loop, httpx, the tools) is imported when the first task starts
    from ..agent.loop import Session
    from .lsphost import LspHost

log = logging.getLogger("agent_lsp.server")

REQUEST_FAILED = -32803  # LSP 3.17 "RequestFailed"


class TaskError(JsonRpcException):
    """A request the server refuses, with a message written for the person."""

    CODE = REQUEST_FAILED
    MESSAGE = "request failed"


class TaskRunner:
    def __init__(self, ls: AgentServer) -> None:
        self.ls = ls
        self.session: Session | None = None
        self.current: asyncio.Task[TurnResult] | None = None
        self.starting: asyncio.Task | None = None  # a task's start-up (progress, settings, trust, MCP)
        self.request_id: Any = None
        self.cancel_requested = False
        self.warm = False
        self.trust_decisions = TrustDecisions()  # a "no" to trust holds while the editor is connected
        self._mcp_notes: list[str] = []

    @property
    def busy(self) -> bool:
        return self.starting is not None or (self.current is not None and not self.current.done())

    # ------------------------------------------------------------ cancel

    def cancel(self) -> bool:
        if not self.busy:
            return False
        self.cancel_requested = True
        if self.starting is not None:  # still starting (its progress shows): the start-up stops
            self.starting.cancel()
            return True
        assert self.current is not None
        self.current.cancel()
        return True

    def cancel_request(self, msg_id: Any) -> None:
        if self.busy and self.request_id is not None and str(msg_id) == str(self.request_id):
            self.cancel()

    # ------------------------------------------------------------ run

    def workspace_for(self, file: Path | None) -> Workspace:
        roots = self.ls.roots()
        if not roots:
            roots = [file.parent if file is not None else Path(os.getcwd())]
        return Workspace(roots).with_primary(file)

    def _session(self, workspace: Workspace, host: LspHost) -> Session:
        settings = self.ls.config.settings
        if self.session is None:
            from ..agent.loop import Session

            self.session = Session(workspace, host, settings, transcript=Transcript(scrub=settings.scrub, roots=workspace.roots))
        s = self.session
        if s.transcript is not None:
            s.transcript.set_workspace(workspace.roots)
        s.workspace = s.ctx.workspace = workspace
        s.host = s.ctx.host = host
        s.settings = s.ctx.settings = settings
        return s

    def new_session(self) -> None:
        if self.session is not None:
            self.session.reset()
            if self.session.transcript is not None:
                self.session.transcript = Transcript(scrub=self.ls.config.settings.scrub)

    async def start(self, text: str, file: Path | None, title: str, fix: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run a task to its end (or start it and return at once in detached mode).

        `fix` is the diagnostic a fixDiagnostic task is about: the edit results say whether
        it is still reported, and so does the final answer.
        """
        if self.busy:
            raise TaskError("the agent is already working on a task; cancel it first (agentLsp.cancel)")
        self.starting, self.cancel_requested = asyncio.current_task(), False
        self.request_id = self.ls.protocol.msg_id
        token = None
        try:
            workspace = self.workspace_for(file)
            if not self.warm:  # once, off the loop: the engine's imports (~0.2 s) and cattrs' code for edits (~0.1 s)
                await asyncio.to_thread(_warm_engine, self.ls.protocol._converter)
                self.warm = True
            self.ls.review.clear()  # nothing of an earlier task stays up for review
            token = await self._begin_progress(title, text)
            from .lsphost import LspHost

            host = LspHost(self.ls, token)
            await self._use_settings_files(workspace.root, host)  # may wait on a trust question
            session = self._session(workspace, host)
            await session.client.prepare()
            session.ctx.diagnostics.begin_task(Target.of(file, fix) if fix is not None and file is not None else None)
            await self._use_mcp(session, workspace.root)
        except asyncio.CancelledError:
            if not self.cancel_requested:
                raise
            if (task := asyncio.current_task()) is not None:
                task.uncancel()  # this request goes on, to answer that the task was cancelled
            self.request_id = None
            return await self._report(cancelled_before_start(), token)
        finally:
            self.starting = None
        self.current = asyncio.ensure_future(session.run_turn(text))
        if token is not None:
            self._bridge_progress_cancel(token)
        finished = self.ls.spawn(self._finish(token)) if self.ls.config.options.detach_commands else None
        if finished is not None:
            return {"status": "started", "answer": "", "steps": 0}
        return await self._finish(token)

    async def _finish(self, token: str | None) -> dict[str, Any]:
        assert self.current is not None
        turn = self.current
        try:
            result = await finished(turn)  # our own request cancelled (server shutting down) takes the turn with it
        except Exception as e:  # a bug in the loop must still end the task cleanly
            log.exception("task failed")
            result = TurnResult("error", f"internal error: {type(e).__name__}: {e}", 0)
        finally:
            self.request_id = None
        return await self._report(result, token)

    async def _report(self, result: TurnResult, token: str | None) -> dict[str, Any]:
        """How the task ended, where the editor shows it: the progress end, the log, the answer."""
        await self._fix_state(result)
        outcome = outcome_line(result)
        if token is not None:
            self.ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=outcome))
        self.ls.log_line(f"[{result.status}] {outcome}")
        if self.ls.config.options.show_answer:
            kind = (types.MessageType.Warning if result.at_limit or result.status == "cancelled"
                    else types.MessageType.Info if result.status == "done" else types.MessageType.Error)
            self.ls.show(f"agent: {result.answer}" if result.answer else f"agent: {outcome}", kind)
        return result.as_dict()

    async def _fix_state(self, result: TurnResult) -> None:
        """A fix task's answer ends by saying whether the problem is gone (agent/diagnostics/)."""
        ctx = self.session.ctx if self.session is not None else None
        if ctx is None or ctx.diagnostics.target is None:
            return
        if result.status in ("cancelled", "error"):  # no claim about a problem the task did not finish on
            ctx.diagnostics.target = None
            return
        try:
            note = await final_note(ctx)
        except Exception as e:  # the answer matters more than this line
            log.info("could not check the fixed problem: %r", e)
            note = ""
        finally:
            ctx.diagnostics.target = None
        if note:
            result.answer = f"{result.answer}\n\n{note}" if result.answer else note

    async def _use_settings_files(self, root: Path, host: LspHost) -> None:
        """The workspace's settings files under the editor's settings; trust asked once per session."""
        files, trusted = await settings_files_for(host, root, self.trust_decisions, self.ls.config.workspace)
        before = (self.ls.config.files, self.ls.config.trusted)
        notes = self.ls.config.use_files(files, trusted)
        if before != (files, trusted):
            for note in notes:
                self.ls.log_line(f"agent-lsp: {note}", types.MessageType.Warning)

    async def _use_mcp(self, session: Session, root: Path) -> None:
        """The workspace's MCP servers for the session (kept while their configuration holds)."""
        notes = await attach_mcp(session, root, self.trust_decisions)
        if notes != self._mcp_notes:
            for note in notes:
                self.ls.log_line(f"agent-lsp: {note}", types.MessageType.Warning)
        self._mcp_notes = notes

    async def close(self) -> None:
        """The editor is leaving: stop the running task and the session's MCP servers."""
        self.cancel()
        if self.session is not None:
            await self.session.aclose()
            self.session = None

    # ------------------------------------------------------------ progress

    async def _begin_progress(self, title: str, text: str) -> str | None:
        if not self.ls.client_has("window.work_done_progress"):
            return None
        token = f"agent-lsp-{uuid.uuid4()}"
        try:
            await asyncio.wait_for(self.ls.work_done_progress.create_async(token), 5)
        except (TimeoutError, JsonRpcException) as e:
            log.info("the client refused a progress token: %s", e)
            return None
        first = " ".join(text.split())
        self.ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(title=title, message=first[:100], cancellable=True),
        )
        return token

    def _bridge_progress_cancel(self, token: str) -> None:
        fut = self.ls.work_done_progress.tokens.get(token)
        if fut is None:
            return
        loop = asyncio.get_running_loop()
        turn = self.current

        def on_done(f) -> None:
            if f.cancelled():
                loop.call_soon_threadsafe(lambda: self.current is turn and self.cancel())

        fut.add_done_callback(on_done)


def _warm_engine(converter) -> None:
    importlib.import_module("agent_lsp.agent.loop")
    from .edits import warm_converter

    warm_converter(converter)
