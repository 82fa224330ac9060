"""Vim 9 and Neovim 0.12 with coc.nvim 0.0.82, in tmux, typed at like a person types.

coc.nvim is nobody's code here: a person installs it as a plugin (a packpath `start`
folder, as its README says), and adds agent-lsp with the `coc-settings.json` snippet
of docs/editors.md. The tests start the editor in a tmux session of its own (a
private socket, 100x30), type keys with `send-keys` and read the screen with
`capture-pane`: what is checked is what the person sees. The archive of the coc.nvim
release is read from ../shared/clients/ beside the repository (or beside the main
checkout of a git worktree), unpacked by .ci/install-coc.sh; it is never copied into
the repository.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from tests.editors.harness import TOOLS, _env_sh, session_env

COC_VERSION = "0.0.82"

# The snippet of docs/editors.md ("Vim and Neovim with coc.nvim"), verbatim.
COC_SETTINGS = {
    "languageserver": {
        "agent-lsp": {
            "command": "agent-lsp",
            "args": ["serve"],
            "filetypes": ["*"],
        }
    }
}

# What a coc user has in vimrc / init.vim: coc README's code-action map at the cursor.
VIMRC = """\
" a person's vimrc: coc.nvim is a start package; the code actions at the cursor, as coc's README maps them
set nocompatible
filetype plugin indent on
syntax on
set hidden
set updatetime=300
set signcolumn=yes
nmap <leader>ac <Plug>(coc-codeaction-cursor)
"""


@dataclass(frozen=True)
class CocEditor:
    key: str  # vim9 | nvim012
    path: str
    version: str
    coc: Path  # the unpacked coc.nvim folder


def _coc_env() -> dict[str, str]:
    found: dict[str, str] = {}
    env_file = TOOLS / "coc.env"
    if env_file.is_file():
        for line in env_file.read_text().splitlines():
            m = re.match(r"export (\w+)=(.*)$", line.strip())
            if m:
                found[m.group(1)] = m.group(2).strip("'\"")
    for name in ("COC_RTP", "VIM9"):
        if os.environ.get(name):
            found[name] = os.environ[name]
    return found


def find_coc(key: str) -> CocEditor | str:
    """The editor with coc.nvim, or why it cannot run (printed when its tests skip)."""
    env = _coc_env()
    coc = Path(env.get("COC_RTP", TOOLS / "coc" / f"coc.nvim-{COC_VERSION}"))
    if not (coc / "build" / "index.js").is_file():
        return f"coc.nvim {COC_VERSION} not unpacked at {coc} (run .ci/install-coc.sh)"
    if not shutil.which("tmux"):
        return "tmux not found (run .ci/install-coc.sh)"
    if not shutil.which("node"):
        return "node not found (coc.nvim needs Node)"
    if key == "vim9":
        path = env.get("VIM9") or shutil.which("vim.basic") or shutil.which("vim") or ""
        if not path:
            return "vim not found (run .ci/install-coc.sh)"
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20).stdout
        if not out.startswith("VIM - Vi IMproved 9") or "+job" not in out:
            return f"{path} is not Vim 9 with +job: {out.splitlines()[0] if out else '?'}"
        return CocEditor(key, path, out.splitlines()[0], coc)
    path = _env_sh().get("NVIM012") or ""
    if not path or not shutil.which(path):
        return "NVIM012 not found (run .ci/install-editors.sh)"
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20).stdout
    if not out.startswith("NVIM v0.12"):
        return f"{path} is not Neovim 0.12: {out.splitlines()[0] if out else '?'}"
    return CocEditor(key, path, out.splitlines()[0], coc)


def require_coc(key: str) -> CocEditor:
    got = find_coc(key)
    if isinstance(got, CocEditor):
        return got
    if os.environ.get("CI"):
        pytest.fail(f"coc.nvim editor missing in CI: {key}: {got}")
    pytest.skip(f"{key}: {got}")


class TmuxEditor:
    """One editor in its own tmux server; keys in, screen out."""

    ROWS, COLS = 30, 100

    def __init__(self, editor: CocEditor, file: Path, home: Path, model_url: str) -> None:
        self.editor = editor
        self.file = file
        self.socket = f"agent-lsp-coc-{uuid.uuid4().hex[:10]}"
        self.env = session_env(home, model_url)
        self._install(home)
        argv = [editor.path, "-i", "NONE", str(file)] if editor.key == "nvim012" else [editor.path, str(file)]
        env_args = [f"{k}={v}" for k, v in self.env.items()] + ["TERM=xterm-256color"]
        self._tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", str(self.COLS), "-y", str(self.ROWS),
                   "-c", str(file.parent), "env", "-i", *env_args, *argv)
        pane, self.socket_path = self._tmux("display-message", "-p", "-t", "main",
                                            "#{pane_pid} #{socket_path}").strip().split(" ", 1)
        self.pane_pid = int(pane)

    def _install(self, home: Path) -> None:
        """coc.nvim as a start package, the coc-settings.json snippet, the vimrc (as a person would)."""
        if self.editor.key == "vim9":
            config, rc = home / ".vim", home / ".vimrc"
            pack = home / ".vim" / "pack" / "coc" / "start"
        else:
            config, rc = home / ".config" / "nvim", home / ".config" / "nvim" / "init.vim"
            pack = home / ".local" / "share" / "nvim" / "site" / "pack" / "coc" / "start"
        pack.mkdir(parents=True, exist_ok=True)
        (pack / "coc.nvim").symlink_to(self.editor.coc)
        config.mkdir(parents=True, exist_ok=True)
        (config / "coc-settings.json").write_text(json.dumps(COC_SETTINGS, indent=2) + "\n")
        rc.parent.mkdir(parents=True, exist_ok=True)
        rc.write_text(VIMRC + "set noswapfile\n" + (
            "let g:loaded_python3_provider = 0\nlet g:loaded_node_provider = 0\n"
            "let g:loaded_ruby_provider = 0\nlet g:loaded_perl_provider = 0\n" if self.editor.key == "nvim012" else ""))

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20,
                              check=True).stdout

    def send(self, *keys: str, literal: bool = False) -> None:
        """tmux send-keys: key names (Enter, Escape, C-c) or, with literal, text as typed."""
        self._tmux("send-keys", "-t", "main", *(["-l"] if literal else []), *keys)

    def type(self, text: str) -> None:
        self.send(text, literal=True)

    def ex(self, command: str) -> None:
        """Type an Ex command and Enter, from Normal mode."""
        self.send("Escape")
        self.type(":" + command)
        self.send("Enter")

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "main")

    def wait(self, what: str | Callable[[str], bool], timeout: float = 20, gone: bool = False) -> str:
        """The screen once it shows `what` (text, or a test of the screen); with gone, once it does not."""
        test = (lambda s: what in s) if isinstance(what, str) else what
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            if bool(test(shown)) != gone:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"screen never {'lost' if gone else 'showed'} {what!r}; it shows:\n{shown}")

    def last_line(self) -> str:
        return self.screen().rstrip("\n").splitlines()[-1]

    def close(self) -> None:
        """Quit: the editor, coc's node and the server it started, then the tmux server."""
        pids = [self.pane_pid, *_descendants(self.pane_pid)]
        for pid in reversed(pids):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self._tmux("kill-server")
        except subprocess.CalledProcessError:
            pass
        Path(self.socket_path).unlink(missing_ok=True)  # tmux leaves it behind after a kill


def _descendants(pid: int) -> list[int]:
    """Every process below `pid`, from /proc (children first found, then theirs)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out
