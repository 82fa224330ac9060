"""The turn: model -> tools -> model, until the model answers in plain text.

The message list only grows (compaction is the single, deliberate exception), the
assistant message is stored exactly as received, and every tool call gets exactly
one tool message — also after a cancel, so the history stays valid and the next
turn can go on. Read-only calls in one reply run concurrently; writes and commands
run one after another, in the order the model asked for them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .state import checkpoints
from .model import compaction
from . import guards
from .context import ToolContext
from .dispatch import run_tool
from .host import Event, Host
from .model.llm import ModelClient, ModelError, Reply
from .model.messages import message_text
from .workspace.paths import Workspace
from .prompt import system_prompt
from .registry import TOOLS, Tool
from .sandbox import start_notes
from .sandbox.choices import from_settings
from .settings import Settings
from .state.transcript import Transcript
from .model.usage import Usage
from .outcome import TurnResult
from . import tools as _tools  # noqa: F401  (registers the tools)

CANCELLED_RESULT = "error: cancelled by the user before this finished"
CUT_OFF_NOTE = (
    "Your last reply was cut off by the output token limit in the middle of a tool call, so that "
    "call was discarded and nothing ran. Try again with a smaller step: for example write a large "
    "file in parts (write_file a first part, then edit_file to add the rest)."
)
STEP_LIMIT_NOTE = (
    "Stop: the step limit of {n} tool rounds is reached. Do not call tools. Summarize what you did, "
    "what state the work is in, and what is left to do."
)


class Session:
    """One conversation with the model; turns carry history over until `reset`."""

    def __init__(self, workspace: Workspace, host: Host, settings: Settings, *,
                 transcript: Transcript | None = None, client: ModelClient | None = None,
                 system: str | None = None) -> None:
        self.workspace = workspace
        self.host = host
        self.settings = settings
        self.transcript = transcript
        self.client = client or ModelClient(settings)
        self.client.on_status = lambda text: self.host.emit(Event("status", text))
        self.ctx = ToolContext(workspace=workspace, host=host, settings=settings)
        self.tools: dict[str, Tool] = {
            name: t for name, t in TOOLS.items()
            if t.optional_group is None or (t.optional_group == "web" and settings.web_tools)
        }
        self.schemas = [t.schema for t in self.tools.values()]
        self.base_tools = dict(self.tools)
        # Tool sources beside the registry (MCP servers: agent/mcp/source.py); their tools join at a turn's start.
        self.sources: list[Any] = []
        self.system = system  # a system prompt of its own (a spawn_agent child), else prompt.py's
        self.ctx.session = self
        self.messages: list[dict[str, Any]] = []
        self._chars = 0
        self._turn_start = 0
        self.compactions = 0
        self.guards = guards.TaskGuards()  # this task's tokens, repeated failures and compactions
        self.sandbox_said = False  # the sandbox's start line (none can start here, ...) is said once
        self.reset()

    def fork(self, host: Host, settings: Settings, *, system: str, tools: dict[str, Tool],
             transcript: Any = None) -> "Session":
        """A child on the same workspace with its own history, Host, settings and tools (spawn_agent)."""
        child = Session(self.workspace, host, settings, transcript=transcript, system=system)
        child.sandbox_said = True  # the parent said it already
        child.tools, child.base_tools = dict(tools), dict(tools)
        child.schemas = [t.schema for t in tools.values()]
        return child

    # ------------------------------------------------------------ history

    def reset(self) -> None:
        """Forget the conversation (a new session); the system prompt is rebuilt (AGENTS.md may have changed)."""
        self.messages = []
        self._chars = 0
        self.ctx.todos.clear()
        self.ctx.seen.clear()
        self._append({"role": "system", "content": self.system or system_prompt(self.workspace.root, self.workspace.roots[1:])})

    def restore(self, messages: list[dict[str, Any]]) -> None:
        """Take up an earlier conversation (ACP `session/load`): its messages become the history as they were."""
        self.messages = list(messages)
        self._chars = sum(compaction.message_size(m) for m in self.messages)

    def _append(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self._chars += compaction.message_size(message)
        if self.transcript is not None:
            self.transcript.record("message", message)

    def _unanswered_calls(self) -> list[str]:
        """Ids of tool calls in the last assistant message that have no tool message yet."""
        answered: set[str] = set()
        for m in reversed(self.messages):
            if m.get("role") == "tool":
                answered.add(m.get("tool_call_id", ""))
                continue
            if m.get("role") == "assistant" and m.get("tool_calls"):
                return [c.get("id", "") for c in m["tool_calls"] if c.get("id", "") not in answered]
            return []
        return []

    def _repair_pairing(self, result: str) -> None:
        for call_id in self._unanswered_calls():
            self._append({"role": "tool", "tool_call_id": call_id, "content": result})

    # ------------------------------------------------------------ the turn

    async def run_turn(self, task: str) -> TurnResult:
        """Run one user request to its end. Never raises for model or tool trouble; cancel ends it cleanly."""
        self._append({"role": "user", "content": task})
        self._turn_start = len(self.messages) - 1
        self.guards = guards.TaskGuards(max_tokens=self.settings.max_task_tokens)
        self.ctx.changes = checkpoints.TaskChanges.begin(self.workspace.root, task)  # what undo reverts
        steps = 0
        try:  # from here on a cancel, even during the first await, ends the turn as "cancelled"
            if not self.sandbox_said:
                self.sandbox_said = True
                for line in await asyncio.to_thread(start_notes, from_settings(self.settings), self.workspace.roots):
                    self.host.emit(Event("status", line))
            if self.sources or len(self.tools) != len(self.base_tools):
                await self._open_sources()
            while steps < self.settings.max_steps:
                steps += 1
                self.host.emit(Event("step", "", {"step": steps, "maxSteps": self.settings.max_steps}))
                reply = await self._model_step(with_tools=True)
                if reply.truncated_tool_call:
                    # Never store a broken call: a llama.cpp server answers 500 to every later request.
                    self._append({"role": "assistant", "content": reply.message.get("content") or ""})
                    self._append({"role": "user", "content": CUT_OFF_NOTE})
                    self.host.emit(Event("status", "the model's reply was cut off by the token limit; asking again"))
                    continue
                self._append(reply.message)
                calls = reply.message.get("tool_calls") or []
                if not calls:
                    answer = message_text(reply.message)
                    if reply.finish_reason == "length":
                        answer += "\n\n(the answer was cut off by the model's output token limit)"
                    return self._finish("done", answer, steps)
                await self._run_calls(calls)
                if (stopped := await self._guard_stop(steps)) is not None:
                    return stopped
            self._append({"role": "user", "content": STEP_LIMIT_NOTE.format(n=self.settings.max_steps)})
            reply = await self._model_step(with_tools=False)
            self._append(reply.message)
            return self._finish("stepLimit", message_text(reply.message), steps)
        except guards.CompactionLimit:
            return await self._end_at_compaction_limit(steps)
        except asyncio.CancelledError:
            task_ = asyncio.current_task()
            if task_ is not None:
                task_.uncancel()
            self._repair_pairing(CANCELLED_RESULT)
            return self._finish("cancelled", "Cancelled.", steps)
        except ModelError as e:
            self._repair_pairing("error: " + str(e))
            msg = self.settings.scrub(str(e))
            self.host.emit(Event("error", msg))
            if self.transcript is not None:
                self.transcript.record("turn_end", {"status": "error", "steps": steps, "error": msg,
                                                    **self.usage.as_dict()})
            return TurnResult("error", msg, steps, msg, **self.usage.as_dict())

    @property
    def usage(self) -> Usage:
        """The tokens of the current (or last) task."""
        return self.guards.usage

    async def _open_sources(self) -> None:
        """Add the sources' tools after the registry's (a fixed order); a source's notes go to the model once."""
        tools = dict(self.base_tools)
        for source in self.sources:
            more, notes = await source.open(self.host)
            for t in more:
                tools.setdefault(t.name, t)
            for note in notes:
                self._append({"role": "user", "content": note})
        self.tools = tools
        self.schemas = [t.schema for t in tools.values()]

    async def aclose(self) -> None:
        """End the session: its tool sources stop (MCP servers exit), so do the language servers
        it started for diagnostics, and the model client closes."""
        sources, self.sources = self.sources, []
        for source in sources:
            await source.aclose()
        await self.ctx.diagnostics.aclose()
        await self.client.aclose()

    def _finish(self, status: str, answer: str, steps: int) -> TurnResult:
        self.host.emit(Event("answer", answer, {"status": status, "steps": steps}))
        if self.transcript is not None:
            self.transcript.record("turn_end", {"status": status, "steps": steps, **self.usage.as_dict()})
        return TurnResult(status, answer, steps, **self.usage.as_dict())

    async def _guard_stop(self, steps: int) -> TurnResult | None:
        """End the task when a guard tripped: a call looping on one failure, or the token budget."""
        if self.guards.looped is not None:
            why = f"{self.guards.looped} failed the same way {guards.LOOP_STOP} times in this task"
            self.host.emit(Event("status", f"stopped by the loop guard: {why}"))
            return self._finish("loopGuard", f"Stopped by the loop guard: {why}. Change the approach or the task "
                                             "and try again.", steps)
        if self.guards.over_budget():
            used, limit = self.guards.total_tokens, self.guards.max_tokens
            return await self._stop_with_summary(
                "tokenLimit", guards.TOKEN_LIMIT_NOTE.format(used=used, limit=limit), steps,
                f"stopped: the task used {used:,} tokens, over maxTaskTokens ({limit:,})")
        return None

    async def _end_at_compaction_limit(self, steps: int) -> TurnResult:
        """The summary that replaces a third compaction, with the turn's own error and cancel handling."""
        try:
            return await self._stop_with_summary(
                "compactionLimit", guards.COMPACTION_LIMIT_NOTE.format(n=guards.MAX_COMPACTIONS), steps,
                f"stopped: the context filled up again after {guards.MAX_COMPACTIONS} compactions")
        except asyncio.CancelledError:
            if (task_ := asyncio.current_task()) is not None:
                task_.uncancel()
            return self._finish("cancelled", "Cancelled.", steps)
        except ModelError as e:
            msg = self.settings.scrub(str(e))
            self.host.emit(Event("error", msg))
            return TurnResult("error", msg, steps, error=msg)

    async def _stop_with_summary(self, status: str, note: str, steps: int, why: str) -> TurnResult:
        """Ask for a summary without tools (and without compacting), then end the task saying why."""
        self.host.emit(Event("status", why))
        self._append({"role": "user", "content": note})
        reply = await self._complete(self.messages, None, lambda piece: self.host.emit(Event("text", piece)))
        # no tools were offered: a call in the reply could never be answered, so it is not kept
        message = {k: v for k, v in reply.message.items() if k != "tool_calls"}
        message["content"] = message_text(reply.message)
        self._append(message)
        return self._finish(status, f"{message_text(message)}\n\n({why})".lstrip(), steps)

    async def _complete(self, messages: list[dict[str, Any]], tools: list | None, on_text=None) -> Reply:
        """One model call, counted against the task's tokens (and shown: a `usage` event)."""
        reply = await self.client.complete(messages, tools, on_text or (lambda _t: None))
        self.usage.add(reply, messages, tools)
        self.host.emit(Event("usage", self.guards.usage_text(), self.guards.usage_data()))
        return reply

    async def _model_step(self, with_tools: bool) -> Reply:
        """One model call, compacting first when the context is nearly full (at most once per step)."""
        compacted = False
        if self._over_budget():
            compacted = await self._compact()
        on_text = lambda piece: self.host.emit(Event("text", piece))  # noqa: E731
        try:
            return await self._complete(self.messages, self.schemas if with_tools else None, on_text)
        except ModelError as e:
            if not e.overflow or compacted:
                raise
            self.host.emit(Event("status", "the model says the conversation is too long; compacting and retrying"))
            if not await self._compact(force=True):
                raise ModelError(f"{e} (and there is nothing left to compact)") from None
            return await self._complete(self.messages, self.schemas if with_tools else None, on_text)

    def _over_budget(self) -> bool:
        budget = self.settings.context_window * self.settings.compact_share
        return compaction.estimate_tokens(self._chars) > budget

    async def _compact(self, force: bool = False) -> bool:
        cut = compaction.cut_point(self.messages)
        if cut is None:
            return False
        self.guards.allow_compaction()  # a third one in this task raises CompactionLimit
        old, recent = self.messages[1:cut], self.messages[cut:]
        pending = None
        if self._turn_start < cut:  # the current request would be summarised away: keep its words
            pending = self.messages[self._turn_start].get("content")
        cap_chars = max(8_000, int(self.settings.context_window * 4 * 0.5))
        self.host.emit(Event("status", f"compacting the conversation ({len(old)} older messages)"))
        request = [
            {"role": "system", "content": compaction.SUMMARY_PROMPT},
            {"role": "user", "content": "Condense this conversation:\n\n" + compaction.summary_input(old, cap_chars)},
        ]
        reply = await self._complete(request, None)
        summary = message_text(reply.message) or "(no summary)"
        self.messages = [self.messages[0], compaction.summary_message(summary, pending if isinstance(pending, str) else None)] + recent
        self._turn_start = 1 if pending else max(1, self._turn_start - cut + 2)
        self._chars = sum(compaction.message_size(m) for m in self.messages)
        self.compactions += 1
        if self.transcript is not None:
            self.transcript.record("compaction", {"removed": len(old), "summary": summary})
        return True

    async def _run_calls(self, calls: list[dict[str, Any]]) -> None:
        """Run the calls of one reply; consecutive read-only ones together, the rest in order."""
        i = 0
        while i < len(calls):
            j = i
            while j < len(calls) and self._parallel_safe(calls[j]):
                j += 1
            batch = calls[i:j] if j > i else [calls[i]]
            if len(batch) > 1:
                results = await asyncio.gather(*(run_tool(self.ctx, c, self.tools) for c in batch))
            else:
                results = [await run_tool(self.ctx, batch[0], self.tools)]
            for call, result in zip(batch, results):
                result = self.guards.observe(call, result)
                self._append({"role": "tool", "tool_call_id": call.get("id", ""), "content": result})
            i += len(batch)

    def _parallel_safe(self, call: dict[str, Any]) -> bool:
        t = self.tools.get((call.get("function") or {}).get("name") or "")
        return t is not None and t.read_only and not t.gated
