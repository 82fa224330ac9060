"""workspace/executeCommand: runTask, fixDiagnostic, cancel, newSession.

runTask and fixDiagnostic resolve when the task ends with {status, answer, steps}
(or at once with status "started" when the client asked for detached commands).
Arguments are checked before anything starts; a bad shape is a JSON-RPC error that
says what was expected.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path

from ...agent.workspace.textio import read_disk_text
from ...agent.workspace.paths import PathError
from .. import command_args as c
from ..app import AgentServer, server
from ..tasks import TaskError, TaskRunner

server.tasks = TaskRunner(server)


async def _file_context(ls: AgentServer, command: str, uri: str) -> tuple[Path, str, list[str]]:
    """The file (confined to the workspace), how to show it, and its current lines."""
    path = c.file_of(command, uri)
    ws = ls.tasks.workspace_for(path)
    try:
        resolved = ws.resolve(str(path))
    except PathError:
        raise c.bad(f"{command}: {path} is outside the workspace folders") from None
    doc = ls.open_document(from_fs_path(str(resolved)) or uri) or ls.open_document(uri)
    if doc is not None:
        text = doc.source
    else:
        try:
            text = await asyncio.to_thread(read_disk_text, resolved)
        except FileNotFoundError:
            raise c.bad(f"{command}: no such file: {path}") from None
        except (OSError, UnicodeDecodeError) as e:
            raise c.bad(f"{command}: cannot read {path}: {type(e).__name__}") from None
    return resolved, ws.display(resolved), text.splitlines()


@server.command(c.RUN_TASK)
async def run_task(ls: AgentServer, *args: Any) -> dict[str, Any]:
    arg = c.single_object(c.RUN_TASK, args)
    task = arg.get("task")
    if task is not None and (not isinstance(task, str) or not task.strip()):
        raise c.bad(f"{c.RUN_TASK}: task must be a non-empty string")
    uri, rng = arg.get("uri"), arg.get("range")
    if task is None and (uri is None or rng is None):
        raise c.bad(f"{c.RUN_TASK}: give a task (and optionally uri and range), e.g. [{{\"task\": \"add tests\"}}]")
    file = display = lines = span = None
    if uri is not None:
        file, display, lines = await _file_context(ls, c.RUN_TASK, uri)
        if rng is not None:
            span = c.span_of(c.RUN_TASK, rng)
    elif rng is not None:
        raise c.bad(f"{c.RUN_TASK}: a range needs a uri")
    text = c.run_task_text(task.strip() if task else None, display, lines, span)
    return await _start(ls, text, file, "Agent")


@server.command(c.FIX_DIAGNOSTIC)
async def fix_diagnostic(ls: AgentServer, *args: Any) -> dict[str, Any]:
    arg = c.single_object(c.FIX_DIAGNOSTIC, args)
    diag = c.diagnostic_of(c.FIX_DIAGNOSTIC, arg.get("diagnostic"))
    file, display, lines = await _file_context(ls, c.FIX_DIAGNOSTIC, arg.get("uri"))
    text = c.fix_diagnostic_text(display, diag, lines)
    return await _start(ls, text, file, "Agent: fix", fix=diag)


async def _start(ls: AgentServer, text: str, file: Path | None, title: str, fix: dict[str, Any] | None = None) -> dict[str, Any]:
    try:
        return await ls.tasks.start(text, file, title, fix)
    except JsonRpcException:
        raise
    except asyncio.CancelledError:
        raise
    except Exception as e:  # never a traceback to the client
        raise c.bad(f"could not start the task: {type(e).__name__}: {e}") from None


@server.command(c.CANCEL)
def cancel(ls: AgentServer, *args: Any) -> dict[str, Any]:
    return {"cancelled": ls.tasks.cancel()}


@server.command(c.NEW_SESSION)
def new_session(ls: AgentServer, *args: Any) -> dict[str, Any]:
    if ls.tasks.busy:  # the same refusal as a second task (docs/protocol.md): -32803, not a bad argument
        raise TaskError("the agent is already working on a task; cancel it first (agentLsp.cancel)")
    ls.tasks.new_session()
    ls.log_line("agent-lsp: new session (the conversation was forgotten)")
    return {"ok": True}

