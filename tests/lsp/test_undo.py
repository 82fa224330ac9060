"""agentLsp.undoTask end to end: one reviewed workspace/applyEdit that puts buffers and disk back.

A real `agent-lsp serve`, a pytest-lsp editor and the scripted model; the workspace is
a git work tree so the command's changes are covered too.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp_helpers import execute
from tests.scripted_model import reply, tool_call

CALC = "def add(a, b):\r\n    return a - b  # café ☕\r\n"


def git(ws: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=ws,
                   check=True, capture_output=True)


def tree(ws: Path) -> dict[str, bytes]:
    return {str(p.relative_to(ws)): p.read_bytes() for p in sorted(ws.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(ws).parts}


def project(ws: Path) -> None:
    (ws / "calc.py").write_bytes(CALC.encode())
    (ws / "notes.txt").write_text("notes\n")
    (ws / "old.txt").write_text("old\n")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")


async def run_task(editor, model) -> None:
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        tool_call("write_file", {"path": "new_module.py", "content": "X = 1\n"}),
        tool_call("bash", {"command": "echo made > cmd.txt && echo more >> notes.txt && rm old.txt"}),
        reply("done"),
    )
    result = await execute(editor, "agentLsp.runTask", {"task": "fix add, add a module, run the script"})
    assert result["status"] == "done", result


@pytest.mark.parametrize("client", ["visual-studio-code", "emacs"])  # with and without create/delete
async def test_undo_is_one_reviewed_edit_and_puts_buffers_and_disk_back(client, launch, model, workspace):
    project(workspace)
    before = tree(workspace)
    editor = await launch(client_name=client)
    rich = client == "visual-studio-code"
    uri = editor.open(workspace / "calc.py", CALC)
    await run_task(editor, model)
    assert editor.text(uri) != CALC and (workspace / "cmd.txt").exists()
    edits_before = len(editor.edit_requests)

    result = await execute(editor, "agentLsp.undoTask")
    assert result["undone"] is True, result
    files = ["calc.py", "cmd.txt", "new_module.py", "notes.txt", "old.txt"]
    assert sorted(result["restored"]) == files
    assert result["skipped"] == []
    (undo,) = editor.edit_requests[edits_before:]
    assert undo.label == "agent: undo the last task"
    anns = undo.edit.change_annotations
    shown = files if rich else [f for f in files if f != "old.txt"]  # no CreateFile: the server re-creates it
    assert sorted(a.label for a in anns.values()) == [f"agent: undo {n}" for n in shown]
    assert all(a.needs_confirmation for a in anns.values())
    by_uri = {}
    for ch in undo.edit.document_changes:
        key = getattr(ch, "uri", None) or ch.text_document.uri
        by_uri.setdefault(key, []).append(ch)
    (calc_edit,) = by_uri[uri]
    assert calc_edit.text_document.version == editor.docs[uri][0] - 1, "versioned against the open buffer"
    assert {a.annotation_id for a in calc_edit.edits} == {calc_edit.edits[0].annotation_id}
    cmd = by_uri[(workspace / "cmd.txt").as_uri()]
    if rich:
        assert [type(c) for c in cmd] == [types.DeleteFile]
        old = by_uri[(workspace / "old.txt").as_uri()]
        assert [type(c) for c in old] == [types.CreateFile, types.TextDocumentEdit]
        assert old[1].edits[0].new_text == "old\n"
    else:  # no delete: the preview empties it, the server deletes it
        assert [type(c) for c in cmd] == [types.TextDocumentEdit] and cmd[0].edits[0].new_text == ""
        assert (workspace / "old.txt").as_uri() not in by_uri
    notes_edit = by_uri[(workspace / "notes.txt").as_uri()][0]
    assert notes_edit.text_document.version is None  # not open: the server writes it after acceptance

    assert editor.text(uri) == CALC
    assert tree(workspace) == before
    again = await execute(editor, "agentLsp.undoTask")
    assert again == {"undone": False, "message": "nothing to undo: the last task was already undone",
                     "restored": [], "skipped": []}
    assert model.violations == []


async def test_a_file_the_person_edited_is_left_alone_and_named(launch, model, workspace):
    project(workspace)
    editor = await launch()
    uri = editor.open(workspace / "calc.py", CALC)
    await run_task(editor, model)
    mine = editor.text(uri) + "# the person's line\r\n"
    editor.type_text(uri, mine)
    result = await execute(editor, "agentLsp.undoTask")
    assert result["undone"] is True
    assert {"path": "calc.py", "reason": "changed since the task last touched it"} in result["skipped"]
    assert "calc.py" not in result["restored"] and editor.text(uri) == mine
    undo = editor.edit_requests[-1]
    uris = [getattr(ch, "uri", None) or ch.text_document.uri for ch in undo.edit.document_changes]
    assert uri not in uris
    assert not (workspace / "cmd.txt").exists() and (workspace / "notes.txt").read_text() == "notes\n"
    assert "skipped calc.py: changed since the task last touched it" in "\n".join(
        m.message for m in editor.client.log_messages)


async def test_rejecting_the_undo_preview_changes_nothing(launch, model, workspace):
    project(workspace)
    editor = await launch()
    uri = editor.open(workspace / "calc.py", CALC)
    await run_task(editor, model)
    after_task, buffer = tree(workspace), editor.text(uri)
    editor.edit_policy = "reject"
    result = await execute(editor, "agentLsp.undoTask")
    assert result["undone"] is False and "declined" in result["message"]
    assert tree(workspace) == after_task and editor.text(uri) == buffer
    editor.edit_policy = "accept"  # still undoable after a "no"
    assert (await execute(editor, "agentLsp.undoTask"))["undone"] is True
    assert editor.text(uri) == CALC


async def test_undo_without_a_task_and_with_arguments(launch, model, workspace):
    editor = await launch()
    result = await execute(editor, "agentLsp.undoTask")
    assert result["undone"] is False and result["message"] == "nothing to undo: no task has run in this session"
    try:
        await execute(editor, "agentLsp.undoTask", {"task": 3})
    except Exception as e:
        assert "takes no arguments" in str(e)
    else:
        raise AssertionError("an argument must be refused")


@pytest.mark.parametrize("answer", ["agentLsp.acceptEdit", "agentLsp.rejectEdit"])
async def test_undo_goes_through_the_inline_review_without_a_preview(answer, launch, model, workspace):
    """A client without changeAnnotationSupport reviews the undo as pending diagnostics too;
    the command answers at once (eglot runs commands synchronously)."""
    from tests.lsp.conftest import wait_until

    project(workspace)
    before = tree(workspace)
    editor = await launch(client_name="neovim@v0.10.0", annotations=False, init_options={"autoApprove": True})
    uri = editor.open(workspace / "calc.py", CALC)
    await run_task(editor, model)
    after_task = tree(workspace)
    result = await execute(editor, "agentLsp.undoTask")
    assert result["pending"] is True and result["undone"] is False
    pending = await wait_until(lambda: [d for d in editor.client.diagnostics.get(uri, []) if d.source == "agent-lsp"],
                               what="the undo as pending diagnostics")
    assert any("a - b" in d.message for d in pending)
    assert tree(workspace) == after_task  # nothing before the decision
    await execute(editor, answer, {"uri": uri})
    if answer == "agentLsp.acceptEdit":
        await wait_until(lambda: tree(workspace) == before, what="the disk to be put back")
        await wait_until(lambda: editor.text(uri) == CALC, what="the buffer to be put back")
    else:
        await wait_until(lambda: any("declined" in m.message for m in editor.client.messages), what="the message")
        assert tree(workspace) == after_task
    await wait_until(lambda: not [d for d in editor.client.diagnostics.get(uri, []) if d.source == "agent-lsp"],
                     what="the pending diagnostics to go")
