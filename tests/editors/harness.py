"""Finding the real editors and running one headless session of each against `agent-lsp serve`.

Each session gets a fresh HOME and XDG directories in a temp dir (editors write there),
`agent-lsp` first on PATH (the documented configs start it by name), and the endpoint
in AGENT_BASE_URL / AGENT_MODEL, exactly as a person's shell would hand them over.

Both editors run as real terminal sessions (`nvim FILE`, `emacs -nw FILE`) on a
pseudo-terminal, loading the plugin (nvim-client/) or the package (emacs-client/) from
their init file the way the docs say. Not headless
modes: a headless Neovim's confirm() answers its default button without asking, and a
batch Emacs never fires idle timers, which is when eglot sends didChange. Either would
show the server an editor no person uses.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
NVIM_PLUGIN = REPO / "nvim-client"  # loaded as a plugin from the runtimepath, as lazy.nvim's `dir` does
EMACS_PACKAGE = REPO / "emacs-client"  # loaded from load-path, as a checkout is
HERE = Path(__file__).resolve().parent
TOOLS = Path(os.environ.get("AGENT_LSP_TOOLS", Path.home() / ".cache" / "agent-lsp-tools"))


@dataclass(frozen=True)
class Editor:
    key: str  # nvim07 | nvim012 | emacs
    path: str
    version: str


def _env_sh() -> dict[str, str]:
    """NVIM07 / NVIM012 / EMACS from .ci/install-editors.sh's env.sh (the environment wins)."""
    found: dict[str, str] = {}
    env_sh = TOOLS / "env.sh"
    if env_sh.is_file():
        for line in env_sh.read_text().splitlines():
            m = re.match(r"export (\w+)=(.*)$", line.strip())
            if m:
                found[m.group(1)] = m.group(2).strip("'\"")
    for name in ("NVIM07", "NVIM012", "EMACS"):
        if os.environ.get(name):
            found[name] = os.environ[name]
    return found


def _first_line(cmd: list[str], env: dict[str, str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20, env=env, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"error: {e}"
    return (out.stdout or out.stderr).splitlines()[0] if (out.stdout or out.stderr) else ""


def _quiet_env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[name] = str(tmp / name.lower())
    return env


_FOUND: dict[str, Editor | str] | None = None


def find_editors() -> dict[str, Editor | str]:
    """Each editor, or the reason it cannot be used (printed when its tests skip)."""
    global _FOUND
    if _FOUND is None:
        with tempfile.TemporaryDirectory(prefix="agent-lsp-editors-") as tmp:
            _FOUND = _find_editors(_quiet_env(Path(tmp)))
    return _FOUND


def _find_editors(env: dict[str, str]) -> dict[str, Editor | str]:
    paths = _env_sh()
    found: dict[str, Editor | str] = {}
    for key, var, default, want in (("nvim07", "NVIM07", "/usr/bin/nvim", "0.7"), ("nvim012", "NVIM012", None, "0.12")):
        path = paths.get(var) or default
        if not path or not shutil.which(path):
            found[key] = f"{var} not found (run .ci/install-editors.sh)"
            continue
        line = _first_line([path, "--version"], env)
        m = re.match(r"NVIM v(\d+\.\d+)\.", line)
        if not m or m.group(1) != want:
            found[key] = f"{path} is {line!r}, not Neovim {want}"
        else:
            found[key] = Editor(key, path, line)
    emacs = paths.get("EMACS") or shutil.which("emacs") or ""
    eglot = sorted(Path("/usr/share/emacs/site-lisp/elpa").glob("eglot-*"))
    if not emacs or not shutil.which(emacs):
        found["emacs"] = "EMACS not found (run .ci/install-editors.sh: emacs-nox elpa-eglot)"
    elif not eglot:
        found["emacs"] = "eglot not found under /usr/share/emacs/site-lisp/elpa (apt-get install elpa-eglot)"
    else:
        line = _first_line([emacs, "--version"], env)
        found["emacs"] = Editor("emacs", emacs, f"{line} + {eglot[-1].name}")
    return found


def require(key: str) -> Editor:
    """The editor, or skip (outside CI) / fail (CI) with the reason."""
    got = find_editors().get(key)
    if isinstance(got, Editor):
        return got
    reason = f"{key}: {got}"
    if os.environ.get("CI"):
        pytest.fail(f"editor missing in CI: {reason}")
    pytest.skip(reason)


# ---------------------------------------------------------------------------- sessions


def session_env(home: Path, model_url: str) -> dict[str, str]:
    """A person's environment: fresh HOME/XDG dirs, agent-lsp on PATH, the endpoint in AGENT_*."""
    bindir = Path(sys.executable).parent
    if not (bindir / "agent-lsp").exists():
        raise AssertionError(f"no agent-lsp next to {sys.executable}: pip install -e . into this environment")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "OPENAI_", "XDG_", "NVIM", "VIM"))}
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        PATH=os.pathsep.join([str(bindir), env.get("PATH", "/usr/bin:/bin")]),
        AGENT_BASE_URL=model_url,
        AGENT_MODEL="scripted-model",
        LANG="C.UTF-8",
    )
    return env


@dataclass
class Session:
    result: dict[str, Any]
    output: str
    seconds: float
    returncode: int


def _load_result(path: Path, output: str, rc: int) -> dict[str, Any]:
    if not path.is_file():
        raise AssertionError(f"the editor wrote no result (exit {rc}); its output:\n{output[-4000:]}")
    return json.loads(path.read_text())


