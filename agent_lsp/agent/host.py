"""The Host: the only way the agent touches the world outside the workspace files.

The loop and the tools never print, never prompt and never import an editor library.
Everything a person sees or answers goes through a Host: the terminal implements it
for a TTY, the language server implements it with LSP messages, tests implement it
with scripted answers. That boundary is what lets one agent run in all three places.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

# The tools whose question is the edit itself (its diff, in apply_edit): no rules are offered for them.
EDIT_TOOLS = frozenset({"edit_file", "write_file"})


@dataclass(frozen=True)
class FileChange:
    """An edit the agent wants to make, described so any Host can preview it.

    `before` is the text the change was computed from (None for a new file), `after` the
    full text once applied. `span` is set by edit_file: the (start, end) character
    offsets in `before` that `replacement` takes the place of, so an editor can show one
    minimal edit instead of a whole-file swap. `read` is set by write_file: the text the
    agent last saw of the file (None if it never read it). Its new content was written
    from that text, so when `before` differs someone changed the file since, and a Host
    that can tell the person's typing apart (an editor) refuses the change as stale
    rather than silently undo it.
    """

    tool: str
    path: Path
    display_path: str
    before: str | None
    after: str
    span: tuple[int, int] | None = None
    replacement: str | None = None
    read: str | None = None

    @property
    def is_new_file(self) -> bool:
        return self.before is None


class EditStatus(str, Enum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    STALE = "stale"  # the document changed under the agent; it must re-read
    FAILED = "failed"


@dataclass(frozen=True)
class EditOutcome:
    status: EditStatus
    detail: str = ""


@dataclass(frozen=True)
class Event:
    """Something a person may want to watch: the Host decides how to show it.

    kinds: "text" (a streamed answer delta), "tool" (a tool call starting, with a
    one-line trace), "tool_result", "todo" (the plan list), "status" (retrying,
    compacting, ...), "answer" (the final text of a turn), "error", "usage" (the task's
    tokens so far, after every model call: data promptTokens, completionTokens, estimated).
    """

    kind: str
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)


class Approval(str, Enum):
    """A person's answer to a gated call: once, a rule for the session, a rule for the project, or no."""

    ONCE = "once"
    SESSION = "session"
    ALWAYS = "always"
    DENY = "deny"


class CannotAsk(Exception):
    """Raised by a Host that has no way to put this question to a person (the editor cannot
    show it, or never answered). Its message says so plainly: it is what the model is told,
    and the step is not run."""


@dataclass(frozen=True)
class ApprovalRequest:
    """A gated call the rules did not cover. `unmatched`: the shell segments (or the tool) no
    allow rule covers; `rules`: what a "session"/"always" answer would remember (empty: only
    once or deny make sense, e.g. a line that did not parse); `reasons`: why no rule covers
    it, one line each; `must_ask`: why it is asked even under --yes / autoApprove (a Host
    that would answer by itself must ask the person then, and with no one there deny).
    `sandbox`: for a command, how it will run — {sandboxed, mode, network, summary}
    (agent/sandbox/); faces show `summary`."""

    tool: str
    args: dict[str, Any]
    summary: str  # the call as a person reads it (the command line, the tool and its arguments)
    unmatched: list[str]
    rules: list[str]
    unparsed: bool = False
    reasons: list[str] = field(default_factory=list)
    must_ask: str | None = None
    sandbox: dict[str, Any] | None = None


class Host:
    """Default behaviour is the safest one: deny, nobody to ask, events dropped.

    Subclasses override what their face can do. Every method is async so an editor
    Host can await the client without blocking its event loop.
    """

    async def read_text(self, path: Path) -> str | None:
        """The text the person sees for `path` (an unsaved buffer), or None to use the disk."""
        return None

    async def apply_edit(self, change: FileChange) -> EditOutcome:
        """Propose `change`; return once it is accepted and on disk, or refused."""
        return EditOutcome(EditStatus.REJECTED, "no host can apply edits")

    async def confirm(self, tool: str, args: dict[str, Any], summary: str) -> bool:
        """Ask the person before a gated action (a command, a write). False means no."""
        return False

    async def approve(self, request: ApprovalRequest) -> Approval:
        """Ask about a call no rule covers. A face that cannot offer rules answers once or deny via `confirm`."""
        return Approval.ONCE if await self.confirm(request.tool, request.args, request.summary) else Approval.DENY

    async def ask_user(self, question: str) -> str | None:
        """Put a question to the person; None when nobody can answer."""
        return None

    async def trust_project(self, root: Path, question: str) -> bool:
        """Ask whether the project at `root` may use what `question` lists. Never a silent yes."""
        return False

    def edited_since(self, since: float) -> set[Path]:
        """Files the person changed in the editor since `since` (time.monotonic()); none known here."""
        return set()

    async def run_command(self, command: str, cwd: Path, timeout: float, sandboxed: Any = None) -> str | None:
        """Run an approved bash command where the person can watch it (an editor's terminal).

        Return the result text for the model (output, then `[exit N]`), or None to use the
        local process-group runner. A Host that runs it must keep the runner's promises:
        stop it at `timeout`, cap the output, and kill it when the turn is cancelled.
        `sandboxed` is the command as it must run (a sandbox.Wrapped): a terminal runs
        `sandboxed.terminal()` (the sandbox and the scrubbed environment inside the argv),
        never the bare `command`.
        """
        return None

    async def diagnostics(self, path: Path) -> list[dict[str, Any]] | None:
        """The problems the person sees in `path` now (LSP Diagnostics as JSON); None when this face can't tell."""
        return None

    def emit(self, event: Event) -> None:
        """Report progress. Must not block: called from the middle of the loop."""
