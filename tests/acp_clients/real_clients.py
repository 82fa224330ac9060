"""Two ACP clients nobody here wrote, found where .ci/install-acp-clients.sh puts them, and a tmux driver.

- Toad 0.6.20 (a Textual TUI) runs in tmux and is read from its screen as a person
  reads it: `ToadScreen` types, presses keys and waits for text to appear.
- acpc 0.1.0 (a CLI) runs as a subprocess with an agent registered in its config dir.

Both start the agent through tests/acp_clients/tap.py, which records every message in both
directions; `SchemaChecker` then checks what the agent sent, and the client's error
answers show what it rejected. Missing clients skip their tests with the reason, except
under CI=true, where they fail (as the real-editor tests do).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable

import pytest

from tests.acp_clients import tap
from tests.acp.schema_check import SchemaChecker

REPO = Path(__file__).resolve().parents[2]
TOOLS = Path(os.environ.get("AGENT_LSP_TOOLS", Path.home() / ".cache" / "agent-lsp-tools"))
TOAD = TOOLS / "toad-venv" / "bin" / "toad"
ACPC = TOOLS / "acpc-venv" / "bin" / "acpc"
INSTALL = "bash .ci/install-acp-clients.sh"


def require(path: Path, what: str, tmux: bool = False) -> Path:
    """The client, or skip (outside CI) / fail (CI) saying how to install it."""
    problem = None
    if not path.exists():
        problem = f"{what} is not installed at {path} ({INSTALL})"
    elif tmux and shutil.which("tmux") is None:
        problem = "tmux is not installed (apt-get install tmux)"
    if problem is None:
        return path
    if os.environ.get("CI"):
        pytest.fail(f"ACP client missing in CI: {problem}")
    pytest.skip(problem)


def agent_command(log: Path, *flags: str) -> list[str]:
    """agent-lsp acp behind the recording tap, as the client will start it."""
    return [sys.executable, "-m", "tests.acp_clients.tap", str(log), sys.executable, "-m", "agent_lsp", "acp", *flags]


def person_env(home: Path, model_url: str, key: str, model: str = "scripted") -> dict[str, str]:
    """A fresh HOME and XDG dirs (the client's database and the agent's transcripts go there).

    SHELL is dash, whatever the machine running the tests has (CI has none): Toad runs a
    terminal's command under `$SHELL -c`, and dash, unlike bash, does not exec it, which is
    the harder case for a kill (tests/acp/test_cancel.py)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AGENT_", "OPENAI_", "XDG_", "TMUX", "TOAD_", "TERM", "COLORTERM"))}
    env.update({
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_STATE_HOME": str(home / ".local/state"), "XDG_CACHE_HOME": str(home / ".cache"),
        "AGENT_BASE_URL": model_url, "AGENT_MODEL": model, "AGENT_API_KEY": key,
        "PYTHONPATH": str(REPO), "TERM": "tmux-256color", "COLORTERM": "truecolor",
        "SHELL": "/bin/sh",
    })
    return env


def check_traffic(log: Path) -> SchemaChecker:
    checker = SchemaChecker()
    for who, msg in tap.read(str(log)):
        checker.feed(msg, from_agent=(who == "agent"))
    return checker


def compact(screen: str) -> str:
    """A screen for a failure message: the lines with text on them, the sidebar's bar cut off,
    so a CI log that keeps only so much still shows the failure after this one."""
    out = []
    for line in screen.splitlines():
        text = line.split("▎", 1)[1] if "▎" in line[:60] else line
        if text.strip(" ▌▊▔▁▎╍━╸╺"):
            out.append(text.rstrip())
    return "\n".join(out)


class ToadScreen:
    """Toad in a tmux pane: `type`, `key`, `wait_for`; the screen is plain text (capture-pane)."""

    def __init__(self, workspace: Path, home: Path, env: dict[str, str], command: list[str],
                 width: int = 180, height: int = 50) -> None:
        self.name = f"toad-{uuid.uuid4().hex[:8]}"
        self.workspace, self.home, self.env = workspace, home, env
        self.command = shlex.join(command)
        self.width, self.height = width, height

    def start(self, home_screen: bool = False) -> "ToadScreen":
        """`toad acp COMMAND DIR`, or (`home_screen`) `toad DIR`: its home, where sessions are resumed."""
        argv = [str(TOAD), str(self.workspace)] if home_screen else [str(TOAD), "acp", self.command, str(self.workspace)]
        toad = shlex.join(argv)
        env_args = [f"{k}={v}" for k, v in self.env.items()]
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", str(self.width), "-y", str(self.height),
                        "env", "-i", *env_args, "bash", "-c", f"{toad}; sleep 600"],
                       check=True, cwd=self.workspace)
        return self

    def stop(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)

    def screen(self) -> str:
        r = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return r.stdout

    def key(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)
        time.sleep(0.15)

    def type(self, text: str, enter: bool = True) -> None:
        """Type like a person: the text, a moment, then Enter."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)
        time.sleep(0.4)
        if enter:
            self.key("Enter")

    def answer(self, shown: str, key: str, timeout: float = 30.0) -> str:
        """Wait for a question showing `shown` (and its options), let it take the focus, then press `key`."""
        self.wait_for(shown, "❯ a Allow", timeout=timeout)
        time.sleep(1.2)  # Toad moves the focus to the question a moment after drawing it
        screen = self.screen()
        self.key(key)
        return screen

    def wait_for(self, *texts: str, timeout: float = 30.0, gone: bool = False) -> str:
        """The screen once it shows every text (or, `gone`, none of them); fails with the screen."""
        def settled(shown: str) -> bool:
            present = [t in shown for t in texts]
            return (not gone and all(present)) or (gone and not any(present))

        try:
            return self.wait_until(settled, timeout=timeout)
        except TimeoutError as e:
            shown = str(e)
        missing = [t for t in texts if (t in shown) != (not gone)]
        raise AssertionError(f"Toad's screen {'still shows' if gone else 'never showed'} {missing} "
                             f"within {timeout:g}s; it shows:\n{compact(shown)}")

    def wait_until(self, settled: Callable[[str], bool], timeout: float = 30.0) -> str:
        """The screen once `settled(screen)`; TimeoutError carrying the last screen otherwise.

        For what a person reads from lasting state (the status line, a log) rather than from
        a flash, which Toad shows for 3 s and a loaded machine can draw and take away unseen.
        """
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            if settled(shown):
                return shown
            time.sleep(0.2)
        raise TimeoutError(shown)

    def status_line(self, shown: str | None = None) -> str:
        """Toad's status line under the prompt: the agent's command, the folder, the usage, the mode."""
        lines = (self.screen() if shown is None else shown).splitlines()
        rows = [line for line in lines if "/bin/python" in line]  # the last one: the sidebar and chat come first
        return rows[-1].strip() if rows else ""
