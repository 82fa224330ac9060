"""The unified diff shown before an edit: what `diff -u` shows, in the terminal coloured on a TTY."""

from __future__ import annotations

import difflib
import os
import pty
import random
import select
import subprocess
import sys
import time
from pathlib import Path

from agent_lsp.agent.host import FileChange
from agent_lsp.agent.workspace.diffview import colour, unified
from tests.scripted_model import reply, tool_call


def change(before, after, name="f.py"):
    return FileChange("write_file", Path(name), name, before, after)


def test_matches_difflib_unified_on_random_edits():
    rnd = random.Random(7)
    for _ in range(300):
        before = [f"l{rnd.randrange(12)}\n" for _ in range(rnd.randrange(0, 40))]
        after = list(before)
        for _ in range(rnd.randrange(1, 6)):
            op = rnd.choice("idr")
            i = rnd.randrange(len(after) + 1)
            if op == "i":
                after.insert(i, f"new{rnd.randrange(99)}\n")
            elif after and i < len(after):
                if op == "d":
                    del after[i]
                else:
                    after[i] = f"changed{rnd.randrange(99)}\n"
        if after == before or not before:
            continue
        want = "".join(difflib.unified_diff(before, after, "a/f.py", "b/f.py")).rstrip("\n").split("\n")
        want[0], want[1] = "--- a/f.py", "+++ b/f.py"  # difflib adds a trailing space when no date
        assert unified(change("".join(before), "".join(after))).split("\n") == want


def test_new_file_shows_its_first_lines_and_no_final_newline_is_marked():
    text = "".join(f"row {i}\n" for i in range(100))
    out = unified(change(None, text, "new.txt"))
    assert out.startswith("new file: new.txt (100 lines)\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,100 @@\n+row 0\n")
    assert "+row 39" in out and "+row 40" not in out and out.endswith("... (60 more lines)")
    assert unified(change("a\n", "a")).endswith("-a\n+a\n\\ No newline at end of file")


def test_colour_marks_removed_and_added_lines():
    c = colour(unified(change("x = 1\n", "x = 2\n")))
    assert "\x1b[31m-x = 1\x1b[0m" in c and "\x1b[32m+x = 2\x1b[0m" in c and "\x1b[36m@@" in c


def test_terminal_shows_a_coloured_diff_on_a_tty(workspace, model):
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}), reply("ok"))
    master, slave = pty.openpty()
    env = {**os.environ, "AGENT_BASE_URL": model.base_url, "AGENT_MODEL": "scripted"}
    proc = subprocess.Popen([sys.executable, "-m", "agent_lsp", "run", "fix add"], cwd=workspace, env=env,
                            stdin=slave, stderr=slave, stdout=subprocess.PIPE)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 20
    while b"allow? [y/N]" not in seen and time.monotonic() < deadline:
        if select.select([master], [], [], 0.2)[0]:
            seen += os.read(master, 65536)
    os.write(master, b"y\n")
    proc.communicate(timeout=20)
    os.close(master)
    assert b"\x1b[31m-    return a - b\x1b[0m" in seen and b"\x1b[32m+    return a + b\x1b[0m" in seen
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
