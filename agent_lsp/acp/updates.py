"""How the agent's tool calls, plans and history look in an ACP client.

A client draws each tool call from its `kind` (an icon, a diff view, a terminal),
its `title` (one line a person reads) and its `locations` (the files it touches,
which "follow the agent" jumps to). Everything here is a pure function of a tool's
name and arguments, so a live turn and a replayed transcript look the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from acp import helpers
from acp.schema import PlanEntry, ToolCallLocation, ToolKind

from ..agent.policy.gate import DENIED
from ..agent.dispatch import parse_arguments
from ..agent.model.messages import message_text
from ..agent.workspace.paths import PathError, Workspace

TITLE_CHARS = 100
RESULT_CHARS = 4_000  # what a tool call shows of its result (the model gets all of it)

KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_files": "search",
    "grep": "search",
    "write_file": "edit",
    "edit_file": "edit",
    "bash": "execute",
    "todo_write": "think",
    "ask_user": "think",
    "web_search": "fetch",
    "fetch_url": "fetch",
}


def kind_of(name: str) -> ToolKind:
    return KINDS.get(name, "other")


def _one_line(text: str, limit: int = TITLE_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def title_of(name: str, args: dict[str, Any]) -> str:
    path = str(args.get("path") or ".")
    if name == "read_file":
        start, end = args.get("start"), args.get("end")
        lines = f" (lines {start or 1}-{end})" if end else (f" (from line {start})" if start else "")
        return f"Read {path}{lines}"
    if name == "list_files":
        pattern = args.get("pattern")
        return f"List {path}" + (f" ({pattern})" if pattern and pattern != "*" else "")
    if name == "grep":
        return _one_line(f"Search for {args.get('regex', '')!s} in {path}")
    if name == "write_file":
        return f"Write {path}"
    if name == "edit_file":
        return f"Edit {path}"
    if name == "bash":
        return _one_line(str(args.get("command", "")) or "bash")
    if name == "todo_write":
        return "Update the plan"
    if name == "ask_user":
        return _one_line(f"Ask: {args.get('question', '')}")
    if name == "web_search":
        return _one_line(f"Search the web: {args.get('query', '')}")
    if name == "fetch_url":
        return _one_line(f"Fetch {args.get('url', '')}")
    return name or "tool"


def locations_of(name: str, args: dict[str, Any], workspace: Workspace) -> list[ToolCallLocation] | None:
    """The file a call touches, as an absolute path (never one outside the workspace)."""
    path = args.get("path")
    if name not in ("read_file", "write_file", "edit_file", "list_files", "grep") or not isinstance(path, str):
        return None
    try:
        resolved = workspace.resolve(path)
    except PathError:
        return None
    line = args.get("start") if name == "read_file" and isinstance(args.get("start"), int) else None
    return [ToolCallLocation(path=str(resolved), line=line)]


def safe_arguments(raw: Any) -> dict[str, Any]:
    """The call's arguments as a dict, or {} when the model sent something unreadable."""
    try:
        return parse_arguments(raw)
    except ValueError:
        return {}


def start_update(call_id: str, name: str, raw: Any, workspace: Workspace) -> Any:
    args = safe_arguments(raw)
    return helpers.start_tool_call(
        call_id,
        title_of(name, args),
        kind=kind_of(name),
        status="pending",
        locations=locations_of(name, args, workspace),
        raw_input=raw_input(raw, args),
    )


def raw_input(raw: Any, args: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments as an object (clients type-check rawInput): the parsed ones, or
    what the model sent under "arguments" when it did not parse."""
    if args or not isinstance(raw, str) or not raw.strip():
        return args
    return {"arguments": raw}


def failed(result: str) -> bool:
    return result.startswith("error") or result == DENIED


def result_update(call_id: str, result: str, extra: list[Any] | None = None) -> Any:
    shown = result if len(result) <= RESULT_CHARS else result[:RESULT_CHARS] + "\n…"
    content = list(extra or []) + [helpers.tool_content(helpers.text_block(shown))]
    bad = failed(result)
    return helpers.update_tool_call(
        call_id,
        status="failed" if bad else "completed",
        content=content,
        raw_output={"error" if bad else "output": shown},  # an object: clients type-check rawOutput
    )


def plan_update(todos: list[dict[str, Any]]) -> Any:
    return helpers.update_plan(
        PlanEntry(content=str(t.get("content", "")), status=t.get("status", "pending"), priority="medium")
        for t in todos
        if isinstance(t, dict) and t.get("status") in ("pending", "in_progress", "completed")
    )


def diff_content(path: Path, before: str | None, after: str) -> Any:
    return helpers.tool_diff_content(str(path), after, before)




def replay(messages: list[dict[str, Any]], workspace: Workspace) -> Iterator[Any]:
    """The updates that show an earlier conversation again: what the person said, the
    answers, every tool call with its result, and the plan as todo_write left it."""
    for m in messages:
        role = m.get("role")
        if role == "user":
            text = message_text(m)
            if text:
                yield helpers.update_user_message_text(text)
        elif role == "assistant":
            text = message_text(m)
            if text:
                yield helpers.update_agent_message_text(text)
            for c in m.get("tool_calls") or []:
                fn = c.get("function") or {}
                name, raw = fn.get("name") or "", fn.get("arguments")
                yield start_update(c.get("id", ""), name, raw, workspace)
                if name == "todo_write":
                    todos = safe_arguments(raw).get("todos")
                    if isinstance(todos, list):
                        yield plan_update(todos)
        elif role == "tool":
            content = m.get("content")
            yield result_update(m.get("tool_call_id", ""), content if isinstance(content, str) else json.dumps(content))
