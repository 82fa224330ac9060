"""Reading chat messages as the OpenAI API shapes them (no engine imports: faces read transcripts too)."""

from __future__ import annotations

from typing import Any


def message_text(message: dict[str, Any]) -> str:
    """The text of a message: its content string, or the text of its content parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""
