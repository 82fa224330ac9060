"""Every tool's results and errors, run through run_tool on a real temp workspace."""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from agent_lsp.agent.tools.interact import NOBODY
from agent_lsp.agent.workspace.scan import rg_binary
from tests.helpers import KEY, RecordingHost, call_tool, make_ctx


def write(root: Path, rel: str, text: str | bytes) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text)
    return p


@pytest.fixture(params=["rg", "python"])
def search_path(request, monkeypatch) -> str:
    """Run a search test once with ripgrep and once with the pure-Python fallback."""
    if request.param == "python":
        monkeypatch.setenv("AGENT_LSP_NO_RG", "1")
        assert rg_binary() is None
    else:
        monkeypatch.delenv("AGENT_LSP_NO_RG", raising=False)
        if rg_binary() is None:
            pytest.fail("ripgrep is a runtime dependency but no rg binary was found")
    return request.param


async def both_paths(monkeypatch, coro_fn):
    """Run `coro_fn()` with rg and without; return (rg_result, python_result)."""
    monkeypatch.delenv("AGENT_LSP_NO_RG", raising=False)
    assert rg_binary() is not None
    with_rg = await coro_fn()
    monkeypatch.setenv("AGENT_LSP_NO_RG", "1")
    without = await coro_fn()
    monkeypatch.delenv("AGENT_LSP_NO_RG")
    return with_rg, without


# ---------------------------------------------------------------- read_file


async def test_read_file_numbers_lines_from_one(workspace):
    write(workspace, "a.py", "alpha\nbeta\ngamma\n")
    out = await call_tool(make_ctx(workspace), "read_file", {"path": "a.py"})
    assert out == "1: alpha\n2: beta\n3: gamma"


async def test_read_file_range_says_where_the_rest_starts(workspace):
    write(workspace, "a.txt", "".join(f"line{i}\n" for i in range(1, 11)))
    ctx = make_ctx(workspace)
    out = await call_tool(ctx, "read_file", {"path": "a.txt", "start": 3, "end": 5})
    assert out.splitlines() == ["3: line3", "4: line4", "5: line5", "...[5 more lines; read them with start=6]"]
    tail = await call_tool(ctx, "read_file", {"path": "a.txt", "start": 6})
    assert tail.splitlines()[0] == "6: line6"
    assert tail.splitlines()[-1] == "10: line10"
    assert "more lines" not in tail


async def test_read_file_pages_a_long_file_and_the_hint_reads_the_rest(workspace):
    write(workspace, "big.txt", "".join(f"row {i}\n" for i in range(1, 5001)))
    ctx = make_ctx(workspace)
    seen: list[int] = []
    start = 1
    for _ in range(10):
        out = await call_tool(ctx, "read_file", {"path": "big.txt", "start": start})
        rows = out.splitlines()
        numbered = [r for r in rows if re.match(r"^\d+: ", r)]
        seen += [int(r.split(":")[0]) for r in numbered]
        assert all(r == f"{int(r.split(':')[0])}: row {int(r.split(':')[0])}" for r in numbered)
        m = re.fullmatch(r"\.\.\.\[(\d+) more lines; read them with start=(\d+)\]", rows[-1])
        if not m:
            break
        assert int(m.group(2)) == seen[-1] + 1
        assert int(m.group(1)) == 5000 - seen[-1]
        start = int(m.group(2))
    assert seen == list(range(1, 5001)), "following the hints must read every line exactly once"
    assert start > 1, "a 5000-line file must not come back in one page"


async def test_read_file_page_is_capped_by_characters_too(workspace):
    write(workspace, "wide.txt", "".join("x" * 200 + "\n" for _ in range(500)))
    out = await call_tool(make_ctx(workspace), "read_file", {"path": "wide.txt"})
    assert len(out) < 20_000
    m = re.search(r"read them with start=(\d+)\]$", out)
    assert m, out[-200:]
    last_shown = int(out.splitlines()[-2].split(":")[0])
    assert int(m.group(1)) == last_shown + 1


