"""The ACP client as the agent's Host: updates stream out, gated steps ask, files go through the editor.

Every event of the loop becomes a `session/update` (text, tool calls, the plan), sent
in order by one pump so a client never sees a result before its call. Each gated step
asks `session/request_permission` first, showing the command or the edit's diff, with
four options; "always" answers hold for the rest of the ACP session. Reads go through
`fs/read_text_file` when the client offers it (the editor's unsaved buffer is what the
model reads), accepted edits through `fs/write_text_file`, and bash through
`terminal/create`; without those, the disk and the local runner are used. Paths were
confined to the workspace by the tools before they get here, either way.

The session's mode (modes.py) is kept here, where its effects happen: Accept edits skips
the edit's question, Read only refuses every edit and command without asking. Each model
call's `usage` event becomes a usage_update.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import ClientCapabilities, PermissionOption, ToolCallLocation, ToolCallUpdate

from ..agent.diskhost import apply_to_disk
from ..agent.facehost import FaceHost, approval_question, read_current, stale_reason
from ..agent.host import EDIT_TOOLS, Approval, ApprovalRequest, EditOutcome, EditStatus, Event, FileChange
from ..agent.loop import CANCELLED_RESULT
from ..agent.settings import Settings
from ..agent.workspace.paths import Workspace
from ..agent.workspace.textio import read_disk_text
from . import modes, updates
from .client_terminal import run_in_terminal
from .session_info import UsageMeter

log = logging.getLogger("agent_lsp.acp")

OPTIONS = [
    PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Always allow (this session)", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
    PermissionOption(option_id="reject_always", name="Always reject (this session)", kind="reject_always"),
]
_KIND_BY_ID = {o.option_id: o.kind for o in OPTIONS}
# A command no rule may cover (a line that cannot be judged, `python3 -c …` with nothing to
# remember, ...): "always allow" would allow every later command of the session, so it is not offered.
ONCE_OPTIONS = [o for o in OPTIONS if o.kind != "allow_always"]
# the shared approval choices (agent/facehost.py) as ACP permission options, one per kind: the
# project-wide "always" is not offered here (clients that show options by kind would show two
# allow_always lines); /always-allow keeps this session's rules for the project instead
_OPTION_OF = {Approval.ONCE: "allow_once", Approval.SESSION: "allow_always"}


class AcpHost(FaceHost):
    def __init__(self, conn: Any, session_id: str, caps: ClientCapabilities | None, workspace: Workspace,
                 settings: Settings) -> None:
        self.conn = conn
        self.session_id = session_id
        fs = caps.fs if caps is not None else None
        self.can_read = bool(fs is not None and fs.read_text_file)
        self.can_write = bool(fs is not None and fs.write_text_file)
        self.can_terminal = bool(caps is not None and caps.terminal)
        self.workspace = workspace
        self.settings = settings
        # "allow always" / "reject always", per kind of step ("edit", "bash", ...), for this session
        self.always: dict[str, bool] = {}
        self.current_call = ""  # gated tools run one at a time: the last call started is the one asking
        self._extra: dict[str, list[Any]] = {}  # a call's diff or terminal, shown again with its result
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None
        self._open: list[str] = []  # calls started and not finished: a cancel ends them as failed
        self.streamed = False
        self.mode = modes.DEFAULT  # the client's mode picker (modes.py): who is asked, what may happen
        self.usage = UsageMeter()

    # ------------------------------------------------------------ updates

    def send(self, update: Any) -> None:
        self._queue.put_nowait(update)
        if self._pump is None or self._pump.done():
            self._pump = asyncio.get_running_loop().create_task(self._send_all())

    async def _send_all(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self.conn.session_update(session_id=self.session_id, update=update)
            except Exception as e:  # a closed connection: the turn ends on its own
                log.info("session/update not sent: %s", e)
            finally:
                self._queue.task_done()

    def end_turn(self, result: str = CANCELLED_RESULT) -> None:
        """Close the calls a cancel or an error cut short, as the loop answered them to the model."""
        for call_id in self._open:
            self.send(updates.result_update(call_id, result, self._extra.pop(call_id, None)))
        self._open.clear()

    async def flush(self) -> None:
        """Return once every update so far is written (before a request or a response)."""
        await self._queue.join()

    def close(self) -> None:
        if self._pump is not None:
            self._pump.cancel()

    def emit(self, event: Event) -> None:
        data = event.data
        if event.kind == "text":
            self.streamed = True
            self.send(helpers.update_agent_message_text(event.text))
        elif event.kind == "tool":
            self.current_call = str(data.get("id") or "")
            self._open.append(self.current_call)
            self.send(updates.start_update(self.current_call, data.get("name") or "", data.get("arguments"), self.workspace))
        elif event.kind == "tool_result":
            call_id = str(data.get("id") or "")
            if call_id in self._open:
                self._open.remove(call_id)
            self.send(updates.result_update(call_id, str(data.get("result", "")), self._extra.pop(call_id, None)))
        elif event.kind == "todo":
            self.send(updates.plan_update(data.get("todos", [])))
        elif event.kind == "usage":
            update = self.usage.update(data, self.settings.context_window)
            if update is not None:
                self.send(update)
        elif event.kind == "status":
            self.send(helpers.update_agent_thought_text(f"({event.text})\n"))
        elif event.kind == "answer":
            if not self.streamed and event.text and data.get("status") != "cancelled":
                self.send(helpers.update_agent_message_text(event.text))
            self.streamed = False

    # ------------------------------------------------------------ permission

    async def _permission(self, key: str, tool_call: ToolCallUpdate, options: list[PermissionOption] = OPTIONS) -> bool:
        if key in self.always and (options is OPTIONS or self.always[key] is False):
            return self.always[key]
        chosen = await self._request(tool_call, options)
        if chosen is None:
            return False
        kind = _KIND_BY_ID.get(chosen)
        if kind is None:
            log.info("session/request_permission answered an unknown option: %r", chosen)
            return False
        if kind == "allow_always":
            self.always[key] = True
        elif kind == "reject_always":
            self.always[key] = False
        allowed = kind.startswith("allow")
        if allowed:
            self.send(helpers.update_tool_call(tool_call.tool_call_id, status="in_progress"))
        return allowed

    async def _request(self, tool_call: ToolCallUpdate, options: list[PermissionOption]) -> str | None:
        """`session/request_permission`: the option id picked, or None (cancelled, or an answer we cannot read: a no)."""
        await self.flush()  # the client must know the tool call it is asked about
        try:
            answer = await self.conn.request_permission(session_id=self.session_id, tool_call=tool_call, options=options)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.info("session/request_permission failed: %s", e)
            return None
        outcome = answer.outcome
        return getattr(outcome, "option_id", None) if getattr(outcome, "outcome", None) == "selected" else None

    def _pending_call(self, tool: str, args: dict[str, Any], shown: str) -> ToolCallUpdate:
        return ToolCallUpdate(
            tool_call_id=self.current_call,
            title=updates.title_of(tool, args),
            kind=updates.kind_of(tool),
            status="pending",
            content=[helpers.tool_content(helpers.text_block(shown))],
        )

    async def confirm(self, tool: str, args: dict[str, Any], preview: str) -> bool:
        if tool in EDIT_TOOLS:
            return True  # asked in apply_edit, where the diff is known
        if not modes.allows_effects(self.mode):
            return tool == "bash"  # run_command refuses it, saying why; anything else is a plain no
        shown = f"$ {preview}" if tool == "bash" else preview
        return await self._permission(tool, self._pending_call(tool, args, shown))

    async def approve(self, request: ApprovalRequest) -> Approval:
        """With a rule to offer, "allow always" is that rule for this session (the shared
        choices of agent/facehost.py, one per kind: /always-allow keeps the session's rules
        for the project); without one (a command no rule may cover) allow once, reject, or
        reject for the session. Read only asks nothing."""
        if not modes.allows_effects(self.mode):
            return Approval.ONCE if request.tool == "bash" else Approval.DENY  # run_command refuses bash
        if self.always.get(request.tool) is False:  # an earlier "always reject" for this kind of step
            return Approval.DENY
        if not request.rules:  # once or not at all (and why no rule covers it): never "always allow"
            subject = approval_question(request).subject
            shown = f"$ {subject}" if request.tool == "bash" else subject
            call = self._pending_call(request.tool, request.args, shown)
            return Approval.ONCE if await self._permission(request.tool, call, ONCE_OPTIONS) else Approval.DENY
        question = approval_question(request)
        options = [PermissionOption(option_id=_OPTION_OF[c.value], name=c.label, kind=_OPTION_OF[c.value])
                   for c in question.choices if c.value in _OPTION_OF]
        options += [PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
                    PermissionOption(option_id="reject_always", name="Always reject (this session)", kind="reject_always")]
        shown = f"$ {question.subject}" if request.tool == "bash" else question.subject
        call = self._pending_call(request.tool, request.args, shown)
        chosen = await self._request(call, options)
        approval = {"allow_once": Approval.ONCE, "allow_always": Approval.SESSION}.get(chosen or "", Approval.DENY)
        if chosen == "reject_always":
            self.always[request.tool] = False
        if approval is not Approval.DENY:
            self.send(helpers.update_tool_call(call.tool_call_id, status="in_progress"))
        return approval

    async def ask_user(self, question: str) -> str | None:
        return None  # stable ACP has no question to the person: the model decides and says so

    # ------------------------------------------------------------ files

    async def read_text(self, path: Path) -> str | None:
        if not self.can_read:
            return None
        try:
            answer = await self.conn.read_text_file(session_id=self.session_id, path=str(path))
        except asyncio.CancelledError:
            raise
        except Exception as e:  # e.g. the client cannot open it: read the disk
            log.info("fs/read_text_file failed for %s: %s", path, e)
            return None
        return answer.content

    async def apply_edit(self, change: FileChange) -> EditOutcome:
        if change.read is not None and change.before is not None and change.read != change.before:
            return EditOutcome(EditStatus.STALE, stale_reason(change, change.before))
        call_id = self.current_call
        diff = updates.diff_content(change.path, change.before, change.after)
        self._extra[call_id] = [diff]
        if not modes.allows_effects(self.mode):
            return EditOutcome(EditStatus.REJECTED, modes.READ_ONLY_EDIT)
        if not self.settings.auto_approve and modes.asks_edits(self.mode):
            verb = "Write" if change.tool == "write_file" else "Edit"
            call = ToolCallUpdate(
                tool_call_id=call_id,
                title=f"{verb} {change.display_path}",
                kind="edit",
                status="pending",
                content=[diff],
                locations=[ToolCallLocation(path=str(change.path))],
            )
            if not await self._permission("edit", call):
                return EditOutcome(EditStatus.REJECTED)
        if not self.can_write:
            return await asyncio.to_thread(apply_to_disk, change)
        stale = await self._stale(change)
        if stale:
            return EditOutcome(EditStatus.STALE, stale)
        try:
            await self.conn.write_text_file(session_id=self.session_id, path=str(change.path), content=change.after)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            return EditOutcome(EditStatus.FAILED, f"the editor could not write it: {e}")
        return EditOutcome(EditStatus.ACCEPTED)

    async def _stale(self, change: FileChange) -> str | None:
        """Does the file (as the editor shows it) still hold the text the edit was made from?"""
        if change.before is None:
            return stale_reason(change, "" if change.path.exists() else None)
        current = await self.read_text(change.path)
        if current is None:
            current, unreadable = await asyncio.to_thread(read_current, change.path, read_disk_text)
            if unreadable:
                return unreadable
        return stale_reason(change, current)

    # ------------------------------------------------------------ commands

    async def run_command(self, command: str, cwd: Path, timeout: float, sandboxed: Any = None) -> str | None:
        if not modes.allows_effects(self.mode):
            return modes.READ_ONLY_COMMAND  # whatever a rule or --yes allowed, nothing runs
        if not self.can_terminal:
            return None
        call_id = self.current_call

        def shown(ref: Any) -> None:
            self._extra[call_id] = [ref]
            self.send(helpers.update_tool_call(call_id, status="in_progress", content=[ref]))

        launch = sandboxed.terminal() if sandboxed is not None else None
        return await run_in_terminal(self.conn, self.session_id, command, cwd, timeout, shown, launch)
