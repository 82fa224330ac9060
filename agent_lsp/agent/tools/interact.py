"""ask_user and todo_write: the tools that talk about the work rather than do it.

ask_user is the one thing a shell cannot do: put a person's decision into the
conversation. When nobody can answer (an unattended run, an editor without the
capability) it says so, so the model decides instead of waiting forever.
todo_write does nothing but keep the plan in the context, where the model reads it
every step; the Host gets it too, so a person can watch the plan move.
"""

from __future__ import annotations

from typing import Any

from ..context import ToolContext
from ..host import Event
from ..registry import tool

STATUSES = ("pending", "in_progress", "completed")
MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}

NOBODY = (
    "error: nobody can answer questions in this session (unattended run or no way to ask); "
    "use your best judgement and state what you assumed in your answer"
)


@tool(
    "Ask the person a question and wait for the answer. Only for a decision the code cannot "
    "answer (which of two designs, what a name should be); never to ask permission: "
    "edits and commands are confirmed separately.",
    question="one specific question",
)
async def ask_user(ctx: ToolContext, question: str) -> str:
    if not question.strip():
        return "error: question must not be empty"
    answer = await ctx.host.ask_user(question.strip())
    if answer is None:
        return NOBODY
    return answer.strip() or "(the person gave no answer)"


TODO_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "content": {"type": "string", "description": "what this step does"},
            "status": {"type": "string", "enum": list(STATUSES)},
        },
        "required": ["content", "status"],
    },
}


@tool(
    "Write the plan: the full list of steps, each pending, in_progress or completed. Replaces "
    "the previous list. Use it for tasks of more than three steps and update it as you go.",
    schemas={"todos": TODO_SCHEMA},
    todos="the complete list of steps: [{content, status}]",
)
async def todo_write(ctx: ToolContext, todos: list[dict]) -> str:
    clean: list[dict[str, str]] = []
    for i, item in enumerate(todos, 1):
        if not isinstance(item, dict):
            return f"error: todo {i} must be an object with content and status"
        content, status = item.get("content"), item.get("status")
        if not isinstance(content, str) or not content.strip():
            return f"error: todo {i} needs a non-empty content string"
        if status not in STATUSES:
            return f"error: todo {i} has status {status!r}; use one of {', '.join(STATUSES)}"
        clean.append({"content": content.strip(), "status": status})
    ctx.todos[:] = clean
    ctx.host.emit(Event("todo", data={"todos": [dict(t) for t in clean]}))
    if not clean:
        return "Plan cleared."
    done = sum(t["status"] == "completed" for t in clean)
    lines = [f"{MARKS[t['status']]} {t['content']}" for t in clean]
    return f"Plan ({done}/{len(clean)} done):\n" + "\n".join(lines)
