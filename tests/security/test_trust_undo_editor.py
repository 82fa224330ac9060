"""A file the person changed in the editor while an agent command ran is not reverted by undo.

The command's two snapshots see every change made while it ran, the person's included;
the editor's didChange/didSave during that time say which ones were the person's.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from lsprotocol import types

from tests.lsp.conftest import launch, wait_until  # noqa: F401 (fixture)
from tests.lsp_helpers import execute
from tests.scripted_model import reply, tool_call


def git(ws: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=ws,
                   check=True, capture_output=True)


async def test_a_file_saved_in_the_editor_during_a_command_is_skipped_and_named(launch, model, workspace):  # noqa: F811
    (workspace / "notes.txt").write_text("notes\n")
    (workspace / "data.txt").write_text("data\n")
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start")
    gate = workspace.parent / "gate"
    editor = await launch(init_options={"autoApprove": True, "commandTimeout": 20})
    uri = editor.open(workspace / "notes.txt", "notes\n")
    model.add(tool_call("bash", {"command": f"echo cmd > data.txt; while [ ! -e {gate} ]; do sleep 0.05; done"}),
              reply("done"))
    task = asyncio.ensure_future(execute(editor, "agentLsp.runTask", {"task": "go"}))
    await wait_until(lambda: (workspace / "data.txt").read_text() == "cmd\n", 15, "the command to run")
    mine = "the person's edit, saved while the command ran\n"
    editor.type_text(uri, mine)
    (workspace / "notes.txt").write_text(mine)  # the editor saves it
    editor.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri), text=mine))
    await asyncio.sleep(0.3)
    gate.touch()
    result = await task
    assert result["status"] == "done", result
    undo = await execute(editor, "agentLsp.undoTask")
    assert undo["undone"] is True, undo
    assert "data.txt" in undo["restored"]
    assert (workspace / "notes.txt").read_text() == mine and editor.text(uri) == mine
    assert any(s["path"] == "notes.txt" and "editor" in s["reason"] for s in undo["skipped"]), undo
