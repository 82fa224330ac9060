"""Code actions: "Fix with agent" on every diagnostic, and "Ask agent" on the line or selection.

The answer is built from the request alone — no disk, no model, no waiting on a
running task — so the lightbulb is instant. Neovim >= 0.10 and eglot put only this
server's diagnostics in the context, so a linter's warning never arrives here: the
range action is how a person reaches the agent from any squiggle in those editors.
"""

from __future__ import annotations

from lsprotocol import types

from ..app import AgentServer, server
from ..commands import FIX_DIAGNOSTIC, RUN_TASK

TITLE_CHARS = 70


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False),
)
def code_actions(ls: AgentServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    actions: list[types.CodeAction] = []
    for diag in params.context.diagnostics or []:
        title = f"Fix with agent: {_short(diag.message)}"
        actions.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                command=types.Command(
                    title=title,
                    command=FIX_DIAGNOSTIC,
                    arguments=[{"uri": uri, "diagnostic": ls.protocol._converter.unstructure(diag)}],
                ),
            )
        )
    rng = params.range
    if rng.start.line == rng.end.line or (rng.end.line == rng.start.line + 1 and rng.end.character == 0):
        title = f"Ask agent about line {rng.start.line + 1}"
    else:
        title = f"Ask agent about lines {rng.start.line + 1}-{rng.end.line + 1}"
    actions.append(
        types.CodeAction(
            title=title,
            kind=types.CodeActionKind.QuickFix,
            command=types.Command(
                title=title,
                command=RUN_TASK,
                arguments=[{"uri": uri, "range": ls.protocol._converter.unstructure(rng)}],
            ),
        )
    )
    return actions
