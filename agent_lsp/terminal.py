"""The terminal face's Host: the trace on stderr, the answer on stdout, y/N before risky steps.

Prompts read stdin through the event loop (not a thread), so a Ctrl-C that cancels
the turn also abandons a pending prompt cleanly instead of leaving a thread that
swallows the next line. Without a TTY and without --yes, every gated action is a "no".
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, TextIO

from .agent.diskhost import DiskHost
from .agent.host import Approval, ApprovalRequest, EditOutcome, EditStatus, Event, FileChange
from .agent.permissions import rule_label, uncovered_note
from .agent.preview import colour, unified

EDIT_TOOLS = ("edit_file", "write_file")


class StdinReader:
    """Line reader on the event loop for stdin (TTY or pipe)."""

    def __init__(self) -> None:
        self._buf = b""
        self._eof = False

    async def readline(self) -> str | None:
        loop = asyncio.get_running_loop()
        fd = sys.stdin.fileno()
        while b"\n" not in self._buf and not self._eof:
            fut: asyncio.Future[bytes] = loop.create_future()

            def ready() -> None:
                if fut.done():
                    return
                try:
                    fut.set_result(os.read(fd, 4096))
                except OSError as e:
                    fut.set_exception(e)

            loop.add_reader(fd, ready)
            try:
                chunk = await fut
            except OSError:
                chunk = b""
            finally:
                loop.remove_reader(fd)
            if not chunk:
                self._eof = True
            self._buf += chunk
        if not self._buf and self._eof:
            return None
        line, sep, rest = self._buf.partition(b"\n")
        self._buf = rest
        return line.decode("utf-8", "replace")


class TerminalHost(DiskHost):
    def __init__(self, *, yes: bool = False, out: TextIO | None = None, err: TextIO | None = None,
                 reader: StdinReader | None = None) -> None:
        self.yes = yes
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.reader = reader or StdinReader()
        self._mid_line = False  # stdout holds a partial line of streamed text
        self.answered = False

    # ------------------------------------------------------------ output

    def say(self, text: str) -> None:
        """A line for the person on stderr, after ending any half-printed answer line."""
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
        self.err.write(text + "\n")
        self.err.flush()

    def emit(self, event: Event) -> None:
        if event.kind == "text":
            self.out.write(event.text)
            self.out.flush()
            self._mid_line = not event.text.endswith("\n")
        elif event.kind == "tool":
            self.say(event.text)
        elif event.kind == "todo":
            marks = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
            lines = [f"  {marks[t['status']]} {t['content']}" for t in event.data.get("todos", [])]
            self.say("plan:\n" + "\n".join(lines) if lines else "plan cleared")
        elif event.kind in ("status", "error"):
            self.say(f"[{event.kind}] {event.text}")
        elif event.kind == "usage":
            self.say(f"[{event.text}]")
        elif event.kind == "answer":
            if self._mid_line:
                self.out.write("\n")
                self.out.flush()
                self._mid_line = False

    # ------------------------------------------------------------ questions

    async def _prompt(self, header: str, ask: str) -> str | None:
        self.say(header)
        self.err.write(ask)
        self.err.flush()
        line = await self.reader.readline()
        if line is None:
            self.err.write("\n")
        return line

    async def confirm(self, tool: str, args: dict[str, Any], preview: str) -> bool:
        if self.yes or tool in EDIT_TOOLS:
            return True  # an edit is asked in apply_edit, where its diff is known
        answer = await self._prompt(f"\n[{tool}] {preview}", "allow? [y/N] ")
        return (answer or "").strip().lower() in ("y", "yes")

    async def apply_edit(self, change: FileChange) -> EditOutcome:
        """Show the unified diff of the edit (coloured on a TTY), ask, then write it."""
        if not self.yes:
            diff = unified(change)
            if _is_tty(self.err):
                diff = colour(diff)
            answer = await self._prompt(f"\n[{change.tool}] {change.display_path}\n{diff}", "allow? [y/N] ")
            if (answer or "").strip().lower() not in ("y", "yes"):
                return EditOutcome(EditStatus.REJECTED, "declined at the prompt")
        return await super().apply_edit(change)

    async def approve(self, request: ApprovalRequest) -> Approval:
        if self.yes:
            return Approval.ONCE
        shown = request.preview + uncovered_note(request)
        if not request.rules:
            return Approval.ONCE if await self.confirm(request.tool, request.args, shown) else Approval.DENY
        label = rule_label(request.rules)
        answer = await self._prompt(
            f"\n[{request.tool}] {shown}\n  s = allow {label} for this session, a = always allow {label} in this project",
            "allow? [y]es / [s]ession / [a]lways / [N]o ")
        return {"y": Approval.ONCE, "yes": Approval.ONCE, "s": Approval.SESSION, "session": Approval.SESSION,
                "a": Approval.ALWAYS, "always": Approval.ALWAYS}.get((answer or "").strip().lower(), Approval.DENY)

    async def trust_project(self, root, question: str) -> bool:
        # asked even under --yes: approving edits is not trusting a stranger's programs
        answer = await self._prompt(f"\n[trust] {question}", "trust this project? [y/N] ")
        return (answer or "").strip().lower() in ("y", "yes")

    async def ask_user(self, question: str) -> str | None:
        if self.yes:
            return None
        answer = await self._prompt(f"\n[?] {question}", "your answer: ")
        return answer if answer is not None else ""


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
