"""The gate before every gated call: deny rules, allow rules, then the person.

One place decides whether a call runs (agent/cmdline's judge, through policy/permissions.py):
a deny rule refuses it (even under autoApprove), an allow rule (the project's once
trusted, or one the person allowed for this session) lets it run unasked, and anything
else goes to the person through the Host, whose answer may add the offered rule for
this session or the project. A call the judge says must be asked (a line that does not
parse, a place a denied program may hide, a rules file that does not parse) is asked
even under autoApprove / --yes, and a Host with no one to ask denies it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..host import EDIT_TOOLS, Approval, ApprovalRequest, CannotAsk, Event
from ..sandbox import about
from ..sandbox.choices import from_settings
from .permissions import add_project_rules, allow_trusted, judge, permissions_path, read_rules

if TYPE_CHECKING:
    from ..context import ToolContext


class Gate:
    """The rules in force for one session: the project's (re-read per call) plus this session's yeses."""

    def __init__(self) -> None:
        self.session_allow: list[str] = []

    async def check(self, ctx: ToolContext, tool: str, args: dict[str, Any], summary: str) -> str | None:
        """None when the call may run; otherwise the text the model gets instead of a result."""
        root = ctx.workspace.root
        rules = read_rules(root)
        allow = list(self.session_allow) + (rules.allow if allow_trusted(root, rules) else [])
        verdict = judge(tool, args, allow, rules.deny, broken=rules.broken)
        if verdict.denied_by:
            return (f"error: denied by the rule {verdict.denied_by!r} in {permissions_path(root)}; "
                    "this action is not allowed in this project, do it another way or ask the user")
        if verdict.allowed or (ctx.settings.auto_approve and verdict.must_ask is None):
            return None
        if tool in EDIT_TOOLS:
            return None if await ctx.host.confirm(tool, args, summary) else DENIED
        rules_offered = verdict.offers
        scrub = ctx.settings.scrub  # a key pasted into a command must not reach the question
        # how the command will run (the first call probes for a sandbox: off the event loop)
        sandbox = await asyncio.to_thread(about, from_settings(ctx.settings)) if tool == "bash" else None
        request = ApprovalRequest(tool, args, summary, [scrub(s) for s in verdict.unmatched],
                                  [scrub(r) for r in rules_offered], verdict.unparsed,
                                  reasons=[scrub(r) for r in verdict.reasons],
                                  must_ask=scrub(verdict.must_ask) if verdict.must_ask else None,
                                  sandbox=sandbox)
        try:
            answer = await ctx.host.approve(request)
        except CannotAsk as e:  # nobody can be asked: the model hears why, plainly
            return f"error: {e}"
        if answer is Approval.DENY:
            return DENIED
        if answer in (Approval.SESSION, Approval.ALWAYS):
            self.session_allow += [r for r in rules_offered if r not in self.session_allow]
        if answer is Approval.ALWAYS and rules_offered:
            note = add_project_rules(root, rules_offered)
            if note:
                ctx.host.emit(_status(note))
        return None


DENIED = "user denied this action"


def _status(text: str) -> Event:
    return Event("status", text)
