"""The inline review, for clients that cannot preview an edit (no changeAnnotationSupport).

The pending edit is published as Information diagnostics (source agent-lsp, the new
text in the message) with "Accept agent edit" / "Reject agent edit" code actions; only
Accept sends the edit, without needsConfirmation. A pytest-lsp client without
changeAnnotationSupport plays Helix / stock eglot / stock Neovim.
"""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.lsp.conftest import send_command, tool_results, wait_until
from tests.lsp_helpers import code_actions, execute, rng
from tests.scripted_model import call, reply, tool_call, tool_calls

BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a + b\n"


@pytest.fixture
def calc(workspace):
    path = workspace / "calc.py"
    path.write_text(BUGGY)
    return path


def pending(editor, uri: str) -> list[types.Diagnostic]:
    return [d for d in editor.client.diagnostics.get(uri, []) if d.source == "agent-lsp"]


async def titles(editor, uri, diagnostics=()):
    actions = await code_actions(editor, uri, rng(1, 4, 1, 4), list(diagnostics))
    return [a.title for a in actions]


async def start_fix(editor, model, uri, *calls):
    model.add(*calls, reply("done"))
    return send_command(editor, "agentLsp.runTask", {"task": "fix add", "uri": uri})[1]


@pytest.mark.parametrize("client_name", ["neovim@v0.10.0", "emacs"])
async def test_accept_applies_exactly_the_edit(launch, model, calc, client_name):
    editor = await launch(client_name=client_name, annotations=False)
    uri = editor.open(calc)
    task = await start_fix(editor, model, uri, tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}))
    diags = await wait_until(lambda: pending(editor, uri), what="the pending edit as diagnostics")
    assert len(diags) == 1
    d = diags[0]
    assert d.severity == types.DiagnosticSeverity.Information and d.source == "agent-lsp"
    assert d.range == rng(1, 11, 1, 16) and "a + b" in d.message
    assert editor.edit_requests == []  # nothing sent before the decision
    got = await titles(editor, uri, diags)
    assert got[:2] == ["Accept agent edit", "Reject agent edit"]
    assert not any(t.startswith("Fix with agent") for t in got)  # not on our own pending diagnostic
    await execute(editor, "agentLsp.acceptEdit", {"uri": uri})
    result = await asyncio.wait_for(task, 20)
    assert result["status"] == "done"
    assert editor.text(uri) == BUGGY.replace("a - b", "a + b")
    assert len(editor.edit_requests) == 1
    sent = editor.edit_requests[0].edit
    assert not any(a.needs_confirmation for a in (sent.change_annotations or {}).values())
    [doc_edit] = sent.document_changes
    assert [(e.range, e.new_text) for e in doc_edit.edits] == [(rng(1, 11, 1, 16), "a + b")]
    await wait_until(lambda: not pending(editor, uri), what="the diagnostics to go")
    assert calc.read_text() == BUGGY.replace("a - b", "a + b")
    assert tool_results(model, "edit_file")[0].startswith("ok")


async def test_reject_leaves_the_buffer_byte_identical(launch, model, calc):
    editor = await launch(client_name="neovim@v0.10.0", annotations=False)
    uri = editor.open(calc)
    task = await start_fix(editor, model, uri, tool_call("write_file", {"path": "calc.py", "content": "x = 1\n"}))
    await wait_until(lambda: pending(editor, uri), what="the pending edit")
    assert any("x = 1" in d.message for d in pending(editor, uri))
    [reject] = [a for a in await code_actions(editor, uri, rng(0, 0, 0, 0), []) if a.title == "Reject agent edit"]
    await execute(editor, reject.command.command, *reject.command.arguments)
    assert (await asyncio.wait_for(task, 20))["status"] == "done"
    assert editor.text(uri) == BUGGY and calc.read_bytes() == BUGGY.encode()
    assert editor.edit_requests == []
    await wait_until(lambda: not pending(editor, uri), what="the diagnostics to go")
    assert "rejected" in tool_results(model, "write_file")[0]


