"""Context compaction: the one deliberate exception to "only ever append".

When the conversation nears the model's window, the old part is summarised by the
model and replaced by that summary; the system prompt and the recent messages stay
verbatim. The cut lands only on a pairing boundary — never between an assistant
message with tool calls and its tool results — or the API rejects the next request.
The summary's own input is capped, so compaction cannot itself overflow.
"""

from __future__ import annotations

import json
from typing import Any

KEEP_RECENT = 6
SUMMARY_PROMPT = (
    "You compress a coding agent's conversation into a briefing for the agent that continues it. "
    "Keep: the user's goals and requests, decisions made, files read or changed (paths), commands "
    "run and their outcome, errors met, and what remains to do. Do not invent next steps. Be concise."
)
PER_MESSAGE_CHARS = 3_000


def message_size(message: dict[str, Any]) -> int:
    """About the length of the message's JSON, without serialising it: a 100,000-line
    write_file is 3 MB of arguments, and json.dumps of it held the event loop ~30 ms."""
    return _size(message)


def _size(value: Any) -> int:
    if isinstance(value, str):  # the quotes, and the commonest escapes (counted in C)
        return len(value) + 2 + value.count("\n") + value.count('"') + value.count("\\")
    if isinstance(value, dict):
        return 2 + sum(_size(k) + _size(v) + 2 for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return 2 + sum(_size(v) + 1 for v in value)
    return len(json.dumps(value))


def estimate_tokens(total_chars: int) -> int:
    """~4 characters per token: rough, cheap, and on the safe side for code."""
    return total_chars // 4


def cut_point(messages: list[dict[str, Any]], keep_recent: int = KEEP_RECENT) -> int | None:
    """Index where the verbatim tail starts, on a pairing boundary; None if nothing can go.

    messages[0] is the system prompt and always stays.
    """
    boundary = len(messages) - keep_recent
    while boundary > 1 and messages[boundary].get("role") == "tool":
        boundary -= 1
    return boundary if boundary > 1 else None


def summary_input(old: list[dict[str, Any]], cap_chars: int) -> str:
    """The old messages as text for the summariser, each cut, the whole kept under cap_chars."""
    parts: list[str] = []
    for m in old:
        role = m.get("role", "?")
        body = m.get("content") or ""
        if not isinstance(body, str):
            body = json.dumps(body, ensure_ascii=False)
        for c in m.get("tool_calls") or []:
            fn = c.get("function") or {}
            body += f"\n[calls {fn.get('name')}({str(fn.get('arguments'))[:300]})]"
        if len(body) > PER_MESSAGE_CHARS:
            body = body[:PER_MESSAGE_CHARS] + f"...[{len(body) - PER_MESSAGE_CHARS} chars cut]"
        parts.append(f"## {role}\n{body}")
    text = "\n\n".join(parts)
    if len(text) > cap_chars:
        # Keep the beginning (the goal) and the end (the latest state).
        head = cap_chars // 4
        text = text[:head] + "\n\n...[middle of the conversation cut]...\n\n" + text[-(cap_chars - head):]
    return text


def summary_message(summary: str, pending_task: str | None) -> dict[str, Any]:
    text = f"[Summary of the earlier part of this session]\n{summary.strip()}"
    if pending_task:
        text += f"\n\n[The request being worked on, verbatim]\n{pending_task}"
    return {"role": "user", "content": text}
