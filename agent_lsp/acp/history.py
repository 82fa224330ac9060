"""Read an earlier session back from its transcript, for `session/load`.

The ACP session id is the transcript's id, so the file is found by name alone and a
client's id never becomes an arbitrary path. The transcript records every message as
it was appended, and a compaction as the count of messages it folded into a summary;
replaying both gives the history the session had when it stopped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..agent.model import compaction
from ..agent.state import past_sessions, state_dir


class HistoryError(ValueError):
    """A session that cannot be loaded; the message is written for the person."""


def transcript_path(session_id: str) -> Path:
    if not isinstance(session_id, str) or not past_sessions.SESSION_ID.match(session_id):
        raise HistoryError(f"not a session id of this agent: {session_id!r}")
    path = state_dir() / f"{session_id}.jsonl"
    if not path.is_file():
        raise HistoryError(f"no saved session {session_id} (looked for {path})")
    return path


def read_history(path: Path) -> list[dict[str, Any]]:
    """The messages of a transcript, with compactions applied; bad lines are skipped."""
    messages: list[dict[str, Any]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise HistoryError(f"cannot read the saved session {path.name}: {e}") from None
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        data = record.get("data")
        if record.get("kind") == "message" and isinstance(data, dict) and data.get("role"):
            messages.append(data)
        elif record.get("kind") == "compaction" and isinstance(data, dict) and messages:
            removed = data.get("removed")
            if isinstance(removed, int) and removed > 0:
                summary = compaction.summary_message(str(data.get("summary", "")), None)
                messages = [messages[0], summary] + messages[1 + removed:]
    if not messages or messages[0].get("role") != "system":
        raise HistoryError(f"the saved session {path.name} holds no conversation")
    return _paired(messages)


def _paired(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Answer tool calls a crash left without a result, so the model accepts the history."""
    out: list[dict[str, Any]] = []
    pending: list[str] = []
    for m in messages:
        if m.get("role") == "tool":
            if m.get("tool_call_id") in pending:
                pending.remove(m.get("tool_call_id"))
                out.append(m)
            continue
        out += [{"role": "tool", "tool_call_id": cid, "content": "error: the session ended before this finished"}
                for cid in pending]
        pending = [c.get("id", "") for c in m.get("tool_calls") or []] if m.get("role") == "assistant" else []
        out.append(m)
    out += [{"role": "tool", "tool_call_id": cid, "content": "error: the session ended before this finished"}
            for cid in pending]
    return out
