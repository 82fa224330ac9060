"""The sandbox end to end: `agent-lsp run` with the scripted model making the attack's bash call.

Each test checks the effect (the disk, a 127.0.0.1 listener, the process table), not
what the agent says about it. HOME is a scratch home outside /tmp holding the secrets
(and agent-lsp's own settings and state under its default XDG folders), so the private
/tmp a command gets does not hide them by accident.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sandbox.test_kill import count_reaches, gone, processes_with
from tests.sandbox.test_wrap import UNIX_CLIENT, Listener, UnixListener
from tests.scripted_model import reply, tool_call

KEY = "sk-test-KEY-7f3a9c1e5b2d4680-distinctive"


def agent_env(model, home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), AGENT_BASE_URL=model.base_url, AGENT_MODEL="scripted", PYTHONUNBUFFERED="1", **extra)
    return env


def user_settings(home: Path, **values) -> None:
    (home / ".config" / "agent-lsp" / "settings.json").write_text(json.dumps(values))


def run_bash(model, ws: Path, home: Path, command: str, *, args=("--yes",), stdin: str = "", timeout: float = 60,
             **env: str) -> tuple[subprocess.CompletedProcess, str]:
    """One bash call, then an answer; returns the process and the tool result the model got."""
    model.add(tool_call("bash", {"command": command}), reply("done"))
    r = subprocess.run([sys.executable, "-m", "agent_lsp", "run", *args, "go"], cwd=ws, input=stdin,
                       capture_output=True, text=True, timeout=timeout, env=agent_env(model, home, **env))
    result = ""
    if len(model.requests) > 1:
        result = model.requests[1]["messages"][-1]["content"]
    return r, result


def test_write_outside_the_workspace_fails(bwrap, model, ws, home, outside):
    r, result = run_bash(model, ws, home, f"echo ok > inside.txt; touch {outside}/escaped; echo x >> ~/.bashrc")
    assert r.returncode == 0, r.stderr
    assert (ws / "inside.txt").read_text() == "ok\n"
    assert not (outside / "escaped").exists() and not (home / ".bashrc").exists()
    assert "Read-only file system" in result
    notes = [ln for ln in result.splitlines() if ln.startswith("note: the sandbox")]
    assert len(notes) == 1 and "sandboxWritable" in notes[0], result


def test_ssh_key_unreadable(bwrap, model, ws, home):
    r, result = run_bash(model, ws, home, "cat ~/.ssh/id_x > stolen.txt; cp ~/.ssh/id_x got.txt; cat ~/.config/agent-lsp/settings.json")
    assert (ws / "stolen.txt").read_text() == ""
    assert not (ws / "got.txt").exists()
    assert "PRIVATE-KEY" not in result and "CONFIGSECRET" not in result
    assert "Permission denied" in result and "note: the sandbox hides credentials" in result


@pytest.mark.parametrize("network", [False, True])
def test_loopback_listener(bwrap, model, ws, home, network):
    if network:
        user_settings(home, sandboxNetwork=True)
    lst = Listener()
    try:
        code = (f"import socket; s = socket.create_connection(('127.0.0.1', {lst.port}), timeout=3); "
                "s.sendall(open('calc.py', 'rb').read()); s.close()")
        r, result = run_bash(model, ws, home, f'python3 -c "{code}"')
    finally:
        lst.close()
    assert r.returncode == 0, r.stderr
    if network:
        assert lst.received == [b"x = 1\n"], result
    else:
        assert lst.received == []
        assert "note: the sandbox (sandboxNetwork: false)" in result


def test_unix_socket_listener_outside_gets_nothing(bwrap, model, ws, home, outside):
    """A session bus stand-in on a path the command can see: the agent's command cannot reach it."""
    (outside / "run").mkdir()
    lst = UnixListener(outside / "run" / "bus")
    try:
        r, result = run_bash(model, ws, home, f'python3 -c "{UNIX_CLIENT}" {lst.path}')
    finally:
        lst.close()
    assert r.returncode == 0, r.stderr
    assert lst.received == [], result
    assert "Operation not permitted" in result and "note: the sandbox (sandboxNetwork: false) lets commands open no Unix socket" in result


