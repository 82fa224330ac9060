"""Undo writes only inside the workspace, through temporary files it creates itself, and spares the person's work.

Tasks run through `agent-lsp run` against the scripted model in a git work tree (so the
command's changes are recorded); `agent-lsp undo` takes them back.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import no_violations  # noqa: F401 (autouse fixture)
from tests.scripted_model import reply, tool_call
from tests.security.util import agent, git, no_traceback

BINARY = bytes(range(256)) * 4  # not UTF-8: undo takes its binary path


def repo(ws: Path) -> None:
    (ws / "data.bin").write_bytes(BINARY)
    (ws / "notes.txt").write_text("notes\n")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")


def test_undo_of_a_binary_file_never_follows_a_shipped_symlink(workspace, model, tmp_path):
    repo(workspace)
    victim = tmp_path / "home" / ".bashrc"
    victim.parent.mkdir()
    victim.write_text("# the person's own file\n")
    for name in (".data.bin.agent-lsp-undo", ".data.bin.agent-tmp", ".data.bin.agent-lsp-tmp"):
        os.symlink(victim, workspace / name)  # every fixed name a temp file might have
    model.add(tool_call("bash", {"command": "printf 'overwritten' > data.bin"}), reply("done"))
    r = agent(["run", "--yes", "change data.bin"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    u = agent(["undo"], cwd=workspace, base_url=model.base_url)
    assert u.returncode == 0, u.stderr + u.stdout
    assert (workspace / "data.bin").read_bytes() == BINARY
    assert victim.read_text() == "# the person's own file\n", "undo wrote through a symlink into HOME"
    assert not [p for p in workspace.iterdir() if p.name.endswith(".agent-lsp-tmp") and not p.is_symlink()]


def test_undo_never_writes_outside_the_workspace_through_a_swapped_folder(workspace, model, tmp_path):
    repo(workspace)
    model.add(tool_call("write_file", {"path": "sub/f.txt", "content": "task\n"}), reply("done"))
    r = agent(["run", "--yes", "write sub/f.txt"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("task\n")  # what the task left, so only the folder tells
    (workspace / "sub" / "f.txt").unlink()
    (workspace / "sub").rmdir()
    os.symlink(outside, workspace / "sub")
    u = agent(["undo"], cwd=workspace, base_url=model.base_url)
    no_traceback(u.stderr + u.stdout)
    assert (outside / "f.txt").read_text() == "task\n", "undo deleted a file outside the workspace"
    assert "outside the workspace" in u.stdout + u.stderr


def test_a_temporary_file_left_by_a_kill_is_swept_at_the_next_start(workspace, model):
    (workspace / "f.txt").write_text("old\n")
    # a process killed between writing the temporary file and renaming it (the kill lands on os.replace)
    code = ("import os, signal, sys; from pathlib import Path; from agent_lsp.agent.workspace import textio\n"
            "os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n"
            "textio.write_text_atomic(Path(sys.argv[1]), 'new\\n')\n")
    subprocess.run([sys.executable, "-c", code, str(workspace / "f.txt")], env=os.environ, timeout=30)
    left = [p for p in workspace.iterdir() if p.name != "f.txt"]
    assert left and all(p.name.startswith(".f.txt.") for p in left), "the kill left a recognisable temporary file"
    assert (workspace / "f.txt").read_text() == "old\n"
    model.add(reply("ok"))
    r = agent(["run", "hi"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in workspace.iterdir()) == ["f.txt"], "the leftover was swept"
