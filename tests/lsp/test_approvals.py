"""Saying no: every editor's way of declining an edit, and denying a command.

VS Code answers `applied: false`, eglot an error -32603, Neovim 0.12 `applied: true`
without changing the buffer (shared/editors.md). All three must reach the agent as a
rejection, leave buffer and disk byte-identical, and a later read_file must not see
the edit. A command answered with anything but Allow once (or a rule) — Deny, or a dismissed prompt
(null) — is denied and does not run.
"""

from __future__ import annotations

import pytest

from agent_lsp.agent.sandbox import SandboxConfig, about
from tests.lsp.conftest import tool_results
from tests.lsp_helpers import execute
from tests.scripted_model import reply, tool_call

ORIGINAL = "# café ☕\r\nGREETING = 'hello'\r\nprint(GREETING)\r\n"  # CRLF + non-ASCII: bytes must survive


# Each editor with the way it really says no (shared/editors.md).
DECLINES = [("reject", "visual-studio-code"), ("error", "emacs"), ("lie", "neovim@v0.10.0")]


@pytest.mark.parametrize("policy,client", DECLINES, ids=[f"{p}-{c}" for p, c in DECLINES])
async def test_declined_edit_changes_nothing(policy, client, launch, model, workspace):
    path = workspace / "greet.py"
    path.write_bytes(ORIGINAL.encode())
    editor = await launch(client_name=client, init_options={"editConfirmTimeout": 0.5})
    uri = editor.open(path, ORIGINAL)
    editor.edit_policy = policy
    model.add(
        tool_call("edit_file", {"path": "greet.py", "old": "'hello'", "new": "'HIJACKED'"}),
        tool_call("read_file", {"path": "greet.py"}),
        reply("The person said no; I left it."),
    )
    result = await execute(editor, "agentLsp.runTask", {"task": "shout the greeting", "uri": uri})
    assert result["status"] == "done"

    assert len(editor.edit_requests) == 1  # it was proposed, once
    edit_result, read_result = tool_results(model)
    assert "rejected" in edit_result and "unchanged" in edit_result, edit_result
    assert "hello" in read_result and "HIJACKED" not in read_result
    assert editor.text(uri) == ORIGINAL
    assert path.read_bytes() == ORIGINAL.encode()
    assert model.violations == []


async def test_declined_edits_of_a_closed_file(launch, model, workspace):
    """Not open in the editor: nothing to watch but the answer, and the disk must not change."""
    path = workspace / "greet.py"
    path.write_bytes(ORIGINAL.encode())
    editor = await launch()
    for policy in ("reject", "error"):
        editor.edit_policy = policy
        model.add(
            tool_call("edit_file", {"path": "greet.py", "old": "'hello'", "new": "'HIJACKED'"}),
            reply("ok"),
        )
        await execute(editor, "agentLsp.runTask", {"task": "shout"})
        assert "rejected" in tool_results(model)[-1], policy
        assert path.read_bytes() == ORIGINAL.encode(), policy
    assert len(editor.edit_requests) == 2


async def test_denied_commands_do_not_run(launch, model, workspace):
    """Deny, then a dismissed prompt (null): neither runs. Then Allow: the same command does run."""
    editor = await launch()
    command = "touch ran.marker && echo ran"
    for answer in ("Deny", None):
        editor.command_answer = answer
        model.add(tool_call("bash", {"command": command}), reply("Understood, I did not run it."))
        result = await execute(editor, "agentLsp.runTask", {"task": "make the marker"})
        assert result["status"] == "done"
        assert tool_results(model)[-1] == "user denied this action", answer
        assert not (workspace / "ran.marker").exists(), answer
    assert [r.message for r in editor.message_requests] == \
        [f"agent-lsp wants to run\n{command}\nnot covered by a rule: `touch ran.marker`; `echo ran`\n"
         f"{about(SandboxConfig())['summary']}"] * 2  # the last line: how it will run
    assert [a.title for a in editor.message_requests[0].actions] == \
        ["Allow once", "Allow `touch`, `echo` for this session", "Always allow `touch`, `echo` in this project", "Deny"]

    editor.command_answer = "Allow once"
    model.add(tool_call("bash", {"command": command}), reply("done"))
    await execute(editor, "agentLsp.runTask", {"task": "make the marker"})
    out = tool_results(model)[-1]
    assert "ran" in out and "[exit 0]" in out
    assert (workspace / "ran.marker").exists()
    assert model.violations == []