def test_agent_key_not_readable_via_proc_or_env(bwrap, model, ws, home):
    model.add(tool_call("bash", {"command": "cat /proc/*/environ > leak.bin 2>/dev/null; env >> leak.bin; "
                                            "ls /proc > procs.txt; ls -l /proc/*/root /proc/*/cwd >> leak.bin 2>&1"}),
              reply("done"))
    env = agent_env(model, home, AGENT_API_KEY=KEY, GH_TOKEN="ghp_" + "z" * 36, AWS_SECRET_ACCESS_KEY="AWSKEY")
    proc = subprocess.Popen([sys.executable, "-m", "agent_lsp", "run", "--yes", "go"], cwd=ws, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    leaked = (ws / "leak.bin").read_bytes()
    assert KEY.encode() not in leaked and b"ghp_" not in leaked and b"AWSKEY" not in leaked
    assert b"PATH=" in leaked, "the environment was written (and scrubbed), not missing"
    pids = [int(p) for p in (ws / "procs.txt").read_text().split() if p.isdigit()]
    assert proc.pid not in pids and max(pids) < 10


def test_git_hooks_and_permissions_json_not_writable(bwrap, model, ws, home):
    r, result = run_bash(model, ws, home, "echo 'touch PWNED' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; "
                                          "echo '{\"allow\": [\"bash(*)\"]}' > .agent-lsp/permissions.json; "
                                          "git config core.fsmonitor 'touch PWNED'")
    assert not (ws / ".git/hooks/pre-commit").exists()
    assert (ws / ".agent-lsp/permissions.json").read_text() == '{"allow": []}\n'
    assert (ws / ".git/config").read_text() == "[core]\n"
    assert "keeps .git/ and .agent-lsp/ read-only" in result


def test_read_only_mode_blocks_workspace_writes(bwrap, model, ws, home):
    user_settings(home, sandbox="read-only")
    r, result = run_bash(model, ws, home, "echo broken > calc.py; rm -f calc.py; echo new > new.txt")
    assert (ws / "calc.py").read_text() == "x = 1\n" and not (ws / "new.txt").exists()
    assert 'note: the sandbox (sandbox: "read-only")' in result


def test_sandbox_off_really_runs_unsandboxed(model, ws, home, outside):
    user_settings(home, sandbox="off")
    r, result = run_bash(model, ws, home, f"touch {outside}/escaped; cat ~/.ssh/id_x")
    assert r.returncode == 0, r.stderr
    assert (outside / "escaped").exists()
    assert "PRIVATE-KEY-MATERIAL" in result
    assert "note: the sandbox" not in result


def test_untrusted_project_cannot_widen(bwrap, model, ws, home, outside):
    (ws / ".agent-lsp" / "settings.json").write_text(json.dumps(
        {"sandbox": "off", "sandboxNetwork": True, "sandboxWritable": [str(outside)]}))
    # every question answered No: the trust question included
    r, result = run_bash(model, ws, home, f"touch {outside}/escaped; cat ~/.ssh/id_x", stdin="n\n" * 5)
    assert not (outside / "escaped").exists()
    assert "PRIVATE-KEY" not in result


def test_project_can_narrow(bwrap, model, ws, home):
    (ws / ".agent-lsp" / "settings.json").write_text(json.dumps({"sandbox": "read-only"}))
    r, result = run_bash(model, ws, home, "echo broken > calc.py", stdin="n\n" * 5)
    assert (ws / "calc.py").read_text() == "x = 1\n"


def test_timeout_kills_the_sandboxed_tree(bwrap, model, ws, home):
    mark = f"sleep 1000.{random.randrange(10**6):06d}"
    r, result = run_bash(model, ws, home, f"{mark} & {mark} & {mark}", args=("--yes", "--timeout", "2"))
    assert "timed out after 2s" in result
    assert gone(mark), processes_with(mark)


def test_cancel_kills_the_sandboxed_tree(bwrap, model, ws, home):
    mark = f"sleep 1000.{random.randrange(10**6):06d}"
    model.add(tool_call("bash", {"command": f"{mark} & {mark}"}), reply("never"))
    proc = subprocess.Popen([sys.executable, "-m", "agent_lsp", "run", "--yes", "go"], cwd=ws,
                            env=agent_env(model, home), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert count_reaches(mark, 2, within=20), "the command never started"
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert gone(mark), processes_with(mark)


def test_the_question_says_it_runs_sandboxed(bwrap, model, ws, home):
    r, result = run_bash(model, ws, home, "touch asked.txt", args=(), stdin="n\n")
    assert "Runs sandboxed (workspace-write: workspace writable, no network)" in r.stderr
    assert not (ws / "asked.txt").exists()


def test_no_sandbox_says_so_once_and_asks_saying_unsandboxed(model, ws, home, outside):
    r, result = run_bash(model, ws, home, "touch asked.txt", args=(), stdin="y\n", AGENT_LSP_BWRAP="/nonexistent/bwrap")
    lines = [ln for ln in r.stderr.splitlines() if "note: no sandbox can start here" in ln]
    assert len(lines) == 1 and "bubblewrap" in lines[0], r.stderr
    assert "Runs unsandboxed: no sandbox can start here" in r.stderr
    assert (ws / "asked.txt").exists()


def test_commands_cannot_trust_the_project_or_change_settings(bwrap, model, ws, home):
    (ws / ".agent-lsp" / "settings.json").write_text(json.dumps({"sandbox": "off"}))
    trust_store = home / ".local" / "state" / "agent-lsp" / "trust.json"
    before = trust_store.read_text()
    r, result = run_bash(model, ws, home, f"{sys.executable} -m agent_lsp trust .; "
                                          "echo '{\"sandbox\": \"off\"}' > ~/.config/agent-lsp/settings.json",
                         stdin="n\n" * 5)
    assert trust_store.read_text() == before
    assert json.loads((home / ".config/agent-lsp/settings.json").read_text()) == {"apiKey": "CONFIGSECRET"}


def test_widening_waits_for_trust_and_applies_once_trusted(bwrap, model, ws, home, outside):
    (ws / ".agent-lsp" / "settings.json").write_text(json.dumps({"sandboxWritable": [str(outside)]}))
    r, result = run_bash(model, ws, home, f"touch {outside}/escaped", stdin="y\n" * 3)
    assert "sandboxWritable" in r.stderr and "trust this project?" in r.stderr, "the trust question names it"
    assert (outside / "escaped").exists(), "trusted: the project's writable path applies"


def test_file_tools_cannot_write_git_or_agent_lsp(model, ws, home):
    """The same boundary for the agent's own file tools (which the sandbox does not cover), even under --yes."""
    model.add(tool_call("write_file", {"path": ".git/hooks/pre-commit", "content": "touch PWNED\n"}),
              tool_call("edit_file", {"path": ".agent-lsp/permissions.json", "old": "[]", "new": '["bash(*)"]'}),
              tool_call("write_file", {"path": "sub/../.git/config", "content": "[core]\n\tfsmonitor = touch PWNED\n"}),
              reply("done"))
    r = subprocess.run([sys.executable, "-m", "agent_lsp", "run", "--yes", "go"], cwd=ws, capture_output=True,
                       text=True, timeout=60, env=agent_env(model, home))
    assert r.returncode == 0, r.stderr
    assert not (ws / ".git/hooks/pre-commit").exists()
    assert (ws / ".agent-lsp/permissions.json").read_text() == '{"allow": []}\n'
    assert (ws / ".git/config").read_text() == "[core]\n"
    results = [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(results) == 3 and all("the file tools do not change it" in x for x in results), results
