"""No stdin, no traceback: a question with nobody to answer it is a No, said in one line.

`agent-lsp run < /dev/null` (CI, scripts, editors' task runners), stdin a file, stdin
closed: the command asked about does not run, the trust question is declined, and the
run ends normally.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_lsp.agent.policy import settings_files
from tests.helpers import no_violations  # noqa: F401 (autouse fixture)
from tests.scripted_model import reply, tool_call
from tests.security.util import no_traceback, write


def run(ws: Path, base_url: str, stdin, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "AGENT_BASE_URL": base_url, "AGENT_MODEL": "scripted", "PYTHONUNBUFFERED": "1"}
    return subprocess.run([sys.executable, "-m", "agent_lsp", "run", *args], cwd=ws, stdin=stdin, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(params=["devnull", "file", "closed"])
def stdin(request, tmp_path):
    if request.param == "devnull":
        with open(os.devnull) as f:
            yield f
    elif request.param == "file":
        answers = tmp_path / "answers.txt"
        answers.write_text("y\ny\ny\n")  # a file is not a person: still No
        with open(answers) as f:
            yield f
    else:
        yield -1  # closed: started through a shell that closes fd 0 (see _run_with)


def _run_with(ws, base_url, stdin, *args):
    if stdin == -1:  # stdin closed: start through a shell that closes fd 0
        env = {**os.environ, "AGENT_BASE_URL": base_url, "AGENT_MODEL": "scripted", "PYTHONUNBUFFERED": "1"}
        cmd = " ".join([sys.executable, "-m", "agent_lsp", "run", *[f"'{a}'" for a in args]]) + " <&-"
        return subprocess.run(["sh", "-c", cmd], cwd=ws, env=env, capture_output=True, text=True, timeout=60)
    return run(ws, base_url, stdin, *args)


def test_a_command_question_without_stdin_is_a_no_in_one_line(workspace, model, stdin):
    marker = workspace / "ran"
    model.add(tool_call("bash", {"command": f"touch {marker}"}), reply("it was denied"))
    r = _run_with(workspace, model.base_url, stdin, "touch it")
    no_traceback(r.stderr)
    assert r.returncode == 0, r.stderr
    assert not marker.exists()
    lines = [ln for ln in r.stderr.splitlines() if "stdin" in ln and "No" in ln]
    assert len(lines) == 1, r.stderr
    assert "denied" in model.requests[1]["messages"][-1]["content"].lower()


def test_an_edit_and_the_trust_question_without_stdin_are_no(workspace, model, stdin):
    write(settings_files.project_settings_path(workspace), {"diagnosticServers": {"*.py": ["sh", "-c", "touch pwned"]}})
    model.add(tool_call("write_file", {"path": "x.py", "content": "X = 1\n"}), reply("declined"))
    r = _run_with(workspace, model.base_url, stdin, "write x")
    no_traceback(r.stderr)
    assert r.returncode == 0, r.stderr
    assert not (workspace / "x.py").exists() and not (workspace / "pwned").exists()
    assert "[trust]" in r.stderr


def test_yes_still_works_without_stdin(workspace, model):
    model.add(tool_call("bash", {"command": "touch ran"}), reply("ok"))
    with open(os.devnull) as f:
        r = run(workspace, model.base_url, f, "--yes", "touch it")
    assert r.returncode == 0, r.stderr
    assert (workspace / "ran").exists()
