"""Which editor is on the other end, and what its stock setup cannot do.

Most people first try a server with the editor's stock client and one line of
config, not with our snippets (docs/editors/). Two clients need the server to adapt:

- eglot runs `workspace/executeCommand` synchronously (Emacs blocked, 10 s timeout,
  no didChange while it waits), so for eglot commands are detached unless the person
  chose otherwise. eglot 1.9 sends no `clientInfo`; later versions send a name with
  "eglot" in it. For 1.9 the `processId` it sends names the Emacs process, and its
  capabilities have a fingerprint (its code-action kinds, no `general` or `window`)
  that still holds when the process cannot be seen (a multiplexer on another host).
- a stock client cannot be asked to save (`agentLsp/saveDocument`), so the server
  writes accepted edits itself; what that costs the person is said once in the log,
  with the snippet that avoids it.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from .config import _section

log = logging.getLogger("agent_lsp.server")

EGLOT, NEOVIM, VSCODE, HELIX = "eglot", "neovim", "vscode", "helix"

# eglot 1.9's code-action kinds, in its order: the fingerprint of old eglots
EGLOT_ACTION_KINDS = [
    "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite",
    "source", "source.organizeImports",
]

SNIPPETS = {
    EGLOT: "docs/editors/eglot.el",
    NEOVIM: "docs/editors/nvim.lua (0.10+) or docs/editors/nvim-0.7.lua",
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
    if "eglot" in n:
        return EGLOT
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
    """Did the client come with our config (docs/editors/*)? They all announce experimental.agentLsp."""
    exp = getattr(ls.client_capabilities, "experimental", None)
    return isinstance(exp, dict) and isinstance(exp.get("agentLsp"), dict)


def adapt(ls: Any, params: types.InitializeParams) -> None:
    """At initialize: remember the client and pick defaults its stock setup needs."""
    ls.editor_client = client = identify(params)
    if client.kind:
        log.info("client: %s (from %s: %s)", client.kind, client.how, client.name)
    if client.kind == EGLOT and "detachCommands" not in _section(params.initialization_options) \
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
            f"the server. {SNIPPETS[EGLOT]} adds: the server asks Emacs to save instead (no "
            "\"changed since visited\" question), C-c a f to fix any Flymake diagnostic (eglot's code "
            "actions carry only this server's own), C-c a t for a task, and your own language server "
            "beside agent-lsp through rass."
        )
    else:
        text = (
            f"agent-lsp: Neovim without the agent-lsp config (recognised by {client.how}). Accepted edits "
            f"are written to disk by the server. {SNIPPETS[NEOVIM]} adds: the server asks Neovim to save "
            "instead (no \"changed since reading it\" warning on :w), :AgentFix to fix any diagnostic on "
            "the line (Neovim's code actions carry only this server's own), :AgentTask for a task."
        )
    once(ls, "stock-client", text)


def wrote_behind_buffer(ls: Any, path: Path) -> None:
    """The server wrote `path` while the editor holds it open; say once what that means here."""
    client: Client = getattr(ls, "editor_client", UNKNOWN)
    if client.kind == EGLOT:
        text = (
            f"agent-lsp: wrote {path.name} to disk behind its Emacs buffer (stock eglot cannot be asked to "
            "save). Emacs may ask \"changed since visited; save anyway?\" on your next save: the buffer "
            f"holds the same text, answer yes. {SNIPPETS[EGLOT]} avoids this: the server asks Emacs to save."
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