async def test_cancel_clears_the_pending_diagnostics(launch, model, calc):
    editor = await launch(client_name="emacs", annotations=False)
    uri = editor.open(calc)
    task = await start_fix(editor, model, uri, tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}))
    await wait_until(lambda: pending(editor, uri), what="the pending edit")
    assert (await execute(editor, "agentLsp.cancel"))["cancelled"] is True
    assert (await asyncio.wait_for(task, 10))["status"] == "cancelled"
    await wait_until(lambda: not pending(editor, uri), what="the diagnostics to go")
    assert await titles(editor, uri) == ["Ask agent about line 2"]
    assert editor.text(uri) == BUGGY and editor.edit_requests == []
    with pytest.raises(Exception, match="no agent edit is waiting"):
        await execute(editor, "agentLsp.acceptEdit", {"uri": uri})


async def test_a_second_edit_waits_in_the_queue(launch, model, calc):
    editor = await launch(client_name="neovim@v0.10.0", annotations=False)
    uri = editor.open(calc)
    task = await start_fix(editor, model, uri, tool_calls(
        call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        call("edit_file", {"path": "calc.py", "old": "mul(a, b):\n    return a + b", "new": "mul(a, b):\n    return a * b"}),
    ))
    first = await wait_until(lambda: pending(editor, uri), what="the first edit")
    assert len(first) == 1 and "a + b" in first[0].message
    await execute(editor, "agentLsp.acceptEdit")  # no uri: the edit under review
    second = await wait_until(lambda: [d for d in pending(editor, uri) if "a * b" in d.message], what="the second edit")
    assert second[0].range.start.line == 4
    await execute(editor, "agentLsp.acceptEdit", {"uri": uri})
    assert (await asyncio.wait_for(task, 20))["status"] == "done"
    assert editor.text(uri) == "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
    assert len(editor.edit_requests) == 2


async def test_a_file_not_open_is_shown_first(launch, model, calc):
    editor = await launch(client_name="neovim@v0.10.0", annotations=False)
    uri = calc.as_uri()
    task = await start_fix(editor, model, None, tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}))
    shown = await wait_until(lambda: editor.client.shown_documents, what="window/showDocument")
    assert [p.uri for p in shown] == [uri] and shown[0].take_focus
    editor.open(calc)  # the editor opens it in a window
    await wait_until(lambda: pending(editor, uri), what="the pending edit")
    await execute(editor, "agentLsp.acceptEdit", {"uri": uri})
    assert (await asyncio.wait_for(task, 20))["status"] == "done"
    assert calc.read_text() == BUGGY.replace("a - b", "a + b")


async def test_review_setting_forces_either_path(launch, model, calc):
    inline = await launch(client_name="visual-studio-code", init_options={"review": "inline"})
    uri = inline.open(calc)
    task = await start_fix(inline, model, uri, tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}))
    await wait_until(lambda: pending(inline, uri), what="the inline review in VS Code")
    await execute(inline, "agentLsp.rejectEdit", {"uri": uri})
    assert (await asyncio.wait_for(task, 20))["status"] == "done" and inline.edit_requests == []

    preview = await launch(client_name="emacs", annotations=False, init_options={"review": "preview"})
    uri = preview.open(calc)
    task = await start_fix(preview, model, uri, tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}))
    assert (await asyncio.wait_for(task, 20))["status"] == "done"
    [sent] = preview.edit_requests
    assert all(a.needs_confirmation for a in sent.edit.change_annotations.values())
    assert pending(preview, uri) == []


async def test_bad_review_value_is_ignored_with_a_warning(launch, model, calc):
    editor = await launch(init_options={"review": "sometimes"})
    await wait_until(lambda: any("review='sometimes'" in m.message for m in editor.client.log_messages),
                     what="the warning")
