"""diagnosticServers: language servers the agent runs itself, from `agent-lsp run` (real `ruff server`)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from agent_lsp.agent.policy import settings_files
from tests.helpers import no_violations  # noqa: F401 (autouse fixture)
from tests.scripted_model import reply, tool_call
from tests.test_cli import agent

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
needs_ruff = pytest.mark.skipif(RUFF is None, reason="ruff is in the dev extra (pip install -e '.[dev]')")

CALC = "import math\n\n\ndef area(r):\n    return math.pi * r * r\n"


def state_env() -> dict[str, str]:
    return {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"], "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"]}


def user_settings(values: dict) -> None:
    path = settings_files.user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values))


def edit_results(model) -> list[str]:
    msgs = model.requests[-1]["messages"]
    names = {c["id"]: c["function"]["name"] for m in msgs if m["role"] == "assistant" for c in m.get("tool_calls") or []}
    return [m["content"] for m in msgs if m["role"] == "tool" and names.get(m["tool_call_id"]) in ("edit_file", "write_file")]


def children_in(folder: Path) -> list[str]:
    """Processes whose working directory is `folder` (the servers we started there)."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.readlink(f"/proc/{pid}/cwd") == str(folder):
                    found.append(pid)
            except OSError:
                pass
    return found


@needs_ruff
def test_ruff_reports_the_undefined_name_an_edit_introduced(workspace, model):
    (workspace / "calc.py").write_text(CALC)
    user_settings({"diagnosticServers": {"*.py": [RUFF, "server"]}, "diagnosticsTimeout": 20})  # a slow CI start
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "math.pi * r * r", "new": "math.pi * radius * r"}),
        tool_call("edit_file", {"path": "calc.py", "old": "import math\n", "new": "import math\nimport os\n"}),
        tool_call("edit_file", {"path": "calc.py", "old": "radius", "new": "r"}),
        reply("done"),
    )
    r = agent(["run", "--yes", "tweak area"], cwd=workspace, base_url=model.base_url, **state_env())
    assert r.returncode == 0, r.stderr
    first, second, third = edit_results(model)
    assert first.startswith("ok: edited calc.py (line 5 now hold the new text)\nNew problems in calc.py (1 error):\n")
    assert "line 5: error [Ruff F821] Undefined name `radius`" in first
    # the import is new (F401), the undefined name only moved a line down: not new again
    assert "F401" in second and "F821" not in second, second
    assert third.endswith("No new problems in calc.py."), third
    assert (workspace / "calc.py").read_text() == "import math\nimport os\n\n\ndef area(r):\n    return math.pi * r * r\n"
    assert children_in(workspace) == []  # ruff server was shut down with the session


def test_a_server_that_will_not_start_is_a_note_not_a_failed_edit(workspace, model):
    (workspace / "calc.py").write_text(CALC)
    user_settings({"diagnosticServers": {"*.py": ["agent-lsp-no-such-server", "--stdio"], "*.ts": ["tsserver"]}})
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "r * r", "new": "r ** 2"}),
        tool_call("edit_file", {"path": "calc.py", "old": "r ** 2", "new": "r * r"}),
        reply("done"),
    )
    r = agent(["run", "--yes", "square"], cwd=workspace, base_url=model.base_url, **state_env())
    assert r.returncode == 0, r.stderr
    first, second = edit_results(model)
    assert first.startswith("ok: edited calc.py (line 5 now hold the new text)\nnote: the diagnostic server for *.py "
                            "(agent-lsp-no-such-server --stdio) could not start: FileNotFoundError")
    assert second == "ok: edited calc.py (line 5 now hold the new text)"  # one note, then silence
    assert (workspace / "calc.py").read_text() == CALC
    assert r.stderr.count("could not start") == 1  # one log line


def test_a_project_file_runs_no_diagnostic_server_before_trust(workspace, model, tmp_path):
    (workspace / "calc.py").write_text(CALC)
    marker = tmp_path / "server-ran"
    cmd = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    settings_files.project_settings_path(workspace).parent.mkdir()
    settings_files.project_settings_path(workspace).write_text(json.dumps({"diagnosticServers": {"*.py": cmd}}))
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "r * r", "new": "r ** 2"}), reply("done"))
    # --yes approves edits, not a stranger's programs; "n" to the trust question
    r = agent(["run", "--yes", "square"], cwd=workspace, base_url=model.base_url, stdin="n\n", **state_env())
    assert r.returncode == 0, r.stderr
    assert "trust this project? [y/N]" in r.stderr and "ignored diagnosticServers" in r.stderr
    assert "agent-lsp trust" in r.stderr  # says how to trust
    assert edit_results(model) == ["ok: edited calc.py (line 5 now hold the new text)"]
    assert not marker.exists()
    # once trusted, the same file does start it (so the check above could fail)
    t = agent(["trust", str(workspace)], cwd=tmp_path, base_url=model.base_url, **state_env())
    assert t.returncode == 0, t.stderr
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "r ** 2", "new": "r * r"}), reply("done"))
    r = agent(["run", "--yes", "square back"], cwd=workspace, base_url=model.base_url, **state_env())
    assert r.returncode == 0, r.stderr
    assert marker.exists()
    assert "could not start" in edit_results(model)[0]  # it exits at once: a note, and the edit still happened
