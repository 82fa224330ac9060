"""Multi-root workspaces: confinement covers every folder; commands run in the folder of the task's file."""

from __future__ import annotations

from lsprotocol import types

from tests.lsp.conftest import tool_results
from tests.lsp_helpers import code_actions, execute, rng
from tests.scripted_model import reply, tool_call


async def test_two_folders(launch, model, tmp_path):
    a, b = tmp_path / "alpha", tmp_path / "beta"
    a.mkdir()
    b.mkdir()
    (a / "lib.py").write_text("A = 1\n")
    (b / "app.py").write_text("B = 2\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("nope\n")
    editor = await launch(root=a, folders=[a, b])

    model.add(
        tool_call("bash", {"command": "pwd"}),
        tool_call("read_file", {"path": str(a / "lib.py")}),
        tool_call("read_file", {"path": "app.py"}),  # relative paths start in the task's folder
        tool_call("read_file", {"path": str(outside)}),
        tool_call("read_file", {"path": "../outside.txt"}),
        tool_call("edit_file", {"path": str(a / "lib.py"), "old": "A = 1", "new": "A = 10"}),
        reply("done"),
    )
    result = await execute(editor, "agentLsp.runTask", {"task": "look around", "uri": (b / "app.py").as_uri()})
    assert result["status"] == "done"
    pwd, read_a, read_b, out_abs, out_rel, edit_a = tool_results(model)
    assert pwd.splitlines()[0] == str(b.resolve())
    assert read_a == "1: A = 1" and read_b == "1: B = 2"
    assert out_abs.startswith("error: path escapes the workspace") and "nope" not in out_abs
    assert out_rel.startswith("error: path escapes the workspace")
    assert edit_a.startswith("ok: edited")
    assert (a / "lib.py").read_text() == "A = 10\n"

    # a task without a file runs in the first folder
    model.add(tool_call("bash", {"command": "pwd"}), reply("done"))
    await execute(editor, "agentLsp.runTask", {"task": "where am I"})
    assert tool_results(model)[-1].splitlines()[0] == str(a.resolve())


async def test_folders_added_and_removed(launch, model, tmp_path):
    a, c = tmp_path / "alpha", tmp_path / "gamma"
    a.mkdir()
    c.mkdir()
    (c / "late.py").write_text("C = 3\n")
    editor = await launch(root=a, folders=[a])
    editor.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[types.WorkspaceFolder(uri=c.as_uri(), name="gamma")], removed=[])
    ))
    await code_actions(editor, a.as_uri(), rng(0, 0, 0, 0), [])  # a round trip: the change is handled
    model.add(tool_call("read_file", {"path": str(c / "late.py")}), reply("ok"))
    await execute(editor, "agentLsp.runTask", {"task": "read the new folder"})
    assert tool_results(model) == ["1: C = 3"]

    editor.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[], removed=[types.WorkspaceFolder(uri=c.as_uri(), name="gamma")])
    ))
    await code_actions(editor, a.as_uri(), rng(0, 0, 0, 0), [])
    model.add(tool_call("read_file", {"path": str(c / "late.py")}), reply("ok"))
    await execute(editor, "agentLsp.runTask", {"task": "read it again"})
    assert tool_results(model)[-1].startswith("error: path escapes the workspace")
