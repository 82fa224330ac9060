"""The terminal face, run as a real subprocess against the scripted model."""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_lsp.terminal.demo import FIZZBUZZ as DEMO_FIZZBUZZ
from tests.helpers import KEY, assert_requests_extend, no_violations  # noqa: F401 (autouse fixture)
from tests.scripted_model import ScriptedModel, call, reply, tool_call, tool_calls

PY = shlex.quote(sys.executable)


def agent(args: list[str], *, cwd: Path, base_url: str, stdin: str = "", timeout: float = 30,
          **env: str) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "AGENT_BASE_URL": base_url, "AGENT_MODEL": "scripted", "PYTHONUNBUFFERED": "1", **env}
    return subprocess.run([sys.executable, "-m", "agent_lsp", *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=timeout, env=full_env)


@pytest.fixture
def fix_ws(workspace: Path) -> Path:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return workspace


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- run


def test_run_traces_on_stderr_answers_on_stdout(fix_ws, model):
    long_new = "def add(a, b):\n    # " + "a very long explanation of the fix " * 5 + "\n    return a + b\n"
    model.add(
        tool_call("read_file", {"path": "calc.py"}),
        tool_call("write_file", {"path": "calc.py", "content": long_new}),
        reply("Fixed add: it subtracted instead of adding."),
    )
    r = agent(["run", "--yes", "fix add"], cwd=fix_ws, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Fixed add: it subtracted instead of adding.\n"
    traces = [ln for ln in r.stderr.splitlines() if ln.startswith("→ ")]
    assert traces[0] == '→ read_file({"path": "calc.py"})'
    m = re.fullmatch(r"→ write_file\((.*)\)", traces[1])
    assert m and len(m.group(1)) == 80 and m.group(1).endswith("…")
    assert "→" not in r.stdout and "Fixed add" not in r.stderr
    assert (fix_ws / "calc.py").read_text() == long_new
    assert model.violations == []
    assert_requests_extend(model.requests)


def test_run_exits_non_zero_on_error_and_never_prints_the_key(fix_ws):
    with ScriptedModel(require_key=KEY) as model:
        model.add({"status": 400, "body": f'{{"error": {{"message": "bad request from key {KEY}"}}}}'})
        r = agent(["run", "--yes", "fix add"], cwd=fix_ws, base_url=model.base_url, AGENT_API_KEY=KEY)
        assert model.headers[0]["authorization"] == f"Bearer {KEY}"
    assert r.returncode not in (0, 3)
    assert "HTTP 400" in r.stderr and "[redacted]" in r.stderr
    assert KEY not in r.stderr + r.stdout
    errors = [ln for ln in r.stderr.splitlines() if "HTTP 400" in ln]
    assert len(errors) == 1 and len(errors[0]) < 500, "one clear line"


def test_run_openai_key_falls_back_and_flags_override_env(fix_ws):
    with ScriptedModel(require_key=KEY) as model:
        model.add(reply("hello"))
        r = agent(["run", "--model", "from-flag", "say hello"], cwd=fix_ws, base_url=model.base_url,
                  OPENAI_API_KEY=KEY, AGENT_MODEL="from-env")
        assert r.returncode == 0, r.stderr
        assert model.requests[0]["model"] == "from-flag"
        assert model.violations == []


def test_run_exits_non_zero_at_the_step_limit(fix_ws, model):
    model.add(tool_call("read_file", {"path": "calc.py"}), tool_call("read_file", {"path": "calc.py"}),
              reply("Stopped: I only read calc.py."))
    r = agent(["run", "--max-steps", "2", "loop"], cwd=fix_ws, base_url=model.base_url)
    assert r.returncode == 3
    assert "Stopped: I only read calc.py." in r.stdout
    assert "step limit" in r.stderr
    assert "tools" not in model.requests[-1]
    assert model.violations == []


@pytest.mark.parametrize("answer, applied", [("n\n", False), ("y\n", True), ("", False)], ids=["no", "yes", "eof"])
def test_run_asks_before_an_edit(fix_ws, model, answer, applied):
    before = (fix_ws / "calc.py").read_text()
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        reply("done" if applied else "You declined; change `a - b` to `a + b` yourself."),
    )
    r = agent(["run", "fix add"], cwd=fix_ws, base_url=model.base_url, stdin=answer)
    assert r.returncode == 0, r.stderr
    assert "allow? [y/N]" in r.stderr
    # the unified diff of the edit, not only its new lines (no colours: stderr is not a TTY)
    assert "[edit_file] calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n" \
           "-    return a - b\n+    return a + b\nallow? [y/N]" in r.stderr
    assert "\x1b[" not in r.stderr
    after = (fix_ws / "calc.py").read_text()
    if applied:
        assert after == "def add(a, b):\n    return a + b\n"
        assert model.requests[1]["messages"][-1]["content"].startswith("ok")
    else:
        assert after == before
        assert model.requests[1]["messages"][-1]["content"].startswith(
            "error: the user rejected this edit in review; calc.py is unchanged")
    assert model.violations == []


def test_run_asks_before_a_command_and_ask_user_reads_stdin(fix_ws, model):
    model.add(
        tool_calls(call("ask_user", {"question": "Which name?"}), call("bash", {"command": "echo hi > ran.txt"})),
        reply("ok"),
    )
    r = agent(["run", "go"], cwd=fix_ws, base_url=model.base_url, stdin="calc2\ny\n")
    assert r.returncode == 0, r.stderr
    assert "[?] Which name?" in r.stderr and "[bash] echo hi > ran.txt" in r.stderr
    assert model.requests[1]["messages"][-2:][0]["content"] == "calc2"
    assert (fix_ws / "ran.txt").read_text() == "hi\n"


def test_run_with_yes_ask_user_gets_no_answer(fix_ws, model):
    model.add(tool_call("ask_user", {"question": "Which name?"}), reply("I picked calc2."))
    r = agent(["run", "--yes", "go"], cwd=fix_ws, base_url=model.base_url)
    assert r.returncode == 0
    assert "best judgement" in model.requests[1]["messages"][-1]["content"]


def test_run_in_another_directory_and_a_missing_one(fix_ws, model, tmp_path):
    model.add(tool_call("list_files", {}), reply("one file"))
    r = agent(["run", "-C", str(fix_ws), "list"], cwd=tmp_path, base_url=model.base_url)
    assert r.returncode == 0
    assert model.requests[1]["messages"][-1]["content"] == "calc.py"
    r = agent(["run", "-C", str(tmp_path / "nope"), "list"], cwd=tmp_path, base_url=model.base_url)
    assert r.returncode != 0 and "not a folder" in r.stderr


# ---------------------------------------------------------------- chat


def test_chat_carries_history_between_turns(fix_ws, model):
    model.add(tool_call("read_file", {"path": "calc.py"}), reply("add subtracts."), reply("You asked about add."))
    r = agent(["chat"], cwd=fix_ws, base_url=model.base_url, stdin="what does add do?\n\nwhat did I ask?\n")
    assert r.returncode == 0, r.stderr
    assert "add subtracts." in r.stdout and "You asked about add." in r.stdout
    assert len(model.requests) == 3
    second_turn = model.requests[2]["messages"]
    assert [m["content"] for m in second_turn if m["role"] == "user"] == ["what does add do?", "what did I ask?"]
    assert_requests_extend(model.requests)
    assert model.violations == []


def test_chat_goes_on_after_an_error_and_new_starts_over(fix_ws, model):
    model.add({"status": 400, "error": {"message": "nope"}}, reply("second"), reply("third"))
    r = agent(["chat"], cwd=fix_ws, base_url=model.base_url, stdin="first\nsecond\n/new\nthird\n/exit\nignored\n")
    assert r.returncode == 0
    assert "the session goes on" in r.stderr
    assert len([ln for ln in r.stderr.splitlines() if "HTTP 400" in ln]) == 1, "one clear line per error"
    assert "second" in r.stdout and "third" in r.stdout
    assert len(model.requests) == 3
    assert [m["role"] for m in model.requests[2]["messages"]] == ["system", "user"], "/new must forget the history"
    assert model.violations == []


def test_chat_asks_with_stdin_shared_between_prompt_and_confirmation(fix_ws, model):
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}), reply("fixed"))
    r = agent(["chat"], cwd=fix_ws, base_url=model.base_url, stdin="fix add\ny\n")
    assert r.returncode == 0, r.stderr
    assert (fix_ws / "calc.py").read_text().endswith("return a + b\n")


