"""The bubblewrap command line for a Policy.

Order matters: bubblewrap applies mounts in the order given and a later one wins, so
the whole filesystem comes first read-only, then a private /tmp, then the writable
roots (a workspace under /tmp stays visible), then the read-only `.git`/`.agent-lsp`
inside them, then the hidden secrets last (hidden even inside a writable root).

- `--unshare-pid` + `--proc /proc`: the command sees only its own processes, so
  `/proc/<agent pid>/environ` (the API key), `/root` and `/cwd` do not exist for it.
- `--unshare-net` (unless sandboxNetwork): a private loopback only, nothing on the host.
- `--cap-drop ALL`: run as root (CI, containers), bubblewrap keeps every capability
  otherwise, and root could simply remount `/` read-write or read a mode-000 file.
- `--die-with-parent`: if the agent dies, the command dies. bubblewrap stays in the
  process group the runner made, so killing that group still ends everything inside.
- hidden folders become an empty mode-000 read-only tmpfs and hidden files a bind of
  an empty mode-000 file, so reading them fails with "Permission denied" (a clear,
  recognisable error) rather than looking like a missing file.
"""

from __future__ import annotations

import sys

from pathlib import Path
from typing import Mapping

from . import seccomp
from .reach import Policy


def bwrap_argv(bwrap: str, policy: Policy, argv: list[str], cwd: Path, placeholder: Path, *,
               setenv: Mapping[str, str] | None = None, sock_filter: Path | None = None) -> list[str]:
    """`bwrap ... -- argv`, running in `cwd`; `placeholder` is an empty mode-000 file.

    `setenv`: for a command someone else starts (an editor's terminal, whose own
    environment we do not control) the environment goes into the command line itself,
    after `--clearenv`, and `--new-session` keeps it from typing into that terminal.
    `sock_filter`: the seccomp program that refuses Unix sockets (seccomp.py); the argv
    then starts with the small shell line that opens it for bubblewrap.
    """
    a = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL"]
    if sock_filter is not None:
        a += ["--seccomp", str(seccomp.FD)]
    if setenv is not None:
        a += ["--new-session", "--clearenv"]
        for name, value in setenv.items():
            a += ["--setenv", name, value]
    if not policy.network:
        a.append("--unshare-net")
    a += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for p in _own_python_under_tmp():  # the Python agent-lsp runs on stays visible (read-only)
        a += ["--ro-bind", str(p), str(p)]
    writable = set(policy.writable)
    for root in policy.roots:
        if root not in writable:
            a += ["--ro-bind", str(root), str(root)]  # visible even under /tmp in read-only mode
    for w in policy.writable:
        a += ["--bind", str(w), str(w)]
    for p in policy.read_only:
        a += ["--ro-bind", str(p), str(p)]
    for p in policy.empty_read_only:
        a += ["--perms", "0555", "--tmpfs", str(p), "--remount-ro", str(p)]
    for d in policy.hidden_dirs:
        a += ["--perms", "0000", "--tmpfs", str(d), "--remount-ro", str(d)]
    for f in policy.hidden_files:
        a += ["--ro-bind", str(placeholder), str(f)]
    a += ["--chdir", str(cwd), "--", *argv]
    return seccomp.launcher(sock_filter, a) if sock_filter is not None else a


def _own_python_under_tmp() -> list[Path]:
    """The agent's own Python installation when it lives under /tmp (a venv made there):
    the private /tmp would hide it, and the commands a person allows often run it."""
    out: list[Path] = []
    for prefix in {sys.prefix, sys.base_prefix}:
        path = Path(prefix)
        try:
            if path.is_relative_to("/tmp") and path != Path("/tmp") and path.is_dir():
                out.append(path)
        except OSError:
            continue
    return sorted(out)
