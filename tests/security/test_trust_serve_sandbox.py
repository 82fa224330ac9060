"""The sandbox settings an editor sends: the person's own apply, the workspace folder's only narrow.

The VS Code extension sends `agentLsp.sandbox*` from the person's settings as they are,
and the workspace folder's values apart as `workspaceSettings` (they came with the
repository). Checked by their effect on disk, through a real server and `bash`.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.lsp.conftest import launch  # noqa: F401 (fixture)
from tests.lsp_helpers import execute
from tests.sandbox.conftest import require_sandbox
from tests.scripted_model import reply, tool_call


@pytest.fixture
def outside():
    """A folder outside the workspace and outside /tmp (commands get a private /tmp)."""
    base = Path(tempfile.mkdtemp(prefix="agent-lsp-serve-sbx-", dir="/var/tmp"))
    yield base
    shutil.rmtree(base, ignore_errors=True)


async def run(launch, model, command: str, **init) -> str:  # noqa: F811
    require_sandbox()
    editor = await launch(init_options={"autoApprove": True, **init})
    editor.command_answer = "Deny"  # a trust question is answered No
    model.add(tool_call("bash", {"command": command}), reply("tried"))
    result = await execute(editor, "agentLsp.runTask", {"task": "do it"})
    assert result["status"] == "done", result
    return model.requests[-1]["messages"][-1]["content"]


async def test_the_persons_read_only_sandbox_applies(launch, model, workspace):  # noqa: F811
    out = await run(launch, model, "touch made", sandbox="read-only")
    assert not (workspace / "made").exists(), "a read-only sandbox let a command write"
    assert "sandbox" in out, out


async def test_a_workspace_value_cannot_turn_the_sandbox_off(launch, model, workspace, outside):  # noqa: F811
    await run(launch, model, f"touch {outside}/escaped", workspaceSettings={"sandbox": "off"})
    assert not (outside / "escaped").exists(), "the repository's sandbox \"off\" applied before trust"


async def test_a_workspace_value_cannot_add_writable_paths(launch, model, workspace, outside):  # noqa: F811
    await run(launch, model, f"touch {outside}/escaped", workspaceSettings={"sandboxWritable": [str(outside)]})
    assert not (outside / "escaped").exists(), "the repository's sandboxWritable applied before trust"


async def test_a_workspace_value_may_narrow_the_sandbox(launch, model, workspace):  # noqa: F811
    await run(launch, model, "touch made", workspaceSettings={"sandbox": "read-only"})
    assert not (workspace / "made").exists(), "the repository's read-only (a narrowing) was not applied"


async def test_the_persons_own_writable_path_applies(launch, model, workspace, outside):  # noqa: F811
    await run(launch, model, f"touch {outside}/allowed", sandboxWritable=[str(outside)])
    assert (outside / "allowed").exists(), "the person's own sandboxWritable was not applied"
