"""coc.nvim at the protocol level: the inline review by default, and saving through a rename.

A pytest-lsp client declares what coc.nvim 0.0.82 declares (`clientInfo` "coc.nvim",
`changeAnnotationSupport {groupsOnLabel: false}`, resource operations) and carries out
a `RenameFile` the way coc does for a loaded buffer: it writes the buffer under the new
name and deletes the old file. (tests/editors/test_coc.py runs the real coc in Vim 9 and
Neovim 0.12.)
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import LanguageClient
from pytest_lsp.client import register_lsp_features

from tests.lsp.conftest import send_command, tool_results, wait_until
from tests.lsp_helpers import Editor, _converter, capabilities, execute, stop_editor
from tests.scripted_model import reply, tool_call

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = BUGGY.replace("a - b", "a + b")


class CocLike(Editor):
    """Applies text edits like the other test editors; renames files like coc.nvim."""

    renames: list[types.RenameFile]

    def _answer_edit(self, params: types.ApplyWorkspaceEditParams):
        changes = params.edit.document_changes or []
        if not any(isinstance(c, types.RenameFile) for c in changes):
            return super()._answer_edit(params)
        for c in changes:
            assert isinstance(c, types.RenameFile), c
            self.renames.append(c)
            old, new = Path(to_fs_path(c.old_uri)), Path(to_fs_path(c.new_uri))
            if new.exists() and not (c.options and c.options.overwrite):
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason=f"{new} exists")
            version, text = self.docs.pop(c.old_uri)
            self.client.text_document_did_close(types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=c.old_uri)))
            new.write_text(text)  # `:file NEW` then `:noautocmd write!`: the buffer's text
            old.unlink()
            self.docs[c.new_uri] = (1, text)
            self.client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=c.new_uri, language_id="python", version=1, text=text)))
        return types.ApplyWorkspaceEditResult(applied=True)


def coc_capabilities() -> types.ClientCapabilities:
    caps = capabilities("visual-studio-code")
    caps.workspace.workspace_edit.change_annotation_support = types.ChangeAnnotationsSupportOptions(
        groups_on_label=False)
    caps.workspace.workspace_edit.document_changes = True
    caps.workspace.workspace_edit.resource_operations = [
        types.ResourceOperationKind.Create, types.ResourceOperationKind.Rename, types.ResourceOperationKind.Delete]
    return caps


@pytest.fixture
async def coc(workspace, model):
    editors: list[Editor] = []

    async def start(init_options=None) -> CocLike:
        client = LanguageClient(converter_factory=_converter)
        register_lsp_features(client)
        env = dict(os.environ, AGENT_BASE_URL=model.base_url, AGENT_MODEL="scripted")
        await client.start_io(sys.executable, "-m", "agent_lsp", "serve", env=env)
        await client.initialize_session(types.InitializeParams(
            capabilities=coc_capabilities(),
            client_info=types.ClientInfo(name="coc.nvim", version="0.0.82"),
            root_uri=from_fs_path(str(workspace)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(workspace)), name=workspace.name)],
            initialization_options={"maxSteps": 10, "commandTimeout": 5, **(init_options or {})},
        ))
        ed = CocLike(client)
        ed.renames = []
        editors.append(ed)
        return ed

    yield start
    for ed in editors:
        await stop_editor(ed)


def pending(editor, uri):
    return [d for d in editor.client.diagnostics.get(uri, []) if d.source == "agent-lsp"]


CHECK = "python3 -c 'import calc; print(\"sum\", calc.add(2, 3))'"


async def test_coc_reviews_inline_and_saves_the_accepted_edit_by_renaming(coc, model, workspace):
    calc = workspace / "calc.py"
    calc.write_text(BUGGY)
    calc.chmod(0o750)
    editor = await coc()
    uri = editor.open(calc)
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
              tool_call("bash", {"command": CHECK}), reply("done"))
    task = send_command(editor, "agentLsp.runTask", {"task": "fix add", "uri": uri})[1]
    diags = await wait_until(lambda: pending(editor, uri), timeout=15, what="the inline review of the edit")
    assert "a + b" in diags[0].message and editor.edit_requests == []  # shown before anything is sent
    await execute(editor, "agentLsp.acceptEdit", {"uri": uri})
    assert (await asyncio.wait_for(task, 20))["status"] == "done"
    edit, save = editor.edit_requests
    assert not any(a.needs_confirmation for a in (edit.edit.change_annotations or {}).values())
    hop = workspace / ".calc.py.agent-lsp-saving"
    assert [(r.old_uri, r.new_uri) for r in editor.renames] == [(uri, from_fs_path(str(hop))),
                                                                 (from_fs_path(str(hop)), uri)]
    assert calc.read_text() == FIXED and editor.text(uri) == FIXED and not hop.exists()
    assert stat.S_IMODE(calc.stat().st_mode) == 0o750
    assert "sum 5" in tool_results(model, "bash")[0]  # on disk before the agent's next command
    assert tool_results(model, "edit_file")[0].startswith("ok")


async def test_coc_with_review_preview_gets_the_annotated_edit(coc, model, workspace):
    """The `review` setting still decides: "preview" sends needsConfirmation to coc."""
    (workspace / "calc.py").write_text(BUGGY)
    editor = await coc(init_options={"review": "preview"})
    uri = editor.open(workspace / "calc.py")
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}), reply("done"))
    await asyncio.wait_for(execute(editor, "agentLsp.runTask", {"task": "fix add", "uri": uri}), 20)
    first = editor.edit_requests[0].edit
    assert any(a.needs_confirmation for a in (first.change_annotations or {}).values())
    assert not pending(editor, uri)


async def test_coc_a_symlinked_file_is_written_by_the_server_not_renamed(coc, model, workspace):
    """A rename would replace the link with a copy: the server writes the target instead."""
    real = workspace / "real_calc.py"
    real.write_text(BUGGY)
    link = workspace / "calc.py"
    link.symlink_to(real.name)
    editor = await coc()
    uri = editor.open(link)
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}), reply("done"))
    task = send_command(editor, "agentLsp.runTask", {"task": "fix add", "uri": uri})[1]

    def reviewed():
        return [u for u in editor.client.diagnostics if pending(editor, u)]

    (under,) = await wait_until(reviewed, timeout=15, what="the inline review")
    await execute(editor, "agentLsp.acceptEdit", {"uri": under})
    assert (await asyncio.wait_for(task, 20))["status"] == "done"
    assert editor.renames == [] and link.is_symlink() and real.read_text() == FIXED
