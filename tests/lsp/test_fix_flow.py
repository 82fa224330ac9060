"""The "Fix with agent" flow end to end: code action -> task -> previewed edit -> gated command -> answer."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp_helpers import CLIENTS, code_actions, execute, rng, start_editor, stop_editor
from tests.scripted_model import tool_call, reply

BUGGY = "def add(a, b):\n    return a - b\n"


@pytest.fixture
async def editor(workspace, model):
    (workspace / "calc.py").write_text(BUGGY)
    ed = await start_editor(workspace, model.base_url)
    yield ed
    await stop_editor(ed)


async def test_fix_with_agent_flow(editor, workspace, model):
    uri = editor.open(workspace / "calc.py")
    diag = types.Diagnostic(range=rng(1, 11, 1, 16), message="add subtracts", source="review", code="E1")
    actions = await code_actions(editor, uri, rng(1, 0, 1, 0), [diag])
    fix = [a for a in actions if a.title.startswith("Fix with agent")]
    assert len(fix) == 1 and fix[0].kind == types.CodeActionKind.QuickFix
    assert any(a.title.startswith("Ask agent about line 2") for a in actions)

    model.add(
        tool_call("read_file", {"path": "calc.py"}),
        tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        tool_call("bash", {"command": "python -c 'import calc; print(calc.add(2, 3))'"}),
        reply("Fixed: add now adds. It prints 5."),
    )
    cmd = fix[0].command
    result = await execute(editor, cmd.command, *cmd.arguments)
    assert result["status"] == "done", result
    assert "Fixed" in result["answer"]

    # the task text named the file, the diagnostic and the code around it
    first = model.requests[0]["messages"][-1]["content"]
    assert "calc.py" in first and "add subtracts" in first and "review E1" in first and "a - b" in first
    # the edit was one minimal, annotated, versioned edit
    (req,) = editor.edit_requests
    (doc_edit,) = req.edit.document_changes
    assert doc_edit.text_document.version == 1
    (te,) = doc_edit.edits
    assert te.new_text == "a + b" and te.range == rng(1, 11, 1, 16)
    ann = req.edit.change_annotations[te.annotation_id]
    assert ann.needs_confirmation is True
    # the buffer, the disk and the command all saw the fix
    assert editor.text(uri) == "def add(a, b):\n    return a + b\n"
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    (ask,) = editor.message_requests
    assert "python -c" in ask.message
    exact = "`python -c 'import calc; print(calc.add(2, 3))'`"  # an interpreter's code: the exact command only
    assert [a.title for a in ask.actions] == ["Allow once", f"Allow {exact} for this session",
                                              f"Always allow {exact} in this project", "Deny"]
    bash_result = model.requests[3]["messages"][-1]["content"]
    assert "5" in bash_result and "[exit 0]" in bash_result
    assert model.violations == []
    assert any("agent: Fixed" in m.message for m in editor.client.messages)


@pytest.mark.parametrize("client", CLIENTS)
async def test_fix_flow_auto_approve(client, launch, workspace, model):
    """autoApprove: the edit comes with needsConfirmation false and no command is asked about."""
    (workspace / "calc.py").write_text(BUGGY)
    editor = await launch(client_name=client, init_options={"autoApprove": True})
    editor.command_answer = "Deny"  # would block the command if the server asked anyway
    uri = editor.open(workspace / "calc.py")
    diag = types.Diagnostic(range=rng(1, 11, 1, 16), message="add subtracts", source="review")
    (fix,) = [a for a in await code_actions(editor, uri, rng(1, 0, 1, 0), [diag]) if a.title.startswith("Fix")]
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        tool_call("bash", {"command": "python -c 'import calc; print(calc.add(2, 3))'"}),
        reply("Fixed."),
    )
    result = await execute(editor, fix.command.command, *fix.command.arguments)
    assert result == {"status": "done", "answer": "Fixed.", "steps": 3}
    (req,) = editor.edit_requests
    (doc_edit,) = req.edit.document_changes
    (te,) = doc_edit.edits
    assert req.edit.change_annotations[te.annotation_id].needs_confirmation is False
    assert editor.message_requests == []
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert "5\n[exit 0]" in model.requests[2]["messages"][-1]["content"]
    assert model.violations == []
