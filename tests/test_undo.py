"""Undo a task on disk (the terminal face): edits, created files and, in git, what commands changed.

Each task runs through the real loop against the scripted model; the undo works from
the record the loop left in the (temporary) state dir, like `agent-lsp undo` does.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent_lsp.agent.state import checkpoints
from agent_lsp.terminal.commands import EXIT_NOTHING, EXIT_UNDONE, undo_folder
from tests.helpers import RecordingHost, make_session, no_violations  # noqa: F401
from tests.scripted_model import reply, tool_call

# what the task does: an edit, a new file, and a command that writes, changes, deletes and builds
COMMAND = "echo made > made_by_cmd.txt && echo changed >> notes.txt && rm old.txt && mkdir -p build && echo obj > build/x.o"


def git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=ws,
                          check=True, capture_output=True, text=True).stdout


def tree(ws: Path) -> dict[str, bytes]:
    """Every file under `ws` but .git, with its bytes."""
    return {str(p.relative_to(ws)): p.read_bytes() for p in sorted(ws.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(ws).parts}


def project(ws: Path, *, in_git: bool) -> None:
    (ws / "calc.py").write_bytes("def add(a, b):\r\n    return a - b  # café\r\n".encode())
    (ws / "notes.txt").write_text("notes\n")
    (ws / "old.txt").write_text("old\n")
    (ws / "untracked.txt").write_text("mine, not committed\n")
    (ws / ".gitignore").write_text("build/\n")
    if in_git:
        git(ws, "init", "-q")
        git(ws, "add", "calc.py", "notes.txt", "old.txt", ".gitignore")
        git(ws, "commit", "-qm", "start")


async def run_task(ws: Path, model) -> None:
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        tool_call("write_file", {"path": "pkg/new_module.py", "content": "X = 1\n"}),
        tool_call("bash", {"command": COMMAND}),
        reply("done"),
    )
    session = make_session(ws, model, RecordingHost(), auto_approve=True)
    try:
        assert (await session.run_turn("fix add, add a module, run the script")).status == "done"
    finally:
        await session.client.aclose()


async def test_undo_in_git_restores_edits_created_files_and_what_commands_changed(workspace, model):
    project(workspace, in_git=True)
    before = tree(workspace)
    status, head = git(workspace, "status", "--porcelain"), git(workspace, "rev-parse", "HEAD")
    index = (workspace / ".git" / "index").read_bytes()
    await run_task(workspace, model)
    assert (workspace / "made_by_cmd.txt").exists() and not (workspace / "old.txt").exists()

    code, text = undo_folder(workspace)
    assert code == EXIT_UNDONE, text
    after = tree(workspace)
    assert {k: v for k, v in after.items() if not k.startswith("build/")} == before
    assert after["build/x.o"] == b"obj\n", "an ignored file is not the undo's business"
    assert "restored 5 files" in text and "skipped" not in text and "not covered" not in text
    # git itself saw nothing: no ref moved, the real index is the same, the status is the same
    assert git(workspace, "rev-parse", "HEAD") == head and git(workspace, "stash", "list") == ""
    assert (workspace / ".git" / "index").read_bytes() == index
    assert git(workspace, "status", "--porcelain") == status + "?? build/\n" or \
        git(workspace, "status", "--porcelain") == status

    code, text = undo_folder(workspace)
    assert code == EXIT_NOTHING and text == "nothing to undo: the last task was already undone"


async def test_a_file_changed_after_the_task_is_left_alone_and_named(workspace, model):
    project(workspace, in_git=True)
    await run_task(workspace, model)
    (workspace / "notes.txt").write_text("the person's own words\n")
    code, text = undo_folder(workspace)
    assert code == EXIT_UNDONE
    assert (workspace / "notes.txt").read_text() == "the person's own words\n"
    assert "skipped notes.txt: changed since the task last touched it" in text
    assert (workspace / "calc.py").read_bytes() == "def add(a, b):\r\n    return a - b  # café\r\n".encode()
    assert not (workspace / "made_by_cmd.txt").exists() and (workspace / "old.txt").read_text() == "old\n"


async def test_outside_git_edits_are_undone_and_commands_are_said_not_covered(workspace, model):
    project(workspace, in_git=False)
    await run_task(workspace, model)
    code, text = undo_folder(workspace)
    assert code == EXIT_UNDONE
    assert (workspace / "calc.py").read_bytes().startswith(b"def add(a, b):\r\n    return a - b")
    assert not (workspace / "pkg" / "new_module.py").exists()
    assert (workspace / "made_by_cmd.txt").exists(), "a command's file outside git is not known"
    assert "not covered: 1 command ran outside a git work tree" in text


async def test_a_task_that_changed_nothing_has_nothing_to_undo(workspace, model):
    assert undo_folder(workspace) == (EXIT_NOTHING, "nothing to undo: no task has run here yet")
    model.add(reply("just talking"))
    session = make_session(workspace, model, RecordingHost())
    await session.run_turn("hi")
    await session.client.aclose()
    assert undo_folder(workspace) == (EXIT_NOTHING, "nothing to undo: the last task changed no files")


async def test_a_file_someone_changed_between_the_tasks_steps_is_not_restored(workspace, model):
    """The task wrote it, the person changed it (while answering a question), a command wrote it
    again: restoring the task's "before" would throw the person's version away unseen."""
    project(workspace, in_git=True)

    class TypingHost(RecordingHost):
        async def ask_user(self, question):
            (workspace / "notes.txt").write_text("the person's version\n")
            return "go on"

    model.add(
        tool_call("write_file", {"path": "notes.txt", "content": "agent 1\n"}),
        tool_call("ask_user", {"question": "ok?"}),
        tool_call("bash", {"command": "echo agent 2 > notes.txt"}),
        reply("done"),
    )
    session = make_session(workspace, model, TypingHost(), auto_approve=True)
    await session.run_turn("go")
    await session.client.aclose()
    record = checkpoints.TaskChanges.load(workspace)
    assert record.files[workspace / "notes.txt"].conflict == checkpoints.CONFLICT
    code, text = undo_folder(workspace)
    assert (workspace / "notes.txt").read_text() == "agent 2\n"
    assert f"skipped notes.txt: {checkpoints.CONFLICT}" in text


def test_agent_lsp_undo_and_chat_slash_undo(workspace, model):
    from tests.test_cli import agent

    project(workspace, in_git=True)
    before = tree(workspace)
    model.add(tool_call("bash", {"command": "echo x > cmd.txt"}), reply("ok"))
    r = agent(["run", "--yes", "make cmd.txt"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0 and (workspace / "cmd.txt").exists(), r.stderr
    r = agent(["undo"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0 and "restored cmd.txt" in r.stdout, r.stdout + r.stderr
    assert tree(workspace) == before
    r = agent(["undo"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 1 and "nothing to undo" in r.stdout

    model.add(tool_call("write_file", {"path": "chat.txt", "content": "hi\n"}), reply("wrote it"))
    r = agent(["chat", "--yes"], cwd=workspace, base_url=model.base_url, stdin="write chat.txt\n/undo\n/undo\n")
    assert r.returncode == 0, r.stderr
    assert "restored chat.txt" in r.stderr and "nothing to undo: the last task was already undone" in r.stderr
    assert not (workspace / "chat.txt").exists()
