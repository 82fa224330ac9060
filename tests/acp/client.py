"""An ACP editor for tests, built on the SDK's own client side (`acp.Client`, `spawn_agent_process`).

It plays what Zed plays: it records every `session/update`, answers permission requests
with scripted option ids, serves `fs/read_text_file` from its buffers (unsaved text
first, then the disk), writes `fs/write_text_file` to disk, and runs terminals as real
process groups. Which of those it offers is its `ClientCapabilities`, as in a real client.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)


@dataclass
class Terminal:
    proc: asyncio.subprocess.Process
    output: bytearray = field(default_factory=bytearray)
    limit: int | None = None
    reader: asyncio.Task | None = None
    released: bool = False
    killed: bool = False


class EditorClient:
    """answers: option ids for request_permission, used in order ("cancelled" = the cancelled outcome);
    when they run out, `default_answer` is used."""

    def __init__(self, *, fs: bool = True, terminal: bool = False, answers: list[str] | None = None,
                 default_answer: str = "allow_once", buffers: dict[str, str] | None = None,
                 hold_permission: bool = False, on_permission: Any = None, terminal_kill: str = "group") -> None:
        self.fs, self.terminal = fs, terminal
        # what terminal/kill and release end: "group" (the process group it made), or "nothing"
        # (a client that only marks the terminal: the agent must end the command itself)
        self.terminal_kill = terminal_kill
        self.answers = list(answers or [])
        self.default_answer = default_answer
        self.buffers = dict(buffers or {})
        self.hold_permission = hold_permission  # never answer (to cancel while it waits)
        self.on_permission = on_permission  # called before answering (the person types meanwhile)
        self.updates: list[Any] = []
        self.permissions: list[Any] = []
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, Terminal] = {}
        self.terminal_calls: list[str] = []

    def capabilities(self) -> ClientCapabilities:
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=self.fs, write_text_file=self.fs), terminal=self.terminal
        )

    # ------------------------------------------------------------ what it shows

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)

    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def text(self) -> str:
        return "".join(u.content.text for u in self.of("agent_message_chunk"))

    def calls(self) -> dict[str, dict[str, Any]]:
        """Each tool call id -> {"start": ToolCallStart, "updates": [ToolCallProgress...]}."""
        out: dict[str, dict[str, Any]] = {}
        for u in self.updates:
            if u.session_update == "tool_call":
                out[u.tool_call_id] = {"start": u, "updates": []}
            elif u.session_update == "tool_call_update" and u.tool_call_id in out:
                out[u.tool_call_id]["updates"].append(u)
        return out

    # ------------------------------------------------------------ questions

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any):
        self.permissions.append((tool_call, options))
        if self.hold_permission:
            await asyncio.Event().wait()
        if self.on_permission is not None:
            self.on_permission(tool_call)
        answer = self.answers.pop(0) if self.answers else self.default_answer
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=answer))

    # ------------------------------------------------------------ files

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **_: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        try:
            return ReadTextFileResponse(content=Path(path).read_text())
        except OSError:
            raise RequestError.resource_not_found(path) from None

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> WriteTextFileResponse:
        self.writes.append((path, content))
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(content)
        self.buffers.pop(path, None)
        return WriteTextFileResponse()

    # ------------------------------------------------------------ terminals

    async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                              env: list[Any] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None, **_: Any) -> CreateTerminalResponse:
        self.terminal_calls.append("create")
        full_env = dict(os.environ)
        full_env.update({e.name: e.value for e in env or []})
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, env=full_env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True,
        )
        tid = f"term-{len(self.terminals) + 1}"
        term = Terminal(proc, limit=output_byte_limit)

        async def pump() -> None:
            assert proc.stdout is not None
            while data := await proc.stdout.read(65536):
                term.output += data

        term.reader = asyncio.create_task(pump())
        self.terminals[tid] = term
        return CreateTerminalResponse(terminal_id=tid)

    def _exit(self, term: Terminal) -> TerminalExitStatus | None:
        rc = term.proc.returncode
        if rc is None:
            return None
        return TerminalExitStatus(exit_code=rc) if rc >= 0 else TerminalExitStatus(signal=signal.Signals(-rc).name)

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> TerminalOutputResponse:
        self.terminal_calls.append("output")
        term = self.terminals[terminal_id]
        data = bytes(term.output)
        truncated = term.limit is not None and len(data) > term.limit
        if truncated:
            data = data[-term.limit:]
        return TerminalOutputResponse(output=data.decode("utf-8", "replace"), truncated=truncated,
                                      exit_status=self._exit(term))

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **_: Any) -> WaitForTerminalExitResponse:
        self.terminal_calls.append("wait")
        term = self.terminals[terminal_id]
        await term.proc.wait()
        if term.reader is not None:
            await asyncio.wait({term.reader}, timeout=1)
        status = self._exit(term)
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> KillTerminalResponse:
        self.terminal_calls.append("kill")
        term = self.terminals[terminal_id]
        term.killed = True
        self._end(term)
        return KillTerminalResponse()

    def _end(self, term: Terminal) -> None:
        if self.terminal_kill == "nothing" or term.proc.returncode is not None:
            return
        try:
            os.killpg(term.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> ReleaseTerminalResponse:
        self.terminal_calls.append("release")
        term = self.terminals[terminal_id]
        term.released = True
        self._end(term)
        return ReleaseTerminalResponse()

    async def ext_method(self, method: str, params: dict) -> dict:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn


@asynccontextmanager
async def run_agent(client: EditorClient, workspace: Path, model_url: str, log: Path,
                    *flags: str) -> AsyncIterator[tuple[Any, Any]]:
    """`agent-lsp acp` as a subprocess on the scripted model, initialized; yields (conn, process)."""
    env = {k: v for k, v in os.environ.items() if k not in ("AGENT_API_KEY", "OPENAI_API_KEY")}
    env.update({"AGENT_BASE_URL": model_url, "AGENT_MODEL": "scripted", "AGENT_API_KEY": "sk-test-acp-KEY-0123456789"})
    with open(log, "ab") as err:
        async with spawn_agent_process(
            client, sys.executable, "-m", "agent_lsp", "acp", *flags, env=env, cwd=workspace,
            transport_kwargs={"stderr": err},
        ) as (conn, proc):
            await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=client.capabilities(),
                                  client_info=Implementation(name="tests", version="1"))
            yield conn, proc


async def settle() -> None:
    """Let the client's notification tasks run (the prompt's answer can overtake their handling)."""
    for _ in range(5):
        await asyncio.sleep(0.01)
