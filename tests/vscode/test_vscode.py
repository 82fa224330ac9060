"""The VS Code extension (vscode-client/): its unit tests, and end to end in real VS Code
(code-server 4.100.3 + Chromium), driven by tests/vscode/drive.mjs through playwright-core.

- test_extension_unit_tests: `npm test` in vscode-client/ (tsc + node --test).
- test_fix_with_agent_in_vscode[diff]: a person's path. Set the API key; open a JSON file
  whose squiggle comes from VS Code's own JSON validator (not from agent-lsp); Ctrl+. →
  "Fix with agent"; answer the agent's question in the input box; Accept the edit in the
  diff review; Allow the check command; read the answer in the Agent panel; then ask a
  second task in the panel and Cancel it there. The file on disk must hold the fix, the
  check command must have seen the fixed file (its output reached the model), the key
  must have reached the model but never settings.json, and no tab may be left dirty.
- [refactorPreview]: the same through the plain LSP path (VS Code's Refactor Preview),
  started from the palette (Agent: Fix This, Agent: Run Task…, Agent: Cancel).
- test_reject_in_vscode: Reject in the panel; the file stays as it was, the agent is told.
- test_no_python_in_vscode: no Python >= 3.11 anywhere; one notification with the fix.
- test_models_and_past_sessions_in_vscode: importStrategy fromEnvironment (this checkout's
  agent-lsp in .venv); Agent: Select Model over the scripted model's /v1/models; the step
  in the status bar; Agent: Past Sessions… reopens a session read-only; Continue in New
  Session gives the new one its summary.

The model is the project's scripted model server. The fix flow installs ONLY the built
.vsix: the server is the one it carries (bundled/libs), run by a fresh venv's Python with
no agent-lsp, on a PATH without this checkout's .venv or any agent-lsp. The reject test
runs this checkout's server (`agentLsp.server.command`). Needs .ci/install-editors.sh (code-server,
chromium, playwright-core); without them the tests are skipped with the reason, unless
$CI is set, where they fail. The extension is built (npm ci + npm run package in
vscode-client/) when dist/agent-lsp.vsix is missing or older than its sources.
Screenshots of every step: tests/artifacts/vscode/<scenario>/.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "vscode-client"
VSIX = CLIENT / "dist" / "agent-lsp.vsix"
ARTIFACTS = ROOT / "tests" / "artifacts" / "vscode"
TOOLS = Path(os.environ.get("AGENT_LSP_TOOLS", Path.home() / ".cache" / "agent-lsp-tools"))

API_KEY = "sk-vscode-e2e-5c1f0a9d7e3b"
BROKEN = '{\n  "name": "demo",\n  "retries": 3\n  "timeout": 30\n}\n'
FIXED = '{\n  "name": "demo",\n  "retries": 3,\n  "timeout": 30\n}\n'
CHECK = "python3 -m json.tool config.json > /dev/null && echo config.json is valid JSON"
ANSWER = (
    "Fixed **config.json**: the comma after `\"retries\": 3` was missing, so the JSON "
    "parser stopped at `\"timeout\"`. `python3 -m json.tool` now accepts the file."
)
QUESTION = "Should I also sort the keys alphabetically?"
REPLY = "no, only fix the comma"
SLOW = "sleep 45 && echo slow check done"


def _plan(*states: str) -> dict:
    steps = ["Add the missing comma in config.json", "Check that config.json parses"]
    return {"name": "todo_write", "arguments": {"todos": [{"content": c, "status": st} for c, st in zip(steps, states)]}}


SCRIPT = [
    # task 1: the quick fix
    {
        "content": "A comma is missing after `\"retries\": 3`. I'll add it, then check that the file parses.",
        "tool_calls": [_plan("in_progress", "pending")],
    },
    {"tool_calls": [{"name": "ask_user", "arguments": {"question": QUESTION}}]},
    {"tool_calls": [{"name": "edit_file", "arguments": {"path": "config.json", "old": '"retries": 3\n', "new": '"retries": 3,\n'}}]},
    {"tool_calls": [_plan("completed", "in_progress"), {"name": "bash", "arguments": {"command": CHECK}}]},
    {"tool_calls": [_plan("completed", "completed")]},
    {"content": ANSWER},
    # task 2, asked in the panel and cancelled from it while its command runs
    {"tool_calls": [{"name": "bash", "arguments": {"command": SLOW}}]},
]


def _tool_env() -> dict[str, str]:
    env: dict[str, str] = {}
    env_sh = TOOLS / "env.sh"
    if env_sh.exists():
        for line in env_sh.read_text().splitlines():
            if line.startswith("export ") and "=" in line:
                name, _, value = line[len("export "):].partition("=")
                env[name] = value
    for name in ("CODE_SERVER", "PLAYWRIGHT_CORE_DIR", "CHROMIUM"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    return env


def _missing_tools(env: dict[str, str]) -> list[str]:
    missing = []
    if not shutil.which("node"):
        missing.append("node")
    if not shutil.which("npm"):
        missing.append("npm")
    cs = env.get("CODE_SERVER")
    if not cs or not Path(cs).exists():
        missing.append("code-server")
    pw = env.get("PLAYWRIGHT_CORE_DIR")
    if not pw or not (Path(pw) / "playwright-core").is_dir():
        missing.append("playwright-core")
    if not Path(env.get("CHROMIUM", "/usr/bin/chromium")).exists():
        missing.append("chromium")
    return missing


def _newest_source_mtime() -> float:
    paths = [CLIENT / "package.json", CLIENT / "package-lock.json", CLIENT / "esbuild.mjs", CLIENT / "README.md",
             CLIENT / ".vscodeignore", CLIENT / "bundled" / "requirements.txt", ROOT / "pyproject.toml"]
    for folder in ("src", "media", "scripts"):
        paths += [p for p in (CLIENT / folder).rglob("*") if p.is_file()]
    paths += list((ROOT / "agent_lsp").rglob("*.py"))  # the .vsix carries the server
    return max(p.stat().st_mtime for p in paths if p.exists())


def _publish(src: Path, dest: Path) -> None:
    """Copy one run's artifacts to tests/artifacts/vscode/<scenario>/ (best effort: parallel runs
    of the same scenario replace each other's copy, never the files a running test reads)."""
    try:
        staging = dest.with_name(f".{dest.name}.{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(src, staging)
        shutil.rmtree(dest, ignore_errors=True)
        staging.rename(dest)
    except OSError as e:
        print(f"could not publish the artifacts to {dest}: {e}")


@pytest.fixture
def artifacts_dir(tmp_path: Path):
    """artifacts_dir(scenario): a private folder for this run's screenshots and logs, copied to
    tests/artifacts/vscode/<scenario>/ when the test ends (passed or failed)."""
    made: list[tuple[Path, str]] = []

    def make(scenario: str) -> Path:
        d = tmp_path / "artifacts"
        d.mkdir()
        made.append((d, scenario))
        return d

    yield make
    for d, scenario in made:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        _publish(d, ARTIFACTS / scenario)


NPM_ENV = {"npm_config_fund": "false", "npm_config_audit": "false", "npm_config_update_notifier": "false"}


class _BuildLock:
    """Keeps parallel test runs from installing, building or copying the extension at once."""

    def __enter__(self):
        lock = CLIENT / "dist" / ".build.lock"
        lock.parent.mkdir(exist_ok=True)
        self.fh = lock.open("w")
        fcntl.flock(self.fh, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        self.fh.close()


def _npm(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run npm in vscode-client/ (npm ci first when node_modules is missing); caller holds the lock."""
    env = {**os.environ, **NPM_ENV}
    if not (CLIENT / "node_modules" / ".package-lock.json").exists():
        subprocess.run(["npm", "ci"], cwd=CLIENT, env=env, check=True, timeout=600)
    return subprocess.run(["npm", *args], cwd=CLIENT, env=env, capture_output=True, text=True, timeout=timeout)


def _build_vsix(into: Path) -> Path:
    """A copy of the .vsix in `into`, built first when missing or older than its sources."""
    with _BuildLock():
        if not VSIX.exists() or VSIX.stat().st_mtime < _newest_source_mtime():
            proc = _npm("run", "package")
            assert proc.returncode == 0, f"npm run package failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
            assert VSIX.exists(), f"npm run package did not produce {VSIX}"
        return Path(shutil.copy2(VSIX, into / VSIX.name))


def _clean_python(tmp_path: Path) -> Path:
    """A fresh venv with nothing installed: its bin/ folder. The test fails if it can import agent_lsp."""
    venv = tmp_path / "clean-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    probe = subprocess.run([str(venv / "bin" / "python"), "-c", "import agent_lsp"], cwd=tmp_path, capture_output=True)
    assert probe.returncode != 0, "the clean venv can import agent_lsp"
    return venv / "bin"


def _shadow(folder: Path, drop, into: Path) -> Path:
    """A copy of `folder` made of symlinks, without the names `drop(name)` is true for."""
    into.mkdir(parents=True, exist_ok=True)
    for entry in folder.iterdir():
        if not drop(entry.name) and not (into / entry.name).exists():
            (into / entry.name).symlink_to(entry)
    return into


def _path_without_agent_lsp(first: list[Path]) -> str:
    """PATH with `first` in front and without this checkout's .venv or any folder holding agent-lsp."""
    venv_bin = Path(sys.executable).parent
    keep = [str(p) for p in first]
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if d and Path(d) != venv_bin and not (Path(d) / "agent-lsp").exists() and d not in keep:
            keep.append(d)
    return os.pathsep.join(keep)


# VS Code's server otherwise replaces PATH with the one a login shell sets up (~/.bashrc,
# /etc/profile): it must see the PATH the test gives it.
NO_SHELL_ENV = {"VSCODE_CLI": "1"}


def _agent_log(artifacts: Path) -> str:
    logs = list((artifacts / "vscode-logs").rglob("Agent.log"))
    assert logs, "no Agent output channel log"
    return "\n".join(p.read_text() for p in logs)


def _require_tools(env: dict[str, str], needed: list[str] | None = None) -> None:
    missing = _missing_tools(env)
    if needed is not None:
        missing = [m for m in missing if m in needed]
    if missing:
        reason = f"the VS Code tests need {', '.join(missing)} (run .ci/install-editors.sh)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        print(f"SKIPPED: {reason}")
        pytest.skip(reason)


@pytest.mark.timeout(600)
def _drive(config: dict, tmp_path: Path, artifacts: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """Run drive.mjs on `config`; what it printed is kept beside the screenshots."""
    config_file = tmp_path / "drive.json"
    config_file.write_text(json.dumps(config))
    proc = subprocess.run(
        ["node", str(Path(__file__).with_name("drive.mjs")), str(config_file)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )
    (artifacts / "drive.log").write_text(proc.stdout + "\n--- stderr\n" + proc.stderr)
    print(proc.stdout)
    return proc


def test_extension_unit_tests() -> None:
    """The extension's own logic: `npm test` (tsc + node --test on the pure modules)."""
    _require_tools(_tool_env(), needed=["node", "npm"])
    with _BuildLock():
        proc = _npm("test", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-6000:]
    summary = [line for line in out.splitlines() if line.startswith(("# pass", "# fail"))]
    print("\n".join(summary))
    assert "# fail 0" in summary, out[-6000:]


class _ScriptedModel:
    def __init__(self, script_file: Path, log_file: Path, require_key: bool = True) -> None:
        key = ["--require-key", API_KEY] if require_key else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.scripted_model", "--port", "0", "--script", str(script_file),
             "--log", str(log_file), *key],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        line = self.proc.stdout.readline()
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"scripted model did not start: {line!r} {self.proc.stderr.read()}")
        self.base_url = line.split()[1]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.mark.timeout(600)
@pytest.mark.parametrize("review", ["diff", "refactorPreview"])
def test_fix_with_agent_in_vscode(tmp_path: Path, review: str, artifacts_dir) -> None:
    """review "diff": the extension's one-click review, reached from the lightbulb, the second task
    asked and cancelled in the Agent panel. "refactorPreview": the plain LSP path (VS Code's
    Refactor Preview), reached from the palette (Agent: Fix This, Agent: Run Task…, Agent: Cancel).
    """
    env = _tool_env()
    _require_tools(env)

    t0 = time.monotonic()
    vsix = _build_vsix(tmp_path)
    build_s = time.monotonic() - t0

    artifacts = artifacts_dir(review)

    ws = tmp_path / "project"
    ws.mkdir()
    target = ws / "config.json"
    target.write_text(BROKEN)
    (ws / "README.md").write_text("A project whose config.json does not parse.\n")

    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(SCRIPT))
    model_log = tmp_path / "model.jsonl"
    model = _ScriptedModel(script_file, model_log)

    settings = {
        "files.autoSave": "off",  # desktop behaviour: the review must save by itself
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": False,
        "security.workspace.trust.enabled": False,
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False,
        "update.mode": "none",
        "window.commandCenter": False,
        "remote.autoForwardPorts": False,
        "agentLsp.review.mode": review,
        "agentLsp.trace.server": "verbose",  # the key travels in the configuration: it must not reach the log
        # no server setting: the .vsix's own server, run by the first Python >= 3.11 on PATH
        "agentLsp.baseUrl": model.base_url,
        "agentLsp.model": "scripted-model",
    }
    config = {
        "workspace": str(ws),
        "file": "config.json",
        "vsix": str(vsix),
        "settings": settings,
        "apiKey": API_KEY,
        "answerText": "python3 -m json.tool",
        "question": QUESTION,
        "reply": REPLY,
        "secondTask": "Run the slow check",
        "artifacts": str(artifacts),
        "review": review,
        "tmp": str(tmp_path / "vscode"),
    }
    clean = _clean_python(tmp_path)
    path = _path_without_agent_lsp([clean])
    try:
        proc = _drive(config, tmp_path, artifacts, {**os.environ, **env, **NO_SHELL_ENV, "PATH": path}, timeout=420)
    finally:
        model.stop()
    if model_log.exists():
        shutil.copy2(model_log, artifacts / "model.jsonl")
    print(f"build {build_s:.1f}s, total {time.monotonic() - t0:.1f}s")
    assert proc.returncode == 0, f"drive.mjs failed (see {ARTIFACTS}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"

    # The fix is on disk.
    assert target.read_text() == FIXED, target.read_text()

    # The check command ran on the saved fix, and its output reached the model; the key did too.
    records = [json.loads(line) for line in model_log.read_text().splitlines() if line.strip()]
    violations = [r["violation"] for r in records if "violation" in r]
    assert not violations, violations
    requests = [r for r in records if "request" in r]
    assert len(requests) == len(SCRIPT), [r["request"]["messages"][-1] for r in requests]
    messages = requests[-1]["request"]["messages"]
    tool_results = [m["content"] for m in messages if m.get("role") == "tool"]
    assert any(REPLY in r for r in tool_results), tool_results  # ask_user → input box → the model
    assert any("ok: edited config.json" in r for r in tool_results), tool_results
    # VS Code answered agentLsp/diagnostics (languages.getDiagnostics): the JSON error being fixed is gone
    edit = next(r for r in tool_results if "ok: edited config.json" in r)
    assert "No new problems in config.json." in edit and "is no longer reported." in edit, edit
    assert any("config.json is valid JSON" in r for r in tool_results), tool_results
    # the second task went along with the active file and continued the conversation
    last_user = [m["content"] for m in messages if m.get("role") == "user"][-1]
    assert last_user.startswith("Run the slow check") and "config.json" in last_user, last_user
    auth = {k.lower(): v for k, v in requests[0]["headers"].items()}.get("authorization")
    assert auth == f"Bearer {API_KEY}", auth

    # The key lives in the secret storage only, and the LSP trace shows it redacted.
    user_settings = (tmp_path / "vscode" / "user-data" / "User" / "settings.json").read_text()
    assert API_KEY not in user_settings
    agent_log = _agent_log(artifacts)
    assert '"apiKey": "[redacted]"' in agent_log or '"apiKey":"[redacted]"' in agent_log, agent_log[-2000:]
    assert API_KEY not in agent_log

    # The server was the .vsix's own, run by the clean venv's Python, with VS Code's rg.
    (start,) = [line for line in agent_log.splitlines() if "starting the server:" in line]
    libs = tmp_path / "vscode" / "extensions" / "agent-lsp.agent-lsp-0.1.0" / "bundled" / "libs"
    assert f"{clean}/python3 -P -m agent_lsp serve with PYTHONPATH={libs}" in start, start
    assert "from the bundled agent-lsp" in start, start
    sent = [json.loads(line.split("server settings: ", 1)[1]) for line in agent_log.splitlines() if "server settings: " in line]
    (rg_path,) = {s["rgPath"] for s in sent}
    assert rg_path.endswith("/node_modules/@vscode/ripgrep/bin/rg") and Path(rg_path).is_file(), rg_path

    # What the person saw.
    result = json.loads((artifacts / "result.json").read_text())
    assert result["dirtyTabs"] == 0, result
    assert result["conflictToasts"] == 0, result
    assert any("Edit" in t and "config.json" in t for t in result["tools"]), result["tools"]
    assert any("Run" in t and "json.tool" in t for t in result["tools"]), result["tools"]
    assert "Plan 2/2" in result["todos"], result["todos"]
    assert "cancelled" in result["cancelled"], result["cancelled"]
    shots = ["squiggle", "ask-user", "review", "allow-command", "panel-answer", "running", "cancelled"]
    shots += ["quick-fix"] if review == "diff" else ["review-ticked"]
    for name in shots:
        assert list(artifacts.glob(f"*-{name}.png")), f"no screenshot of {name}"


@pytest.mark.timeout(600)
def test_reject_in_vscode(tmp_path: Path, artifacts_dir) -> None:
    """Reject in the Agent panel: the diff closes, the file is untouched, the agent is told."""
    env = _tool_env()
    _require_tools(env)
    vsix = _build_vsix(tmp_path)
    artifacts = artifacts_dir("reject")
    ws = tmp_path / "project"
    ws.mkdir()
    target = ws / "config.json"
    target.write_text(BROKEN)
    script = [
        {"tool_calls": [{"name": "edit_file", "arguments": {"path": "config.json", "old": '"retries": 3\n', "new": '"retries": 3,\n'}}]},
        {"content": "Understood: I left config.json as it was."},
    ]
    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(script))
    model_log = tmp_path / "model.jsonl"
    model = _ScriptedModel(script_file, model_log, require_key=False)
    config = {
        "scenario": "reject",
        "workspace": str(ws),
        "file": "config.json",
        "vsix": str(vsix),
        "settings": {
            "files.autoSave": "off", "workbench.startupEditor": "none", "remote.autoForwardPorts": False,
            "security.workspace.trust.enabled": False,
            "agentLsp.server.command": [sys.executable, "-m", "agent_lsp", "serve"],
            "agentLsp.baseUrl": model.base_url, "agentLsp.model": "scripted-model",
        },
        "answerText": "left config.json as it was",
        "artifacts": str(artifacts),
        "tmp": str(tmp_path / "vscode"),
    }
    try:
        proc = _drive(config, tmp_path, artifacts, {**os.environ, **env}, timeout=300)
    finally:
        model.stop()
    assert proc.returncode == 0, f"drive.mjs failed (see {ARTIFACTS}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert target.read_text() == BROKEN
    records = [json.loads(line) for line in model_log.read_text().splitlines() if line.strip()]
    requests = [r for r in records if "request" in r]
    assert len(requests) == 2, len(requests)
    tool_results = [m["content"] for m in requests[-1]["request"]["messages"] if m.get("role") == "tool"]
    assert any("reject" in r.lower() for r in tool_results), tool_results
    result = json.loads((artifacts / "result.json").read_text())
    assert "rejected" in result["review"], result
    assert result["diffEditors"] == 0, result
    assert not any("Agent wants to edit" in t for t in result["toasts"]), result  # no stale Accept / Reject
    assert result["dirtyTabs"] == 0, result


@pytest.mark.timeout(600)
def test_no_python_in_vscode(tmp_path: Path, artifacts_dir) -> None:
    """No Python >= 3.11 anywhere: one notification that says so and how to fix it, a red status item."""
    env = _tool_env()
    _require_tools(env)
    vsix = _build_vsix(tmp_path)
    artifacts = artifacts_dir("no-python")
    ws = tmp_path / "project"
    ws.mkdir()
    (ws / "notes.txt").write_text("nothing here\n")
    # PATH with every python* taken out (folders that hold one are replaced by symlink copies without it).
    is_python = lambda name: name.startswith("python")  # noqa: E731
    dirs = []
    for i, d in enumerate(_path_without_agent_lsp([]).split(os.pathsep)):
        folder = Path(d)
        if folder.is_dir() and any(is_python(p.name) for p in folder.iterdir()):
            folder = _shadow(folder, is_python, tmp_path / "shadow" / str(i))
        dirs.append(str(folder))
    path = os.pathsep.join(dirs)
    assert not any(shutil.which(n, path=path) for n in ("python3", "python", "python3.11", "python3.12")), path
    config = {
        "scenario": "no-server",
        "errorToast": "No Python 3.11 or newer",
        "workspace": str(ws),
        "vsix": str(vsix),
        "settings": {"workbench.startupEditor": "none", "remote.autoForwardPorts": False,
                     "security.workspace.trust.enabled": False},
        "artifacts": str(artifacts),
        "tmp": str(tmp_path / "vscode"),
    }
    proc = _drive(config, tmp_path, artifacts, {**os.environ, **env, **NO_SHELL_ENV, "PATH": path}, timeout=300)
    assert proc.returncode == 0, f"drive.mjs failed (see {ARTIFACTS}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    result = json.loads((artifacts / "result.json").read_text())
    errors = [t for t in result["toasts"] if "Python" in t]
    assert len(errors) == 1, result["toasts"]
    assert "No Python 3.11 or newer was found" in errors[0], errors[0]
    assert "python.org/downloads" in errors[0] and "agentLsp.server.python" in errors[0], errors[0]
    assert "Download Python" in errors[0] and "Open Settings" in errors[0], errors[0]
    assert "not running" in result["status"]


@pytest.mark.timeout(600)
def test_models_and_past_sessions_in_vscode(tmp_path: Path, artifacts_dir) -> None:
    """importStrategy fromEnvironment; Agent: Select Model; the step in the status bar; a past
    session reopened read-only and continued in a new session that is given its summary."""
    env = _tool_env()
    _require_tools(env)
    vsix = _build_vsix(tmp_path)
    artifacts = artifacts_dir("extras")
    ws = tmp_path / "project"
    ws.mkdir()
    (ws / "notes.txt").write_text("remember the milk\n")
    first_answer = "notes.txt says: remember the milk."
    script = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"content": first_answer, "delay": 2},
        {"content": "Done: the summary told me about the milk."},
    ]
    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(script))
    model_log = tmp_path / "model.jsonl"
    model = _ScriptedModel(script_file, model_log, require_key=False)
    config = {
        "scenario": "extras",
        "workspace": str(ws),
        "vsix": str(vsix),
        "settings": {
            "workbench.startupEditor": "none", "remote.autoForwardPorts": False, "security.workspace.trust.enabled": False,
            # fromEnvironment: the agent-lsp installed in this Python (this checkout), not the bundled one
            "agentLsp.server.importStrategy": "fromEnvironment",
            "agentLsp.server.python": sys.executable,
            "agentLsp.baseUrl": model.base_url, "agentLsp.model": "not-listed-model",
        },
        "pickModel": "scripted-model",
        "firstTask": "What is in notes.txt?",
        "continueTask": "What did the earlier session find?",
        "artifacts": str(artifacts),
        "tmp": str(tmp_path / "vscode"),
    }
    try:
        proc = _drive(config, tmp_path, artifacts, {**os.environ, **env}, timeout=400)
    finally:
        model.stop()
    assert proc.returncode == 0, f"drive.mjs failed (see {ARTIFACTS}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    result = json.loads((artifacts / "result.json").read_text())

    (start,) = [line for line in _agent_log(artifacts).splitlines() if "starting the server:" in line]
    assert f"{sys.executable} -m agent_lsp serve (from setting agentLsp.server.python)" in start, start

    assert any("scripted-model" in m for m in result["models"]), result["models"]
    assert result["idle"] == "Agent: scripted-model", result
    assert "step 1/50" in result["running"] or "step 2/50" in result["running"], result["running"]
    assert any("What is in notes.txt?" in row for row in result["listed"]), result["listed"]
    past = result["past"]
    assert "What is in notes.txt?" in past["meta"] and "read-only" in past["meta"], past
    assert "What is in notes.txt?" in past["task"], past
    assert any("Read" in t and "notes.txt" in t for t in past["tools"]), past
    assert first_answer in past["answer"], past
    assert past["taskBox"] == 0, past

    records = [json.loads(line) for line in model_log.read_text().splitlines() if line.strip()]
    requests = [r["request"] for r in records if "request" in r]
    assert len(requests) == 3, len(requests)
    continued = requests[-1]["messages"]
    assert [m["role"] for m in continued] == ["system", "user"], continued  # a new session ...
    told = continued[1]["content"]
    assert told.startswith("What did the earlier session find?"), told  # ... given the summary
    assert "What is in notes.txt?" in told and first_answer in told, told