# ---------------------------------------------------------------- demo


def test_demo_without_an_endpoint_says_how_to_point_it(tmp_path):
    t0 = time.monotonic()
    r = agent(["demo"], cwd=tmp_path, base_url=f"http://127.0.0.1:{free_port()}/v1", timeout=20)
    assert time.monotonic() - t0 < 10
    assert r.returncode != 0
    for needle in ("OpenAI", "OPENAI_API_KEY", "Ollama", "11434", "vLLM", "llama.cpp", "llama-server",
                   "AGENT_BASE_URL", "AGENT_MODEL"):
        assert needle in r.stderr, needle


def test_demo_runs_the_fix_against_the_endpoint(tmp_path, model):
    run_tests = f"{PY} -m pytest -q -p no:cacheprovider test_fizzbuzz.py"
    model.add(
        tool_call("bash", {"command": run_tests}),
        tool_call("edit_file", {"path": "fizzbuzz.py", "old": "range(1, n)", "new": "range(1, n + 1)"}),
        tool_call("bash", {"command": run_tests}),
        reply("Fixed the off-by-one; the tests pass."),
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    r = agent(["demo", "--yes"], cwd=tmp_path, base_url=model.base_url, TMPDIR=str(scratch), timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Fixed the off-by-one" in r.stdout
    (folder,) = list(scratch.glob("agent-lsp-demo-*"))
    assert "range(1, n + 1)" in (folder / "fizzbuzz.py").read_text()
    assert DEMO_FIZZBUZZ.replace("range(1, n)", "range(1, n + 1)") == (folder / "fizzbuzz.py").read_text()
    first_run, second_run = (model.requests[1]["messages"][-1]["content"], model.requests[3]["messages"][-1]["content"])
    assert "failed" in first_run and first_run.endswith("[exit 1]")
    assert "2 passed" in second_run and second_run.endswith("[exit 0]")
    assert model.requests[0]["messages"][1]["content"] == "run the tests, fix the bug, run them again"
    assert model.violations == []


def test_ctrl_c_cancels_the_turn_not_the_chat(fix_ws, model):
    import signal

    model.add(reply("thinking very slowly", stall=30), reply("the second turn works"))
    env = {**os.environ, "AGENT_BASE_URL": model.base_url, "AGENT_MODEL": "scripted", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "agent_lsp", "chat"], cwd=fix_ws, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write("think hard\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 10
        while not model.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert model.requests, "the first turn never reached the model"
        time.sleep(0.2)  # let the stream start
        proc.send_signal(signal.SIGINT)
        assert model.wait_for_disconnect(5), "Ctrl-C did not abort the model call"
        out, err = proc.communicate("again\n", timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "turn cancelled" in err
    assert "the second turn works" in out
    assert len(model.requests) == 2
    assert [m["content"] for m in model.requests[1]["messages"] if m["role"] == "user"] == ["think hard", "again"]


def test_ctrl_c_during_run_exits_130(fix_ws, model):
    import signal

    model.add(reply("slow", stall=30))
    env = {**os.environ, "AGENT_BASE_URL": model.base_url, "AGENT_MODEL": "scripted"}
    proc = subprocess.Popen([sys.executable, "-m", "agent_lsp", "run", "think"], cwd=fix_ws, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while not model.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130


def test_version_flag_prints_the_package_version(tmp_path):
    from agent_lsp import __version__

    done = subprocess.run([sys.executable, "-m", "agent_lsp", "--version"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0
    assert done.stdout.strip() == f"agent-lsp {__version__}"
