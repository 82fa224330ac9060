"""The concrete policy for one command: which real paths are writable, read-only or hidden.

Computed from the SandboxConfig, the workspace roots and the environment (HOME and the
XDG folders name where the secrets and agent-lsp's own keys, trust and memory live).
All paths are resolved (symlinks followed) because a mount lands on the real path: a
`~/.ssh` that is a link must hide its target, and a workspace reached through a link
must be writable where it really is.

Inside every writable root (and in each of its sub-folders: a folder of repositories),
`.git` and `.agent-lsp` stay read-only (as in Codex): a
command must not plant a hook, rewrite `.git/config` (fsmonitor, aliases) or write
`permissions.json` and so raise its own permissions. A `.git` that is a file (a
worktree) is protected too, and so is the folder it points to when that is writable.
A missing `.agent-lsp` is still covered: it becomes an empty read-only folder in the
sandbox (which leaves an empty folder behind; git does not see empty folders).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from .choices import SandboxConfig

# credentials of common tools, relative to HOME; hidden whether files or folders
HOME_SECRETS = (
    ".ssh", ".aws", ".gnupg", ".config/gh", ".netrc", ".git-credentials", ".docker/config.json",
    ".kube", ".config/gcloud", ".azure", ".npmrc", ".pypirc", ".cargo/credentials",
    ".cargo/credentials.toml", ".password-store", ".local/share/keyrings",
)
# sockets that hand out the host: a read-only mount does not stop connect() on a socket
HOST_SOCKETS = ("/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
                "/run/podman/podman.sock", "/run/user/{uid}")
PROTECTED_NAMES = (".git", ".agent-lsp")


@dataclass(frozen=True)
class Policy:
    """Everything the argv builder needs; `mode == "off"` means run as is."""

    mode: str
    network: bool
    roots: tuple[Path, ...]              # the workspace folders (bound even in read-only mode)
    writable: tuple[Path, ...]           # roots + sandboxWritable, in workspace-write only
    read_only: tuple[Path, ...]          # existing .git / .agent-lsp (and a worktree's gitdir) to re-bind read-only
    empty_read_only: tuple[Path, ...]    # missing .agent-lsp folders: an empty read-only folder instead
    hidden_dirs: tuple[Path, ...]
    hidden_files: tuple[Path, ...]
    skipped: tuple[str, ...] = ()        # sandboxWritable entries that do not exist (said once, not fatal)
    env_allow: tuple[str, ...] = ()
    home: str = ""                       # the HOME these paths were found under (to show them as ~/...)

    @property
    def hidden(self) -> tuple[Path, ...]:
        return self.hidden_dirs + self.hidden_files


def _real(p: str | Path) -> Path:
    return Path(os.path.realpath(os.path.expanduser(str(p))))


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def secret_paths(environ: Mapping[str, str]) -> list[Path]:
    """The credential locations for this environment, whether they exist or not."""
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    config = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    state = Path(environ.get("XDG_STATE_HOME") or home / ".local" / "state")
    paths = [home / rel for rel in HOME_SECRETS]
    paths += [config / "agent-lsp", state / "agent-lsp"]
    runtime = environ.get("XDG_RUNTIME_DIR")
    if runtime:
        paths.append(Path(runtime))
    paths += [Path(s.format(uid=os.getuid())) for s in HOST_SOCKETS]
    sock = environ.get("SSH_AUTH_SOCK")
    if sock and os.path.isabs(sock):
        paths.append(Path(sock))
    return paths


def _gitdir_targets(dotgit: Path) -> list[Path]:
    """A worktree's `.git` file names its gitdir (and that one its common dir)."""
    out: list[Path] = []
    try:
        text = dotgit.read_text(errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            gitdir = (dotgit.parent / line.split(":", 1)[1].strip()).resolve()
            out.append(gitdir)
            try:
                common = (gitdir / "commondir").read_text().strip()
                out.append((gitdir / common).resolve())
            except OSError:
                pass
    return out


def _subfolders(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as it:
            return [Path(e.path) for e in it if e.is_dir(follow_symlinks=False) and e.name not in PROTECTED_NAMES]
    except OSError:
        return []


def _protect(folder: Path, writable: list[Path], read_only: list[Path], empty: list[Path] | None) -> None:
    """Add `folder`'s .git and .agent-lsp to `read_only`; a missing .agent-lsp to `empty` if given."""
    for name in PROTECTED_NAMES:
        p = folder / name
        if p.is_symlink():  # a link to elsewhere: protect where it points, if that is writable
            target = p.resolve()
            if _inside(target, writable):
                read_only.append(target)
        elif p.exists():
            read_only.append(p)
            if name == ".git" and p.is_file():
                read_only += [t for t in _gitdir_targets(p) if t.exists() and _inside(t, writable)]
        elif name == ".agent-lsp" and empty is not None:
            empty.append(p)


def build_policy(config: SandboxConfig, roots: Sequence[Path | str],
                 environ: Mapping[str, str] | None = None) -> Policy:
    """Resolve the config against these roots and this environment."""
    environ = os.environ if environ is None else environ
    real_roots = tuple(dict.fromkeys(_real(r) for r in roots))
    writable: list[Path] = []
    skipped: list[str] = []
    if config.mode == "workspace-write":
        writable = list(real_roots)
        for extra in config.writable:
            p = _real(extra)
            if not os.path.isabs(os.path.expanduser(extra)) or not p.exists():
                skipped.append(extra)
            elif p not in writable:
                writable.append(p)
    read_only: list[Path] = []
    empty: list[Path] = []
    for w in writable:
        _protect(w, writable, read_only, empty if w in real_roots else None)
        for child in _subfolders(w):  # a folder of repositories: each one's .git too
            _protect(child, writable, read_only, None)
    hidden_dirs: list[Path] = []
    hidden_files: list[Path] = []
    for s in secret_paths(environ):
        if not os.path.lexists(s):
            continue
        r = _real(s)
        if not r.exists():
            continue
        (hidden_dirs if r.is_dir() else hidden_files).append(r)
    return Policy(
        mode=config.mode,
        network=config.network,
        roots=real_roots,
        writable=tuple(writable),
        read_only=tuple(dict.fromkeys(read_only)),
        empty_read_only=tuple(dict.fromkeys(empty)),
        hidden_dirs=tuple(dict.fromkeys(hidden_dirs)),
        hidden_files=tuple(dict.fromkeys(hidden_files)),
        skipped=tuple(skipped),
        env_allow=config.env,
        home=os.path.realpath(environ.get("HOME") or os.path.expanduser("~")),
    )
