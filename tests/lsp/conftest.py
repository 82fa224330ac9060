"""Fixtures and small helpers shared by the end-to-end server tests.

Every test talks to a real `agent-lsp serve` subprocess through pytest-lsp and to the
scripted model over HTTP: nothing inside the server or the loop is replaced.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any, Callable

import pytest
from lsprotocol import types

from tests.lsp_helpers import Editor, start_editor, stop_editor


@pytest.fixture
async def launch(workspace, model):
    """`await launch(**start_editor_kwargs)` -> Editor on `workspace` and `model`; all stopped at the end."""
    editors: list[Editor] = []

    async def start(root: Path | None = None, **kwargs: Any) -> Editor:
        ed = await start_editor(root or workspace, model.base_url, **kwargs)
        editors.append(ed)
        return ed

    yield start
    for ed in editors:
        await stop_editor(ed)


async def wait_until(predicate: Callable[[], Any], timeout: float = 5.0, what: str = "condition") -> Any:
    """Poll `predicate` until it returns something truthy; fail the test after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.02)


def send_command(editor: Editor, command: str, *args: Any, msg_id: str | None = None) -> tuple[str, asyncio.Future]:
    """Send workspace/executeCommand with a known request id (for $/cancelRequest); returns (id, future)."""
    msg_id = msg_id or f"cmd-{uuid.uuid4().hex[:8]}"
    fut = asyncio.ensure_future(
        editor.client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command=command, arguments=list(args)),
            msg_id=msg_id,
        )
    )
    return msg_id, fut


def progress_tokens(editor: Editor) -> list[str]:
    """Tokens whose `begin` the client has seen, oldest first."""
    return [
        tok for tok, reports in editor.client.progress_reports.items()
        if any(isinstance(r, types.WorkDoneProgressBegin) for r in reports)
    ]


def progress_end(editor: Editor, token: str) -> types.WorkDoneProgressEnd | None:
    ends = [r for r in editor.client.progress_reports.get(token, []) if isinstance(r, types.WorkDoneProgressEnd)]
    return ends[-1] if ends else None


def processes(pattern: str) -> list[str]:
    """pids whose command line contains `pattern` (pgrep -f; never matches pgrep itself)."""
    out = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
    return out.stdout.split()


def tool_results(model, name: str | None = None) -> list[str]:
    """Every tool message the model received, in order, deduplicated by call id (last request wins)."""
    if not model.requests:
        return []
    calls: dict[str, str] = {}
    for m in model.requests[-1]["messages"]:
        if m.get("role") == "assistant":
            for c in m.get("tool_calls") or []:
                calls[c["id"]] = c["function"]["name"]
    return [
        m["content"] for m in model.requests[-1]["messages"]
        if m.get("role") == "tool" and (name is None or calls.get(m["tool_call_id"]) == name)
    ]


def no_traceback(text: Any) -> bool:
    s = repr(text)
    return "Traceback" not in s and 'File "' not in s and "traceback" not in s


def send_raw_request(editor: Editor, method: str, params: Any) -> asyncio.Future:
    """A request with untyped params, exactly as given (the typed client would refuse to send junk)."""
    from concurrent.futures import Future

    msg_id = f"raw-{uuid.uuid4().hex[:8]}"
    fut: Future = Future()
    editor.client.protocol._request_futures[msg_id] = fut
    editor.client.protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return asyncio.wrap_future(fut)


def send_raw_notification(editor: Editor, method: str, params: Any) -> None:
    editor.client.protocol._send_data({"jsonrpc": "2.0", "method": method, "params": params})
