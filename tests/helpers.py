"""Small shared pieces for the engine tests: a recording Host, sessions and tool contexts.

Nothing here replaces part of the engine: the model is always the ScriptedModel over
HTTP, tools run for real on a temp workspace, and the Host is a plain subclass of the
engine's DiskHost that writes accepted edits to disk and records what it was told.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Iterable

import pytest

from agent_lsp.agent.context import ToolContext
from agent_lsp.agent.diskhost import DiskHost
from agent_lsp.agent.dispatch import run_tool
from agent_lsp.agent.host import EditOutcome, EditStatus, Event, FileChange
from agent_lsp.agent.loop import Session
from agent_lsp.agent.workspace.paths import Workspace
from agent_lsp.agent.registry import TOOLS
from agent_lsp.agent.settings import Settings
from agent_lsp.agent.state.transcript import Transcript

KEY = "sk-test-KEY-7f3a9c1e5b2d4680-distinctive"


class RecordingHost(DiskHost):
    """A Host with scripted answers that records every event, confirmation and question.

    confirm: True/False for every gated action, or a list of answers used in order.
    answers: what ask_user returns, in order (None = nobody can answer).
    read_delay: seconds `read_text` sleeps (to observe concurrency of read-only tools).
    reject_edits: refuse every edit in review instead of writing it.
    """

    def __init__(self, *, confirm: bool | Iterable[bool] = True, answers: Iterable[str | None] = (),
                 read_delay: float = 0.0, reject_edits: bool = False) -> None:
        self._confirm = confirm if isinstance(confirm, bool) else list(confirm)
        self._answers = list(answers)
        self.read_delay = read_delay
        self.reject_edits = reject_edits
        self.events: list[Event] = []
        self.confirms: list[tuple[str, dict[str, Any], str]] = []
        self.questions: list[str] = []
        self.edits: list[FileChange] = []
        self.reads_active = 0
        self.reads_peak = 0

    async def read_text(self, path: Path) -> str | None:
        if self.read_delay:
            self.reads_active += 1
            self.reads_peak = max(self.reads_peak, self.reads_active)
            try:
                await asyncio.sleep(self.read_delay)
            finally:
                self.reads_active -= 1
        return None

    async def apply_edit(self, change: FileChange) -> EditOutcome:
        self.edits.append(change)
        if self.reject_edits:
            return EditOutcome(EditStatus.REJECTED, "not like this")
        return await super().apply_edit(change)

    async def confirm(self, tool: str, args: dict[str, Any], preview: str) -> bool:
        self.confirms.append((tool, args, preview))
        if isinstance(self._confirm, bool):
            return self._confirm
        return self._confirm.pop(0) if self._confirm else False

    async def ask_user(self, question: str) -> str | None:
        self.questions.append(question)
        return self._answers.pop(0) if self._answers else None

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def kinds(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def texts(self, kind: str) -> list[str]:
        return [e.text for e in self.events if e.kind == kind]

    def dump(self) -> str:
        """Everything the Host was told, as one string (to search for leaks)."""
        return "\n".join(json.dumps({"kind": e.kind, "text": e.text, "data": e.data}, default=str)
                         for e in self.events)


def settings_for(model: Any | None = None, **overrides: Any) -> Settings:
    """Fast test settings: no retries, short command timeout, auto-approve off unless asked."""
    s = Settings(
        base_url=model.base_url if model is not None else "http://127.0.0.1:9/v1",
        api_key="",
        model="scripted",
        max_retries=0,
        command_timeout=5,
        request_timeout=10,
    )
    for k, v in overrides.items():
        if not hasattr(s, k):
            raise AttributeError(f"no setting {k}")
        setattr(s, k, v)
    return s


def make_session(ws: Path | Iterable[Path], model: Any, host: RecordingHost | None = None, *,
                 transcript: bool = False, **settings: Any) -> Session:
    roots = [ws] if isinstance(ws, (str, Path)) else list(ws)
    s = settings_for(model, **settings)
    tr = Transcript(scrub=s.scrub) if transcript else None
    return Session(Workspace([Path(r) for r in roots]), host or RecordingHost(), s, transcript=tr)


def make_ctx(ws: Path | Iterable[Path], host: RecordingHost | None = None, **settings: Any) -> ToolContext:
    roots = [ws] if isinstance(ws, (str, Path)) else list(ws)
    s = settings_for(None, **{"auto_approve": True, **settings})
    return ToolContext(workspace=Workspace([Path(r) for r in roots]), host=host or RecordingHost(), settings=s)


_ids = iter(range(10**9))


async def call_tool(ctx: ToolContext, name: str, args: Any = None, tools: dict | None = None) -> str:
    """Run one tool call through run_tool exactly as the loop does. `args` may be a raw string."""
    raw = args if isinstance(args, str) or args is None else json.dumps(args)
    call = {"id": f"call_t{next(_ids)}", "type": "function", "function": {"name": name, "arguments": raw}}
    available = tools if tools is not None else {n: t for n, t in TOOLS.items() if t.optional_group is None}
    return await run_tool(ctx, call, available)


def assert_requests_extend(requests: list[dict]) -> None:
    """Each request's messages start with all of the previous request's messages, byte for byte."""
    for i in range(1, len(requests)):
        prev, cur = requests[i - 1]["messages"], requests[i]["messages"]
        assert len(cur) > len(prev), f"request {i} does not add messages"
        assert cur[: len(prev)] == prev, f"request {i} rewrites the history of request {i - 1}"


def tool_messages(request: dict) -> list[dict]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def last_tool_results(request: dict) -> list[str]:
    """Contents of the tool messages at the end of a request (the results of the latest calls)."""
    out: list[str] = []
    for m in reversed(request["messages"]):
        if m["role"] != "tool":
            break
        out.append(m["content"])
    return list(reversed(out))


def assert_paired(messages: list[dict]) -> None:
    """Every tool message answers a call of the assistant message right before its run of tool messages,
    and every call is answered exactly once."""
    i = 0
    while i < len(messages):
        m = messages[i]
        assert m["role"] != "tool", f"messages[{i}] is a tool message without its assistant message"
        if m["role"] == "assistant" and m.get("tool_calls"):
            ids = [c["id"] for c in m["tool_calls"]]
            j = i + 1
            answered = []
            while j < len(messages) and messages[j]["role"] == "tool":
                answered.append(messages[j]["tool_call_id"])
                j += 1
            assert sorted(answered) == sorted(ids), f"calls {ids} answered by {answered}"
            i = j
            continue
        i += 1


def is_summary_request(body: dict) -> bool:
    from agent_lsp.agent.model.compaction import SUMMARY_PROMPT

    return body["messages"][0]["content"] == SUMMARY_PROMPT


class Conversation:
    """A script entry (add it many times) that answers compaction's summary requests with
    `summary` and every other request with the next of `replies`."""

    def __init__(self, *replies: Any, summary: str = "SUMMARY: the user wants the files read.") -> None:
        self.replies = list(replies)
        self.summary = summary
        self.summaries = 0

    def __call__(self, body: dict) -> Any:
        if is_summary_request(body):
            self.summaries += 1
            return {"content": self.summary}
        if not self.replies:
            return {"status": 500, "error": {"message": "test script exhausted"}}
        return self.replies.pop(0)


async def wait_until(predicate, timeout: float = 5.0, interval: float = 0.01) -> bool:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if predicate():
            return True
        await asyncio.sleep(interval)
    return bool(predicate())


def pgrep(pattern: str) -> bool:
    import subprocess

    return subprocess.run(["pgrep", "-f", pattern], capture_output=True).returncode == 0


@pytest.fixture(autouse=True)
def no_violations(request):
    """Imported by a test module, this checks after each test that used the `model` fixture that
    the scripted model saw no protocol violation (bad pairing, bad types, exhausted script)."""
    model = request.getfixturevalue("model") if "model" in request.fixturenames else None
    yield
    if model is not None:
        assert model.violations == [], f"the scripted model saw violations: {model.violations}"
