"""agent-lsp's own git calls never run what a repository's .git/config or .gitattributes names.

The repository sets core.fsmonitor, a filter driver (clean/smudge/process) selected by
.gitattributes, a diff driver and textconv, a pager, an alias, an `include` of another
config, and a post-index-change hook: each would create a marker file. Tasks run through
`agent-lsp run` (undo snapshots around the command, line diffs of the edit) and
`agent-lsp undo`; no marker may appear.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers import no_violations  # noqa: F401 (autouse fixture)
from tests.scripted_model import reply, tool_call
from tests.security.util import agent, git, script


def hostile_repo(ws: Path, marks: Path) -> None:
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (ws / "notes.txt").write_text("notes\n")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")
    cfg = ws / ".git" / "config"
    include = marks.parent / "included.cfg"
    include.write_text(f'[filter "inc"]\n\tclean = "touch {marks}/include-clean; cat"\n')
    with cfg.open("a") as f:
        f.write(f'''[core]
\tfsmonitor = "touch {marks}/fsmonitor; echo"
\tpager = "touch {marks}/pager; cat"
[filter "evil"]
\tclean = "touch {marks}/clean; cat"
\tsmudge = "touch {marks}/smudge; cat"
\tprocess = "touch {marks}/process"
\trequired = true
[diff "evil"]
\ttextconv = "touch {marks}/textconv; cat"
\tcommand = "touch {marks}/diff-command"
[alias]
\tadd = "!touch {marks}/alias"
\tdiff = "!touch {marks}/alias"
[include]
\tpath = {include}
''')
    (ws / ".gitattributes").write_text("* filter=evil diff=evil\nnotes.txt filter=inc\n")
    for hook in ("post-index-change", "pre-commit", "post-checkout", "reference-transaction"):
        script(ws / ".git" / "hooks" / hook, f"touch {marks}/hook-{hook}")


def test_snapshots_undo_and_diffs_ignore_a_hostile_git_config(workspace, model, tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    hostile_repo(workspace, marks)
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        tool_call("bash", {"command": "echo changed >> notes.txt && echo new > new.txt"}),
        reply("done"),
    )
    # the line diff's scratch folder inside the repository: its config would apply there too
    tmpdir = workspace / "scratch"
    tmpdir.mkdir()
    r = agent(["run", "--yes", "fix and run"], cwd=workspace, base_url=model.base_url, TMPDIR=str(tmpdir))
    assert r.returncode == 0, r.stderr
    assert (workspace / "new.txt").exists()
    u = agent(["undo"], cwd=workspace, base_url=model.base_url, TMPDIR=str(tmpdir))
    assert u.returncode == 0, u.stderr
    assert "restored" in u.stdout and not (workspace / "new.txt").exists(), u.stdout
    assert (workspace / "notes.txt").read_text() == "notes\n", "the snapshot held the file's own bytes"
    assert sorted(os.listdir(marks)) == [], "a program the repository configured ran"
