"""Which editor is on the other end, and what its stock setup cannot do.

Most people first try a server with the editor's stock client and one line of
config, not with our plugins (nvim-client/, emacs-client/). Some clients need the server
to adapt:

- eglot runs `workspace/executeCommand` synchronously (Emacs blocked, 10 s timeout,
  no didChange while it waits), so for eglot commands are detached unless the person
  chose otherwise. eglot 1.9 sends no `clientInfo`; later versions send a name with
  "eglot" in it. For 1.9 the `processId` it sends names the Emacs process, and its
  capabilities have a fingerprint (its code-action kinds, no `general` or `window`)
  that still holds when the process cannot be seen (a multiplexer on another host).
- eglot on Emacs 28's jsonrpc stops reading at the answer to one of its synchronous
  requests (executeCommand, codeAction): whatever came in the same read after it waits
  in the buffer until more output arrives. After an Accept that is the edit itself, and
  Emacs would wait forever. So for eglot the server follows every burst of output with
  a few `$/agentLsp/flush` notifications (clients ignore `$/` notifications they do not
  know), which make Emacs read again.
- a stock client cannot be asked to save (`agentLsp/saveDocument`), so the server
  writes accepted edits itself; what that costs the person is said once in the log,
  with the plugin that avoids it.
- coc.nvim (Vim or Neovim, `clientInfo.name` "coc.nvim") declares changeAnnotationSupport
  but its "Confirm edits" shows only a label, and answers `applied: true` after a "No":
  it gets the inline review by default, and accepted edits are saved through coc itself
  (save_by_rename.py).
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from .config import _section
from .readgate import ReadGate

log = logging.getLogger("agent_lsp.server")

EGLOT, NEOVIM, VSCODE, HELIX, COC, LSP_MODE = "eglot", "neovim", "vscode", "helix", "coc", "lsp-mode"
# clients that run workspace/executeCommand synchronously with a 10 s timeout: commands detach by default
DETACHED_BY_DEFAULT = (EGLOT, LSP_MODE)

# eglot 1.9's code-action kinds, in its order: the fingerprint of old eglots
EGLOT_ACTION_KINDS = [
    "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite",
    "source", "source.organizeImports",
]

SNIPPETS = {
    EGLOT: "The package in emacs-client/ ((require 'agent-lsp) (agent-lsp-setup))",
    NEOVIM: "The plugin in nvim-client/ (require(\"agent-lsp\").setup({}))",
    LSP_MODE: "emacs-client/agent-lsp-lsp-mode.el",
}


@dataclass(frozen=True)
class Client:
    kind: str  # eglot | neovim | vscode | helix | "" (unknown)
    how: str  # what told us: clientInfo | processId | capabilities | ""
    name: str = ""  # as the client said it (clientInfo.name) or the process name


UNKNOWN = Client("", "")


def identify(params: types.InitializeParams) -> Client:
    info = params.client_info
    if info is not None and info.name:
        return Client(_kind_of_name(info.name), "clientInfo", info.name)
    process = process_name(params.process_id)
    if process and _kind_of_process(process):
        return Client(_kind_of_process(process), "processId", process)
    if _looks_like_old_eglot(params.capabilities):
        return Client(EGLOT, "capabilities", "eglot")
    return UNKNOWN


def _kind_of_name(name: str) -> str:
    n = name.lower()
    if n == "coc.nvim":  # Vim or Neovim with coc.nvim: its own client, not Neovim's
        return COC
    if "eglot" in n:
        return EGLOT
    if n == "emacs":  # lsp-mode 8 sends exactly this (eglot: no clientInfo, or a name with "eglot")
        return LSP_MODE
    if "neovim" in n or n == "nvim":
        return NEOVIM
    if "visual studio code" in n or "vscode" in n or "code-server" in n or "code - oss" in n:
        return VSCODE
    if "helix" in n:
        return HELIX
    return ""


def _kind_of_process(process: str) -> str:
    p = Path(process).name.lower()
    if p.startswith("emacs"):  # lsp-mode sends clientInfo; a nameless client in Emacs is eglot
        return EGLOT
    if p in ("nvim", "neovim"):
        return NEOVIM
    if p in ("hx", "helix"):
        return HELIX
    return ""


def process_name(pid: Any) -> str | None:
    """The executable name of process `pid` on this machine, if it can be seen."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return None
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() or None
    except OSError:
        pass
    if sys.platform == "win32":
        return None
    try:  # macOS and the BSDs: no /proc
        out = subprocess.run(["ps", "-o", "comm=", "-p", str(pid)], capture_output=True, text=True, timeout=2)
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(out.stdout.strip()).name or None


def _looks_like_old_eglot(caps: types.ClientCapabilities | None) -> bool:
    if caps is None or caps.general is not None or caps.window is not None:
        return False
    action = getattr(caps.text_document, "code_action", None)
    literal = getattr(action, "code_action_literal_support", None)
    kinds = getattr(getattr(literal, "code_action_kind", None), "value_set", None) or []
    return [getattr(k, "value", k) for k in kinds] == EGLOT_ACTION_KINDS


def has_snippet(ls: Any) -> bool:
    """Did the client come with our plugin (nvim-client/, emacs-client/)? They announce experimental.agentLsp."""
    exp = getattr(ls.client_capabilities, "experimental", None)
    return isinstance(exp, dict) and isinstance(exp.get("agentLsp"), dict)


