"""run_tool: every way a tool call can go wrong becomes text for the model.

An unknown tool, arguments that are not JSON, a missing or unexpected parameter, a
wrong type, a path outside the workspace, a "no" from the person, any exception:
all come back as the tool's result, so the model reads it and tries something else
and the session never dies of a tool. Results are capped so one `cat` of a bundle
cannot fill the context.
"""

from __future__ import annotations

import asyncio
import json
from contextvars import ContextVar
from typing import Any

from .context import ToolContext
from .host import Event
from .workspace.paths import PathError
from .state import checkpoints
from .policy.gate import DENIED  # noqa: F401  (re-exported: tests and faces use it)
from .registry import Tool, check_arguments

MAX_RESULT_CHARS = 20_000
TRACE_CHARS = 80
# The id of the tool call being run (each call of a parallel batch runs in its own task),
# so a tool that reports nested work (spawn_agent) can name the call it belongs to.
CALL_ID: ContextVar[str] = ContextVar("agent_lsp_call_id", default="")


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Arguments arrive as a JSON string (OpenAI) or already as a dict (some local servers)."""
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if not isinstance(raw, str):
        raise ValueError(f"error: arguments must be a JSON object, got {type(raw).__name__}")
    try:
        value = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"error: arguments are not valid JSON ({e}): {raw[:200]}") from None
    if not isinstance(value, dict):
        raise ValueError(f"error: arguments must be a JSON object, got {type(value).__name__}")
    return value


def trace_line(name: str, raw: Any) -> str:
    """`→ name(args…)`, cut at 80 characters of arguments: a trace, not a transcript."""
    if isinstance(raw, dict):
        shown = json.dumps(raw, ensure_ascii=False)
    else:
        shown = str(raw if raw is not None else "")
    if len(shown) > TRACE_CHARS:
        shown = shown[: TRACE_CHARS - 1] + "…"
    return f"→ {name}({shown})"


def call_summary(name: str, args: dict[str, Any], lines: int = 10) -> str:
    """What a person needs to see to say yes or no: the command, or the path and the new text."""
    if "command" in args:
        return str(args["command"])
    head = str(args.get("path") or args.get("url") or args.get("query") or "")
    body = args.get("content", args.get("new"))
    if isinstance(body, str) and body:
        # Only the head is split: a 100,000-line write_file split whole (twice) held the event loop ~40 ms.
        cut = -1
        for _ in range(lines):
            cut = body.find("\n", cut + 1)
            if cut < 0:
                break
        if cut < 0:  # few \n: all of it (lone-CR text too)
            every = body.splitlines()
            shown, more = every[:lines], len(every) - min(lines, len(every))
        else:
            shown = body[: cut + 1].splitlines()[:lines]
            more = body.count("\n") + (not body.endswith("\n")) - len(shown)
        head += "\n" + "\n".join(f"  | {ln}" for ln in shown) + (f"\n  | ...({more} more lines)" if more > 0 else "")
    return head


def cap(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    extra = len(text) - MAX_RESULT_CHARS
    return text[:MAX_RESULT_CHARS] + f"\n...[truncated {extra} chars]"


async def run_tool(ctx: ToolContext, call: dict[str, Any], available: dict[str, Tool]) -> str:
    fn = call.get("function") or {}
    name = fn.get("name") or ""
    raw = fn.get("arguments")
    scrub = ctx.settings.scrub  # a key pasted into a task must not come back through the trace
    shown_raw = scrub(raw) if isinstance(raw, str) else raw
    CALL_ID.set(str(call.get("id") or ""))
    ctx.host.emit(Event("tool", scrub(trace_line(name, raw)), {"id": call.get("id"), "name": name, "arguments": shown_raw}))
    try:
        t = available.get(name)
        if t is None:
            out = f"error: unknown tool {name!r}; available tools: {', '.join(available)}"
        else:
            args = check_arguments(t, parse_arguments(raw))
            shown = t.describe(args) if t.describe is not None else call_summary(name, args)
            refusal = await ctx.gate.check(ctx, name, args, scrub(shown)) if t.gated else None
            if refusal is not None:
                out = refusal
            else:
                if ctx.changes is not None and checkpoints.is_command(t):
                    # a command may change any file: bracket it with snapshots (in git) for undo
                    out = await ctx.changes.around_command(lambda: t.fn(ctx, **args), ctx.host)
                else:
                    out = await t.fn(ctx, **args)
                if not isinstance(out, str):
                    out = str(out)
    except asyncio.CancelledError:
        raise
    except (PathError, ValueError) as e:
        out = str(e) if str(e).startswith("error:") else f"error: {e}"
    except Exception as e:  # a tool bug must not end the session
        out = f"error: {type(e).__name__}: {e}"
    out = cap(scrub(out))  # output can echo the environment
    ctx.host.emit(Event("tool_result", out.splitlines()[0][:200] if out else "",
                        {"id": call.get("id"), "name": name, "ok": not out.startswith("error"), "result": out}))
    return out
