"""What every face's Host shares: the questions, their choices and wording, and the stale-file check.

The terminal, the language server and the ACP agent each ask a person in their own way
(a `[y/N]` prompt, a `window/showMessageRequest`, a `session/request_permission`), but
what they ask and what each answer means is the same everywhere, so it lives here once:

- an approval offers *Allow once*, *Allow `<rule>` for this session*, *Always allow
  `<rule>` in this project* and *Deny* (the two rule choices only when a rule is offered);
- trust offers *Trust* and *Don't trust*; anything else (a dismissed question, a client
  that failed to ask) is never a yes;
- an edit is stale when the file no longer holds the text it was computed from.

A face subclasses `FaceHost` and implements `choose` (how it puts a `Question` to the
person) and `emit` (how it shows events); everything else has a shared answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .host import EDIT_TOOLS, Approval, ApprovalRequest, CannotAsk, FileChange, Host
from .policy.permissions import bash_pattern


@dataclass(frozen=True)
class Choice:
    key: str  # the letter a terminal takes for it
    label: str  # the button, as a person reads it
    value: Any  # what picking it means (an Approval, or True/False for trust)


@dataclass(frozen=True)
class Question:
    """`kind` is the tool asked about, or "trust"; `subject` what the person decides on
    (the command, the call, the project's entries); `prompt` the verb of a terminal's
    prompt ("allow", "trust this project")."""

    kind: str
    subject: str
    choices: tuple[Choice, ...]
    prompt: str = "allow"
    must_ask: bool = False  # asked even under --yes / autoApprove (the rules cannot judge it)

    @property
    def text(self) -> str:
        """The whole question in one message (the language server's showMessageRequest)."""
        if self.kind == "trust":
            return f"agent-lsp: {self.subject}"
        what = "run" if self.kind == "bash" else f"use {self.kind}:"
        return f"agent-lsp wants to {what}\n{self.subject}"

    def default(self) -> Choice:
        """The safe answer: the last choice (Deny, Don't trust)."""
        return self.choices[-1]


ALLOW_ONCE = Choice("y", "Allow once", Approval.ONCE)
DENY = Choice("n", "Deny", Approval.DENY)
TRUST = Choice("y", "Trust", True)
DONT_TRUST = Choice("n", "Don't trust", False)


def rule_label(rules: list[str]) -> str:
    """`npm test`, `rm` -- the rules as a person reads them in a button."""
    return ", ".join(f"`{bash_pattern(r).rstrip('*') if bash_pattern(r) is not None else r}`" for r in rules)


MAX_REASONS = 8


def uncovered_note(request: ApprovalRequest) -> str:
    """'' or lines: what no rule covers (for a compound command), why (one line each), and
    why it is asked even under --yes / autoApprove."""
    lines: list[str] = []
    if request.tool == "bash" and request.unmatched and request.unmatched != [request.summary.strip()]:
        lines.append("not covered by a rule: " + "; ".join(f"`{s}`" for s in request.unmatched))
    reasons = list(dict.fromkeys(request.reasons))
    lines += [f"({r})" for r in reasons[:MAX_REASONS]]
    if len(reasons) > MAX_REASONS:
        lines.append(f"(and {len(reasons) - MAX_REASONS} more reasons)")
    if request.must_ask:
        lines.append(f"asked even under --yes / autoApprove: {request.must_ask}")
    return "".join("\n" + line for line in lines)


def approval_question(request: ApprovalRequest) -> Question:
    choices = [ALLOW_ONCE]
    if request.rules:
        label = rule_label(request.rules)
        choices += [Choice("s", f"Allow {label} for this session", Approval.SESSION),
                    Choice("a", f"Always allow {label} in this project", Approval.ALWAYS)]
    choices.append(DENY)
    return Question(request.tool, request.summary + uncovered_note(request) + sandbox_note(request), tuple(choices),
                    must_ask=request.must_ask is not None)


def sandbox_note(request: ApprovalRequest) -> str:
    """'' or the line saying how the command will run (sandboxed, or not and why)."""
    return f"\n{request.sandbox['summary']}" if request.sandbox else ""


def confirm_question(tool: str, summary: str) -> Question:
    return Question(tool, summary, (ALLOW_ONCE, DENY))


def trust_question(question: str) -> Question:
    return Question("trust", question, (TRUST, DONT_TRUST), prompt="trust this project")


def describe(request: ApprovalRequest) -> str:
    """The question's text: the call, and the segments no rule covers."""
    return approval_question(request).text


# ------------------------------------------------------------------ the stale-file check

def stale_reason(change: FileChange, current: str | None, where: str = "file") -> str | None:
    """Why `change` no longer fits the text there now (`current`, None when there is no
    file), or None when it still does. `where` names what was looked at ("file", "open
    document", "file on disk") so the model reads where the difference came from."""
    if change.read is not None and change.before is not None and change.read != change.before:
        # write_file's content was written from what the agent read; proposing it now
        # would quietly undo what the person (or a command) changed since.
        return "the file changed since you last read it"
    if change.before is None:
        return "the file was created meanwhile" if current is not None else None
    if current is None:
        return "the file was deleted meanwhile"
    return None if current == change.before else f"the {where} changed meanwhile"


def read_current(path: Path, read: Any) -> tuple[str | None, str | None]:
    """(text, None), (None, None) for a missing file, or (None, why) when it cannot be read."""
    try:
        return read(path), None
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as e:
        return None, f"cannot read the file: {e}"


# ------------------------------------------------------------------ the shared Host


class FaceHost(Host):
    """A Host that puts its questions to a person. Subclasses implement `choose` (and `emit`)."""

    async def choose(self, question: Question) -> Choice | None:
        """Put `question` to the person; the choice picked, or None (dismissed, nobody there)."""
        return None

    async def _pick(self, question: Question) -> Any:
        picked = await self.choose(question)
        return (picked if picked in question.choices else question.default()).value

    async def confirm(self, tool: str, args: dict[str, Any], summary: str) -> bool:
        if tool in EDIT_TOOLS:
            return True  # the edit's own preview (apply_edit) is where the person says yes or no
        return await self._pick(confirm_question(tool, summary)) is Approval.ONCE

    async def approve(self, request: ApprovalRequest) -> Approval:
        return await self._pick(approval_question(request))

    async def trust_project(self, root: Path, question: str) -> bool:
        try:
            return await self._pick(trust_question(question)) is True
        except CannotAsk:  # the face said so plainly already; a project nobody was asked about stays untrusted
            return False
