"""The commands' names, argument checking, and the task text each one gives the agent.

Arguments come from editors and from people's key mappings, so every shape is
checked here and refused with a message that says what was expected — never a
traceback, never a half-started task.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from ..jsonish import plain

RUN_TASK = "agentLsp.runTask"
FIX_DIAGNOSTIC = "agentLsp.fixDiagnostic"
CANCEL = "agentLsp.cancel"
NEW_SESSION = "agentLsp.newSession"
ACCEPT_EDIT = "agentLsp.acceptEdit"
REJECT_EDIT = "agentLsp.rejectEdit"
LIST_SESSIONS = "agentLsp.listSessions"
SHOW_SESSION = "agentLsp.showSession"
UNDO_TASK = "agentLsp.undoTask"
SHOW_MEMORY = "agentLsp.showMemory"
ALL = [RUN_TASK, FIX_DIAGNOSTIC, CANCEL, NEW_SESSION, ACCEPT_EDIT, REJECT_EDIT, LIST_SESSIONS, SHOW_SESSION, UNDO_TASK,
       SHOW_MEMORY]

CONTEXT_LINES = 8
MAX_SELECTION_LINES = 200


def bad(message: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(message=message)


@dataclass(frozen=True)
class Span:
    start_line: int
    start_char: int
    end_line: int
    end_char: int


def single_object(command: str, args: tuple[Any, ...]) -> dict[str, Any]:
    if len(args) != 1 or not isinstance(plain(args[0]), dict):
        raise bad(f"{command} takes one argument, an object; got {len(args)} argument(s)")
    return plain(args[0])


def file_of(command: str, uri: Any) -> Path:
    if not isinstance(uri, str) or not uri:
        raise bad(f"{command}: uri must be a non-empty string")
    if not uri.startswith("file:"):
        raise bad(f"{command}: only file:// URIs are supported, got {uri[:100]}")
    path = to_fs_path(uri)
    if not path:
        raise bad(f"{command}: cannot turn {uri[:100]} into a path")
    return Path(path)


def span_of(command: str, rng: Any) -> Span:
    def pos(name: str) -> tuple[int, int]:
        p = rng.get(name) if isinstance(rng, dict) else None
        line = p.get("line") if isinstance(p, dict) else None
        char = p.get("character") if isinstance(p, dict) else None
        if not (isinstance(line, int) and isinstance(char, int)) or isinstance(line, bool) or line < 0 or char < 0:
            raise bad(f"{command}: range.{name} must be {{line, character}} with non-negative integers")
        return line, char

    (sl, sc), (el, ec) = pos("start"), pos("end")
    if (el, ec) < (sl, sc):
        raise bad(f"{command}: range ends before it starts")
    return Span(sl, sc, el, ec)


def numbered(lines: list[str], first: int, last: int) -> str:
    """Lines first..last (0-based, inclusive) as read_file shows them (1-based)."""
    width = len(str(last + 1))
    return "\n".join(f"{i + 1:>{width}}: {lines[i]}" for i in range(first, last + 1))


def run_task_text(task: str | None, display: str | None, lines: list[str] | None, span: Span | None) -> str:
    if span is not None and lines is not None and display is not None:
        last_line = span.end_line - 1 if span.end_char == 0 and span.end_line > span.start_line else span.end_line
        last_line = min(last_line, len(lines) - 1, span.start_line + MAX_SELECTION_LINES)
        first = min(span.start_line, max(len(lines) - 1, 0))
        where = f"line {first + 1}" if first == last_line else f"lines {first + 1}-{last_line + 1}"
        code = numbered(lines, first, last_line) if lines else "(empty file)"
        ask = task or (
            f"Look at {where} of {display}. If something is wrong there (a bug, an error, a warning), "
            "fix it; otherwise explain briefly what the code does."
        )
        return f"{ask}\n\nContext: {display}, {where}:\n```\n{code}\n```"
    if display is not None:
        return f"{task}\n\nContext: the person is looking at {display}."
    return task or ""


def fix_diagnostic_text(display: str, diag: dict[str, Any], lines: list[str]) -> str:
    rng = diag.get("range") or {}
    start = (rng.get("start") or {}).get("line", 0)
    end = (rng.get("end") or {}).get("line", start)
    col = (rng.get("start") or {}).get("character", 0)
    source = diag.get("source")
    code = diag.get("code")
    label = " ".join(str(x) for x in (source, code) if x not in (None, ""))
    first = max(0, start - CONTEXT_LINES)
    last = min(len(lines) - 1, end + CONTEXT_LINES)
    around = numbered(lines, first, last) if lines and first <= last else "(the file is empty)"
    return (
        f"Fix this problem in {display}:\n"
        f"  {label + ': ' if label else ''}{diag.get('message', '').strip()}\n"
        f"  at line {start + 1}, column {col + 1}\n\n"
        f"The code around it (lines {first + 1}-{last + 1}):\n```\n{around}\n```\n\n"
        "Read more of the code if you need to, fix the cause with edit_file, and check the fix "
        "(run the tests or the tool that reported it) if there is a way to."
    )


def diagnostic_of(command: str, diag: Any) -> dict[str, Any]:
    diag = plain(diag)
    if not isinstance(diag, dict) or not isinstance(diag.get("message"), str):
        raise bad(f"{command}: diagnostic must be an LSP Diagnostic with a message and a range")
    span_of(command, diag.get("range"))
    return diag