def nvim_plugin_init(opts: str = "{}") -> str:
    """A person's init.lua with the plugin: nvim-client/ on the runtimepath, then setup(OPTS)."""
    return (f"vim.opt.rtp:prepend({json.dumps(str(NVIM_PLUGIN))})\n"
            f"require('agent-lsp').setup({opts})\n")


def emacs_package_init(before: str = "") -> str:
    """A person's init.el with the package: emacs-client/ on load-path, then (agent-lsp-setup)."""
    return (f"{before}(add-to-list 'load-path {json.dumps(str(EMACS_PACKAGE))})\n"
            "(require 'agent-lsp)\n(agent-lsp-setup)\n")


def run_nvim(editor: Editor, config: str | None, file: Path, plan: dict[str, Any], home: Path, model_url: str,
             timeout: float = 40, init_lua: str | None = None) -> Session:
    """`nvim FILE` in a terminal, the plugin set up by init.lua (CONFIG: its setup() options),
    driven by nvim_driver.lua.

    `init_lua` instead of a config: a person's own setup (e.g. a stock client, no plugin).
    Not --headless: without a UI Neovim's confirm() returns its default button without
    asking, so the edit confirmation could not be declined.
    """
    env = session_env(home, model_url)
    init = home / ".config" / "nvim" / "init.lua"
    init.parent.mkdir(parents=True, exist_ok=True)
    setup = init_lua if init_lua is not None else (
        "-- a person's init.lua: the plugin, as docs/editors.md installs it\n" + nvim_plugin_init(config or "{}")
    )
    init.write_text(
        setup +
        "-- (tests only: skip the slow search for Python/Ruby/Node providers)\n"
        "vim.g.loaded_python3_provider = 0\nvim.g.loaded_ruby_provider = 0\n"
        "vim.g.loaded_node_provider = 0\nvim.g.loaded_perl_provider = 0\n"
    )
    argv = [editor.path, "-c", f"luafile {HERE / 'nvim_driver.lua'}", str(file)]
    return _run_in_terminal(argv, env, file, plan, home, timeout)


def run_emacs(editor: Editor, file: Path, plan: dict[str, Any], home: Path, model_url: str,
              timeout: float = 40) -> Session:
    """`emacs -nw FILE` in a terminal, emacs-client/ set up by init.el, driven by emacs_driver.el.

    Not --batch: eglot sends didChange from an idle timer, and idle timers never fire in
    batch mode.
    """
    env = session_env(home, model_url)
    init = home / ".emacs.d" / "init.el"
    init.parent.mkdir(parents=True, exist_ok=True)
    # (tests only: a fresh HOME would native-compile every package again in the background)
    (init.parent / "early-init.el").write_text("(setq native-comp-deferred-compilation nil)\n")
    init.write_text(
        ";;; init.el --- a person's init file: the package, as docs/editors.md installs it  -*- lexical-binding: t -*-\n"
        + emacs_package_init()
    )
    argv = [editor.path, "-nw", str(file), "-l", str(HERE / "emacs_driver.el")]
    return _run_in_terminal(argv, env, file, plan, home, timeout)


def _run_in_terminal(argv: list[str], env: dict[str, str], file: Path, plan: dict[str, Any], home: Path,
                     timeout: float) -> Session:
    """Run the editor on a pseudo-terminal (120x40) until its driver writes the result and quits."""
    result = home / "result.json"
    plan_file = home / "plan.json"
    plan_file.write_text(json.dumps(dict(plan, result=str(result), timeout=timeout, file=str(file))))
    env = dict(env, AGENT_TEST_PLAN=str(plan_file), TERM="xterm-256color", COLORTERM="")
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its controlling terminal
        try:
            os.chdir(file.parent)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    output = bytearray()
    rc: int | None = None
    deadline = t0 + timeout + 15
    try:
        _set_winsize(fd, 40, 120)
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: the terminal closed
                    chunk = b""
                output += chunk
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                rc = os.waitstatus_to_exitcode(status)
                break
    finally:
        if rc is None:  # stuck: take the editor and the server it started down
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            rc = -9
        os.close(fd)
    text = output.decode("utf-8", "replace")
    return Session(_load_result(result, text, rc), text, time.monotonic() - t0, rc)


def _set_winsize(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


# ---------------------------------------------------------------------------- checks


def prompts(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [p for p in result.get("prompts", []) if p["kind"] == kind]


def told(model, needle: str) -> bool:
    """Did any tool result the agent received contain `needle`?"""
    for req in model.requests:
        for m in req.get("messages", []):
            if m.get("role") == "tool" and needle in str(m.get("content")):
                return True
    return False


def assert_accepted_after_preview(s: Session, path: Path, fixed: str) -> None:
    """The one question named the file with the diff on screen; after yes, buffer and disk hold `fixed`."""
    assert not s.result.get("errors") and not s.result.get("timed_out"), describe(s)
    (asked,) = prompts(s.result, "confirm")
    assert path.name in asked["title"], describe(s)
    assert any("+    return a + b" in w["text"] for w in asked["screen"]), describe(s)
    assert s.result["after"]["text"] == fixed and s.result["after"]["modified"] is False, describe(s)
    assert path.read_text() == fixed


def describe(session: Session) -> str:
    """Everything needed to see why an editor test failed."""
    r = dict(session.result)
    return json.dumps(r, indent=1)[:6000] + "\n--- editor output (tail):\n" + session.output[-3000:]
