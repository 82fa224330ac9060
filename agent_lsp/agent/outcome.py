"""How a turn ended, and how that reads: one table every face maps to its own signal.

A face turns the status into an exit code (terminal), a message type and a progress
line (language server) or a stop reason (ACP); the words and which statuses are
"a limit" are the same everywhere.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

# statuses where the agent stopped itself at a limit, summarising what it did
LIMITS = ("stepLimit", "tokenLimit", "loopGuard", "compactionLimit")


@dataclass
class TurnResult:
    status: str  # "done" | "cancelled" | one of LIMITS | "error"
    answer: str
    steps: int
    error: str | None = None
    prompt_tokens: int = 0  # summed over the turn's model calls (model/usage.py)
    completion_tokens: int = 0
    tokens_estimated: bool = False

    @property
    def at_limit(self) -> bool:
        return self.status in LIMITS

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "answer": self.answer, "steps": self.steps}


def outcome_line(result: TurnResult) -> str:
    """`done in 3 steps`, `stopped at the step limit after 50 steps`, `failed: <why>`."""
    steps = f"{result.steps} step{'s' if result.steps != 1 else ''}"
    return {
        "done": f"done in {steps}",
        "cancelled": f"cancelled after {steps}",
        "stepLimit": f"stopped at the step limit after {steps}",
        "tokenLimit": f"stopped at maxTaskTokens after {steps}",
        "loopGuard": f"stopped by the loop guard after {steps}",
        "compactionLimit": f"stopped: the context filled up after {steps}",
    }.get(result.status, f"failed: {result.answer}")


def cancelled_before_start() -> TurnResult:
    """A task cancelled before its turn's first step (in a face's start-up, or just after)."""
    return TurnResult("cancelled", "Cancelled.", 0)


def turn_outcome(turn: asyncio.Task[TurnResult]) -> TurnResult:
    """A finished turn's result, also for a turn cancelled before its first step.

    The loop turns a cancel into a "cancelled" result, but only once it runs: a cancel that
    lands before the turn's first step (lsp-mode cancels right after "started") ends the
    task before the loop sees it. It ends the same way, after 0 steps. A bug in the loop
    raises here, as from the task.
    """
    return cancelled_before_start() if turn.cancelled() else turn.result()


async def finished(turn: asyncio.Task[TurnResult]) -> TurnResult:
    """The turn's outcome once it has ended (`turn_outcome`). A face waits on it this way
    in every face: should that wait itself be cancelled (the face is going away), the turn
    is cancelled with it rather than left running."""
    try:
        await asyncio.wait({turn})
    except asyncio.CancelledError:
        turn.cancel()
        raise
    return turn_outcome(turn)