async def test_read_file_refuses_binary(workspace):
    write(workspace, "img.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    out = await call_tool(make_ctx(workspace), "read_file", {"path": "img.png"})
    assert out.startswith("error:") and "binary" in out


async def test_read_file_empty_missing_directory_and_past_the_end(workspace):
    write(workspace, "empty.txt", "")
    write(workspace, "two.txt", "a\nb\n")
    (workspace / "dir").mkdir()
    ctx = make_ctx(workspace)
    assert "empty" in await call_tool(ctx, "read_file", {"path": "empty.txt"})
    missing = await call_tool(ctx, "read_file", {"path": "nope.txt"})
    assert missing.startswith("error:") and "not found" in missing
    d = await call_tool(ctx, "read_file", {"path": "dir"})
    assert d.startswith("error:") and "directory" in d
    past = await call_tool(ctx, "read_file", {"path": "two.txt", "start": 9})
    assert "2 lines" in past and "1:" not in past


async def test_read_file_uses_the_hosts_buffer(workspace):
    write(workspace, "a.py", "on disk\n")

    class BufferHost(RecordingHost):
        async def read_text(self, path):
            return "unsaved buffer\n" if path.name == "a.py" else None

    out = await call_tool(make_ctx(workspace, BufferHost()), "read_file", {"path": "a.py"})
    assert out == "1: unsaved buffer"


# ---------------------------------------------------------------- list_files / grep


def build_tree(ws: Path) -> None:
    write(ws, ".gitignore", "build/\n*.log\n!keep.log\n/top.txt\n")
    write(ws, "src/app.py", "import os\nTOKEN = 1  # needle here\n")
    write(ws, "src/util.py", "def helper():\n    return 'needle'\n")
    write(ws, "src/notes.md", "no match in here\n")
    write(ws, "src/deep/er/mod.py", "x = 'needle'\n")
    write(ws, "README", "needle at the top\n")
    write(ws, ".env.example", "NEEDLE=1\nneedle=2\n")
    write(ws, "keep.log", "needle kept although *.log is ignored\n")
    write(ws, "debug.log", "needle ignored\n")
    write(ws, "top.txt", "needle rooted-ignored\n")
    write(ws, "sub/top.txt", "needle not rooted here\n")
    write(ws, "sub/.gitignore", "*.tmp\n")
    write(ws, "sub/a.tmp", "needle ignored by nested gitignore\n")
    write(ws, "a.tmp", "needle not ignored at the root\n")
    write(ws, "build/gen.py", "needle in build\n")
    write(ws, "src/build/gen.py", "needle in nested build\n")
    write(ws, "blob.bin", b"needle\x00\x01\x02binary")
    for noise in (".git", "node_modules", "__pycache__", ".venv", ".pytest_cache", "src/node_modules"):
        write(ws, f"{noise}/x.py", "needle in noise\n")


VISIBLE = sorted([
    ".env.example", ".gitignore", "README", "a.tmp", "blob.bin", "keep.log",
    "src/app.py", "src/deep/er/mod.py", "src/notes.md", "src/util.py",
    "sub/.gitignore", "sub/top.txt",
])


async def test_list_files_honours_gitignore_and_skips_noise(workspace, search_path):
    build_tree(workspace)
    out = await call_tool(make_ctx(workspace), "list_files", {})
    assert out.splitlines() == VISIBLE


async def test_list_files_pattern_and_subfolder(workspace, search_path):
    build_tree(workspace)
    ctx = make_ctx(workspace)
    py = await call_tool(ctx, "list_files", {"pattern": "*.py"})
    assert py.splitlines() == ["src/app.py", "src/deep/er/mod.py", "src/util.py"]
    sub = await call_tool(ctx, "list_files", {"path": "src/deep"})
    assert sub.splitlines() == ["src/deep/er/mod.py"]
    # the root .gitignore applies inside a listed subfolder too ("build/" anywhere)
    src = await call_tool(ctx, "list_files", {"path": "src"})
    assert "src/build/gen.py" not in src and "src/app.py" in src
    none = await call_tool(ctx, "list_files", {"pattern": "*.rs"})
    assert none == "(no matching files)"


async def test_list_files_errors(workspace, search_path):
    write(workspace, "f.txt", "x")
    ctx = make_ctx(workspace)
    missing = await call_tool(ctx, "list_files", {"path": "nope"})
    assert missing.startswith("error:") and "not found" in missing
    f = await call_tool(ctx, "list_files", {"path": "f.txt"})
    assert f.startswith("error:") and "read_file" in f


async def test_list_files_caps_at_500_and_says_how_many_more(workspace, search_path):
    for i in range(537):
        write(workspace, f"many/f{i:04d}.txt", "")
    out = await call_tool(make_ctx(workspace), "list_files", {"path": "many"})
    lines = out.splitlines()
    assert len(lines) == 501
    assert lines[:500] == [f"many/f{i:04d}.txt" for i in range(500)]
    assert "37 more" in lines[-1]


async def test_grep_prints_path_line_text_and_honours_gitignore(workspace, search_path):
    build_tree(workspace)
    out = await call_tool(make_ctx(workspace), "grep", {"regex": "needle"})
    assert out.splitlines() == [
        ".env.example:2: needle=2",
        "README:1: needle at the top",
        "a.tmp:1: needle not ignored at the root",
        "keep.log:1: needle kept although *.log is ignored",
        "src/app.py:2: TOKEN = 1  # needle here",
        "src/deep/er/mod.py:1: x = 'needle'",
        "src/util.py:2: return 'needle'",
        "sub/top.txt:1: needle not rooted here",
    ]


async def test_grep_single_file_subfolder_and_no_match(workspace, search_path):
    build_tree(workspace)
    ctx = make_ctx(workspace)
    assert await call_tool(ctx, "grep", {"regex": r"def \w+", "path": "src/util.py"}) == "src/util.py:1: def helper():"
    assert await call_tool(ctx, "grep", {"regex": "needle", "path": "src/deep"}) == "src/deep/er/mod.py:1: x = 'needle'"
    assert await call_tool(ctx, "grep", {"regex": "zzz_not_there"}) == "(no matches)"
    missing = await call_tool(ctx, "grep", {"regex": "x", "path": "nope"})
    assert missing.startswith("error:") and "not found" in missing


async def test_grep_bad_regex_is_a_message(workspace, search_path):
    write(workspace, "a.py", "x\n")
    ctx = make_ctx(workspace)
    for bad in ("(unclosed", "[a-", "*x"):
        out = await call_tool(ctx, "grep", {"regex": bad})
        assert out.startswith("error: invalid regex"), (bad, out)
    assert (await call_tool(ctx, "grep", {"regex": ""})).startswith("error:")


async def test_grep_caps_at_200_and_says_how_many_more(workspace, search_path):
    write(workspace, "a.txt", "".join(f"hit {i}\n" for i in range(1, 151)))
    write(workspace, "b.txt", "".join(f"hit {i}\n" for i in range(1, 101)))
    out = await call_tool(make_ctx(workspace), "grep", {"regex": "^hit"})
    lines = out.splitlines()
    assert len(lines) == 201
    assert lines[0] == "a.txt:1: hit 1" and lines[149] == "a.txt:150: hit 150"
    assert lines[150] == "b.txt:1: hit 1" and lines[199] == "b.txt:50: hit 50"
    assert "50 more" in lines[-1]


async def test_rg_and_python_paths_agree(workspace, monkeypatch):
    build_tree(workspace)
    write(workspace, "odd name: colon.txt", "needle: in a file with a colon\n")
    write(workspace, "crlf.txt", "first\r\nneedle crlf\r\n")
    write(workspace, "sp ace/x.py", "  needle   indented  \n")
    ctx = make_ctx(workspace)
    for name, args in [
        ("list_files", {}),
        ("list_files", {"pattern": "*.py"}),
        ("list_files", {"path": "src"}),
        ("list_files", {"path": "sub"}),
        ("grep", {"regex": "needle"}),
        ("grep", {"regex": r"(?i)NEEDLE\b"}),
        ("grep", {"regex": "needle", "path": "src"}),
        ("grep", {"regex": "needle", "path": "odd name: colon.txt"}),
        ("grep", {"regex": "^$"}),
    ]:
        with_rg, without = await both_paths(monkeypatch, lambda: call_tool(ctx, name, args))
        assert with_rg == without, (name, args)


# ---------------------------------------------------------------- write_file / edit_file


async def test_write_file_creates_parents_and_counts_bytes(workspace):
    ctx = make_ctx(workspace)
    out = await call_tool(ctx, "write_file", {"path": "deep/er/new.txt", "content": "héllo\n"})
    assert out == "wrote 7 bytes to deep/er/new.txt"
    assert (workspace / "deep/er/new.txt").read_bytes() == "héllo\n".encode()
    out = await call_tool(ctx, "write_file", {"path": "deep/er/new.txt", "content": ""})
    assert out == "wrote 0 bytes to deep/er/new.txt"
    assert (workspace / "deep/er/new.txt").read_bytes() == b""
    (workspace / "adir").mkdir()
    d = await call_tool(ctx, "write_file", {"path": "adir", "content": "x"})
    assert d.startswith("error:") and (workspace / "adir").is_dir()


async def test_write_file_keeps_the_file_mode(workspace):
    script = write(workspace, "run.sh", "#!/bin/sh\necho old\n")
    script.chmod(0o755)
    await call_tool(make_ctx(workspace), "write_file", {"path": "run.sh", "content": "#!/bin/sh\necho new\n"})
    assert script.stat().st_mode & 0o777 == 0o755
    assert "new" in script.read_text()


async def test_edit_file_not_found_ambiguous_and_success(workspace):
    f = write(workspace, "m.py", "def f():\n    return None\n\ndef g():\n    return None\n")
    ctx = make_ctx(workspace)
    out = await call_tool(ctx, "edit_file", {"path": "m.py", "old": "return 42", "new": "x"})
    assert out.startswith("error:") and "not found" in out
    out = await call_tool(ctx, "edit_file", {"path": "m.py", "old": "return None", "new": "return 1"})
    assert out.startswith("error:") and "occurs 2 times" in out and "include more context" in out
    assert f.read_text().count("return None") == 2
    out = await call_tool(ctx, "edit_file", {"path": "m.py", "old": "def g():\n    return None", "new": "def g():\n    return 2"})
    assert out.startswith("ok")
    assert f.read_text() == "def f():\n    return None\n\ndef g():\n    return 2\n"


async def test_edit_file_other_errors(workspace):
    write(workspace, "m.py", "a = 1\n")
    (workspace / "d").mkdir()
    ctx = make_ctx(workspace)
    missing = await call_tool(ctx, "edit_file", {"path": "nope.py", "old": "a", "new": "b"})
    assert missing.startswith("error:") and "not found" in missing and not (workspace / "nope.py").exists()
    assert (await call_tool(ctx, "edit_file", {"path": "d", "old": "a", "new": "b"})).startswith("error:")
    assert (await call_tool(ctx, "edit_file", {"path": "m.py", "old": "", "new": "b"})).startswith("error:")
    assert (await call_tool(ctx, "edit_file", {"path": "m.py", "old": "a = 1", "new": "a = 1"})).startswith("error:")
    write(workspace, "bin.dat", b"\x00\x01a = 1")
    assert "binary" in await call_tool(ctx, "edit_file", {"path": "bin.dat", "old": "a = 1", "new": "b"})
    assert (workspace / "m.py").read_text() == "a = 1\n"


async def test_edit_file_keeps_crlf_line_endings(workspace):
    f = write(workspace, "w.txt", "")
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    out = await call_tool(make_ctx(workspace), "edit_file", {"path": "w.txt", "old": "one\ntwo", "new": "one\n2"})
    assert out.startswith("ok")
    assert f.read_bytes() == b"one\r\n2\r\nthree\r\n"


async def test_edit_rejected_in_review_says_so(workspace):
    f = write(workspace, "m.py", "a = 1\n")
    ctx = make_ctx(workspace, RecordingHost(reject_edits=True))
    out = await call_tool(ctx, "edit_file", {"path": "m.py", "old": "a = 1", "new": "a = 2"})
    assert out.startswith("error:") and "rejected" in out
    assert f.read_text() == "a = 1\n"
    out = await call_tool(ctx, "write_file", {"path": "new.py", "content": "x"})
    assert "rejected" in out and not (workspace / "new.py").exists()


async def test_edit_of_a_file_changed_meanwhile_is_stale(workspace):
    f = write(workspace, "m.py", "a = 1\n")

    class RacingHost(RecordingHost):
        async def apply_edit(self, change):
            f.write_text("a = 1  # changed by someone else\n")
            return await super().apply_edit(change)

    out = await call_tool(make_ctx(workspace, RacingHost()), "edit_file", {"path": "m.py", "old": "a = 1", "new": "a = 2"})
    assert out.startswith("error:") and "read it again" in out.lower()
    assert f.read_text() == "a = 1  # changed by someone else\n"


# ---------------------------------------------------------------- bash


async def test_bash_joins_output_in_order_and_appends_exit(workspace):
    ctx = make_ctx(workspace)
    out = await call_tool(ctx, "bash", {"command": "echo one; echo two >&2; echo three; exit 3"})
    assert out == "one\ntwo\nthree\n[exit 3]"
    assert await call_tool(ctx, "bash", {"command": "true"}) == "[exit 0]"
    assert await call_tool(ctx, "bash", {"command": "printf 'no newline'"}) == "no newline\n[exit 0]"


async def test_bash_runs_in_the_workspace_root(workspace):
    out = await call_tool(make_ctx(workspace), "bash", {"command": "pwd"})
    assert out.splitlines()[0] == str(workspace.resolve())


async def test_bash_is_non_interactive(workspace):
    ctx = make_ctx(workspace)
    out = await call_tool(ctx, "bash", {"command": 'echo "CI=$CI GTP=$GIT_TERMINAL_PROMPT PAGER=$PAGER"; '
                                                   'read -r line; echo "read=$? line=[$line]"; '
                                                   '[ -t 0 ] && echo tty || echo notty'})
    assert "CI=1 GTP=0 PAGER=cat" in out
    assert "read=1 line=[]" in out
    assert "notty" in out
    t0 = time.monotonic()
    out = await call_tool(ctx, "bash", {"command": "cat; echo after-cat"})
    assert "after-cat" in out and time.monotonic() - t0 < 2


async def test_bash_does_not_see_the_api_key(workspace, monkeypatch):
    monkeypatch.setenv("AGENT_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("SOME_OTHER_VAR", "visible")
    # settings carry no key here, so scrubbing cannot hide a leak: the env itself must not hold it
    out = await call_tool(make_ctx(workspace, api_key=""), "bash",
                          {"command": "env; echo A=${AGENT_API_KEY-unset} O=${OPENAI_API_KEY-unset} S=$SOME_OTHER_VAR"})
    assert "A=unset O=unset S=visible" in out
    assert KEY not in out


async def test_bash_timeout_kills_the_whole_process_tree(workspace):
    marker = f"600.{uuid.uuid4().int % 10**9:09d}"
    ctx = make_ctx(workspace, command_timeout=2)
    t0 = time.monotonic()
    out = await call_tool(ctx, "bash", {"command": f"sleep {marker} & echo started; sleep {marker}"})
    elapsed = time.monotonic() - t0
    assert "started" in out
    assert "timed out" in out and "[exit" in out
    assert 1.8 < elapsed < 5, elapsed
    assert not await _still_running(f"sleep {marker}"), "a process of the timed-out command survived"


async def test_bash_background_job_does_not_hold_the_result(workspace):
    marker = f"600.{uuid.uuid4().int % 10**9:09d}"
    ctx = make_ctx(workspace, command_timeout=10)
    t0 = time.monotonic()
    out = await call_tool(ctx, "bash", {"command": f"sleep {marker} & echo quick"})
    assert time.monotonic() - t0 < 3
    assert out == "quick\n[exit 0]"
    assert not await _still_running(f"sleep {marker}")


async def test_bash_clips_huge_output_keeping_head_and_tail(workspace):
    out = await call_tool(make_ctx(workspace), "bash",
                          {"command": "echo FIRSTLINE; seq 1 200000; echo LASTLINE; exit 1"})
    assert out.startswith("FIRSTLINE")
    assert out.endswith("LASTLINE\n[exit 1]")
    assert "cut" in out and len(out) <= 20_000


async def _still_running(pattern: str) -> bool:
    """pgrep -f for up to 1 s (a killed group may take a moment to be reaped)."""
    for _ in range(20):
        r = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
        if r.returncode != 0:
            return False
        await asyncio.sleep(0.05)
    return True


# ---------------------------------------------------------------- ask_user / todo_write


async def test_ask_user_with_and_without_an_answer(workspace):
    host = RecordingHost(answers=["  use the blue one \n", ""])
    ctx = make_ctx(workspace, host)
    assert await call_tool(ctx, "ask_user", {"question": " Which colour? "}) == "use the blue one"
    assert host.questions == ["Which colour?"]
    assert "no answer" in await call_tool(ctx, "ask_user", {"question": "And now?"})
    nobody = await call_tool(ctx, "ask_user", {"question": "Anyone there?"})
    assert nobody == NOBODY and "best judgement" in nobody
    assert (await call_tool(ctx, "ask_user", {"question": "  "})).startswith("error:")
    assert len(host.questions) == 3


async def test_todo_write_renders_the_plan_and_tells_the_host(workspace):
    host = RecordingHost()
    ctx = make_ctx(workspace, host)
    todos = [
        {"content": "read the code", "status": "completed"},
        {"content": " fix the bug ", "status": "in_progress"},
        {"content": "run the tests", "status": "pending"},
    ]
    out = await call_tool(ctx, "todo_write", {"todos": todos})
    assert out == "Plan (1/3 done):\n[x] read the code\n[~] fix the bug\n[ ] run the tests"
    assert ctx.todos == [{"content": "read the code", "status": "completed"},
                         {"content": "fix the bug", "status": "in_progress"},
                         {"content": "run the tests", "status": "pending"}]
    assert host.kinds("todo")[-1].data["todos"] == ctx.todos
    assert await call_tool(ctx, "todo_write", {"todos": []}) == "Plan cleared."
    assert ctx.todos == []


async def test_todo_write_validation(workspace):
    ctx = make_ctx(workspace)
    await call_tool(ctx, "todo_write", {"todos": [{"content": "keep me", "status": "pending"}]})
    for bad, expect in [
        ([{"content": "x", "status": "done"}], "use one of pending, in_progress, completed"),
        ([{"content": "", "status": "pending"}], "content"),
        ([{"status": "pending"}], "content"),
        (["just a string"], "must be an object"),
        ("not a list", "must be an array"),
    ]:
        out = await call_tool(ctx, "todo_write", {"todos": bad})
        assert out.startswith("error:") and expect in out, (bad, out)
    assert ctx.todos == [{"content": "keep me", "status": "pending"}], "a rejected plan must not replace the old one"


async def test_line_numbers_count_newlines_only(workspace, monkeypatch):
    """A form feed or U+2028 inside a line is not a line break (not for rg, editors or edit_file)."""
    write(workspace, "ff.py", "a = 1\x0cb = 2\nc = '\u2028'\nneedle = 3\n")
    ctx = make_ctx(workspace)
    with_rg, without = await both_paths(monkeypatch, lambda: call_tool(ctx, "grep", {"regex": "needle"}))
    assert with_rg == without == "ff.py:3: needle = 3"
    out = await call_tool(ctx, "read_file", {"path": "ff.py"})
    assert out.split("\n") == ["1: a = 1\x0cb = 2", "2: c = '\u2028'", "3: needle = 3"]


async def test_long_lines_are_shown_alike_on_both_paths(workspace, monkeypatch):
    write(workspace, "min.js", "    needle " + "y" * 1000 + " needle\n")
    write(workspace, "wide.txt", "needle " + "é" * 1000 + "\n")
    write(workspace, "edge.txt", "needle" + "z" * 394 + "\nneedle" + "z" * 393 + "\n")
    ctx = make_ctx(workspace)
    with_rg, without = await both_paths(monkeypatch, lambda: call_tool(ctx, "grep", {"regex": "needle"}))
    assert with_rg == without
    assert len(with_rg) < 2_000


@pytest.mark.parametrize("when", ["while_starting", "while_running"])
async def test_bash_cancel_kills_the_whole_process_tree(workspace, when):
    marker = f"600.{uuid.uuid4().int % 10**9:09d}"
    ctx = make_ctx(workspace, command_timeout=60)
    task = asyncio.ensure_future(call_tool(ctx, "bash", {"command": f"sleep {marker} & sleep {marker}; echo never"}))
    for _ in range(2000):  # the moment the process exists: asyncio may still be setting up its pipes
        if subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True).returncode == 0:
            break
        await asyncio.sleep(0.001)
    if when == "while_running":
        await asyncio.sleep(0.3)
    t0 = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - t0 < 1
    assert not await _still_running(f"sleep {marker}")


# ---------------------------------------------------------------- web tools (optional; a local server, no internet)


@pytest.fixture
def web_server(tmp_path):
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    root = tmp_path / "site"
    root.mkdir()
    words = " ".join(f"word{i}" for i in range(4000))  # ~35,000 chars of article text
    (root / "page.html").write_text(
        "<html><head><title>t</title><script>var secret = 'SCRIPT-TEXT';</script></head><body>"
        "<nav>NAV-MENU</nav><main><h1>Title</h1><p>" + words + "</p><p>a &amp; b</p></main>"
        "<footer>FOOTER</footer></body></html>"
    )
    (root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    (root / "plain.txt").write_text("just text\n")

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", words
    server.shutdown()
    server.server_close()


async def test_fetch_url_pages_text_and_refuses_binary(workspace, web_server):
    from agent_lsp.agent.registry import TOOLS

    base, words = web_server
    ctx = make_ctx(workspace, web_tools=True)
    tools = dict(TOOLS)
    first = await call_tool(ctx, "fetch_url", {"url": f"{base}/page.html"}, tools=tools)
    assert "SCRIPT-TEXT" not in first and "NAV-MENU" not in first and "FOOTER" not in first
    assert first.startswith("Title\nword0 word1")
    m = re.search(r"\n\.\.\.\[(\d+) more chars; continue with start=10000\]$", first)
    assert m
    text = first[: m.start()]
    assert len(text) == 10_000
    start = 10_000
    while True:
        page = await call_tool(ctx, "fetch_url", {"url": f"{base}/page.html", "start": start}, tools=tools)
        m = re.search(r"\n\.\.\.\[\d+ more chars; continue with start=(\d+)\]$", page)
        text += page[: m.start()] if m else page
        if not m:
            break
        start = int(m.group(1))
    assert text == "Title\n" + words + "\na & b"
    assert await call_tool(ctx, "fetch_url", {"url": f"{base}/plain.txt"}, tools=tools) == "just text\n"
    assert await call_tool(ctx, "fetch_url", {"url": f"{base}/img.png"}, tools=tools) == "error: image/png is not text"
    missing = await call_tool(ctx, "fetch_url", {"url": f"{base}/nope.html"}, tools=tools)
    assert missing.startswith("error: fetch failed: HTTPStatusError")
    assert (await call_tool(ctx, "fetch_url", {"url": "file:///etc/passwd"}, tools=tools)).startswith(
        "error: url must start with http")


async def test_web_search_without_ddgs_says_how_to_get_it(workspace):
    try:
        import ddgs  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("ddgs is installed; a search would need the internet")
    from agent_lsp.agent.registry import TOOLS

    out = await call_tool(make_ctx(workspace, web_tools=True), "web_search", {"query": "x"}, tools=dict(TOOLS))
    assert out.startswith("error: web search needs the ddgs package")


async def test_grep_with_more_matches_than_rg_output_kept_is_deterministic(workspace, monkeypatch):
    """Past 10,000 matching lines the shown 200 must still be the first by path, every time."""
    for d in ("a", "a-b", "b", "z"):
        for i in range(40):
            write(workspace, f"{d}/f{i:02d}.txt", "hit\n" * 80)  # 4 x 40 x 80 = 12,800 matches
    runs = [await call_tool(make_ctx(workspace), "grep", {"regex": "hit"}) for _ in range(3)]
    assert len(set(runs)) == 1
    rg_out, py_out = await both_paths(monkeypatch, lambda: call_tool(make_ctx(workspace), "grep", {"regex": "hit"}))
    assert rg_out == py_out
    lines = rg_out.splitlines()
    assert lines[0] == "a/f00.txt:1: hit" and lines[199] == "a/f02.txt:40: hit"
    assert lines[-1] == "...and 12600 more matches; narrow the regex or the path"
