"""acpc 0.1.0, a thin ACP command-line client nobody here wrote (built on SDK 0.8.1), as a person runs it.

`--model` (session/set_model), `--mode` (session/set_mode) and `-s SESSION` (session/load)
must work against agent-lsp, and the mode must show in what happens, not only in a
label: with Read only nothing is written although acpc approves everything, with Accept
edits the edit lands although acpc denies every question. Every message the agent sent
is checked against the pinned SDK's schema afterwards.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.acp_clients.real_clients import ACPC, agent_command, check_traffic, person_env, require
from tests.helpers import no_violations  # noqa: F401  (autouse fixture)
from tests.scripted_model import MODEL_ID, reply, tool_call

pytestmark = pytest.mark.timeout(120)
KEY = "sk-test-acpc-KEY-93d1c0ffee42"


@pytest.fixture
def acpc(tmp_path: Path, workspace: Path, model):
    """`run(log, *args)` -> CompletedProcess of `acpc prompt agent-lsp ARGS` in `workspace`."""
    require(ACPC, "acpc 0.1.0")
    home = tmp_path / "home"
    env = person_env(home, model.base_url, KEY)

    def run(log: Path, *args: str) -> subprocess.CompletedProcess[str]:
        agents = home / ".config" / "acpc" / "agents"
        agents.mkdir(parents=True, exist_ok=True)
        command = " ".join(f"'{part}'" for part in agent_command(log))
        (agents / "agent-lsp.toml").write_text(
            'identity = "agent-lsp"\nname = "agent-lsp"\nauthor = "tests"\n'
            f'run_command = "{command}"\ninstall_command = "true"\n')
        return subprocess.run([str(ACPC), "prompt", "agent-lsp", *args], cwd=workspace, env=env,
                              capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)

    return run


def session_of(stderr: str) -> str:
    m = re.search(r"^\[acpc\] session: (\S+)|^session: (\S+)", stderr, re.M) or re.search(r"session: (\S+)", stderr)
    assert m, stderr
    return next(g for g in m.groups() if g)


def test_model_mode_and_resume_with_acpc(acpc, workspace: Path, model, tmp_path: Path):
    model.add(
        tool_call("write_file", {"path": "ro.txt", "content": "no\n"}),
        reply("Read only: I wrote nothing."),
        tool_call("write_file", {"path": "ae.txt", "content": "yes\n"}),
        reply("You first asked to write ro.txt; ae.txt is written."),
    )
    log1 = tmp_path / "tap1.log"
    first = acpc(log1, "write ro.txt", "--model", MODEL_ID, "--mode", "read-only", "--permissions", "all")
    assert first.returncode == 0, first.stderr
    assert "Method not found" not in first.stderr and "failed to set" not in first.stderr, first.stderr
    assert "Read only: I wrote nothing." in first.stdout
    assert not (workspace / "ro.txt").exists()  # acpc would have approved it: the mode said no
    assert "permission:" not in first.stderr  # nothing was asked
    assert [r["model"] for r in model.requests] == [MODEL_ID, MODEL_ID]  # the model acpc chose
    sid = session_of(first.stderr)

    log2 = tmp_path / "tap2.log"
    second = acpc(log2, "write ae.txt", "-s", sid, "--mode", "accept-edits", "--permissions", "none")
    assert second.returncode == 0, second.stderr
    assert "failed to load" not in second.stderr and "failed to set" not in second.stderr, second.stderr
    assert (workspace / "ae.txt").read_text() == "yes\n"  # acpc denies every question: none was asked
    sent = model.requests[-2]["messages"]
    assert sent[1]["content"] == "write ro.txt" and sent[-1]["content"] == "write ae.txt"  # the loaded session
    assert "You first asked" in second.stdout

    for log in (log1, log2):
        traffic = check_traffic(log)
        assert traffic.problems == [], traffic.problems
        assert traffic.client_errors == [], traffic.client_errors
        assert KEY not in log.read_text()
