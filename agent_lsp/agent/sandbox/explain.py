"""What the sandbox says: to the person before a command, to the model after one.

The person's question for a command says whether it will run sandboxed (`summary`).
When the sandbox stopped a command, the tool result gets one line naming the setting
that would allow it (`blocked_note`), so the model can explain or ask instead of
retrying blindly. The line is chosen from the command's own error messages, which are
stable across tools: "Read-only file system" (EROFS), "Permission denied" on a hidden
path, and the resolver/connect errors of a missing network.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .choices import SandboxConfig
from .detect import HOW_TO_GET, Availability
from .reach import Policy

NETWORK_ERRORS = (
    "Network is unreachable", "Temporary failure in name resolution", "Could not resolve host",
    "Name or service not known", "Could not resolve hostname", "getaddrinfo failed",
    "No address associated with hostname", "Connection refused", "Failed to establish a new connection",
    "network is unreachable", "connection refused",
)

UNIX_WORDS = ("socket", "unix", ".sock", "bus", "docker", "podman")


def summary(policy: Policy | SandboxConfig, available: Availability) -> str:
    """The approval question's last line: how this command will run."""
    if policy.mode == "off":
        return 'Runs unsandboxed (sandbox: "off")'
    if not available.ok:
        return "Runs unsandboxed: no sandbox can start here"
    net = "network on" if policy.network else "no network"
    where = "workspace writable" if policy.mode == "workspace-write" else "nothing writable but a private /tmp"
    return f"Runs sandboxed ({policy.mode}: {where}, {net})"


def describe(policy: Policy | SandboxConfig, available: Availability) -> dict:
    """The same as data, for faces that show it their own way (the request's `sandbox` field)."""
    return {
        "sandboxed": policy.mode != "off" and available.ok,
        "mode": policy.mode,
        "network": policy.network if policy.mode != "off" and available.ok else True,
        "summary": summary(policy, available),
    }


def start_notes(policy: Policy, available: Availability) -> list[str]:
    """Lines for the start of a task: a sandbox that cannot start, settings entries skipped."""
    lines: list[str] = []
    if policy.mode != "off" and not available.ok:
        get = f" To get one: {HOW_TO_GET}" if sys.platform == "linux" else ""
        lines.append(f"note: no sandbox can start here ({available.reason}); commands run unsandboxed and "
                     f"are asked about as the rules say.{get}")
    for entry in policy.skipped:
        lines.append(f"note: sandboxWritable entry {entry!r} is not an existing absolute path; skipped")
    return lines


def _tilde(path: Path, home: str) -> list[str]:
    forms = [str(path)]
    if home and str(path).startswith(home + os.sep):
        forms.append("~" + str(path)[len(home):])
    return forms


def blocked_note(output: str, policy: Policy, available: Availability) -> str | None:
    """One line when the output shows the sandbox stopped something, else None."""
    if policy.mode == "off" or not available.ok:
        return None
    if "Read-only file system" in output:
        if policy.mode == "read-only":
            return ('note: the sandbox (sandbox: "read-only") blocked a write: only a private /tmp is writable; '
                    'the person can choose sandbox "workspace-write"')
        if any(f"{name}/" in output or output.rstrip().endswith(name) for name in (".git", ".agent-lsp")):
            return ('note: the sandbox (sandbox: "workspace-write") keeps .git/ and .agent-lsp/ read-only, even in '
                    "the workspace; the person can run that git or settings change themselves")
        return ('note: the sandbox (sandbox: "workspace-write") blocked a write outside the workspace (writable: '
                "the workspace folders, a private /tmp, sandboxWritable); the person can allow a path with sandboxWritable")
    if "Permission denied" in output or "permission denied" in output:
        for hidden in policy.hidden:
            if any(form in output for form in _tilde(hidden, policy.home)):
                return (f"note: the sandbox hides credentials such as {_tilde(hidden, policy.home)[-1]} from commands (sandbox: "
                        f'"{policy.mode}"); the person can run that command themselves')
    if not policy.network and "Operation not permitted" in output and any(w in output.lower() for w in UNIX_WORDS):
        return ("note: the sandbox (sandboxNetwork: false) lets commands open no Unix socket (a session bus, Docker, "
                "an agent's socket would reach outside it); the person can allow it with sandboxNetwork")
    if not policy.network and any(e in output for e in NETWORK_ERRORS):
        return ("note: the sandbox (sandboxNetwork: false) gives commands no network, not even the host's 127.0.0.1 "
                "(localhost inside is the sandbox's own); the person can allow it with sandboxNetwork")
    return None
