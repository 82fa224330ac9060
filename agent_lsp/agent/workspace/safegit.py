"""agent-lsp's own git calls, deaf to what a repository configures.

A cloned repository brings its `.git/config` (core.fsmonitor, filter drivers, hooks,
pagers, aliases, `include`s, diff drivers) and its `.gitattributes`; any of them can name
a program that git runs. agent-lsp calls git itself (the undo snapshots, the line diff),
without a person choosing to, so those calls must not run anything the repository names:

- `core.fsmonitor=false`, `core.hooksPath=/dev/null` (no hook: `git add` runs
  post-index-change), `--no-pager` and `core.pager=cat`;
- every filter driver the configuration defines (`filter.<name>.clean/smudge/process`,
  found with `git config --get-regexp`, includes followed) is emptied and not required:
  git cannot switch filters off by name, and a worktree `.gitattributes` selects them;
  `core.attributesFile=/dev/null` and GIT_ATTR_NOSYSTEM drop the global attributes;
- diff plumbing gets `--no-ext-diff --no-textconv` from its caller;
- aliases are never used (every call names a built-in command, which aliases cannot
  shadow), and the system and global files are not read (GIT_CONFIG_NOSYSTEM,
  GIT_CONFIG_GLOBAL=/dev/null): agent-lsp's plumbing behaves the same for everyone.
A repository's config is always read (git has no switch for that), hence the overrides
on the command line, which win over every file.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Mapping

GIT_TIMEOUT = 60.0

# What every agent-lsp git call runs with, whatever the repository's config says.
HARDEN_ARGS: tuple[str, ...] = (
    "--no-pager",
    "-c", "core.fsmonitor=false",
    "-c", "core.useBuiltinFSMonitor=false",
    "-c", f"core.hooksPath={os.devnull}",
    "-c", "core.pager=cat",
    "-c", f"core.attributesFile={os.devnull}",
    "-c", "core.autocrlf=false",
    "-c", "core.safecrlf=false",
    "-c", "diff.external=",
    "-c", "core.untrackedCache=false",
    "-c", "index.threads=1",
)

HARDEN_ENV: dict[str, str] = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",
}

# Variables of the person's environment that would redirect or reconfigure these calls.
_DROPPED_ENV = ("GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXTERNAL_DIFF",
                "GIT_DIFF_OPTS", "GIT_EXEC_PATH", "GIT_ASKPASS", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EDITOR")


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of an agent-lsp git call: the person's, minus git's overrides, plus ours."""
    env = {k: v for k, v in os.environ.items()
           if k not in _DROPPED_ENV and not k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))}
    env.update(HARDEN_ENV)
    env.update(extra or {})
    return env


def filter_overrides(cwd: Path) -> list[str]:
    """`-c` arguments emptying each filter driver the repository's configuration defines."""
    try:
        out = subprocess.run(["git", *HARDEN_ARGS, "config", "-z", "--get-regexp", r"^filter\."],
                             cwd=cwd, env=git_env(), capture_output=True, timeout=GIT_TIMEOUT,
                             stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError):
        out = b""
    names: set[str] = set()
    for record in out.split(b"\0"):
        key = record.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        if key.startswith("filter.") and key.count(".") >= 2:
            names.add(key[len("filter."):key.rindex(".")])
    args: list[str] = []
    for name in sorted(names):
        for part in ("clean", "smudge", "process"):
            args += ["-c", f"filter.{name}.{part}="]
        args += ["-c", f"filter.{name}.required=false"]
    return args


def run_git(cwd: Path, *args: str, env: Mapping[str, str] | None = None, filters: list[str] | None = None,
            check: bool = True, timeout: float = GIT_TIMEOUT) -> bytes:
    """`git ARGS` in `cwd`, hardened.

    `filters` are filter_overrides(cwd), needed by every command that may read a work-tree
    file: `add`, and also `write-tree`/`read-tree`/`status`, which re-hash a "racily clean"
    file (one changed within the index's own timestamp) through its filter.
    """
    return subprocess.run(["git", *HARDEN_ARGS, *(filters or []), *args], cwd=cwd, env=git_env(env), check=check,
                          capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL).stdout
