"""The terminal face's Host: the trace on stderr, the answer on stdout, y/N before risky steps.

Prompts read stdin through the event loop (not a thread), so a Ctrl-C that cancels
the turn also abandons a pending prompt cleanly instead of leaving a thread that
swallows the next line. A question needs a terminal or a pipe on stdin: with /dev/null,
a file or a closed stdin it is answered No at once, in one line saying why (the event
loop cannot watch such a stdin). Everything printed passes through agent/workspace/visible.py, so
escape sequences in commands, diffs, file names, tool output and answers are shown,
never obeyed by the person's terminal.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TextIO

from ..agent.diskhost import DiskHost
from ..agent.facehost import Choice, FaceHost, Question
from ..agent.host import EditOutcome, EditStatus, Event, FileChange
from ..agent.setup import TrustDecisions
from ..agent.workspace.diffview import colour, unified
from ..agent.workspace.visible import visible
from .stdin_kind import unanswerable_reason

# how a choice's letter reads in a prompt of more than two choices: allow? [y]es / [s]ession / [a]lways / [N]o
_WORDS = {"y": "[y]es", "s": "[s]ession", "a": "[a]lways", "n": "[N]o"}
_ANSWERS = {"y": "y", "yes": "y", "s": "s", "session": "s", "a": "a", "always": "a"}


class StdinReader:
    """Line reader on the event loop for stdin (TTY or pipe)."""

    def __init__(self) -> None:
        self._buf = b""
        self._eof = False

    async def readline(self) -> str | None:
        """The next line, or None at the end of input (or when stdin cannot be read from)."""
        if unanswerable_reason() is not None:
            return None
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


class TerminalHost(DiskHost, FaceHost):
    def __init__(self, *, yes: bool = False, out: TextIO | None = None, err: TextIO | None = None,
                 reader: StdinReader | None = None) -> None:
        self.yes = yes
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.reader = reader or StdinReader()
        self._mid_line = False  # stdout holds a partial line of streamed text
        self.answered = False
        self.trust_decisions = TrustDecisions()  # a "no" holds for the rest of this run

    # ------------------------------------------------------------ output

    def say(self, text: str, *, shown: bool = False) -> None:
        """A line for the person on stderr, after ending any half-printed answer line.

        Control characters are made visible unless `shown` says the caller did (a coloured diff).
        """
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
        self.err.write((text if shown else visible(text)) + "\n")
        self.err.flush()

    def emit(self, event: Event) -> None:
        if event.kind == "text":
            self.out.write(visible(event.text))
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

    async def _prompt(self, header: str, ask: str, *, shown: bool = False) -> str | None:
        """Show `header` and ask; None at the end of input or when nobody can answer (said in one line)."""
        self.say(header, shown=shown)
        why = unanswerable_reason()
        if why is not None:
            self.say(f"agent-lsp: no answer possible ({why}): answered No")
            return None
        self.err.write(ask)
        self.err.flush()
        line = await self.reader.readline()
        if line is None:
            self.err.write("\n")
        return line

    async def choose(self, question: Question) -> Choice | None:
        """`[kind] subject`, the rule choices spelled out, then `allow? [y/N]` (or the four letters)."""
        # --yes approves; trusting a stranger's programs is asked, and so is a command the rules cannot judge
        if self.yes and question.kind != "trust" and not question.must_ask:
            return question.choices[0]
        header = f"\n[{question.kind}] {question.subject}"
        extra = [c for c in question.choices if c.key not in ("y", "n")]
        if extra:
            header += "\n  " + ", ".join(f"{c.key} = {c.label[:1].lower()}{c.label[1:]}" for c in extra)
            ask = f"{question.prompt}? " + " / ".join(_WORDS.get(c.key, c.key) for c in question.choices) + " "
        else:
            ask = f"{question.prompt}? [y/N] "
        answer = (await self._prompt(header, ask) or "").strip().lower()
        key = _ANSWERS.get(answer) if extra else ("y" if answer in ("y", "yes") else None)
        return next((c for c in question.choices if c.key == key), None)

    async def apply_edit(self, change: FileChange) -> EditOutcome:
        """Show the unified diff of the edit (coloured on a TTY), ask, then write it."""
        if not self.yes:
            diff = visible(unified(change))
            if _is_tty(self.err):
                diff = colour(diff)
            header = f"\n[{change.tool}] {visible(change.display_path)}\n{diff}"
            answer = await self._prompt(header, "allow? [y/N] ", shown=True)
            if (answer or "").strip().lower() not in ("y", "yes"):
                return EditOutcome(EditStatus.REJECTED, "declined at the prompt")
        return await super().apply_edit(change)

    async def ask_user(self, question: str) -> str | None:
        if self.yes:
            return None
        if unanswerable_reason() is not None:  # nobody to ask: the model decides itself
            self.say(f"\n[?] {question}\nagent-lsp: no answer possible ({unanswerable_reason()}): "
                     "answered No (the agent decides itself)")
            return None
        answer = await self._prompt(f"\n[?] {question}", "your answer: ")
        return answer if answer is not None else ""


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
