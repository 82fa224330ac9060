"""Token accounting for a turn: the server's own counts when it sends them, an estimate when not.

Evals, budgets and status bars all want "how much did this cost", and servers differ:
OpenAI and llama.cpp send `usage` (streamed only with `stream_options.include_usage`),
some local servers send nothing. A count that is partly estimated says so, because an
estimate compared with a measured count would mislead whoever judges a prompt change.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .compaction import estimate_tokens, message_size


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False  # at least one call had no usage from the server
    calls: int = 0

    def add(self, reply: Any, request: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> None:
        """Count one model call: `reply` is an llm.Reply, `request` the messages that were sent."""
        self.calls += 1
        usage = getattr(reply, "usage", None) or {}
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if isinstance(prompt, int) and isinstance(completion, int):
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            return
        self.estimated = True
        sent = sum(message_size(m) for m in request) + (len(json.dumps(tools)) if tools else 0)
        self.prompt_tokens += estimate_tokens(sent)
        self.completion_tokens += max(1, estimate_tokens(message_size(getattr(reply, "message", {}) or {})))

    def as_dict(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "tokens_estimated": self.estimated}
