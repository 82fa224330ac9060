"""agentLsp/saveDocument at the protocol level: who puts an accepted edit on disk.

The real-editor tests show the effect (no "changed since visited", no W12); these pin
the server's side of the contract with a pytest-lsp client, including the cases an
editor rarely produces: a client that cannot save, one that fails, and Neovim 0.12's
`applied: true` after a decline on a file that is not open.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import LanguageClient
from pytest_lsp.client import register_lsp_features

from tests.lsp_helpers import Editor, _converter, capabilities, execute, stop_editor
from tests.scripted_model import reply, tool_call

TEXT = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"


async def start(root: Path, model_url: str, *, save: bool, answer) -> Editor:
    """A VS Code-like client that may also advertise and answer agentLsp/saveDocument."""
    client = LanguageClient(converter_factory=_converter)
    register_lsp_features(client)
    env = dict(os.environ, AGENT_BASE_URL=model_url, AGENT_MODEL="scripted")
    await client.start_io(sys.executable, "-m", "agent_lsp", "serve", env=env)
    caps = capabilities("visual-studio-code")
    if save:
        caps.experimental = {"agentLsp": {"saveDocument": True}}
    editor = Editor(client)
    editor.save_requests = []

    @client.feature("agentLsp/saveDocument")
    def save_document(params):
        uri = getattr(params, "uri", None)
        editor.save_requests.append(uri)
        return answer(editor, uri)

    await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=from_fs_path(str(root)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)), name=root.name)],
            initialization_options={"maxSteps": 5},
        )
    )
    return editor


def saves_in_place(editor: Editor, uri: str) -> dict[str, Any]:
    """An editor's save: its buffer text written into the same file (same inode)."""
    text = editor.docs[uri][1] if uri in editor.docs else getattr(editor, "hidden", {}).get(uri)
    path = Path(to_fs_path(uri))
    if text is None:
        return {"saved": False}
    with open(path, "r+", encoding="utf-8") as f:
        f.write(text)
        f.truncate()
    return {"saved": True}


def nothing_to_save(editor: Editor, uri: str) -> dict[str, Any]:
    """Neovim's `:update` on a buffer that did not change: nothing written, nothing modified."""
    return {"saved": True}


@pytest.fixture
async def session(workspace, model):
    editors: list[Editor] = []

    async def open_(**kw) -> Editor:
        ed = await start(workspace, model.base_url, **kw)
        editors.append(ed)
        return ed

    yield open_
    for ed in editors:
        await stop_editor(ed)


def edit_task(model) -> None:
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        reply("done"),
    )


def last_tool_result(model) -> str:
    return model.requests[-1]["messages"][-1]["content"]


async def test_open_buffer_saved_by_the_editor_not_written_behind_it(session, model, workspace):
    calc = workspace / "calc.py"
    calc.write_text(TEXT)
    inode = calc.stat().st_ino
    editor = await session(save=True, answer=saves_in_place)
    uri = editor.open(calc)
    edit_task(model)
    result = await execute(editor, "agentLsp.runTask", {"task": "fix add", "uri": uri})
    assert result["status"] == "done", result
    assert editor.save_requests == [uri]
    assert calc.read_text() == FIXED and editor.text(uri) == FIXED
    assert calc.stat().st_ino == inode  # the editor wrote it; the server did not replace the file
    assert "rejected" not in last_tool_result(model)


async def test_editor_that_cannot_save_gets_the_file_written_for_it(session, model, workspace):
    calc = workspace / "calc.py"
    calc.write_text(TEXT)
    inode = calc.stat().st_ino

    def refuses(editor, uri):
        return {"saved": False}

    editor = await session(save=True, answer=refuses)
    uri = editor.open(calc)
    edit_task(model)
    result = await execute(editor, "agentLsp.runTask", {"task": "fix add", "uri": uri})
    assert result["status"] == "done", result
    assert editor.save_requests == [uri]
    assert calc.read_text() == FIXED
    assert calc.stat().st_ino != inode  # written by the server (atomically: a new file)


async def test_save_request_failing_falls_back_to_the_server_writing(session, model, workspace):
    calc = workspace / "calc.py"
    calc.write_text(TEXT)

    def fails(editor, uri):
        raise JsonRpcInternalError(message="E212: Can't open file for writing")

    editor = await session(save=True, answer=fails)
    uri = editor.open(calc)
    edit_task(model)
    result = await execute(editor, "agentLsp.runTask", {"task": "fix add", "uri": uri})
    assert result["status"] == "done", result
    assert calc.read_text() == FIXED
    assert "rejected" not in last_tool_result(model)


async def test_without_the_capability_no_save_is_asked(session, model, workspace):
    """VS Code and other clients keep the old path: the server writes, nothing else is asked."""
    calc = workspace / "calc.py"
    calc.write_text(TEXT)
    editor = await session(save=False, answer=saves_in_place)
    uri = editor.open(calc)
    edit_task(model)
    result = await execute(editor, "agentLsp.runTask", {"task": "fix add", "uri": uri})
    assert result["status"] == "done", result
    assert editor.save_requests == []
    assert calc.read_text() == FIXED


async def test_declined_edit_of_a_closed_file_is_not_written(session, model, workspace):
    """Neovim 0.12 says applied: true after "No"; for a file that is not open there is no
    didChange to check, but after the save the disk still holds the old text: rejected."""
    calc = workspace / "calc.py"
    calc.write_text(TEXT)
    editor = await session(save=True, answer=nothing_to_save)
    editor.edit_policy = "lie"
    edit_task(model)
    result = await execute(editor, "agentLsp.runTask", {"task": "fix add in calc.py"})
    assert result["status"] == "done", result
    assert calc.read_text() == TEXT
    assert "rejected" in last_tool_result(model)
