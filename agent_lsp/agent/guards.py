"""What one task may spend: tokens counted as they go, a loop guard, and a cap on compactions.

A task must not burn money unseen, so every model call adds its usage to a running
total the Host shows (a `usage` event). When the server sends no usage, the count is
estimated from the characters sent and received (~4 per token) and marked so.

The loop guard catches the retry loop: the same tool call (name and arguments)
failing the same way (the same result once numbers are blanked out, so "1 failed in
0.31s" and "1 failed in 0.29s" are one failure) three times makes the loop tell the
model to change approach; a fourth time ends the task with status `loopGuard`.

Compaction may run at most MAX_COMPACTIONS times per task: a conversation that keeps
refilling the window is spending the whole budget on summaries of itself.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .model.usage import Usage

MAX_COMPACTIONS = 2
LOOP_WARN, LOOP_STOP = 3, 4

LOOP_NOTE = (
    "\n\n[loop guard] This exact call has now failed the same way {n} times in this task. "
    "Do not repeat it: change your approach (read the error, look at the code, try a different "
    "command or edit), or stop and explain what is blocking you."
)
TOKEN_LIMIT_NOTE = (
    "Stop: this task has used {used} tokens, over its budget of {limit} (maxTaskTokens). Do not call "
    "tools. Summarize what you did, what state the work is in, and what is left to do."
)
COMPACTION_LIMIT_NOTE = (
    "Stop: the conversation filled the context window again after {n} compactions in this task. Do "
    "not call tools. Summarize what you did, what state the work is in, and what is left to do."
)


class CompactionLimit(Exception):
    """A third compaction was needed in one task: end it with a summary instead."""


def _failed(result: str) -> bool:
    if result.startswith("error") or result == "user denied this action":
        return True
    m = re.search(r"\[exit (-?\d+|None)\]\s*$", result)
    return bool(m) and m.group(1) != "0"


def _shape(result: str) -> str:
    return re.sub(r"\d+", "#", result)


@dataclass
class TaskGuards:
    """The counters of one task (one run_turn)."""

    max_tokens: int = 0  # 0: no budget
    usage: Usage = field(default_factory=Usage)  # the task's tokens so far (estimated where the server sent none)
    compactions: int = 0
    failures: dict[tuple[str, str, str], int] = field(default_factory=dict)
    looped: str | None = None  # the call that failed LOOP_STOP times

    # ------------------------------------------------------------ tokens

    @property
    def total_tokens(self) -> int:
        return self.usage.prompt_tokens + self.usage.completion_tokens

    def over_budget(self) -> bool:
        return self.max_tokens > 0 and self.total_tokens > self.max_tokens

    def usage_text(self) -> str:
        mark = " (estimated)" if self.usage.estimated else ""
        return f"tokens: {self.usage.prompt_tokens:,} prompt + {self.usage.completion_tokens:,} completion{mark}"

    def usage_data(self) -> dict[str, Any]:
        return {"promptTokens": self.usage.prompt_tokens, "completionTokens": self.usage.completion_tokens,
                "totalTokens": self.total_tokens, "estimated": self.usage.estimated,
                "maxTaskTokens": self.max_tokens or None}

    # ------------------------------------------------------------ the loop guard

    def observe(self, call: dict[str, Any], result: str) -> str:
        """The result as the model should read it (with a warning at the 3rd repeat); notes the 4th."""
        if not _failed(result):
            return result
        fn = call.get("function") or {}
        raw = fn.get("arguments")
        try:
            args = json.dumps(json.loads(raw) if isinstance(raw, str) else raw, sort_keys=True)
        except ValueError:
            args = str(raw)
        key = (str(fn.get("name") or ""), args, _shape(result))
        n = self.failures.get(key, 0) + 1
        self.failures[key] = n
        if n >= LOOP_STOP and self.looped is None:
            self.looped = f"{key[0]}({args[:120]})"
        if n >= LOOP_WARN:
            return result + LOOP_NOTE.format(n=n)
        return result

    # ------------------------------------------------------------ compaction

    def allow_compaction(self) -> None:
        if self.compactions >= MAX_COMPACTIONS:
            raise CompactionLimit()
        self.compactions += 1