def adapt(ls: Any, params: types.InitializeParams) -> None:
    """At initialize: remember the client and pick defaults its stock setup needs."""
    ls.editor_client = client = identify(params)
    if client.kind:
        log.info("client: %s (from %s: %s)", client.kind, client.how, client.name)
    if client.kind == EGLOT:
        Flusher(ls.protocol).install()
    if client.kind == LSP_MODE:
        ReadGate(ls.protocol).install()
    if client.kind in DETACHED_BY_DEFAULT and "detachCommands" not in _section(params.initialization_options) \
            and "detach_commands" not in _section(params.initialization_options):
        ls.config.options.detach_commands = True


def explain(ls: Any) -> None:
    """At initialized: say once what the stock client lacks and which snippet adds it."""
    client: Client = getattr(ls, "editor_client", UNKNOWN)
    if client.kind not in SNIPPETS or has_snippet(ls):
        return
    if client.kind == EGLOT:
        text = (
            f"agent-lsp: stock eglot (recognised by {client.how}). Commands run detached, so Emacs is "
            "not blocked and eglot's 10 s timeout does not apply; accepted edits are written to disk by "
            f"the server. {SNIPPETS[EGLOT]} adds: each edit's diff while Emacs asks (eglot 1.9 cannot "
            "preview an edit, so here it waits as a diagnostic: Accept / Reject agent edit in the code "
            "actions), saving through Emacs (no \"changed since visited\" question), C-c a f to fix any "
            "Flymake diagnostic (eglot's code actions carry only this server's own), C-c a t for a task, "
            "and your own language server beside agent-lsp through rass."
        )
    elif client.kind == LSP_MODE:
        text = (
            "agent-lsp: lsp-mode without the agent-lsp package. Commands run detached (no 10 s timeout) "
            "and Accept agent edit carries the edit, so every server of the buffer hears it; but lsp-mode "
            "sends each agentLsp.* command to every server that executes commands, and accepted edits are "
            f"written to disk by the server. {SNIPPETS[LSP_MODE]} ((require 'agent-lsp-lsp-mode)) sends the "
            "commands to agent-lsp alone, saves through Emacs (no \"changed on disk\" question), and adds "
            "C-c a t for a task and C-c a f to fix any server's diagnostic."
        )
    else:
        text = (
            f"agent-lsp: Neovim without the agent-lsp config (recognised by {client.how}). Accepted edits "
            f"are written to disk by the server. {SNIPPETS[NEOVIM]} adds: each edit's diff while Neovim "
            "asks, saving through Neovim (no \"changed since reading it\" warning on :w), :AgentFix to fix "
            "any diagnostic on the line (Neovim's code actions carry only this server's own), :AgentTask "
            "for a task."
        )
    once(ls, "stock-client", text)


def wrote_behind_buffer(ls: Any, path: Path) -> None:
    """The server wrote `path` while the editor holds it open; say once what that means here."""
    client: Client = getattr(ls, "editor_client", UNKNOWN)
    if client.kind in (EGLOT, LSP_MODE):
        text = (
            f"agent-lsp: wrote {path.name} to disk behind its Emacs buffer (a stock Emacs client cannot be asked to "
            "save). Emacs may ask \"changed on disk; discard your edits?\" at the agent's next edit of it "
            "(answer no) and \"changed since visited; save anyway?\" on your next save (answer yes): the "
            f"buffer holds the same text. {SNIPPETS[client.kind]} avoids this: the server asks Emacs to save."
        )
    elif client.kind == NEOVIM:
        text = (
            f"agent-lsp: wrote {path.name} to disk behind its Neovim buffer (this client cannot be asked to "
            "save). :w may warn that the file changed since reading it: the buffer holds the same text. "
            f"{SNIPPETS[NEOVIM]} avoids this: the server asks Neovim to save."
        )
    else:
        return
    once(ls, "wrote-behind-buffer", text)


def once(ls: Any, key: str, text: str) -> None:
    said = ls.__dict__.setdefault("_said_once", set())
    if key in said:
        return
    said.add(key)
    ls.log_line(text, types.MessageType.Info)


FLUSH = {"jsonrpc": "2.0", "method": "$/agentLsp/flush", "params": {}}
FLUSH_AFTER = (0.15, 1.0, 3.0)  # seconds after the last message: one of them arrives in a later read


class Flusher:
    """Follow each burst of output with `$/agentLsp/flush` notifications (see the module doc)."""

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol
        self.send = protocol._send_data  # pygls' one write path, for every message
        self.timers: list[asyncio.TimerHandle] = []
        self.loop: asyncio.AbstractEventLoop | None = None

    def install(self) -> None:
        def send_then_flush(data: Any) -> None:
            self.send(data)
            self.touch()

        self.protocol._send_data = send_then_flush

    def touch(self) -> None:
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:  # sent from another thread: arm the timers on the loop's own thread
            if self.loop is not None:
                self.loop.call_soon_threadsafe(self._arm)
            return
        self._arm()

    def _arm(self) -> None:
        for t in self.timers:
            t.cancel()
        assert self.loop is not None
        self.timers = [self.loop.call_later(delay, self._flush) for delay in FLUSH_AFTER]

    def _flush(self) -> None:
        try:
            self.send(FLUSH)
        except Exception as e:  # the editor went away: nothing to flush
            log.debug("flush failed: %r", e)
