"""`agent-lsp doctor`: what editors' health checks show, from the server's own settings.

Run as a person (or `:checkhealth agent-lsp`) runs it: a subprocess, against the
scripted model's `GET /models` and against a port where nothing listens.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SECRET = "sk-doctor-secret-0000-1111"


def doctor(tmp: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "OPENAI_"))}
    return subprocess.run([sys.executable, "-m", "agent_lsp", "doctor", *args], capture_output=True, text=True,
                          timeout=60, env={**base, **env}, cwd=tmp, stdin=subprocess.DEVNULL)


def test_json_names_the_endpoint_and_the_listed_model_never_the_key(model, workspace):
    p = doctor(workspace, "--json", str(workspace), AGENT_BASE_URL=model.base_url, AGENT_MODEL="scripted-model",
               AGENT_API_KEY=SECRET)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["version"] and r["endpoint"]["reachable"] is True and r["endpoint"]["listed"] is True
    assert r["endpoint"]["base_url"] == model.base_url and r["endpoint"]["key_set"] is True
    assert SECRET not in p.stdout + p.stderr


def test_a_model_the_endpoint_does_not_list_is_said_with_what_it_lists(model, workspace):
    p = doctor(workspace, str(workspace), AGENT_BASE_URL=model.base_url, AGENT_MODEL="gpt-nothing")
    assert p.returncode == 0, p.stderr
    assert "the model is NOT listed (it lists: scripted-model)" in p.stdout


def test_an_endpoint_that_does_not_answer_is_one_line_and_exit_1(workspace):
    p = doctor(workspace, AGENT_BASE_URL="http://127.0.0.1:9/v1", AGENT_API_KEY=SECRET)
    assert p.returncode == 1 and "not reachable: ConnectError" in p.stdout and "Traceback" not in p.stderr
    assert SECRET not in p.stdout + p.stderr
    j = doctor(workspace, "--json", AGENT_BASE_URL="http://127.0.0.1:9/v1")
    assert j.returncode == 0 and json.loads(j.stdout)["endpoint"]["reachable"] is False


def test_not_a_folder_is_one_line(workspace):
    p = doctor(workspace, str(workspace / "missing"))
    assert p.returncode == 2 and p.stderr.strip().startswith("agent-lsp: not a folder") and "Traceback" not in p.stderr
